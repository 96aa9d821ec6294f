// SPDX-License-Identifier: GPL-3.0-or-later
// evaluateGrasp throughput: contacts spread over a sphere of radius 0.04 m (Fibonacci points,
// normals towards the centre, mu = 0.5), for 2, 3, 4, 8 contacts and 4, 8, 16 cone edges.
// Two hard-finger contacts never span 6-D, so that row measures the degenerate early exit.
// Counters: hull facets and primitive wrenches per evaluation.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "handsim/grasp/grasp_quality.hpp"

namespace {

std::vector<handsim::grasp::GraspContact> sphereGrasp(int n) {
  const double golden = 3.14159265358979323846 * (3.0 - std::sqrt(5.0));
  std::vector<handsim::grasp::GraspContact> c;
  for (int i = 0; i < n; ++i) {
    const double z = 1.0 - 2.0 * (i + 0.5) / n;
    const double r = std::sqrt(1.0 - z * z);
    const Eigen::Vector3d d(r * std::cos(golden * i), r * std::sin(golden * i), z);
    c.push_back({0.04 * d, -d, 0.5});
  }
  return c;
}

void evaluate(benchmark::State& state) {
  const auto contacts = sphereGrasp(static_cast<int>(state.range(0)));
  handsim::grasp::GraspQualityOptions o;
  o.cone_edges = static_cast<int>(state.range(1));
  o.torque_radius = 0.04;
  handsim::grasp::GraspQuality q;
  for (auto _ : state) {
    q = handsim::grasp::evaluateGrasp(contacts, o);
    benchmark::DoNotOptimize(q.epsilon);
  }
  state.counters["facets"] = q.hull_facets;
  state.counters["wrenches"] = static_cast<double>(contacts.size()) * o.cone_edges;
  state.counters["closure"] = q.force_closure;
}

BENCHMARK(evaluate)
    ->ArgNames({"contacts", "edges"})
    ->ArgsProduct({{2, 3, 4, 8}, {4, 8, 16}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
