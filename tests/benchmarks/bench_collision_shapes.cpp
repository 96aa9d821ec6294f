// SPDX-License-Identifier: GPL-3.0-or-later
// A hand closing on an object with every body's collision shape as its scenario and hand say
// ("mesh" or "hull"): CPU time per step, contacts per step, the deepest penetration and where
// the actuators stop (docs/collision.md, "A default for URDF hands"). Usage:
//   bench_collision_shapes SCENARIO.json...
// Each scenario runs to its end twice; the second run is timed (the first warms the caches).
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "handsim/formats/scenario.hpp"
#include "handsim/sim/run.hpp"

namespace {

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace handsim;
  std::printf("%-44s %9s %9s %8s %8s %9s  %s\n", "scenario", "us/step", "us/step*", "contacts",
              "max", "depth_mm", "final actuator positions");
  for (int i = 1; i < argc; ++i) {
    try {
      const sim::Scenario scenario = sim::loadScenario(argv[i]);
      const auto model = sim::compileScenario(scenario);
      sim::Run run(model, scenario.plan);
      run.runToEnd();
      run.reset();
      double total = 0.0, touching = 0.0, depth = 0.0;
      long contacts = 0, touching_steps = 0;
      std::size_t most = 0;
      while (!run.finished()) {
        const double t0 = cpuSeconds();
        run.step();
        const double dt = cpuSeconds() - t0;
        total += dt;
        const auto& c = run.state().contacts;
        contacts += static_cast<long>(c.size());
        most = std::max(most, c.size());
        if (!c.empty()) touching += dt, ++touching_steps;
        for (const auto& k : c) depth = std::max(depth, k.depth);
      }
      const double steps = static_cast<double>(run.totalSteps());
      std::printf("%-44s %9.1f %9.1f %8.2f %8zu %9.3f ", argv[i], 1e6 * total / steps,
                  touching_steps ? 1e6 * touching / static_cast<double>(touching_steps) : 0.0,
                  static_cast<double>(contacts) / steps, most, 1e3 * depth);
      for (double a : run.state().actuator_position) std::printf(" %.3f", a);
      for (const auto& pose : run.state().object_pose_world) {
        const Eigen::Vector3d moved =
            pose.translation() - scenario.plan.object_pose_world.front().translation();
        std::printf("  object moved %.2f mm", 1e3 * moved.norm());
      }
      std::printf("\n");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", argv[i], e.what());
      return 1;
    }
  }
  std::printf("us/step*: steps with a hand-object contact only\n");
  return 0;
}
