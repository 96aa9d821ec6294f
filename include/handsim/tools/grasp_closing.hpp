// SPDX-License-Identifier: GPL-3.0-or-later
// Closing a grasp: which actuators and tendons move (the hand file's "grasp" key), to where
// (the closing end of their range) and at what speed. The GUI's Auto Grasp and the planner's
// closing runs both build their references here.
#pragma once

#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/actuator_trajectory.hpp"

namespace handsim::sim {

/// How fast a closing actuator (or tendon) moves: cruise speed
/// range_scale * (upper - lower) / range_seconds, reached after ramp_seconds (acceleration =
/// speed / ramp_seconds). The defaults are the GUI's Auto Grasp: the whole range in 1.5 s, a
/// quarter of that to reach full speed.
struct ClosingSpeed {
  double range_scale = 1.0;
  double range_seconds = 1.5;   ///< [s] (> 0)
  double ramp_seconds = 0.375;  ///< [s] (> 0)
};

/// The references that close the hand.
struct ClosingReferences {
  /// Per actuator (na): each closing actuator from its start to the upper end of its range,
  /// from t = 0; empty for the others and for a closing actuator already there.
  std::vector<ActuatorTrajectory> actuators;
  /// Per tendon (nt): each closing tendon from where runs start it (the end of its range
  /// nearest 0, sim::makeState) to its upper end; empty for the others.
  std::vector<ActuatorTrajectory> tendons;
};

/// The closing references of `hand` from actuator positions `start` (na). Throws
/// std::invalid_argument when `start` has not na entries or a speed is not positive.
ClosingReferences closingReferences(const hand::HandModel& hand, const std::vector<double>& start,
                                    const ClosingSpeed& speed = {});

/// The same for chosen actuators: each of `closing` moved to the end of its range that
/// `directions` names (+1 upper, -1 lower; one per entry), no tendon moved. For a hand whose file
/// names nothing, with the closing actuators the planner infers (planner::graspSummary).
ClosingReferences closingReferences(const hand::HandModel& hand, const std::vector<double>& start,
                                    const std::vector<int>& closing,
                                    const std::vector<int>& directions,
                                    const ClosingSpeed& speed = {});

/// True when the hand file names closing actuators or tendons (what closingReferences moves).
bool canClose(const hand::HandModel& hand);

}  // namespace handsim::sim
