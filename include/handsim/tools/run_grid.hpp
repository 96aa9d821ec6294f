// SPDX-License-Identifier: GPL-3.0-or-later
// Many runs of one model with different inputs (issue 20 item 2): a grid of cells numbered
// 0 .. total - 1, run on several threads with progress and an estimate of the time left,
// split into shards for several processes, resumed without the cells already done, and each
// cell's outcome (ok, refused, lost, ...) counted. `handsim-cli sweep` (grasp::runSweep),
// `handsim-cli vary` and the planner's validation batches run on it; what a cell computes and
// how its rows are stored stays theirs.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace handsim::sim {

/// What became of one cell.
enum class CellOutcome {
  Ok,         ///< ran and gave its result
  Refused,    ///< not run: its inputs cannot run together (e.g. the hand starts inside the
              ///< object, a step above the stable limit)
  Lost,       ///< ran, but the engine's guards stopped the object (a runaway, out of the world)
  NonFinite,  ///< ran into non-finite values
  Failed,     ///< threw while running
};
inline constexpr std::size_t kCellOutcomes = 5;
/// "ok", "refused", "lost", "non-finite", "failed" (the names vary's CSV writes).
const char* cellOutcomeName(CellOutcome outcome);

/// Where a grid is: cells finished of the cells this process runs, their outcomes, wall time.
struct GridProgress {
  std::size_t done = 0;
  std::size_t total = 0;
  std::array<std::size_t, kCellOutcomes> outcomes{};  ///< per CellOutcome, of the done cells
  double elapsed_s = 0.0;                             ///< since runGrid started [s]
  /// Time left at the mean rate so far, elapsed_s / done * (total - done) [s]; NaN before
  /// the first cell is done.
  double eta_s = 0.0;
  std::size_t count(CellOutcome o) const { return outcomes[static_cast<std::size_t>(o)]; }
};
/// "LABEL: done/total" with the refused, lost and failed counts when there are any and the
/// time left, e.g. "sweep: 12/40 (2 refused), 31 s left".
std::string progressLine(const std::string& label, const GridProgress& progress);

/// Shard `index` of `count` (0 <= index < count) runs the cells whose number modulo count is
/// index, so the shards together run each cell exactly once.
struct GridShard {
  int index = 0;
  int count = 1;
};

/// The cells of 0 .. total - 1 in `shard` for which `done` (may be empty) is false, in
/// increasing order: what a resumed shard still has to run.
std::vector<std::size_t> pendingCells(std::size_t total, const GridShard& shard = {},
                                      const std::function<bool(std::size_t)>& done = {});

struct GridOptions {
  unsigned threads = 0;  ///< worker threads, the calling one among them (0: all cores)
  /// After each cell, from one thread at a time: the position of the cell in `cells`, its
  /// outcome and the progress (which counts it). Store the cell's result and report here.
  std::function<void(std::size_t position, CellOutcome outcome, const GridProgress& progress)>
      finished;
};

/// Runs `evaluate(cells[k])` for every k, each once, on options.threads threads. A cell's
/// result must not depend on the thread that ran it (each cell its own sim::Run over a shared
/// const Model). The first exception out of `evaluate` or `finished` stops the cells not yet
/// started and is rethrown here once the running ones are done. Returns the final progress.
GridProgress runGrid(const std::vector<std::size_t>& cells,
                     const std::function<CellOutcome(std::size_t cell)>& evaluate,
                     const GridOptions& options = {});

}  // namespace handsim::sim
