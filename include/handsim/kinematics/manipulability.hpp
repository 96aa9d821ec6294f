// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::kinematics {

/// Which rows of the geometric Jacobian (in {k0}) a task uses.
enum class TaskSpace {
  Position,             ///< 3 x dof: vx, vy, vz [m/s per joint unit]
  PositionOrientation,  ///< 6 x dof: vx, vy, vz, wx, wy, wz (mixed units: m/s and rad/s)
  Planar,               ///< 3 x dof: vx, vy, wz, the (x, y, phi) task of a finger moving in
                        ///< the x-y plane of {k0} (use distalChain to put it there)
  PlanarPosition        ///< 2 x dof: vx, vy, the (x, y) task of such a finger (seed 003's
                        ///< 2 x 3 Jacobian). Position would always be singular for a planar
                        ///< finger: its z row is zero.
};

/// Task Jacobian (2, 3 or 6 rows, dof columns) from a geometric Jacobian.
Eigen::MatrixXd taskJacobian(const Jacobian& jacobian, TaskSpace space);

/// Task Jacobian of the fingertip at q (chain.dof() entries [rad or m]).
Eigen::MatrixXd taskJacobian(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                             TaskSpace space);

/// Singular values of `j`, largest first (min(rows, cols) of them).
Eigen::VectorXd singularValues(const Eigen::Ref<const Eigen::MatrixXd>& j);

/// Condition number sigma_max / sigma_min over the min(rows, cols) singular values; +infinity
/// when sigma_min <= 1e-13 sigma_max (rank-deficient to working precision) or j is zero.
/// Invariant under rotations of the frame J is expressed in (for Position and
/// PositionOrientation; Planar only under rotations about z).
double conditionNumber(const Eigen::Ref<const Eigen::MatrixXd>& j);

/// Yoshikawa's manipulability measure w = sqrt(det(J J^T)) = product of the singular values
/// when rows <= cols; 0 when rows > cols (J J^T is then rank-deficient). Units: product of the
/// row units (e.g. m^3 for a 3 x n position Jacobian of revolute joints).
double yoshikawaManipulability(const Eigen::Ref<const Eigen::MatrixXd>& j);

/// True when conditionNumber(j) > threshold (threshold >= 1; throws std::invalid_argument
/// otherwise).
bool nearSingular(const Eigen::Ref<const Eigen::MatrixXd>& j, double threshold);

}  // namespace handsim::kinematics
