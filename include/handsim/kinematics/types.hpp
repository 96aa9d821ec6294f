// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>

namespace handsim::kinematics {

// Chains have any number of rows: the joint-space types are sized at run time. The simulator's
// step keeps one of each per finger in its state and workspace (sized when the state is made),
// and the step-path functions write into them (forwardKinematics(chain, q, frames),
// dynamics::lagrangeEuler(..., terms, scratch), the contact Jacobian visitors), so a warm step
// does not allocate.

/// Joint-space vector (size = the chain's degrees of freedom) [rad or m per joint].
using JointVector = Eigen::VectorXd;
/// Joint-space square matrix (dof x dof).
using JointMatrix = Eigen::MatrixXd;
/// Geometric Jacobian (6 x dof): rows 0-2 linear velocity [m/s], rows 3-5 angular [rad/s].
using Jacobian = Eigen::Matrix<double, 6, Eigen::Dynamic>;

}  // namespace handsim::kinematics
