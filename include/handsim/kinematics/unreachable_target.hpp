// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <stdexcept>
#include <string>

#include "handsim/kinematics/types.hpp"

namespace handsim::kinematics {

/// An inverse-kinematics target the finger cannot reach within its joint limits.
class UnreachableTarget : public std::runtime_error {
 public:
  UnreachableTarget(const std::string& message, double miss, JointVector closest)
      : std::runtime_error(message), miss_(miss), closest_(std::move(closest)) {}
  /// Distance from the target to the nearest fingertip position reachable within the joint
  /// limits (and the fixed tip angle, for the planar solver) [m]: exact for the closed forms,
  /// a multi-start search for the numerical solver (see docs/kinematics.md). +infinity when
  /// the limits do not allow the requested tip angle at all.
  double miss() const noexcept { return miss_; }
  /// Joint values of that nearest position.
  const JointVector& closest() const noexcept { return closest_; }

 private:
  double miss_;
  JointVector closest_;
};

}  // namespace handsim::kinematics
