// SPDX-License-Identifier: GPL-3.0-or-later
// Real-time factor of the BarrettHand lifting a free object (issue #9, docs/performance.md):
// assets/scenarios/barrett_lift_cube.json (the hand closes on a 0.2 kg object on the ground,
// the palm lifts it 10 cm and holds it; 14 s at dt = 1 ms) with the shipped 12-triangle cube
// replaced by finely tessellated objects of the same size and mass, generated here: the 50 mm
// cube with every face cut into a 29 x 29 grid (10 092 triangles) and a 50 mm UV sphere of
// 100 segments (9 800 triangles). No peer: the number is simulated seconds per CPU second.
//
// Besides Google Benchmark's timing (one iteration = the whole 14 s run) the program prints a
// report of one run per object: real-time factor, whether the object was lifted and held, and
// the time split over the stages of sim::step (docs/simulation.md), measured by running the
// stages one by one exactly as sim::step does (checked: the same final state as sim::Run, bit
// for bit). Flags (before Google Benchmark's own): --object=cube12|cube10k|sphere10k (only that
// one, for peak-memory runs), --report_only, --no_report, --warm_start (warm start with tolerance
// 1e-9, the default since "Converged solve by default"), --cold (the earlier default: no warm
// start, tolerance 0, no torsional friction; --torsional_m after it still applies), --torsional_m=X (the torsional friction length, 0 off), --sweeps=N (at most N sweeps).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_scenes.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

