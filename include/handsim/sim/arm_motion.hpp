// SPDX-License-Identifier: GPL-3.0-or-later
// The arm as the palm's drive (issue 24, docs/arm.md): joint trajectories of the arm a hand is
// mounted on (hand::ArmModel) move the palm kinematically; its pose, twist and acceleration come
// from the arm's forward kinematics.
#pragma once

#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/types.hpp"
#include "handsim/sim/palm_motion.hpp"

namespace handsim::sim {

/// What the arm does in a run. Sizes: the arm's dof() joints (hand::ArmModel::chain).
struct ArmPlan {
  /// Arm joint positions at t = 0 [rad or m] (dof, or empty: all 0). The palm starts at
  /// RunPlan::palm_pose_world, so the arm's base sits at palm_pose_world FK(initial)^-1.
  std::vector<double> initial;
  /// Offsets from `initial` per arm joint (dof, or empty): trapezoidal segments and sinusoids,
  /// as the palm's axes. When any is not empty the arm drives the palm and RunPlan's
  /// palm_motion must be empty.
  std::vector<AxisMotion> motion;

  /// True when the arm moves (some joint has a motion).
  bool drives() const;
  /// Time after which the arm no longer moves [s].
  double end() const;
};

/// Arm joint positions, velocities and accelerations at time t.
struct ArmJointState {
  kinematics::JointVector q, qd, qdd;
};
ArmJointState armJointsAt(const ArmPlan& plan, int dof, double t);

/// The palm's pose, twist and acceleration in {W} for the arm at (q, qd, qdd), its base at
/// `base_world` (arm root frame -> {W}): twist J qd, acceleration J qdd + J' qd, J the
/// palm's geometric Jacobian (analytic J' qd from the joint axes' motion).
PalmKinematics armPalmKinematics(const kinematics::Chain& arm, const Eigen::Isometry3d& base_world,
                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                 const Eigen::Ref<const Eigen::VectorXd>& qd,
                                 const Eigen::Ref<const Eigen::VectorXd>& qdd);

/// The palm in the arm's base frame at q (forwardKinematics(arm, q).tip()).
Eigen::Isometry3d armPalmPose(const kinematics::Chain& arm,
                              const Eigen::Ref<const Eigen::VectorXd>& q);

/// Throws std::invalid_argument unless the plan fits `arm` (sizes, finite values, sinusoids
/// with frequency and cycles > 0).
void checkArmPlan(const hand::ArmModel& arm, const ArmPlan& plan);

}  // namespace handsim::sim
