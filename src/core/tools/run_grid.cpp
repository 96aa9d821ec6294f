// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/tools/run_grid.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace handsim::sim {

const char* cellOutcomeName(CellOutcome outcome) {
  switch (outcome) {
    case CellOutcome::Ok:
      return "ok";
    case CellOutcome::Refused:
      return "refused";
    case CellOutcome::Lost:
      return "lost";
    case CellOutcome::NonFinite:
      return "non-finite";
    case CellOutcome::Failed:
      return "failed";
  }
  return "?";
}

std::string progressLine(const std::string& label, const GridProgress& p) {
  std::string line = label + ": " + std::to_string(p.done) + "/" + std::to_string(p.total);
  std::string counts;
  for (CellOutcome o :
       {CellOutcome::Refused, CellOutcome::Lost, CellOutcome::NonFinite, CellOutcome::Failed})
    if (p.count(o) > 0)
      counts +=
          (counts.empty() ? "" : ", ") + std::to_string(p.count(o)) + " " + cellOutcomeName(o);
  if (!counts.empty()) line += " (" + counts + ")";
  if (p.done < p.total && std::isfinite(p.eta_s)) {
    char eta[64];
    const double s = std::max(0.0, p.eta_s);
    if (s < 120.0)
      std::snprintf(eta, sizeof eta, ", %.0f s left", s);
    else if (s < 7200.0)
      std::snprintf(eta, sizeof eta, ", %.0f min left", s / 60.0);
    else
      std::snprintf(eta, sizeof eta, ", %.1f h left", s / 3600.0);
    line += eta;
  }
  return line;
}

std::vector<std::size_t> pendingCells(std::size_t total, const GridShard& shard,
                                      const std::function<bool(std::size_t)>& done) {
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count)
    throw std::invalid_argument("pendingCells: shard index must be in 0 .. count - 1");
  std::vector<std::size_t> out;
  for (std::size_t c = static_cast<std::size_t>(shard.index); c < total;
       c += static_cast<std::size_t>(shard.count))
    if (!done || !done(c)) out.push_back(c);
  return out;
}

GridProgress runGrid(const std::vector<std::size_t>& cells,
                     const std::function<CellOutcome(std::size_t)>& evaluate,
                     const GridOptions& options) {
  unsigned threads = options.threads;
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads =
      std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(1, cells.size())));
  const auto start = std::chrono::steady_clock::now();
  GridProgress progress;
  progress.total = cells.size();
  progress.eta_s = std::numeric_limits<double>::quiet_NaN();
  std::atomic<std::size_t> next{0};
  std::mutex report;
  std::exception_ptr failure;
  auto worker = [&]() {
    try {
      for (std::size_t k = next++; k < cells.size(); k = next++) {
        const CellOutcome outcome = evaluate(cells[k]);
        const std::lock_guard<std::mutex> lock(report);
        ++progress.done;
        ++progress.outcomes[static_cast<std::size_t>(outcome)];
        progress.elapsed_s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        progress.eta_s = progress.elapsed_s / static_cast<double>(progress.done) *
                         static_cast<double>(progress.total - progress.done);
        if (!options.finished) continue;
        try {
          options.finished(k, outcome, progress);
        } catch (...) {
          // Stop the grid before the lock is released: otherwise the other threads, taking the
          // lock first, would go on through every remaining cell (a write that failed in
          // `finished` must not let the run continue).
          next = cells.size();
          if (!failure) failure = std::current_exception();
          return;
        }
      }
    } catch (...) {
      next = cells.size();  // no thread starts another cell from here on
      const std::lock_guard<std::mutex> lock(report);
      if (!failure) failure = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return progress;
}

}  // namespace handsim::sim
