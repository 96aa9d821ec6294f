// SPDX-License-Identifier: GPL-3.0-or-later
// Moving the hand, an object or the palm between steps without simulating the way there
// (a slider dragged while a run is paused, an object put elsewhere between runs).
#pragma once

#include <Eigen/Geometry>
#include <vector>

#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

/// Puts the actuators at `positions` (na; not clamped) at rest: velocities and
/// accelerations 0, command and servo reference at the new position, then the transmission
/// and the forward kinematics of the new pose (sim::forwardPosition). Throws
/// std::invalid_argument for a wrong size or a non-finite position (the state is unchanged).
void teleportActuators(const Model& model, SimState& state, const std::vector<double>& positions);

/// Puts object `index` at `pose_world` (object frame -> {W}). Its velocity is kept; contacts
/// are found anew by the next step. Throws std::invalid_argument for an index outside the
/// model's objects or a non-finite pose.
void teleportObject(const Model& model, SimState& state, int index,
                    const Eigen::Isometry3d& pose_world);

/// Puts the palm at `pose_world` ({P} -> {W}) and the hand's frames with it (the palm's
/// prescribed twist is kept). Throws std::invalid_argument for a non-finite pose.
void teleportPalm(const Model& model, SimState& state, const Eigen::Isometry3d& pose_world);

}  // namespace handsim::sim