namespace {

using namespace handsim;

constexpr double kHoldFrom = 4.0;  // the palm has stopped (it moves 2 s to about 3.2 s) [s]

using bench::cpuSeconds;

struct ObjectCase {
  std::string name;  // bench::liftScenario's object
};

const std::vector<ObjectCase>& cases() {
  static const std::vector<ObjectCase> c = {{"cube12"}, {"cube10k"}, {"sphere10k"}};
  return c;
}

bool g_warm_start = false;
bool g_cold = false;  // --cold: cold 50-sweep solve to the exact fixed point, no torsion
double g_torsional = -1.0;  // --torsional_m=X: ContactOptions::torsional (negative: the scenario's)
int g_sweeps = 0;           // --sweeps=N: SolverOptions::sweeps (0: the scenario's)

struct LiftScene {
  std::shared_ptr<const sim::Model> model;
  sim::RunPlan plan;
  std::size_t triangles = 0;
};

LiftScene makeScene(const ObjectCase& c) {
  sim::Scenario sc = bench::liftScenario(c.name);
  if (g_warm_start) {  // --warm_start: SolverOptions::warm_start with tolerance 1e-9
    sc.options.solver.warm_start = true;
    sc.options.solver.tolerance = 1e-9;
  }
  if (g_cold) {  // --cold: the solve before the converged one became the default
    sc.options.solver.warm_start = false;
    sc.options.solver.tolerance = 0.0;
    sc.options.contact.constraint()->torsional = 0.0;
  }
  if (g_torsional >= 0.0) sc.options.contact.constraint()->torsional = g_torsional;
  if (g_sweeps > 0) sc.options.solver.sweeps = g_sweeps;
  const sim::ObjectModel& obj = sc.objects.at(0);
  return {sim::compileScenario(sc), sc.plan, obj.geometry->collision.mesh.triangleCount()};
}

// Object COM in the palm frame.
Eigen::Vector3d objectInPalm(const sim::Model& m, const sim::SimState& s) {
  return s.palm_pose_world.inverse() * (s.object_pose_world[0] * m.objects[0].mass.centre_of_mass);
}

// --------------------------------------------------------------------- stage-by-stage run

enum Stage {
  kReferences,
  kDetect,
  kActuation,
  kDynamics,
  kSolve,
  kClutches,
  kTorques,
  kIntegrate,
  kForward,
  kRunaway,
  kStageCount
};
const char* kStageNames[kStageCount] = {"references (trajectories, palm)",
                                        "detectContacts",
                                        "computeActuation",
                                        "computeDynamics",
                                        "solveContacts",
                                        "updateClutches (+ re-solve)",
                                        "computeJointTorques",
                                        "integrate",
                                        "forwardPosition",
                                        "checkRunaway"};

struct Split {
  double seconds[kStageCount] = {};
};

// sim::Run::step without controller and recorder, each stage timed (steady_clock).
void timedStep(const sim::Model& model, const sim::RunPlan& plan, sim::SimState& s, Split& split) {
  using clock = std::chrono::steady_clock;
  auto t0 = clock::now();
  auto lap = [&](Stage st) {
    const auto t1 = clock::now();
    split.seconds[st] += std::chrono::duration<double>(t1 - t0).count();
    t0 = t1;
  };
  sim::writeReferences(plan, plan.palm_motion, plan.palm_pose_world, s,
                       s.time + model.options.dt);
  lap(kReferences);
  sim::detectContacts(model, s);
  lap(kDetect);
  sim::computeActuation(model, s);
  lap(kActuation);
  sim::computeDynamics(model, s);
  lap(kDynamics);
  sim::solveContacts(model, s);
  lap(kSolve);
  if (sim::updateClutches(model, s)) {
    sim::forwardPosition(model, s);
    sim::computeDynamics(model, s);
    sim::solveContacts(model, s);
  }
  lap(kClutches);
  sim::computeJointTorques(model, s);
  lap(kTorques);
  sim::integrate(model, s);
  lap(kIntegrate);
  sim::forwardPosition(model, s);
  lap(kForward);
  sim::checkRunaway(model, s);
  if (!plan.palm_motion.empty())
    s.palm_pose_world = plan.palm_motion.at(plan.palm_pose_world, s.time).pose_world;
  lap(kRunaway);
}

// ----------------------------------------------------------------------------- report

struct Result {
  std::string name;
  std::size_t triangles = 0;
  double cpu_s = 0.0, sim_s = 0.0;
  double rise = 0.0;       // object COM z, end minus start [m]
  double hold_slip = 0.0;  // object in the palm frame, 14 s minus 4 s [m]
  double contacts = 0.0;   // hand-object contacts per step, mean
  std::int64_t warnings = 0;
  std::string first_warning;
  Split split;
  bool same_as_run = false;
};

Result report(const ObjectCase& c) {
  const LiftScene scene = makeScene(c);
  Result r;
  r.name = c.name;
  r.triangles = scene.triangles;
  // 1. sim::Run, timed as a whole.
  sim::Run run(scene.model, scene.plan);
  const double z0 =
      (run.state().object_pose_world[0] * scene.model->objects[0].mass.centre_of_mass).z();
  Eigen::Vector3d at_hold = Eigen::Vector3d::Zero();
  std::int64_t contacts = 0;
  double outside = 0.0;
  const double c0 = cpuSeconds();
  while (!run.finished()) {
    run.step();
    const double a = cpuSeconds();
    contacts += static_cast<std::int64_t>(run.state().contacts.size());
    if (run.state().step == std::llround(kHoldFrom / scene.model->options.dt))
      at_hold = objectInPalm(*scene.model, run.state());
    outside += cpuSeconds() - a;
  }
  r.cpu_s = cpuSeconds() - c0 - outside;
  r.sim_s = run.state().time;
  r.rise =
      (run.state().object_pose_world[0] * scene.model->objects[0].mass.centre_of_mass).z() - z0;
  r.hold_slip = (objectInPalm(*scene.model, run.state()) - at_hold).norm();
  r.contacts = static_cast<double>(contacts) / static_cast<double>(run.state().step);
  r.warnings = run.state().warning_count;
  if (!run.state().warnings.empty()) r.first_warning = run.state().warnings.front();
  // 2. The same run stage by stage.
  sim::Run fresh(scene.model, scene.plan);  // the initial state as Run::reset makes it
  sim::SimState s = fresh.state();
  sim::sizeWorkspace(*scene.model, s);
  while (s.step < run.totalSteps()) timedStep(*scene.model, scene.plan, s, r.split);
  r.same_as_run = s.object_pose_world[0].matrix() == run.state().object_pose_world[0].matrix() &&
                  s.actuator_position == run.state().actuator_position;
  return r;
}

void printReport(const std::vector<Result>& rs) {
  std::printf(
      "\n## BarrettHand lifts a free 0.2 kg object (barrett_lift_cube.json, 14 s, dt 1 ms)\n\n");
  std::printf(
      "| object | triangles | CPU s | real-time factor | us/step | contacts/step | "
      "rise mm | slip in palm 4-14 s mm | warnings "
      "|\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Result& r : rs)
    std::printf("| %s | %zu | %.3f | %.1f | %.1f | %.1f | %.2f | %.3g | %lld |\n", r.name.c_str(),
                r.triangles, r.cpu_s, r.sim_s / r.cpu_s, 1e6 * r.cpu_s / (r.sim_s / 1e-3),
                r.contacts, 1e3 * r.rise, 1e3 * r.hold_slip, static_cast<long long>(r.warnings));
  std::printf(
      "\nTime split (stage by stage, steady_clock; share of the stages' total):\n\n| stage |");
  for (const Result& r : rs) std::printf(" %s |", r.name.c_str());
  std::printf("\n|---|");
  for (std::size_t i = 0; i < rs.size(); ++i) std::printf("---:|");
  std::printf("\n");
  for (int st = 0; st < kStageCount; ++st) {
    std::printf("| %s |", kStageNames[st]);
    for (const Result& r : rs) {
      double total = 0.0;
      for (double x : r.split.seconds) total += x;
      std::printf(" %.1f %% (%.1f us) |", 100.0 * r.split.seconds[st] / total,
                  1e6 * r.split.seconds[st] / (r.sim_s / 1e-3));
    }
    std::printf("\n");
  }
  for (const Result& r : rs) {
    std::printf("%s: stage-by-stage run %s sim::Run's final state\n", r.name.c_str(),
                r.same_as_run ? "matches" : "DIFFERS FROM");
    if (!r.first_warning.empty())
      std::printf("%s: first warning: %s\n", r.name.c_str(), r.first_warning.c_str());
  }
}

void BM_Lift(benchmark::State& state, const ObjectCase* c) {
  const LiftScene scene = makeScene(*c);
  sim::Run run(scene.model, scene.plan);
  double simulated = 0.0;
  for (auto _ : state) {
    state.PauseTiming();
    run.reset();
    state.ResumeTiming();
    while (!run.finished()) run.step();
    simulated += run.state().time;
  }
  // Simulated seconds per CPU second (kIsRate divides by the CPU time).
  state.counters["realtime_factor"] = benchmark::Counter(simulated, benchmark::Counter::kIsRate);
  state.counters["triangles"] = static_cast<double>(scene.triangles);
}

}  // namespace

int main(int argc, char** argv) {
  std::string only;
  bool do_report = true, bench = true;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--object=", 0) == 0)
      only = a.substr(9);
    else if (a == "--report_only")
      bench = false;
    else if (a == "--warm_start")
      g_warm_start = true;
    else if (a == "--cold")
      g_cold = true;
    else if (a.rfind("--torsional_m=", 0) == 0)
      g_torsional = std::stod(a.substr(14));
    else if (a.rfind("--sweeps=", 0) == 0)
      g_sweeps = std::stoi(a.substr(9));
    else if (a == "--no_report")
      do_report = false;
    else
      rest.push_back(argv[i]);
  }
  try {
    std::vector<const ObjectCase*> selected;
    for (const ObjectCase& c : cases())
      if (only.empty() || only == c.name) selected.push_back(&c);
    if (selected.empty()) {
      std::fprintf(stderr, "bench_lift: unknown --object=%s\n", only.c_str());
      return 2;
    }
    if (do_report) {
      std::vector<Result> rs;
      for (const ObjectCase* c : selected) rs.push_back(report(*c));
      printReport(rs);
    }
    if (bench) {
      for (const ObjectCase* c : selected)
        benchmark::RegisterBenchmark(("Lift14s/" + c->name).c_str(), BM_Lift, c)
            ->Unit(benchmark::kMillisecond)
            ->Iterations(c->name == "cube10k" ? 1 : 3);  // cube10k: about 100 s a run
      int n = static_cast<int>(rest.size());
      benchmark::Initialize(&n, rest.data());
      if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
      benchmark::RunSpecifiedBenchmarks();
      benchmark::Shutdown();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_lift: %s\n", e.what());
    return 1;
  }
  std::printf("peak resident set size: %ld kB (objects: %s)\n", bench::peakRssKb(),
              only.empty() ? "all" : only.c_str());
  return 0;
}
