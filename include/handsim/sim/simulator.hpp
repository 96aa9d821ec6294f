// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/actuator_trajectory.hpp"
#include "handsim/sim/contact_model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

struct SimOptions {
  double dt = 1e-3;  ///< fixed step [s]
  /// Gravitational acceleration in the palm frame [m/s^2] (palm z up by default).
  Eigen::Vector3d gravity = Eigen::Vector3d(0.0, 0.0, -9.81);
  /// Fraction of a contact's penetration (beyond `contact_slop`) pushed back per step. 0 (the
  /// default) is the paper's pure velocity constraint; the depth estimate of coarse meshes can
  /// be far larger than the true penetration, so raise it only for fine meshes.
  double contact_stiffness = 0.0;
  double contact_slop = 1e-4;  ///< penetration tolerated without push-back [m]
};

/// Advances a hand by fixed steps (docs/simulation.md). The worm-geared drives are not
/// back-drivable, so every joint follows its actuator through the transmission
/// (q = R a + q0, R from the current clutch states) and the dynamics are written in actuator
/// coordinates: (R^T D R + J_rotor) a'' = tau_servo - R^T (H + C - tau_ext). Each step runs,
/// in order: references -> contacts (k-DOP) -> link loads and clutches -> dynamics -> servo ->
/// contact velocity constraints -> integration (semi-implicit Euler) -> limits.
/// Deterministic: the same inputs give bit-identical states.
class Simulator {
 public:
  /// Throws std::invalid_argument for dt <= 0 or a non-finite gravity.
  Simulator(const hand::HandModel& hand, SimOptions options = {});

  /// A state at rest, commanded to stay where it is. `actuator_positions` empty means each
  /// actuator at 0 clamped into its range. Throws std::invalid_argument on a wrong size or
  /// non-finite value.
  SimState initialState(const std::vector<double>& actuator_positions = {}) const;

  /// Reference for actuator `a`; actuators without one track SimState::actuator_command.
  void setTrajectory(int actuator, ActuatorTrajectory trajectory);
  const std::vector<ActuatorTrajectory>& trajectories() const { return trajectories_; }

  /// Places objects in the scene; links with meshes then touch them: a link cannot move further
  /// into an object, and the normal force that stops it is reported (and loads the clutch).
  /// The first call loads the hand's link meshes (throws io::InputError if one fails).
  void setObjects(std::vector<WorldObject> objects);
  /// Uses an existing contact model (built for this simulator's hand), e.g. one per thread in
  /// a sweep, instead of loading the link meshes again.
  void setContactModel(std::shared_ptr<ContactModel> model) { contacts_ = std::move(model); }
  /// Null until setObjects or setContactModel has been called.
  const ContactModel* contactModel() const { return contacts_.get(); }

  /// One fixed step of length options().dt.
  void step(SimState& state) const;

  /// Recomputes the joint positions and velocities from the actuator state and clutches;
  /// call it after editing actuator positions or velocities by hand.
  void syncJoints(SimState& state) const;

  const hand::HandModel& hand() const { return hand_; }
  const SimOptions& options() const { return options_; }

 private:
  const hand::HandModel& hand_;
  SimOptions options_;
  std::vector<ActuatorTrajectory> trajectories_;
  std::shared_ptr<ContactModel> contacts_;
};

}  // namespace handsim::sim
