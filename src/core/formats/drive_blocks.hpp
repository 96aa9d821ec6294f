// SPDX-License-Identifier: GPL-3.0-or-later
// The "tendons", "clutches", "eigengrasps" and "contact_points" blocks of hand files, shared with
// the URDF sidecar (docs/hand-format.md). Private to the core.
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

/// A "contact_points" list (docs/hand-format.md, "Contact points") on the body `finger`, `row`
/// (finger -1: the palm): each entry {"point_m": [x, y, z], "normal": [x, y, z]} in `frame`
/// coordinates, `frame` given in the body's frame; appended to m.contact_points with the
/// normal made unit. A zero or non-finite normal fails with the file, line and field.
void readContactPointList(const io::JsonDocument& doc, const nlohmann::json& list,
                          const std::string& ptr, int finger, int row,
                          const Eigen::Isometry3d& frame, HandModel& m);

}  // namespace handsim::hand::detail
