// SPDX-License-Identifier: GPL-3.0-or-later
// Arm reach (issue 24, docs/arm.md): the arm's joints for a palm pose, so that a planned grasp
// can be checked for reachability.
#pragma once

#include <Eigen/Geometry>

#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::hand {

struct ArmIkOptions {
  int max_iterations = 200;          ///< per start
  int restarts = 24;                 ///< starts besides q0: a deterministic spread over the limits
  double position_tolerance = 1e-6;  ///< reached when both misses are below these [m]
  double orientation_tolerance = 1e-5;  ///< [rad]
  /// Weight of the orientation error in the 6-D error [m/rad].
  double orientation_weight = 0.1;
  double damping = 1e-3;  ///< initial Levenberg-Marquardt damping [m]
};

struct ArmIkResult {
  kinematics::JointVector q;       ///< arm joints (ArmModel::chain), within their limits
  double position_error = 0.0;     ///< |p(q) - p_target| of the palm origin [m]
  double orientation_error = 0.0;  ///< angle between R(q) and R_target [rad]
  bool reached = false;            ///< both errors below the tolerances
  int iterations = 0;              ///< over all starts
};

/// Damped least squares (Levenberg-Marquardt, adaptive damping) on the 6-D pose error of the
/// palm (position; orientation as the rotation vector of R_target R^T, weighted), joint values
/// clamped to their limits after every step, from q0 and then from `restarts` spread starts
/// until one reaches the pose. Returns the best result; never throws for an unreachable pose
/// (the miss is in the result). `palm_in_base`: the palm frame in the arm's base frame.
/// Throws std::invalid_argument for an empty arm, a q0 of the wrong size or non-finite input.
ArmIkResult solveArmIk(const ArmModel& arm, const Eigen::Isometry3d& palm_in_base,
                       const Eigen::Ref<const Eigen::VectorXd>& q0,
                       const ArmIkOptions& options = {});

}  // namespace handsim::hand
