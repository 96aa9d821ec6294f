// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to the core: one entry of a "poses" list, as hand files and pose files both write
// it ({"name": ..., "joints_deg": {"F1": [...]}} or "joints" in SI).
#pragma once

#include <string>

#include "handsim/hand/hand_model.hpp"
#include "json_document.hpp"

namespace handsim::hand {

/// Reads and checks one pose entry against `hand` (fingers exist, one value per movable
/// joint, values within the limits); errors name the entry's file, line and JSON pointer.
NamedPose readPoseEntry(const io::JsonDocument& doc, const nlohmann::json& entry,
                        const std::string& pointer, const HandModel& hand);

}  // namespace handsim::hand
