// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Geometry>

namespace handsim::kinematics {

/// What moves at a DH row.
enum class JointType {
  Revolute,   ///< q is added to theta [rad]
  Prismatic,  ///< q is added to d [m]
  Fixed       ///< no degree of freedom; the row is a constant transform
};

/// One row of a standard Denavit-Hartenberg table: frame {i-1} -> {i} is
/// T = Rz(theta) Tz(d) Tx(a) Rx(alpha) (Spong/Craig "standard", not Craig's modified form).
struct DhRow {
  double a = 0.0;      ///< link length along x_i [m]
  double alpha = 0.0;  ///< link twist about x_i [rad]
  double d = 0.0;      ///< offset along z_{i-1} [m] (prismatic: q is added)
  double theta = 0.0;  ///< angle about z_{i-1} [rad] (revolute: q is added)
  JointType type = JointType::Revolute;
  double lower = 0.0;  ///< lower limit of q [rad or m]
  double upper = 0.0;  ///< upper limit of q [rad or m]
};

/// The row's transform {i-1} -> {i} at joint value q (ignored for a fixed row).
Eigen::Isometry3d dhTransform(const DhRow& row, double q);

}  // namespace handsim::kinematics
