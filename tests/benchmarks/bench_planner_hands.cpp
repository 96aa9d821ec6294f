// SPDX-License-Identifier: GPL-3.0-or-later
// Issue #21's scale targets (docs/performance.md, "Grasp planning"): for the BarrettHand,
// anthro20 and the public Allegro, LEAP and Shadow hands (found on $HANDSIM_HAND_PATH, e.g.
// <corpus>/urdf; each skipped with a message when absent), on one thread:
//  - TimeToValidated: plan with seed 1 (surface normals, the default) until 20 distinct
//    force-closure grasps or 400 candidates, then validate every grasp with six-directions
//    (the hand's own drives). Counters: planning and validation CPU seconds, grasps found,
//    grasps that passed, the candidates tried, the CPU time to 20 validated grasps (plan +
//    validate; reported as found when fewer than 20 passed) and the throughput, grasps planned
//    and validated (passed) per core-hour, with the peak RSS. Then the same grasps validated
//    again with every direction run whole (validate_whole_cpu_s; no early end in a steady hold)
//    and how many verdicts differ.
// Objects: the shipped cube (50 mm) for the BarrettHand and the Allegro and LEAP hands, the
// shipped bottle for anthro20 and the Shadow hand (human-sized hands).
// CPU seconds of the process: the machine is shared with other builds.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <vector>

#include "bench_scenes.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/planner/grasp_records.hpp"
#include "handsim/planner/planner.hpp"
#include "handsim/planner/validation.hpp"

namespace {

using namespace handsim;

struct HandCase {
  const char* label;
  const char* hand;  ///< built-in id, or a path found on HANDSIM_HAND_PATH
  const char* object;
  bool corpus;
};

const HandCase kCases[] = {
    {"barrett cube", "barrett", "cube", false},
    {"anthro20 bottle", "anthro20", "bottle", false},
    {"allegro cube", "allegro_hand/allegro_hand_right.urdf", "cube", true},
    {"leap cube", "leap_hand/leap_hand_right.urdf", "cube", true},
    {"shadow bottle", "shadow_hand/shadow_hand_right.urdf", "bottle", true},
};

void TimeToValidated(benchmark::State& state) {
  const HandCase& c = kCases[state.range(0)];
  state.SetLabel(c.label);
  if (c.corpus && hand::findOnHandSearchPath(c.hand).empty()) {
    state.SkipWithError((std::string(c.hand) +
                         " is on no folder of HANDSIM_HAND_PATH (the public URDF hands are not "
                         "shipped): skipped")
                            .c_str());
    return;
  }
  const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand(c.hand));
  const sim::ObjectModel object = planner::loadPlanObject(c.object);
  const planner::PlannerModel pm = planner::compilePlannerModel(hand, object);
  const planner::Validator v =
      planner::makeValidator(hand, object, planner::validationPreset("six-directions"));
  // The same preset with every direction run whole (no early end in a steady hold), timed
  // after the loop for the comparison.
  planner::ValidationPreset whole = planner::validationPreset("six-directions");
  whole.steady_window = 0.0;
  const planner::Validator v_whole = planner::makeValidator(hand, object, whole);
  std::vector<planner::PlannedGrasp> planned;
  std::vector<bool> verdicts;
  double plan_s = 0.0, validate_s = 0.0, to_twenty_s = 0.0;
  std::size_t found = 0;
  int passed = 0;
  std::int64_t tried = 0;
  for (auto _ : state) {
    planner::PlannerOptions o;
    o.grasps = 20;
    o.candidates = 400;
    o.seed = 1;
    const double t0 = bench::cpuSeconds();
    const auto grasps =
        planner::planGrasps(pm, o, [&](std::int64_t d, int, std::int64_t) { tried = d; });
    const double t1 = bench::cpuSeconds();
    passed = 0;
    to_twenty_s = 0.0;
    verdicts.clear();
    for (const auto& g : grasps) {
      verdicts.push_back(planner::validateGrasp(v, g.palm_object, g.pregrasp).passed);
      if (verdicts.back()) ++passed;
      if (passed == 20 && to_twenty_s == 0.0) to_twenty_s = bench::cpuSeconds() - t0;
    }
    const double t2 = bench::cpuSeconds();
    plan_s = t1 - t0;
    validate_s = t2 - t1;
    if (to_twenty_s == 0.0) to_twenty_s = t2 - t0;
    found = grasps.size();
    planned = grasps;
  }
  const double w0 = bench::cpuSeconds();
  int differ = 0;
  for (std::size_t i = 0; i < planned.size(); ++i)
    differ += planner::validateGrasp(v_whole, planned[i].palm_object, planned[i].pregrasp).passed !=
              verdicts[i];
  state.counters["validate_whole_cpu_s"] = bench::cpuSeconds() - w0;
  state.counters["verdicts_differing_from_whole"] = differ;
  state.counters["plan_cpu_s"] = plan_s;
  state.counters["validate_cpu_s"] = validate_s;
  state.counters["grasps"] = double(found);
  state.counters["passed_six_dir"] = passed;
  state.counters["candidates"] = double(tried);
  state.counters["cpu_s_to_20_validated"] = to_twenty_s;
  state.counters["planned_validated_per_core_h"] =
      plan_s + validate_s > 0.0 ? double(found) * 3600.0 / (plan_s + validate_s) : 0.0;
  state.counters["passed_per_core_h"] =
      plan_s + validate_s > 0.0 ? double(passed) * 3600.0 / (plan_s + validate_s) : 0.0;
  state.counters["peak_rss_MB"] = double(bench::peakRssKb()) / 1024.0;
}

}  // namespace

BENCHMARK(TimeToValidated)->DenseRange(0, 4)->Iterations(1)->Unit(benchmark::kSecond);
BENCHMARK_MAIN();
