// SPDX-License-Identifier: GPL-3.0-or-later
// Exact triangle-triangle intersection with its segment (Moller, "A Fast Triangle-Triangle
// Intersection Test", J. Graphics Tools 2(2), 1997: plane rejection + interval overlap on the
// planes' common line), extended to coplanar, touching and degenerate triangles.
#pragma once

#include <Eigen/Geometry>
#include <array>
#include <cstdint>

namespace handsim::collision {

/// Relative tolerance of the triangle tests: distances below
/// `kTriangleRelativeTolerance * (diagonal of the pair's bounding box)` plus a few ulps of the
/// largest coordinate count as zero (see docs/collision.md, "Tolerance policy").
inline constexpr double kTriangleRelativeTolerance = 1e-12;

/// How two triangles meet.
enum class TriangleContactKind : std::uint8_t {
  None,      ///< disjoint (farther apart than the tolerance)
  Segment,   ///< they cross or touch; [p0, p1] is the common segment (p0 == p1 for one point)
  Coplanar,  ///< both lie in one plane and overlap; `polygon` is the overlap region
};

/// Result of `intersectTriangles`. Points are in the frame of the input vertices [m].
struct TriangleIntersection {
  TriangleContactKind kind = TriangleContactKind::None;
  /// Segment end points [m]. For Coplanar: the two overlap-polygon vertices farthest apart
  /// (a representative chord). Unset (zero) for None.
  Eigen::Vector3d p0 = Eigen::Vector3d::Zero();
  Eigen::Vector3d p1 = Eigen::Vector3d::Zero();
  /// Coplanar only: vertices of the convex overlap polygon in order [m] (size polygon_size,
  /// at most 6 = three edges of one triangle clipped by three half-planes of the other).
  std::array<Eigen::Vector3d, 6> polygon;
  int polygon_size = 0;

  bool intersects() const { return kind != TriangleContactKind::None; }
};

/// Intersects triangle A = (a0, a1, a2) with triangle B = (b0, b1, b2). Never produces NaN:
/// zero-area triangles are treated as their longest edge (or as a point), parallel planes as
/// coplanar when within tolerance. Touching (at a vertex or along an edge) counts as contact.
TriangleIntersection intersectTriangles(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1,
                                        const Eigen::Vector3d& a2, const Eigen::Vector3d& b0,
                                        const Eigen::Vector3d& b1, const Eigen::Vector3d& b2,
                                        double relative_tolerance = kTriangleRelativeTolerance);

/// A triangle with everything `intersectTriangles` derives from it alone, for a triangle tested
/// against several others (the tree traversal prepares each triangle once per query). Fields
/// hold exactly the values the six-vertex overload computes, so results are equal bit for bit;
/// they are uninitialised until prepareTriangle (or bound/shapePreparedTriangle) sets them.
struct PreparedTriangle {
  std::array<Eigen::Vector3d, 3> v;  ///< vertices [m]
  Eigen::Vector3d lo, hi;            ///< componentwise min and max of the vertices [m]
  Eigen::Vector3d cross;             ///< (v1 - v0) x (v2 - v0) [m^2]
  Eigen::Vector3d normal;            ///< cross / |cross|; zero when |cross| = 0
  double cross_norm;                 ///< |cross| (twice the area) [m^2]
  double longest_edge;               ///< length of the longest edge [m]
};

/// Sets `t.lo` and `t.hi` from `t.v` (the box tests of the traversal need only these).
void boundPreparedTriangle(PreparedTriangle& t);
/// Sets the remaining fields (cross, normal, cross_norm, longest_edge) from `t.v`.
void shapePreparedTriangle(PreparedTriangle& t);
/// A fully prepared triangle (a0, a1, a2).
PreparedTriangle prepareTriangle(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1,
                                 const Eigen::Vector3d& a2);

/// Same result as the six-vertex overload on the prepared triangles' vertices, bit for bit.
TriangleIntersection intersectTriangles(const PreparedTriangle& a, const PreparedTriangle& b,
                                        double relative_tolerance = kTriangleRelativeTolerance);

/// Same predicate as `intersectTriangles(...).intersects()`.
inline bool trianglesIntersect(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1,
                               const Eigen::Vector3d& a2, const Eigen::Vector3d& b0,
                               const Eigen::Vector3d& b1, const Eigen::Vector3d& b2,
                               double relative_tolerance = kTriangleRelativeTolerance) {
  return intersectTriangles(a0, a1, a2, b0, b1, b2, relative_tolerance).intersects();
}

}  // namespace handsim::collision
