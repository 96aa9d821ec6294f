// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::kinematics {

/// Settings of the damped-least-squares solver.
struct NumericalIkOptions {
  int max_iterations = 300;
  double tolerance = 1e-13;       ///< stop when the task error norm is below this [m]
  double damping = 1e-3;          ///< initial Levenberg-Marquardt damping lambda [m]
  std::uint32_t free_mask = ~0u;  ///< bit j set: movable joint j may move; others keep q0
  /// Weight of the orientation error [m/rad] when a target orientation is given.
  double orientation_weight = 0.05;
};

struct NumericalIkResult {
  JointVector q;             ///< joint values, within limits
  double position_error;     ///< |p(q) - target| [m]
  double orientation_error;  ///< angle between R(q) and the target [rad] (0 if none given)
  int iterations;
  bool converged;  ///< task error below tolerance
};

/// Damped least squares with adaptive damping (Levenberg-Marquardt; Wampler 1986, Nakamura &
/// Hanafusa 1986) on the fingertip position (and orientation when `target_rotation` is given),
/// joint values clamped to their limits after every step. Target in the finger base {k0}.
NumericalIkResult solveNumericalIk(const Chain& chain, const Eigen::Vector3d& target,
                                   const Eigen::Ref<const Eigen::VectorXd>& q0,
                                   const NumericalIkOptions& options = {},
                                   const std::optional<Eigen::Matrix3d>& target_rotation = {});

/// Runs solveNumericalIk from a deterministic grid of starts over the free joints' limits (and
/// from q0) and returns the best result: the nearest reachable tip found. When none reaches
/// the target, also polishes the best samples of a finer grid (at most 6561 samples).
NumericalIkResult nearestReachable(const Chain& chain, const Eigen::Vector3d& target,
                                   const Eigen::Ref<const Eigen::VectorXd>& q0,
                                   const NumericalIkOptions& options = {},
                                   const std::optional<Eigen::Matrix3d>& target_rotation = {});

/// Numerical IK that throws UnreachableTarget (with the miss) when the best result's position
/// error exceeds `accept` [m].
JointVector inverseKinematicsNumerical(const Chain& chain, const Eigen::Vector3d& target,
                                       const Eigen::Ref<const Eigen::VectorXd>& q0,
                                       double accept = 1e-9,
                                       const NumericalIkOptions& options = {});

}  // namespace handsim::kinematics
