// SPDX-License-Identifier: GPL-3.0-or-later
// The reduction of a clipped contact polygon to a manifold of at most kMaxManifoldPoints points,
// shared by the convex narrow phase (convex_contact.cpp) and the box-box closed form
// (primitive_contact.cpp). Internal to the collision library.
#pragma once

#include <Eigen/Core>

#include "handsim/collision/convex_contact.hpp"

namespace handsim::collision {

/// Writes `m` points `pts` (with their `depths`) into `out` when m <= kMaxManifoldPoints, else
/// four of them: the deepest, the farthest from it, and the two that span the largest
/// triangles with that segment on either side (areas measured about `normal`). Returns how
/// many were written.
int reduceManifold(const Eigen::Vector3d* pts, const double* depths, int m,
                   const Eigen::Vector3d& normal, ConvexManifold& out);

}  // namespace handsim::collision
