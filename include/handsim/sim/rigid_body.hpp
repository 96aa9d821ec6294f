// SPDX-License-Identifier: GPL-3.0-or-later
// Free rigid bodies (docs/free-objects.md, "Free rigid bodies"): Newton-Euler at the centre of
// mass (seed 004 eq. 1-2), m x'' = f and I w' = tau - w x I w, integrated at a fixed step. The
// rotation is advanced by the implicit midpoint rule on the body-frame angular momentum with
// the Cayley map, which keeps the kinetic energy and the world angular momentum of a
// torque-free body to rounding (both are quadratic invariants the midpoint rule preserves).
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace handsim::sim {

/// Numerical guards of a free object (docs/free-objects.md): beyond these it is numerical
/// trouble, not physics. The object is stopped (fixed where it was, zero twist) with a
/// counted warning.
inline constexpr double kWorldHalfExtent = 100.0;         ///< |x|, |y|, |z| of the COM [m]
inline constexpr double kRunawayObjectSpeed = 100.0;      ///< COM speed [m/s]
inline constexpr double kRunawayObjectSpin = 1000.0;      ///< angular speed [rad/s]

/// The implicit midpoint step of Euler's torque-free equations in the body frame: the angular
/// velocity w_mid that solves I w_mid + (dt/2) w_mid x I w_mid = L (L = I w at the start, body
/// frame). Then L_end = 2 I w_mid - L, and the rotation over the step is cayley(dt w_mid).
/// Newton's method from w = I^-1 L, until the update is below 1e-15 of |w| (at most 20
/// iterations, deterministic). `inertia_body` symmetric positive definite [kg m^2].
Eigen::Vector3d midpointAngularVelocity(const Eigen::Matrix3d& inertia_body,
                                        const Eigen::Vector3d& momentum_body, double dt);

/// The rotation of the Cayley map of the rotation vector `v` [rad] (a rotation about v/|v| by
/// 2 atan(|v|/2), equal to exp(v) to second order): the unit quaternion (1, v/2) normalised.
Eigen::Quaterniond cayleyRotation(const Eigen::Vector3d& v);

/// Kinetic energy 1/2 m |v|^2 + 1/2 w . I_world w [J], v the COM velocity, w the angular
/// velocity (world), I_world the inertia about the COM in world axes.
double kineticEnergy(double mass, const Eigen::Matrix3d& inertia_world,
                     const Eigen::Vector3d& velocity, const Eigen::Vector3d& angular_velocity);

}  // namespace handsim::sim
