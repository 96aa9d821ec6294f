// SPDX-License-Identifier: GPL-3.0-or-later
// Convex-convex narrow phase (docs/collision.md, "Convex narrow phase"): GJK decides whether two
// hulls overlap, EPA finds the penetration (the shortest translation that separates them: depth
// and normal), and the contact manifold clips the incident face against the reference face, so
// a face resting on a face is carried at the corners of their overlap.
#pragma once

#include <Eigen/Geometry>
#include <array>
#include <vector>

#include "handsim/collision/convex_hull.hpp"

namespace handsim::collision {

/// Most points of one manifold.
constexpr int kMaxManifoldPoints = 4;

/// The contact of two convex hulls A and B, world frame.
struct ConvexManifold {
  /// Unit normal from A into B: translating B by `depth * normal` separates the hulls.
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();
  /// Penetration depth (the length of that shortest separating translation) [m], >= 0.
  double depth = 0.0;
  int count = 0;  ///< points in `points` and `depths`; 0: the hulls do not touch
  /// Contact points [m], half way between the two surfaces.
  std::array<Eigen::Vector3d, kMaxManifoldPoints> points;
  /// Each point's own depth [m]: how far the incident surface lies below the reference face
  /// there (at most `depth`).
  std::array<double, kMaxManifoldPoints> depths{};
};

namespace detail {
/// A vertex of the Minkowski difference A - B and the support points of A and B it came from
/// (A's frame) [m].
struct SupportPoint {
  Eigen::Vector3d w, a, b;
  int ia = 0, ib = 0;  ///< vertex indices in A and B
};
/// A triangle of the expanding polytope: vertex indices, outward unit normal and distance.
struct EpaFace {
  std::array<int, 3> v;
  Eigen::Vector3d normal;
  double distance;
  bool alive;
  int removed_at;  ///< EPA iteration that removed it, -1 while alive
};
}  // namespace detail

/// Buffers of `convexContact`; once as large as the largest query they do not grow, so a
/// warm query does not allocate. One per thread.
struct ConvexScratch {
  std::vector<detail::SupportPoint> vertices;
  std::vector<detail::EpaFace> faces;
  std::vector<std::array<int, 2>> horizon;
  std::vector<Eigen::Vector3d> clip_in, clip_out;
  std::vector<double> clip_depth;
};

/// The contact of hulls `a` and `b` at their poses (body -> world). Returns false (and `out.count`
/// 0) when they do not overlap. The result does not depend on the order the two hulls are
/// passed in, except that the normal flips: the hulls are put in a fixed order (by fingerprint,
/// then by pose) before the query.
bool convexContact(const ConvexHull& a, const Eigen::Isometry3d& a_pose, const ConvexHull& b,
                   const Eigen::Isometry3d& b_pose, ConvexScratch& scratch, ConvexManifold& out);

}  // namespace handsim::collision
