// SPDX-License-Identifier: GPL-3.0-or-later
// What `plan --validate` and `validate` share: the presets run over a grasp file's records on
// several threads with a progress line, and the count of passes per preset.
#pragma once

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include "handsim/planner/grasp_records.hpp"
#include "handsim/tools/run_grid.hpp"

namespace handsim::cli {

/// Runs `validate(i)` for every record index on `threads` threads (the calling one among them;
/// sim::runGrid), each index once, printing "validate PRESET: done/total" and the time left to
/// stderr unless `quiet`. The first exception stops the remaining indices and is rethrown here.
inline void validateRecordsInParallel(std::size_t count, unsigned threads, const std::string& preset,
                                      bool quiet, const std::function<void(std::size_t)>& validate) {
  sim::GridOptions grid;
  grid.threads = std::max(1u, threads);
  if (!quiet)
    grid.finished = [&preset](std::size_t, sim::CellOutcome, const sim::GridProgress& p) {
      std::fprintf(stderr, "\r%s   ", sim::progressLine("validate " + preset, p).c_str());
    };
  sim::runGrid(
      sim::pendingCells(count),
      [&](std::size_t i) {
        validate(i);
        return sim::CellOutcome::Ok;
      },
      grid);
}

/// {preset name: number of records whose outcome of that preset passed}, in the presets' order.
inline nlohmann::ordered_json passedPerPreset(const std::vector<planner::GraspRecord>& records,
                                              const std::vector<planner::ValidationPreset>& presets) {
  nlohmann::ordered_json passed = nlohmann::ordered_json::object();
  for (const auto& preset : presets) {
    int n = 0;
    for (const auto& r : records)
      for (const auto& v : r.validation)
        if (v.preset == preset.name && v.hold == preset.hold && v.passed) ++n;
    passed[preset.name] = n;
  }
  return passed;
}

}  // namespace handsim::cli
