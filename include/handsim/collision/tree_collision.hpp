// SPDX-License-Identifier: GPL-3.0-or-later
// Tree-against-tree collision queries between two k-DOP hierarchies in any relative pose.
#pragma once

#include <Eigen/Geometry>
#include <cstdint>
#include <vector>

#include "handsim/collision/kdop_tree.hpp"
#include "handsim/collision/triangle_intersection.hpp"

namespace handsim::collision {

struct ContactScratch;

/// Work done by one query (counts, no units).
struct CollisionStats {
  std::uint64_t node_tests = 0;      ///< bounding-volume pair overlap tests
  std::uint64_t triangle_tests = 0;  ///< triangle pairs given to the exact test (after the
                                     ///< cheap bounding-box rejections in leaf pairs)
};

/// One intersecting triangle pair. Geometry is expressed in A's frame [m].
struct TrianglePairContact {
  int triangle_a = -1;  ///< triangle index in mesh A
  int triangle_b = -1;  ///< triangle index in mesh B
  TriangleIntersection intersection;
};

/// True when mesh A (tree `a`, in its own frame) and mesh B (tree `b`, placed in A's frame by
/// `b_in_a`: x_A = b_in_a * x_B) share at least one point; stops at the first intersecting
/// triangle pair. `stats` (optional) accumulates the work done.
bool anyContact(const KdopTree& a, const KdopTree& b, const Eigen::Isometry3d& b_in_a,
                CollisionStats* stats = nullptr);

/// Every intersecting triangle pair, with its intersection in A's frame. B's vertices are mapped
/// as `b_in_a * v` before the exact test, so a brute-force loop doing the same finds exactly
/// this set (the traversal is conservative, see docs/collision.md). Allocates its result and
/// work buffers; the overload taking a `ContactScratch` does not once warm.
std::vector<TrianglePairContact> allContacts(const KdopTree& a, const KdopTree& b,
                                             const Eigen::Isometry3d& b_in_a,
                                             CollisionStats* stats = nullptr);

/// Same pairs in the same order as the overload above, written into `out` (cleared first, its
/// capacity kept); the traversal's stack and record pool are `scratch`'s (defined in
/// contact_scratch.hpp). Allocates only when `out` or a scratch buffer must grow beyond any
/// earlier query's needs. `out` may be `scratch.pairs`.
void allContacts(const KdopTree& a, const KdopTree& b, const Eigen::Isometry3d& b_in_a,
                 ContactScratch& scratch, std::vector<TrianglePairContact>& out,
                 CollisionStats* stats = nullptr);

}  // namespace handsim::collision
