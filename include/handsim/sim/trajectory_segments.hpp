// SPDX-License-Identifier: GPL-3.0-or-later
// Actuator references written as a list of moves (the GUI's trajectory table, scene files):
// each move starts where the previous move of its actuator ended.
#pragma once

#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/actuator_trajectory.hpp"

namespace handsim::sim {

/// One trapezoidal move of one actuator (sim/trapezoidal_profile.hpp). It starts from where
/// the previous move of the same actuator ended (or from the run's initial position), at
/// `start` or when that previous move ends, whichever is later.
struct TrajectorySegment {
  int actuator = 0;
  double to = 0.0;                ///< target [actuator unit]
  double max_velocity = 1.0;      ///< [unit/s]
  double max_acceleration = 1.0;  ///< [unit/s^2]
  double start = 0.0;             ///< earliest start [s]; later if the previous one runs on
};

/// The plan's references (RunPlan::trajectories, size na) for `segments` from `initial`
/// (na actuator positions, or empty: 0; clamped to the actuators' ranges). Segments of
/// actuators the hand does not have are skipped. Throws std::invalid_argument for a segment
/// the trapezoidal profile refuses (e.g. a speed that is not positive).
std::vector<ActuatorTrajectory> actuatorTrajectories(
    const hand::HandModel& hand, const std::vector<double>& initial,
    const std::vector<TrajectorySegment>& segments);

/// The segments of `trajectories` (the inverse of actuatorTrajectories for references it
/// wrote, e.g. a scenario's), actuator by actuator in time order.
std::vector<TrajectorySegment> trajectorySegments(
    const std::vector<ActuatorTrajectory>& trajectories);

}  // namespace handsim::sim
