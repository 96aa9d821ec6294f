// SPDX-License-Identifier: GPL-3.0-or-later
// Closed-form contacts of analytic spheres (docs/collision.md, "Analytic spheres"): a sphere
// against a sphere, and a sphere against a convex polytope through the exact distance of its
// centre to the polytope. One point per pair, half way between the two surfaces.
#pragma once

#include <Eigen/Geometry>

#include "handsim/collision/convex_hull.hpp"
#include "handsim/geometry/loaded_model.hpp"

namespace handsim::collision {

/// One contact of a sphere pair, world frame.
struct SphereContact {
  Eigen::Vector3d point = Eigen::Vector3d::Zero();   ///< half way between the surfaces [m]
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();  ///< unit, from A into B
  double depth = 0.0;                                ///< penetration [m], > 0
};

/// The contact of sphere `a` with sphere `b` (each in its body frame, at its pose body -> world);
/// false when they do not overlap. Concentric spheres get the normal +z. Swapping a and b flips
/// the normal and keeps the point and depth.
bool sphereSphereContact(const geometry::Sphere& a, const Eigen::Isometry3d& a_pose,
                         const geometry::Sphere& b, const Eigen::Isometry3d& b_pose,
                         SphereContact& out);

/// The closest point of the hull's surface to `p` and the signed distance to it (hull frame)
/// [m]: positive outside, negative inside (then minus the depth below the nearest face).
/// `normal` is the unit direction from the closest point to `p` outside, the outward normal
/// of the nearest face inside. Exact: outside, GJK on the hull less `p` (it ends at the
/// nearest point of a polytope, here to 1e-12 relative), climbing the vertex adjacency, so the
/// cost hardly grows with the faces; inside, the nearest face plane over every face.
double pointHullDistance(const ConvexHull& hull, const Eigen::Vector3d& p,
                         Eigen::Vector3d& closest, Eigen::Vector3d& normal);

/// The contact of sphere `a` (A's frame) with convex hull `b` (B's frame) at their poses; false
/// when they do not overlap. The normal points from the sphere into the hull.
bool sphereHullContact(const geometry::Sphere& a, const Eigen::Isometry3d& a_pose,
                       const ConvexHull& b, const Eigen::Isometry3d& b_pose, SphereContact& out);

}  // namespace handsim::collision
