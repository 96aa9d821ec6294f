// SPDX-License-Identifier: GPL-3.0-or-later
// handsim-cli validate: validation presets on grasps read from a file (docs/planner.md).
#include <algorithm>
#include <cstdio>
#include <map>
#include <thread>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/planner/grasp_records.hpp"
#include "hold_option.hpp"
#include "outputs.hpp"
#include "validate_records.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli validate GRASPS.jsonl --preset P [--preset Q]... [--out FILE]\n"
    "                            [--hold drives|pd] [--full-duration] [--threads T]\n"
    "                            [--quiet]\n\n"
    "Runs validation presets (six-directions, tug, lift, lift-shake; docs/planner.md) in the\n"
    "engine on every grasp of a grasp file: the hand closes with its own drives from the\n"
    "recorded pre-grasp, the object is set free and loaded. Each preset's outcome replaces any\n"
    "earlier one of the same name in the records, written to --out (default: the input file,\n"
    "rewritten atomically).\n"
    "  --hold drives|pd  how the closed hand holds under the load: its own drives (default) or\n"
    "                    a PD servo per joint as the peers hold it (not for lift-shake)\n"
    "  --full-duration   every direction runs its whole duration (default: it ends once the\n"
    "                    grasp holds steadily, docs/planner.md, \"Steady holds\")\n";

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--preset", "--out", "--threads", "--hold"},
                  {"--quiet", "--full-duration"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(1, "one grasp file");
  const std::string in = args.positional()[0];
  const std::string out = args.value("--out").value_or(in);
  requireWritable({"--out", out});
  std::vector<planner::ValidationPreset> presets;
  for (const auto& p : args.values("--preset")) presets.push_back(planner::validationPreset(p));
  if (presets.empty()) throw UsageError("give at least one --preset");
  applyHold(args.value("--hold"), presets);
  applyFullDuration(args.has("--full-duration"), presets);
  unsigned threads = 1;
  if (const auto t = args.value("--threads")) {
    const double v = parseNumber(*t, "--threads");
    if (v < 0 || v > 256 || v != std::floor(v)) throw UsageError("--threads: 0 to 256");
    threads = v == 0 ? std::max(1u, std::thread::hardware_concurrency()) : static_cast<unsigned>(v);
  }
  std::vector<planner::GraspRecord> records = planner::loadGraspRecords(in);
  const bool quiet = args.has("--quiet");

  // One validator per (hand, object, preset), compiled once.
  std::map<std::string, std::shared_ptr<const hand::HandModel>> hands;
  std::map<std::string, sim::ObjectModel> objects;
  for (const auto& preset : presets) {
    std::map<std::string, std::unique_ptr<planner::Validator>> validators;
    std::vector<const planner::Validator*> of(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
      const auto& r = records[i];
      const std::string hand_key = r.hand_source.empty() ? r.hand : r.hand_source;
      if (!hands.count(hand_key))
        hands[hand_key] = std::make_shared<const hand::HandModel>(hand::loadHand(hand_key));
      const auto& h = hands[hand_key];
      if (h->actuators.size() != r.actuators.size())
        throw io::InputError({in, static_cast<int>(i + 1), 0, "/actuators"},
                             "the hand '" + hand_key + "' has another number of actuators");
      const std::string object_key = r.object_source + "|" + std::to_string(r.object_scale);
      if (!objects.count(object_key))
        objects[object_key] = planner::loadPlanObject(r.object_source, r.object_scale);
      // The grasp closes against the table it was planned on (the record's support plane).
      const auto& plane = r.run.constraints.support_plane;
      const std::string key =
          hand_key + "|" + object_key + "|" + planner::supportPlaneKey(plane);
      if (!validators.count(key))
        validators[key] = std::make_unique<planner::Validator>(
            planner::makeValidator(h, objects[object_key], preset, {}, plane));
      of[i] = validators[key].get();
    }
    validateRecordsInParallel(records.size(), threads, preset.name, quiet, [&](std::size_t i) {
      auto outcome =
          planner::validateGrasp(*of[i], records[i].grasp.palm_object, records[i].grasp.pregrasp);
      auto& list = records[i].validation;
      list.erase(std::remove_if(list.begin(), list.end(),
                                [&](const auto& v) {
                                  return v.preset == preset.name && v.hold == preset.hold;
                                }),
                 list.end());
      list.push_back(std::move(outcome));
    });
    if (!quiet) std::fprintf(stderr, "\n");
  }
  planner::saveGraspRecords(out, records);
  const nlohmann::ordered_json passed = passedPerPreset(records, presets);
  printJson({{"out", out}, {"grasps", records.size()}, {"passed", passed}});
  return kOk;
}

const CommandRegistration reg({"validate", "run validation presets on a grasp file", run});

}  // namespace
}  // namespace handsim::cli
