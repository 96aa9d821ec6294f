// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "handsim/kinematics/dh_row.hpp"

namespace handsim::kinematics {

/// Mass properties of one link, expressed in the link's own DH frame {i}.
struct LinkInertia {
  double mass = 0.0;                                  ///< [kg]
  Eigen::Vector3d com = Eigen::Vector3d::Zero();      ///< centre of mass in {i} [m]
  Eigen::Matrix3d inertia = Eigen::Matrix3d::Zero();  ///< inertia tensor about the origin
                                                      ///< of {i}, axes of {i} [kg m^2]
};

/// A serial chain (one finger): a fixed base transform and a standard-DH table. Immutable once
/// loaded. Row i (0-based) maps frame {i} to {i+1}; frame {0} is the finger base {k0}.
struct Chain {
  std::string name;                                        ///< e.g. "F1"
  Eigen::Isometry3d base = Eigen::Isometry3d::Identity();  ///< palm -> {k0}
  std::vector<DhRow> rows;                                 ///< DH table, base to tip
  std::vector<std::string> joint_names;                    ///< one per row ("J1", ...)
  std::vector<LinkInertia> links;                          ///< link rigid with frame {i+1},
                                                           ///< one per row (may be massless)

  /// Number of movable (non-fixed) rows = size of the chain's joint vectors.
  int dof() const;
  /// Index of the row that the movable joint j drives.
  int rowOfJoint(int j) const;
  /// Index of the movable joint at row r, or -1 when the row is fixed.
  int jointOfRow(int r) const;
  /// Index of the movable joint named `name`, or -1.
  int jointIndex(const std::string& joint_name) const;
};

}  // namespace handsim::kinematics
