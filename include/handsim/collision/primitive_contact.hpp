// SPDX-License-Identifier: GPL-3.0-or-later
// Closed-form contacts of analytic boxes and cylinders (docs/collision.md, "Analytic boxes and
// cylinders"): against the ground plane, a sphere against a box or a cylinder, and a box against
// a box (separating axes and a clipped manifold). Each is symmetric: the same points and depths,
// the normal flipped, whichever body is passed first.
#pragma once

#include <Eigen/Geometry>
#include <array>

#include "handsim/collision/convex_contact.hpp"
#include "handsim/collision/sphere_contact.hpp"
#include "handsim/geometry/loaded_model.hpp"

namespace handsim::collision {

/// Most ground points of one primitive (two cylinder caps, four rim points each).
constexpr int kMaxGroundPoints = 8;

/// The points of the box (in its body frame, body at `pose`) that may touch the ground plane
/// z = `height` (world): the box's corners at most `margin` [m] above it, the deepest four at
/// most (a face resting on the plane gives its four corners), deepest first; returns their
/// number. Each point is on the box's surface; its depth is height - z.
int boxGroundPoints(const geometry::Box& box, const Eigen::Isometry3d& pose, double height,
                    double margin, std::array<Eigen::Vector3d, kMaxGroundPoints>& out);

/// Likewise for a cylinder: on each cap rim, the lowest point and the three a quarter, a half
/// and three quarters round from it, those at most `margin` above the plane. A cylinder on its
/// cap gives the four points of the lower rim, on its side the two ends of its line of
/// contact, tilted the one lowest rim point.
int cylinderGroundPoints(const geometry::Cylinder& cylinder, const Eigen::Isometry3d& pose,
                         double height, double margin,
                         std::array<Eigen::Vector3d, kMaxGroundPoints>& out);

/// The closest point of the box's surface to `p` (all in the box's body frame) and the signed
/// distance [m]: positive outside, negative inside; `normal` as pointHullDistance's.
double pointBoxDistance(const geometry::Box& box, const Eigen::Vector3d& p,
                        Eigen::Vector3d& closest, Eigen::Vector3d& normal);

/// The same for the solid cylinder.
double pointCylinderDistance(const geometry::Cylinder& cylinder, const Eigen::Vector3d& p,
                             Eigen::Vector3d& closest, Eigen::Vector3d& normal);

/// The contact of sphere `a` with box `b` at their poses; false when they do not overlap. The
/// normal points from the sphere into the box, the point is half way between the surfaces.
bool sphereBoxContact(const geometry::Sphere& a, const Eigen::Isometry3d& a_pose,
                      const geometry::Box& b, const Eigen::Isometry3d& b_pose, SphereContact& out);

/// The contact of sphere `a` with cylinder `b` at their poses, as sphereBoxContact.
bool sphereCylinderContact(const geometry::Sphere& a, const Eigen::Isometry3d& a_pose,
                           const geometry::Cylinder& b, const Eigen::Isometry3d& b_pose,
                           SphereContact& out);

/// The contact of boxes `a` and `b` at their poses (body -> world): the separating-axis test
/// on the 15 axes (the 3 + 3 face normals, the 9 edge-edge cross products), the depth the
/// least overlap, the normal (from A into B) its axis. A face axis gives the incident face of
/// the other box clipped against the reference face (at most four points kept: the deepest,
/// the farthest from it and the two spanning the largest triangles), each half way between the
/// surfaces with its own depth; an edge axis (taken when its overlap is below 0.95 of the best
/// face axis's) gives one point, half way between the two edges. False when the boxes are
/// apart.
bool boxBoxContact(const geometry::Box& a, const Eigen::Isometry3d& a_pose, const geometry::Box& b,
                   const Eigen::Isometry3d& b_pose, ConvexManifold& out);

}  // namespace handsim::collision
