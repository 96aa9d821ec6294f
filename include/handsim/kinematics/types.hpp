// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>

namespace handsim::kinematics {

/// Largest number of DH rows in one chain. Fixed-capacity Eigen types below keep every
/// per-step computation free of heap allocation.
inline constexpr int kMaxChainRows = 8;

/// Joint-space vector (size = the chain's degrees of freedom) [rad or m per joint].
using JointVector = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, kMaxChainRows, 1>;
/// Joint-space square matrix (dof x dof).
using JointMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor,
                                  kMaxChainRows, kMaxChainRows>;
/// Geometric Jacobian (6 x dof): rows 0-2 linear velocity [m/s], rows 3-5 angular [rad/s].
using Jacobian = Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::ColMajor, 6, kMaxChainRows>;

}  // namespace handsim::kinematics
