// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <string>

#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

/// The phases of seed 002's grasp controller (sec. V.C).
enum class GraspPhase { Closing = 0, Hybrid = 1, Retraction = 2, Done = 3 };

/// Settings of the hybrid force/position controller. Units: q = (thumb-base angle [rad],
/// index, middle and thumb tendon retractions [m]); forces are tactile sums per finger [N].
struct HybridGraspOptions {
  /// x = T q and f_x = T f (seed 002 eq. 1): thumb-base position; total grasp force; the two
  /// opposing fingers' mean retraction equal to 3/2 of the thumb's; their difference.
  Eigen::Matrix4d transform = (Eigen::Matrix4d() << 1, 0, 0, 0,  //
                               0, 1, 1, 1,                       //
                               0, 1.0 / 3.0, 1.0 / 3.0, -1,      //
                               0, 1, -1, 0)
                                  .finished();
  /// Diagonal gains D: rates of the commands per unit error [1/s; m/(N s); 1/s; 1/s].
  Eigen::Vector4d gains = Eigen::Vector4d(2.0, 0.002, 2.0, 2.0);
  double desired_force = 10.0;     ///< total grasp force (row 2) [N] (10 N in the seed)
  double closing_speed = 0.01;     ///< tendon retraction speed while closing [m/s]
  double contact_threshold = 0.2;  ///< a finger is in contact above this tactile sum [N]
  double ramp_time = 0.5;          ///< bumpless ramp of the references in Hybrid [s]
  double hold_time = 1.0;          ///< time in Hybrid before retracting (<0: never) [s]
  double retract_speed = 0.02;     ///< tendon release speed [m/s]
};

/// Seed 002's grasp controller for a KTHand-like hand (actuator "thumb_base", tendons
/// "T_index", "T_middle", "T_thumb"): closing under position control until every finger
/// touches, then hybrid force/position control u_q = T^T D e with one force row (the total
/// tactile force) and three position rows, the references ramped for a bumpless transfer,
/// then retraction. It runs between simulator steps and writes the set points
/// (SimState::actuator_command, tendon_command) of actuators that have no trajectory.
class HybridGraspController {
 public:
  /// Throws std::invalid_argument when the hand lacks the actuator or tendons named above.
  HybridGraspController(const hand::HandModel& hand, HybridGraspOptions options = {});

  /// Advances the state machine and the commands by one step of length dt, from the state's
  /// sensors (tendon positions, thumb-base angle, tactile forces from the contacts).
  void update(SimState& state, double dt);

  GraspPhase phase() const { return phase_; }
  /// Controlled variables x = T q and the force row of T f at the last update.
  const Eigen::Vector4d& x() const { return x_; }
  double totalForce() const { return total_force_; }
  /// Tactile sums of the index, middle and thumb fingers at the last update [N].
  const Eigen::Vector3d& fingerForces() const { return finger_forces_; }
  /// Current references of x (rows 1, 3, 4) and of the total force (row 2).
  const Eigen::Vector4d& reference() const { return reference_; }

  /// u_q = T^T D e (seed 002, sec. V.B), exposed for tests.
  static Eigen::Vector4d output(const Eigen::Matrix4d& transform, const Eigen::Vector4d& gains,
                                const Eigen::Vector4d& error);

 private:
  Eigen::Vector4d measure(const SimState& s);
  const hand::HandModel& hand_;
  HybridGraspOptions opt_;
  int base_actuator_ = -1;
  int tendon_[3] = {-1, -1, -1};  ///< index, middle, thumb
  int finger_[3] = {-1, -1, -1};
  GraspPhase phase_ = GraspPhase::Closing;
  double phase_time_ = 0.0;
  double force_at_switch_ = 0.0;
  Eigen::Vector4d x_ = Eigen::Vector4d::Zero();
  Eigen::Vector4d reference_ = Eigen::Vector4d::Zero();
  Eigen::Vector3d finger_forces_ = Eigen::Vector3d::Zero();
  double total_force_ = 0.0;
};

}  // namespace handsim::sim
