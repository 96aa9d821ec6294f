// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <optional>
#include <vector>

#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/hand/hand_ik.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::hand {

/// Largest distance [m] between the fingertip and its target that fingertipActuators()
/// accepts once the target has gone through the transmission: what a person can place with
/// the GUI's millimetre spin boxes. Coupled joints (one motor, two joints) usually cannot
/// take the joint-space solution exactly; a tip left farther away than this counts as
/// unreachable.
inline constexpr double kTransmissionIkAcceptDistance = 5e-4;

/// Largest distance [m] of a target from a planar finger's plane when a tip angle phi is
/// given (the planar solver ignores the out-of-plane coordinate).
inline constexpr double kPlanarTargetTolerance = 1e-4;

/// Actuator positions [actuator unit] (size hand.actuators.size()) that best realise the joint
/// values `q` [rad or m] (q[f] has hand.fingers[f].dof() entries): for each actuator
/// independently, the least-squares fit of q_j = r_j a + o_j over the joints it drives at the
/// clutch states `clutches` (effectiveDrives), a = sum r_j (q_j - o_j) / sum r_j^2, then
/// clamped into its range. The objective is a convex quadratic in a, so the clamped value is
/// the constrained optimum. Exact where the transmission can realise q. An actuator that
/// drives no joint at a non-zero ratio keeps its value in `actuators_now`. Throws
/// std::invalid_argument naming a wrong size.
std::vector<double> actuatorsForJoints(const HandModel& hand,
                                       const std::vector<kinematics::JointVector>& q,
                                       const std::vector<double>& actuators_now,
                                       const std::vector<ClutchState>& clutches);

/// Settings of fingertipActuators().
struct FingertipIkOptions {
  /// For planar three-link fingers (kinematics::isPlanarThreeLinkFinger) only: the angle [rad]
  /// of the last link in the finger's plane (kinematics/closed_form_ik.hpp). The target must
  /// then lie within kPlanarTargetTolerance of that plane.
  std::optional<double> phi;
  /// Largest accepted distance [m] of the tip from the target after the transmission.
  double accept = kTransmissionIkAcceptDistance;
  /// The point of the finger placed at the target (hand_ik.hpp): the fingertip (the tip link
  /// where the file has one) or the last joint frame's origin.
  FingerPoint point = FingerPoint::Tip;
};

/// Inverse kinematics of one fingertip (the point options.point names: the tip link where the
/// file has one, by default) through the transmission.
/// 1. Joint space, from the joints that `actuators_now` gives (jointPositions): closed form
///    for BarrettHand-type fingers (kinematics::barrettFingerIk), the planar solver with the
///    tip angle options.phi for planar three-link fingers (kinematics::planarFingerIk, the
///    joints before the plane kept), damped least squares otherwise
///    (kinematics::inverseKinematicsNumerical, 1e-5 m accepted).
/// 2. Actuator space: the least-squares actuators of that solution (actuatorsForJoints),
///    refined by damped least squares (Levenberg-Marquardt; Wampler 1986) over the actuators
///    that drive `finger`, with the analytic Jacobian d p / d a_k = sum_j J_v(:, j) r_j
///    (geometric Jacobian columns of the joints k drives times their effective ratios),
///    actuators clamped to their ranges after every step.
/// `target_palm` [m] is in the palm frame; the result (size hand.actuators.size()) equals
/// `actuators_now` except for the actuators that drive the finger (an actuator coupling
/// several fingers, such as the BarrettHand spread, moves them all). Throws
/// kinematics::UnreachableTarget carrying the miss [m] and the closest joint values when the
/// joint-space solver finds no solution, when options.phi is given and the target lies off
/// the plane (miss: the distance from the plane), or when the tip stays farther than
/// options.accept from the target; std::invalid_argument for a bad finger index, a
/// non-finite target or wrong sizes.
std::vector<double> fingertipActuators(const HandModel& hand, int finger,
                                       const Eigen::Vector3d& target_palm,
                                       const std::vector<double>& actuators_now,
                                       const std::vector<ClutchState>& clutches,
                                       const FingertipIkOptions& options = {});

}  // namespace handsim::hand
