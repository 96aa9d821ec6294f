// SPDX-License-Identifier: GPL-3.0-or-later
// Lifting and shaking the palm: the palm motions that load a grasp (the GUI's Lift Palm, the
// sweep's hold test, the planner's lift presets) built in one place.
#pragma once

#include <Eigen/Core>

#include "handsim/sim/palm_motion.hpp"

namespace handsim::sim {

/// Straight up against `gravity_world` (unit; +z of the world when there is no gravity).
Eigen::Vector3d liftDirection(const Eigen::Vector3d& gravity_world);

/// Appends to `motion` one straight trapezoidal move of `distance` [m] along the unit vector
/// `direction_world`, with cruise `speed` [m/s] and `acceleration` [m/s^2] along that line,
/// starting at `start` [s]: each world axis x, y, z gets the trapezoid scaled by the
/// direction's component (axes with a component of at most 1e-12 are left alone), so all end
/// together. Returns the time the move ends [s] (`start` when nothing moves). Throws
/// std::invalid_argument when the move starts before an axis's earlier segment ends.
double appendPalmLift(PalmMotion& motion, const Eigen::Vector3d& direction_world, double distance,
                      double speed, double acceleration, double start);

/// Appends a shake along the unit vector `direction_world`: the offset
/// A (sin wt - sin 2wt / 2), w = 2 pi frequency_hz, for `cycles` whole periods from `start`
/// [s], which starts and stops with zero velocity and acceleration. Nothing is appended when
/// the amplitude or cycles are not positive; axes with a component of at most 1e-12 are left alone.
void appendPalmShake(PalmMotion& motion, const Eigen::Vector3d& direction_world, double amplitude,
                     double frequency_hz, int cycles, double start);

}  // namespace handsim::sim
