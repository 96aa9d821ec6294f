// SPDX-License-Identifier: GPL-3.0-or-later
// Two unit tangents of a unit normal: the friction directions of a contact, the axes of a contact
// patch's plane.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace handsim::geometry {

/// Unit vectors t1, t2 with (t1, t2, n) right-handed and orthonormal, for a unit `n`. The same
/// n always gives the same pair (t1 is n crossed with the world axis n is least along), so a
/// resting contact keeps its friction directions from step to step.
inline void tangentBasis(const Eigen::Vector3d& n, Eigen::Vector3d& t1, Eigen::Vector3d& t2) {
  Eigen::Index k = 0;
  n.cwiseAbs().minCoeff(&k);
  t1 = n.cross(Eigen::Vector3d::Unit(k)).normalized();
  t2 = n.cross(t1);
}

}  // namespace handsim::geometry
