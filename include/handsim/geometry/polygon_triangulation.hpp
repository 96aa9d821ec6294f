// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <array>
#include <vector>

namespace handsim::geometry {

/// Triangulates one planar (or nearly planar) simple polygon given as indices into `points`.
/// The polygon is projected onto the plane of its Newell normal and cut by ear clipping, so
/// concave polygons keep their exact area; triangles keep the polygon's winding. Consecutive
/// repeated indices are ignored. Returns nothing for a degenerate polygon (fewer than three
/// distinct vertices or zero area). `assume_convex` uses a fan instead (VRML `convex TRUE`).
/// Polygons with more than `max_ear_clipping` vertices are fanned.
std::vector<std::array<int, 3>> triangulatePolygon(const std::vector<Eigen::Vector3d>& points,
                                                   const std::vector<int>& polygon,
                                                   bool assume_convex = false,
                                                   int max_ear_clipping = 5000);

}  // namespace handsim::geometry
