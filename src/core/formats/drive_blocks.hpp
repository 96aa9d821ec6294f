// SPDX-License-Identifier: GPL-3.0-or-later
// The "tendons", "clutches" and "eigengrasps" blocks of hand files, shared with the URDF sidecar
// (docs/hand-format.md). Private to the core.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "handsim/hand/hand_model.hpp"
#include "json_document.hpp"

namespace handsim::hand::detail {

/// A joint named at `ptr`: "FINGER.JOINT" in hand files, the URDF joint name for URDF hands
/// (not a joint shared by several fingers). Fails with the file, line and field otherwise.
JointRef namedJoint(const io::JsonDocument& doc, const HandModel& m, const nlohmann::json& v,
                    const std::string& ptr);

/// One entry of "tendons" (appended to m.tendons). For URDF hands each pulled joint's own
/// actuator becomes passive (no servo), as hand files' tendon joints are.
void readTendonBlock(const io::JsonDocument& doc, const nlohmann::json& tj, const std::string& ptr,
                     HandModel& m);

/// One entry of "clutches" (appended to m.clutches).
void readClutchBlock(const io::JsonDocument& doc, const nlohmann::json& cj, const std::string& ptr,
                     HandModel& m);

/// The "eigengrasps" block (docs/hand-format.md, "Eigengrasps"): m.eigengrasp_origin and
/// m.eigengrasps, actuators named as in "actuators" (after the direct ones are added).
void readEigengraspBlock(const io::JsonDocument& doc, const nlohmann::json& ej,
                         const std::string& ptr, HandModel& m);

}  // namespace handsim::hand::detail
