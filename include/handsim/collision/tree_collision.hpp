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
struct FrontierCache;

/// Work done by one query (counts, no units).
struct CollisionStats {
  std::uint64_t node_tests = 0;      ///< bounding-volume pair overlap tests
  std::uint64_t triangle_tests = 0;  ///< triangle pairs given to the exact test (after the
                                     ///< cheap bounding-box rejections in leaf pairs)
  std::uint64_t frontier_replays = 0;    ///< cached queries answered from their record
  std::uint64_t frontier_refreshes = 0;  ///< cached queries that descended the trees anew
  std::uint64_t leaf_pairs = 0;          ///< leaf pairs given to the exact tests
};

/// One intersecting triangle pair. Geometry is expressed in A's frame [m].
struct TrianglePairContact {
  TrianglePairContact() = default;
  /// The pair (a, b) meeting in `x`; lets `emplace_back` copy `x` straight into place.
  TrianglePairContact(int a, int b, const TriangleIntersection& x)
      : triangle_a(a), triangle_b(b), intersection(x) {}
  int triangle_a = -1;  ///< triangle index in mesh A
  int triangle_b = -1;  ///< triangle index in mesh B
  TriangleIntersection intersection;
};

/// True when mesh A (tree `a`, in its own frame) and mesh B (tree `b`, placed in A's frame by
/// `b_in_a`: x_A = b_in_a * x_B) share at least one point; stops at the first intersecting
/// triangle pair. `stats` (optional) accumulates the work done.
bool anyContact(const KdopTree& a, const KdopTree& b, const Eigen::Isometry3d& b_in_a,
                CollisionStats* stats = nullptr);

/// Same answer as the overload above, the traversal's buffers `scratch`'s: allocates only when
/// one must grow beyond any earlier query's needs.
bool anyContact(const KdopTree& a, const KdopTree& b, const Eigen::Isometry3d& b_in_a,
                ContactScratch& scratch, CollisionStats* stats = nullptr);

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

/// Same pairs in the same order as the overloads above (bit for bit), with temporal coherence:
/// `cache` keeps, per tree pair (KdopTree::id), the leaf node pairs whose k-DOPs overlap when
/// every bounding test is widened by the cache's motion margin, recorded at some earlier pose.
/// While no point of B has moved by more than that margin relative to A since the record
/// (bounded by |dt| + |dR|_F r_B, r_B bounding B's vertices about its origin), only those leaf
/// pairs are given to the exact tests, in their recorded (traversal) order; otherwise the trees
/// are descended again with the widened tests and the record replaced. docs/collision.md,
/// section "Frontier cache", argues why the result equals the full descent's. Allocates only
/// when `cache` meets a new tree pair or a record, `out` or a scratch buffer must grow.
void allContacts(const KdopTree& a, const KdopTree& b, const Eigen::Isometry3d& b_in_a,
                 FrontierCache& cache, ContactScratch& scratch,
                 std::vector<TrianglePairContact>& out, CollisionStats* stats = nullptr);

}  // namespace handsim::collision
