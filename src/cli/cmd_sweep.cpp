// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/grasp/grasp_sweep.hpp"
#include "handsim/io/atomic_file.hpp"
#include "handsim/io/input_file.hpp"
#include "handsim/tools/run_grid.hpp"
#include "outputs.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli sweep SPEC.json --out RESULTS.csv [--threads N] [--shard i/N]\n"
    "                         [--hold-test | --no-hold-test] [--quiet]\n\n"
    "Evaluates many initial hand poses around an object (docs/grasp-sweep.md): for each,\n"
    "whether the hand starts in collision, and the force closure, epsilon and volume of the\n"
    "grasp it closes to. Prints a summary like seed 002's Table I.\n"
    "  --out FILE   results, one row per pose (rewritten atomically as the sweep goes);\n"
    "               poses already in FILE are skipped, so an interrupted sweep resumes;\n"
    "               each row carries the sweep's spec hash, and a FILE of another sweep is\n"
    "               refused; several processes (--shard) may share one FILE\n"
    "  --threads N  worker threads (default: all cores)\n"
    "  --shard i/N  evaluate only poses with index % N == i (0 <= i < N), for cluster job\n"
    "               arrays; the shards' CSV files concatenate (keep one header)\n"
    "  --hold-test  after closing, free the object, lift, shake and check that it stays\n"
    "               (columns held, slip_m); the spec's \"hold_test\" block, or its defaults\n"
    "  --no-hold-test  skip the hold test even if the spec has one\n"
    "  --quiet      no progress on stderr\n";

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--out", "--threads", "--shard"},
                  {"--quiet", "--hold-test", "--no-hold-test"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(1, "one sweep file");
  const std::string out = args.required("--out");
  // The results file is read (to resume) and rewritten; it must be writable before the sweep
  // starts, and must not be the spec or a file the spec reads.
  const std::vector<OutputFile> outputs{{"--out", out}};
  requireWritable(outputs.front());
  requireDistinct(outputs, {args.positional()[0]});
  unsigned threads = 0;
  if (const auto t = args.value("--threads")) {
    const double v = parseNumber(*t, "--threads");
    if (v < 1 || v > 256 || v != static_cast<int>(v)) throw UsageError("--threads: 1 to 256");
    threads = static_cast<unsigned>(v);
  }
  int shard = 0, shards = 1;
  if (const auto s = args.value("--shard")) {
    const auto slash = s->find('/');
    if (slash == std::string::npos) throw UsageError("--shard: write i/N, e.g. 0/4");
    const double i = parseNumber(s->substr(0, slash), "--shard");
    const double n = parseNumber(s->substr(slash + 1), "--shard");
    if (n < 1 || i < 0 || i >= n || i != static_cast<int>(i) || n != static_cast<int>(n))
      throw UsageError("--shard: need whole numbers with 0 <= i < N");
    shard = static_cast<int>(i);
    shards = static_cast<int>(n);
  }
  if (args.has("--hold-test") && args.has("--no-hold-test"))
    throw UsageError("give --hold-test or --no-hold-test, not both");
  grasp::SweepSpec spec = grasp::loadSweepSpec(args.positional()[0]);
  if (args.has("--hold-test") && !spec.hold_test) spec.hold_test = grasp::HoldTestSpec{};
  if (args.has("--no-hold-test")) spec.hold_test.reset();
  requireDistinct(outputs, {spec.hand->source_file, spec.object.source});

  // Rows already in the results file, every one checked to be this sweep's (spec hash,
  // index, palm position). Several processes (shards) may write one file at once: each
  // reads, merges and rewrites it under a lock, so no one's rows are lost.
  const std::string hash = grasp::sweepSpecHash(spec);
  std::map<int, grasp::SweepResult> rows;
  auto mergeFile = [&]() {
    std::error_code ec;
    if (!std::filesystem::exists(out, ec)) return;
    for (auto& r :
         grasp::parseResumeCsv(io::readInputFile(out, grasp::kMaxSweepResultsBytes), out, spec))
      rows.emplace(r.index, std::move(r));
  };
  {
    const io::OutputLock lock(out);
    mergeFile();
  }
  const std::size_t had = rows.size();
  std::vector<int> todo;
  for (std::size_t i :
       sim::pendingCells(spec.palm_poses.size(), {shard, shards},
                         [&](std::size_t c) { return rows.count(static_cast<int>(c)) > 0; }))
    todo.push_back(static_cast<int>(i));

  const bool quiet = args.has("--quiet");
  if (!quiet)
    std::fprintf(stderr, "sweep: %zu poses to evaluate (%zu already in %s)\n", todo.size(), had,
                 out.c_str());
  std::size_t finished = 0;
  const std::size_t save_every = std::max<std::size_t>(1, todo.size() / 20);
  auto save = [&]() {
    const io::OutputLock lock(out);
    mergeFile();  // what other processes wrote meanwhile
    std::vector<grasp::SweepResult> all;
    all.reserve(rows.size());
    for (const auto& [index, r] : rows) all.push_back(r);
    io::writeFileAtomically(out, grasp::sweepCsv(all));
  };
  grasp::runSweep(
      spec, todo, threads,
      grasp::SweepProgress([&](const grasp::SweepResult& r, const sim::GridProgress& p) {
        grasp::SweepResult row = r;
        row.spec_hash = hash;
        rows[row.index] = std::move(row);
        ++finished;
        if (!quiet && (finished * 100 / todo.size()) != ((finished - 1) * 100 / todo.size()))
          std::fprintf(stderr, "\r%s   ", sim::progressLine("sweep", p).c_str());
        if (finished % save_every == 0) save();
      }));
  save();
  if (!quiet) std::fprintf(stderr, "\rsweep: done %zu/%zu\n", finished, todo.size());
  std::vector<grasp::SweepResult> results;
  for (const auto& [index, r] : rows) results.push_back(r);

  const grasp::SweepSummary s = grasp::summarize(results);
  printJson({{"sweep", spec.source_file},
             {"results", out},
             {"configurations", s.configurations},
             {"collision_free", s.collision_free},
             {"force_closure", s.force_closure},
             {"epsilon_mean", s.epsilon_mean},
             {"epsilon_std", s.epsilon_std},
             {"hold_tested", s.hold_tested},
             {"held", s.held},
             {"force_closure_tested", s.force_closure_tested},
             {"held_force_closure", s.held_force_closure},
             {"epsilon_held_mean", s.epsilon_held_mean},
             {"epsilon_held_std", s.epsilon_held_std},
             {"epsilon_dropped_mean", s.epsilon_dropped_mean},
             {"epsilon_dropped_std", s.epsilon_dropped_std},
             {"shard", std::to_string(shard) + "/" + std::to_string(shards)}});
  return kOk;
}

const CommandRegistration reg({"sweep", "evaluate grasps from many initial hand poses", run});

}  // namespace
}  // namespace handsim::cli
