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

/// How a row places its joint (docs/kinematics.md, "Joint frames").
enum class JointFrameForm {
  Dh,        ///< standard DH: Rz(theta) Tz(d) Tx(a) Rx(alpha), joint about/along z_{i-1}
  Placement  ///< general: a fixed placement {i-1} -> joint frame, then the motion about/along
             ///< `axis` through the joint frame's origin; the joint frame at q = 0 is {i}
};

/// One row of a chain: frame {i-1} -> {i}. Either a standard Denavit-Hartenberg row
/// T = Rz(theta) Tz(d) Tx(a) Rx(alpha) (Spong/Craig "standard", not Craig's modified form),
/// or (form == Placement, the URDF joint) T = placement * Rot(axis, q) (revolute) or
/// placement * Trans(axis q) (prismatic) or placement (fixed). The DH fields are ignored by a
/// Placement row and the placement fields by a DH row.
struct DhRow {
  double a = 0.0;      ///< link length along x_i [m]
  double alpha = 0.0;  ///< link twist about x_i [rad]
  double d = 0.0;      ///< offset along z_{i-1} [m] (prismatic: q is added)
  double theta = 0.0;  ///< angle about z_{i-1} [rad] (revolute: q is added)
  JointType type = JointType::Revolute;
  double lower = 0.0;  ///< lower limit of q [rad or m]
  double upper = 0.0;  ///< upper limit of q [rad or m]
  JointFrameForm form = JointFrameForm::Dh;
  /// Placement rows: frame {i-1} -> joint frame (translation [m] and rotation).
  Eigen::Isometry3d placement = Eigen::Isometry3d::Identity();
  /// Placement rows: unit joint axis in the joint frame (= in {i}).
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
};

/// A general-placement row (form Placement) with the given placement, axis (normalised here;
/// throws std::invalid_argument when zero or not finite), type and limits.
DhRow placementRow(const Eigen::Isometry3d& placement, const Eigen::Vector3d& axis,
                   JointType type, double lower = 0.0, double upper = 0.0);

/// The row's transform {i-1} -> {i} at joint value q (ignored for a fixed row), for either form.
Eigen::Isometry3d dhTransform(const DhRow& row, double q);

/// The row's joint axis in the frame the row starts from, {i-1}: a point on the axis [m] and
/// its unit direction. DH: (0, z); Placement: (placement origin, placement rotation * axis).
/// Independent of q. A fixed row returns its DH or placement axis too (unused).
struct JointAxis {
  Eigen::Vector3d point;
  Eigen::Vector3d direction;
};
JointAxis jointAxisLocal(const DhRow& row);

/// The same axis in the base frame, given the frame {i-1} in the base (e.g. frames.at(r)).
JointAxis jointAxisInBase(const DhRow& row, const Eigen::Isometry3d& frame_before);

}  // namespace handsim::kinematics
