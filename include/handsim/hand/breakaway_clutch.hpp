// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>

#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::hand {

/// Mutable state of one breakaway clutch.
struct ClutchState {
  bool broken = false;          ///< true while the inner joint is disengaged and locked
  double break_position = 0.0;  ///< actuator position when it broke away [actuator unit]
};

/// What an update did.
enum class ClutchEvent { None, BrokeAway, Reengaged };

/// Advances the clutch state machine (seed 000 sec. II.D):
/// - engaged -> broken when the finger is closing (the motor drives the inner joint forwards)
///   and `inner_load_torque` exceeds tau_break; the break position is recorded;
/// - broken -> engaged when the finger is opening and the actuator has come back to (or
///   through) the break position.
/// `inner_load_torque` is the torque the contacts exert about the inner joint against the
/// closing direction [N m] (see innerLoadTorque). `actuator_drive` says which way the motor is
/// driving the finger: its sign is that of the motor's velocity, or of its drive force when a
/// blocked finger cannot move (any unit; only the sign is used).
ClutchEvent updateClutch(const HandModel& hand, const ClutchModel& clutch, ClutchState& state,
                         double actuator_position, double actuator_drive, double inner_load_torque);

/// Seed 000 eq. 9: torque about the axis of movable joint `joint` of a chain from a force
/// `force` [N] applied at `point` [m] plus a pure moment `moment` [N m], all in the finger
/// base frame {k0}: Z^T ((p - p_joint) x f) + Z^T n, with Z and p_joint the z axis and
/// origin of the frame the joint rotates about.
double torqueAboutJoint(const kinematics::Chain& chain, const kinematics::ChainFrames& frames,
                        int joint, const Eigen::Vector3d& point, const Eigen::Vector3d& force,
                        const Eigen::Vector3d& moment = Eigen::Vector3d::Zero());

/// The clutch's load: eq. 9's torque from the contact wrench on the inner link, signed so that
/// a contact resisting the closing motion gives a positive value.
double innerLoadTorque(const HandModel& hand, const ClutchModel& clutch,
                       const kinematics::ChainFrames& frames, const Eigen::Vector3d& point,
                       const Eigen::Vector3d& force,
                       const Eigen::Vector3d& moment = Eigen::Vector3d::Zero());

}  // namespace handsim::hand
