// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/kinematics/types.hpp"
#include "handsim/sim/world.hpp"

namespace handsim::sim {

/// A force on one link, applied for the next step (the contact stage writes these).
struct LinkLoad {
  int finger = -1;
  int row = -1;                                     ///< the link rigid with frame {row + 1}
  Eigen::Vector3d point = Eigen::Vector3d::Zero();  ///< application point in {k0} [m]
  Eigen::Vector3d force = Eigen::Vector3d::Zero();  ///< force on the link in {k0} [N]
};

/// Everything that changes during a run (the model, HandModel, never does). Sizes: na =
/// number of actuators, nf = number of fingers, each finger's vectors have its dof entries.
/// Joint quantities describe the state at `time`; accelerations, torques and servo forces are
/// the ones applied during the step that ended at `time`.
struct SimState {
  double time = 0.0;                          ///< [s]
  std::int64_t step = 0;                      ///< number of steps taken
  std::vector<double> actuator_position;      ///< [actuator unit, e.g. counts] (na)
  std::vector<double> actuator_velocity;      ///< [unit/s] (na)
  std::vector<double> actuator_acceleration;  ///< [unit/s^2] (na)
  std::vector<double> actuator_command;       ///< set point of actuators without a trajectory,
                                              ///< e.g. from a GUI slider [unit] (na)
  std::vector<double> actuator_reference;     ///< servo reference position [unit] (na)
  std::vector<double> actuator_effort;        ///< servo torque at the primary joint [N m] (na)
  std::vector<hand::ClutchState> clutches;    ///< one per hand clutch
  std::vector<double> tendon_position;        ///< motor retraction of each tendon [m] (nt)
  std::vector<double> tendon_command;         ///< set point of tendons without a trajectory [m]
  std::vector<double> tendon_tension;         ///< tension during the last step [N] (nt)
  std::vector<kinematics::JointVector> q;     ///< joint positions [rad or m] (nf x dof)
  std::vector<kinematics::JointVector> qd;    ///< joint velocities [rad/s or m/s]
  std::vector<kinematics::JointVector> qdd;   ///< joint accelerations [rad/s^2 or m/s^2]
  std::vector<kinematics::JointVector> tau;   ///< torque the drive applies at each joint [N m]
  std::vector<LinkLoad> loads;                ///< external forces for the next step
  std::vector<Contact> contacts;              ///< hand-object contacts found this step
  std::vector<double> inner_load_torque;      ///< per clutch: eq. 9 load, + resists closing [N m]
  std::vector<std::string> warnings;          ///< numerical trouble, limits (first few kept)
  std::int64_t warning_count = 0;             ///< all warnings, including those not kept
};

}  // namespace handsim::sim
