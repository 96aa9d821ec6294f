// SPDX-License-Identifier: GPL-3.0-or-later
// What `plan --validate` and `validate` share: the presets run over a grasp file's records on
// several threads with a progress line, and the count of passes per preset.
#pragma once

#include <atomic>
#include <cstdio>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "handsim/planner/grasp_records.hpp"
#include <nlohmann/json.hpp>

namespace handsim::cli {

/// Runs `validate(i)` for every record index on `threads` threads (the calling one among them),
/// each index once, printing "validate PRESET: done/total" to stderr unless `quiet`. The first
/// exception stops the remaining indices and is rethrown here.
inline void validateRecordsInParallel(std::size_t count, unsigned threads, const std::string& preset,
                                      bool quiet, const std::function<void(std::size_t)>& validate) {
  std::atomic<std::size_t> next{0}, finished{0};
  std::mutex report;
  std::exception_ptr failure;
  auto worker = [&]() {
    try {
      for (std::size_t i = next++; i < count; i = next++) {
        validate(i);
        const std::size_t f = ++finished;
        if (!quiet) {
          const std::lock_guard<std::mutex> l(report);
          std::fprintf(stderr, "\rvalidate %s: %zu/%zu   ", preset.c_str(), f, count);
        }
      }
    } catch (...) {
      const std::lock_guard<std::mutex> l(report);
      if (!failure) failure = std::current_exception();
      next = count;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

/// {preset name: number of records whose outcome of that preset passed}, in the presets' order.
inline nlohmann::ordered_json passedPerPreset(const std::vector<planner::GraspRecord>& records,
                                              const std::vector<planner::ValidationPreset>& presets) {
  nlohmann::ordered_json passed = nlohmann::ordered_json::object();
  for (const auto& preset : presets) {
    int n = 0;
    for (const auto& r : records)
      for (const auto& v : r.validation)
        if (v.preset == preset.name && v.passed) ++n;
    passed[preset.name] = n;
  }
  return passed;
}

}  // namespace handsim::cli
