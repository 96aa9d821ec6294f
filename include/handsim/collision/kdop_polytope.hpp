// SPDX-License-Identifier: GPL-3.0-or-later
// The convex polytope of a k-DOP (the intersection of its slabs) as a triangle mesh, to draw
// bounding volumes as the contact stage sees them.
#pragma once

#include <cstddef>

#include <Eigen/Core>

#include "handsim/collision/kdop_tree.hpp"
#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::collision {

/// The convex polytope {x : lower[i] <= directions[i] . x <= upper[i] for i < count} as a
/// closed triangle mesh (outward, counter-clockwise triangles; each face a fan over its convex
/// polygon, shared vertices merged). It is built by clipping the box of the first three slabs
/// by every further slab's two planes, so directions[0..2] must be the unit x, y and z vectors
/// (as kdopDirections gives for every k). Empty when the slabs do not intersect. Throws
/// std::invalid_argument when count < 3 or the first three directions are not x, y, z.
geometry::TriangleMesh kdopPolytope(const Eigen::Vector3d* directions, const double* lower,
                                    const double* upper, int count);

/// The polytope of node `node` of `tree` (kdopPolytope over kdopDirections(tree.k()) and the
/// node's slabs centre -+ half-width), in the tree's mesh frame [m]. Throws std::out_of_range
/// for a node index past the tree.
geometry::TriangleMesh kdopNodePolytope(const KdopTree& tree, std::size_t node);

}  // namespace handsim::collision
