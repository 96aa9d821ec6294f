// SPDX-License-Identifier: GPL-3.0-or-later
// --hold drives|pd and --full-duration of `plan --validate` and `validate` (docs/planner.md,
// "Holding").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "handsim/planner/validation.hpp"

namespace handsim::cli {

/// --hold drives|pd on every preset (a UsageError for another name or pd with lift-shake).
inline void applyHold(const std::optional<std::string>& hold,
                      std::vector<planner::ValidationPreset>& presets) {
  if (!hold) return;
  planner::ValidationPreset::Hold h;
  try {
    h = planner::parseHold(*hold);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--hold: ") + e.what());
  }
  for (auto& p : presets) {
    if (h != planner::ValidationPreset::Hold::Drives &&
        p.load == planner::ValidationPreset::Load::LiftShake)
      throw UsageError("--hold pd: lift-shake holds with the hand's drives only");
    p.hold = h;
  }
}

/// --full-duration: every direction runs its preset's whole duration (no early end in a steady
/// hold, ValidationPreset::steady_window).
inline void applyFullDuration(bool full, std::vector<planner::ValidationPreset>& presets) {
  if (!full) return;
  for (auto& p : presets) p.steady_window = 0.0;
}

}  // namespace handsim::cli
