// SPDX-License-Identifier: GPL-3.0-or-later
// The arm group of `fk`, `hands --describe` and `ik` (docs/arm.md).
#pragma once

#include <algorithm>
#include <string>

#include "cli_util.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::cli {

/// Arm joint values: zeros clamped into the limits, then `text` ("NAME=VALUE,..." or a list of
/// dof numbers; degrees for revolute joints with `deg`).
inline Eigen::VectorXd armValues(const hand::ArmModel& arm, const std::string& text, bool deg,
                                 const char* flag) {
  const kinematics::Chain& c = arm.chain;
  Eigen::VectorXd q(c.dof());
  const auto row = [&c](int j) -> const kinematics::DhRow& {
    return c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
  };
  for (int j = 0; j < c.dof(); ++j) q[j] = std::clamp(0.0, row(j).lower, row(j).upper);
  if (text.empty()) return q;
  const auto scale = [&](int j) {
    return deg && row(j).type == kinematics::JointType::Revolute ? kDegToRad : 1.0;
  };
  if (text.find('=') == std::string::npos) {
    const auto v = parseNumbers(text, flag);
    if (static_cast<int>(v.size()) != c.dof())
      throw UsageError(std::string(flag) + ": the arm has " + std::to_string(c.dof()) +
                       " joints, got " + std::to_string(v.size()) + " values");
    for (int j = 0; j < c.dof(); ++j) q[j] = v[static_cast<std::size_t>(j)] * scale(j);
    return q;
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError(std::string(flag) + ": expected JOINT=VALUE, got '" + item + "'");
    const int j = c.jointIndex(item.substr(0, eq));
    if (j < 0)
      throw UsageError(std::string(flag) + ": the arm has no joint '" + item.substr(0, eq) + "'");
    q[j] = parseNumber(item.substr(eq + 1), flag) * scale(j);
    start = comma + 1;
  }
  return q;
}

/// {"base_link", "palm_link", "joints": [{name, type, limits, value}], "palm_in_base": pose,
/// "frames": [pose per chain frame]} at q.
inline nlohmann::ordered_json armJson(const hand::ArmModel& arm, const Eigen::VectorXd& q) {
  const kinematics::Chain& c = arm.chain;
  const kinematics::ChainFrames frames = kinematics::forwardKinematics(c, q);
  nlohmann::ordered_json joints = nlohmann::ordered_json::array();
  for (int j = 0; j < c.dof(); ++j) {
    const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
    joints.push_back(
        {{"name", c.joint_names[static_cast<std::size_t>(c.rowOfJoint(j))]},
         {"type", row.type == kinematics::JointType::Prismatic ? "prismatic" : "revolute"},
         {"limits", {row.lower, row.upper}},
         {"value", q[j]}});
  }
  nlohmann::ordered_json fr = nlohmann::ordered_json::array();
  for (int i = 0; i < frames.count; ++i) fr.push_back(toJson(frames.at(i)));
  return {{"base_link", arm.base_link},
          {"palm_link", arm.palm_link},
          {"file", arm.source_file},
          {"joints", joints},
          {"palm_in_base", toJson(frames.tip())},
          {"frames", fr}};
}

}  // namespace handsim::cli
