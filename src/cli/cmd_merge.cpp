// SPDX-License-Identifier: GPL-3.0-or-later
// handsim-cli merge: the shards of a planning run joined into its one-process result.
#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/planner/grasp_records.hpp"
#include "outputs.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli merge SHARD.jsonl... --out GRASPS.jsonl\n\n"
    "Joins the files of `handsim-cli plan --shard i/N` (every shard of one run, each once) into\n"
    "the file one process would have written with the same seed and options (docs/planner.md).\n";

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--out"}, {});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  if (args.positional().empty()) throw UsageError("give the shard files to merge");
  const std::string out = args.required("--out");
  const std::vector<OutputFile> outputs{{"--out", out}};
  requireWritable(outputs.front());
  requireDistinct(outputs, args.positional());
  std::vector<std::vector<planner::GraspRecord>> shards;
  for (const auto& f : args.positional()) shards.push_back(planner::loadGraspRecords(f));
  const auto merged = planner::mergeShardRecords(shards);
  planner::saveGraspRecords(out, merged);
  printJson({{"out", out}, {"shards", args.positional().size()}, {"grasps", merged.size()}});
  return kOk;
}

const CommandRegistration reg({"merge", "join the shards of a planning run", run});

}  // namespace
}  // namespace handsim::cli
