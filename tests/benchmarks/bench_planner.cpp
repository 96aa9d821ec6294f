// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp planning (issue #21, docs/performance.md "Grasp planning"): the BarrettHand on the
// shipped cube and sphere (and bottle and mug), one thread, both strategies (GraspIt!'s simulated
// annealing as handsim builds it, the baseline, and handsim's surface-normal approach).
//  - FirstForceClosure: time to the first force-closure grasp, one run per seed 1..20; the
//    counters give the median over the seeds and how many found one within the budget.
//  - TwentyGrasps: one run to 20 distinct force-closure grasps (seed 1), also on the shipped
//    bottle and mug; counters: grasps
//    found, candidates tried, the share of candidates that closed in force closure.
// Times are CPU seconds of the process (one thread; the machine is shared with other builds).
// No GraspIt! is installed on this machine, so no peer runs in the same process; the
// comparison with the GraspIt! figures is in docs/performance.md.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "bench_scenes.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/planner/grasp_records.hpp"
#include "handsim/planner/planner.hpp"

namespace {

using namespace handsim;

const planner::PlannerModel& model(const std::string& object) {
  static std::map<std::string, planner::PlannerModel> cache;
  auto it = cache.find(object);
  if (it == cache.end()) {
    const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
    it = cache.emplace(object, planner::compilePlannerModel(hand, planner::loadPlanObject(object)))
             .first;
  }
  return it->second;
}

const char* kObjects[] = {"cube", "sphere", "bottle", "mug"};

void FirstForceClosure(benchmark::State& state) {
  const auto strategy = static_cast<planner::Strategy>(state.range(0));
  const std::string object = kObjects[state.range(1)];
  const planner::PlannerModel& pm = model(object);
  std::vector<double> times;
  int found = 0;
  std::int64_t candidates = 0;
  for (auto _ : state) {
    times.clear();
    found = 0;
    candidates = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      planner::PlannerOptions o;
      o.strategy = strategy;
      o.grasps = 1;
      o.candidates = 200;
      o.seed = seed;
      std::int64_t tried = 0;
      const double start = handsim::bench::cpuSeconds();
      const auto g =
          planner::planGrasps(pm, o, [&](std::int64_t d, int, std::int64_t) { tried = d; });
      times.push_back(handsim::bench::cpuSeconds() - start);
      found += g.empty() ? 0 : 1;
      candidates += tried;
    }
  }
  std::sort(times.begin(), times.end());
  state.counters["median_cpu_s"] = 0.5 * (times[9] + times[10]);
  state.counters["max_cpu_s"] = times.back();
  state.counters["found_of_20"] = found;
  state.counters["candidates_mean"] = double(candidates) / 20.0;
  state.counters["peak_rss_MB"] = double(handsim::bench::peakRssKb()) / 1024.0;
  state.SetLabel(std::string(planner::strategyName(strategy)) + " " + object);
}

void TwentyGrasps(benchmark::State& state) {
  const auto strategy = static_cast<planner::Strategy>(state.range(0));
  const std::string object = kObjects[state.range(1)];
  const planner::PlannerModel& pm = model(object);
  std::size_t grasps = 0;
  std::int64_t tried = 0;
  for (auto _ : state) {
    planner::PlannerOptions o;
    o.strategy = strategy;
    o.grasps = 20;
    o.candidates = 400;
    o.seed = 1;
    grasps =
        planner::planGrasps(pm, o, [&](std::int64_t d, int, std::int64_t) { tried = d; }).size();
  }
  state.counters["grasps"] = double(grasps);
  state.counters["candidates"] = double(tried);
  state.counters["force_closure_share"] = tried > 0 ? double(grasps) / double(tried) : 0.0;
  state.counters["peak_rss_MB"] = double(handsim::bench::peakRssKb()) / 1024.0;
  state.SetLabel(std::string(planner::strategyName(strategy)) + " " + object);
}

}  // namespace

BENCHMARK(FirstForceClosure)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK(TwentyGrasps)
    ->ArgsProduct({{0, 1}, {0, 1, 2, 3}})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);
BENCHMARK_MAIN();
