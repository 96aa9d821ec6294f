// SPDX-License-Identifier: GPL-3.0-or-later
// Where the friction of a flat contact patch acts (docs/free-objects.md, "Spinning on a face").
//
// The collision stages carry a flat patch (a face on the ground, a face on a face) as the
// corners of its polygon, each one point contact. Sliding, that is Coulomb's mu f_n whatever the
// points. Spinning about the patch's centre it is not: the corners are the points furthest from
// the centre, so four corners of a square resist with mu f_n (s / sqrt 2), where the pressure
// spread over the square resists with mu f_n s (sqrt 2 + ln(1 + sqrt 2)) / 6, 1.85 times less.
// The friction rows therefore act at the corners pulled towards the patch's centroid by
// kappa = (mean distance of the polygon's area from its centroid) / (mean distance of the
// points from it): a patch spinning about its centroid under equal corner loads then meets the
// Coulomb moment of uniform pressure over its polygon exactly, sliding is unchanged, and so is
// tipping (the points stay in the patch's plane, the normal rows stay at the corners).
#pragma once

#include <cstddef>
#include <vector>

#include <Eigen/Core>

namespace handsim::contact {

/// The mean distance from `centre` of the points of the convex polygon `polygon` (vertices in
/// order, either sense; at least 3; `centre` inside or on it) [m]: (1 / A) * integral |x - c| dA,
/// in closed form per edge (the fan triangle's polar integral).
double convexPolygonMeanDistance(const std::vector<Eigen::Vector2d>& polygon,
                                 const Eigen::Vector2d& centre);

/// Scratch of patchFrictionPoints, grown (never shrunk) so warm calls do not allocate.
struct PatchFrictionScratch {
  std::vector<Eigen::Vector2d> plane;   ///< the points in the patch's plane
  std::vector<Eigen::Vector2d> sorted;  ///< the same, sorted for the hull
  std::vector<Eigen::Vector2d> hull;   ///< their convex hull
};

/// The friction points of the `count` contacts of one flat patch, `points[0..count)`, all with
/// the unit normal `normal`: each point pulled towards the centroid of the patch's polygon
/// (the convex hull of the points in the plane normal to `normal`) by kappa above, written to
/// `friction_points[0..count)` (the points themselves where there is nothing to pull: one point,
/// or all at one place). Points on one line make a line patch (a cylinder on its side, an edge
/// on a face): its uniform load's mean distance is a quarter of its length.
void patchFrictionPoints(const Eigen::Vector3d* points, std::size_t count,
                         const Eigen::Vector3d& normal, PatchFrictionScratch& scratch,
                         Eigen::Vector3d* friction_points);

}  // namespace handsim::contact
