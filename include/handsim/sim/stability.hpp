// SPDX-License-Identifier: GPL-3.0-or-later
// The largest fixed step the explicit parts of the step can take. Contacts and limits are
// velocity constraints (stable at any step); the servos, tendons and return springs are
// integrated by semi-implicit Euler with the damping taken at the start of the step, which for
// M a'' = -K a - C a' stays bounded only while dt^2 lambda_K + 2 dt lambda_C < 4, lambda_K and
// lambda_C the largest eigenvalues of M^-1 K and M^-1 C. For one mode m x'' = -k x - c x' the
// one-step map of (x, dt v) has trace 2 - a - b and determinant 1 - a, with a = dt c/m and
// b = dt^2 k/m; Jury's conditions for a second-order map give a < 2 and b + 2a < 4, the latter
// binding. Tendons count as taut (the stiffer case). Also the bounds of the run's warnings.
#pragma once

#include <string>

#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

/// A joint moving faster than this is a runaway, not a hand [rad/s or m/s] (the BarrettHand's
/// fastest joint turns about 3 rad/s).
inline constexpr double kRunawayJointSpeed = 100.0;
/// A contact pushing harder than this is numerical trouble, not a grasp [N].
inline constexpr double kRunawayContactForce = 1e4;

/// A number with 6 significant digits, for messages ("0.0380791", "5").
std::string shortNumber(double value);

/// The stable step bound at a state and what sets it.
struct StepLimit {
  double dt_max = 0.0;  ///< [s]; infinity when nothing explicit is stiff
  std::string what;     ///< e.g. "the servo of M3 (kp 5 N m/rad) with the inertia it moves"
};

/// The bound of the explicit integration in configuration `q` (per finger) with `clutches`
/// (the inertia depends on both).
StepLimit stableStep(const hand::HandModel& hand, const std::vector<kinematics::JointVector>& q,
                     const std::vector<hand::ClutchState>& clutches);
/// The same at a state of a model.
StepLimit stableStep(const Model& model, const SimState& state);

}  // namespace handsim::sim
