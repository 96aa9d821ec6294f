// SPDX-License-Identifier: GPL-3.0-or-later
// Reusable buffers of the narrow phase (`allContacts` then `buildContactPatches`), so that a
// simulation step that has run a few queries before allocates nothing on the heap: every buffer
// is cleared, never freed, and grows only when a query needs more than any query before it.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <array>
#include <cstdint>
#include <vector>

#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/kdop.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/collision/triangle_intersection.hpp"

namespace handsim::collision {

namespace detail {

/// A k-DOP tree node bounded in the other tree's frame: its extent along the other tree's slab
/// directions (centre `mid` and half-width `rad` per direction [m], first `axisCount()` used),
/// and its normal-slab direction in the other frame with the translation's offset [m].
struct NodeBounds {
  std::array<double, kMaxKdopAxes> mid;
  std::array<double, kMaxKdopAxes> rad;
  Eigen::Vector3d normal_in_other;
  double normal_offset;
};

/// A pending pair of nodes of the tree traversal: node indices in A and B, and the indices of
/// their bound records in `ContactScratch::records`.
struct TraversalEntry {
  std::uint32_t na, nb, bounds_a, bounds_b;
};

/// Lazily computed bounds of one node; fields are written before they are read, so default
/// construction leaves them uninitialised.
struct TraversalRecord {
  TraversalRecord() {}
  NodeBounds bounds;
  std::uint32_t node;
  bool of_a;
  bool dop_ready;
  bool normal_ready;
};

/// A leaf triangle of one query of the frontier cache, prepared once and shared by every leaf
/// pair it takes part in: B's moved into A's frame, bounded at once, shaped on first exact test.
/// Fields are written before they are read, so default construction leaves them uninitialised
/// (no zeroing of the 200-byte record per leaf triangle and query).
struct QueryTriangle {
  QueryTriangle() {}
  PreparedTriangle t;
  bool shaped;
};

/// One chaining point of a contact, keyed by the cell (of the join tolerance's size) it lies in.
/// Written field by field in place (default construction leaves the fields uninitialised): a
/// brace-initialised temporary copied in stalled on store forwarding.
struct CellPoint {
  CellPoint() {}
  std::array<std::int64_t, 3> cell;  ///< floor(point / join tolerance) per axis
  int contact;                       ///< index into the contacts being chained
  const Eigen::Vector3d* point;      ///< the point [m], inside that contact's intersection
};

/// A chaining point's cell packed into one ordered integer (see contact_patch.cpp), and the
/// point's index in `ContactScratch::cell_points`.
struct CellKey {
  CellKey() {}
  std::uint64_t key;
  std::uint32_t point;
};

}  // namespace detail

/// Every buffer the narrow phase reuses from one query to the next. Default-constructed empty;
/// one per thread (queries write to it). The functions taking it never shrink a buffer, so once
/// the queries have been as large as they will get (triangle pairs, patches, contacts per
/// patch), further queries do not allocate.
struct ContactScratch {
  /// Traversal stack of pending node pairs (as deep as the descent).
  std::vector<detail::TraversalEntry> stack;
  /// Stack-ordered pool of node bound records used by the traversal.
  std::vector<detail::TraversalRecord> records;
  /// Triangle-pair list for the caller's convenience: `allContacts(a, b, pose, s, s.pairs)`
  /// then `buildContactPatches(..., s.pairs, s)`. No function reads or writes it on its own.
  std::vector<TrianglePairContact> pairs;
  /// Leaf triangles of the current frontier-cache query (A's as stored, B's moved into A's
  /// frame), each leaf's triangles contiguous.
  std::vector<detail::QueryTriangle> query_triangles;
  /// Per node of A, resp. B: (query number << 32) | first index of its leaf's triangles in
  /// `query_triangles`; an entry of an earlier query counts as absent.
  std::vector<std::uint64_t> leaf_entry_a, leaf_entry_b;
  /// Number of the current frontier-cache query, 1 to 2^32 - 1 (tags `leaf_entry_a/_b`).
  std::uint64_t query_number = 0;
  /// Union-find parents, one per contact being chained.
  std::vector<int> parent;
  /// Chaining points, sorted by cell (replaces a spatial hash map; reserved to 6 per contact)
  /// unless their cells fit packed keys.
  std::vector<detail::CellPoint> cell_points;
  /// The points' packed cells, sorted (used instead of sorting `cell_points` when every cell
  /// fits; reserved to 6 per contact).
  std::vector<detail::CellKey> cell_keys;
  /// Patch index of each union-find root, -1 for non-roots (one per contact).
  std::vector<int> patch_of_root;
  /// Patches of the last `buildContactPatches` call: only `[0, returned count)` are valid; the
  /// elements beyond are kept (with their vectors' capacity) for later calls.
  std::vector<ContactPatch> patches;
  /// One patch's intersection points in its tangent plane, their convex hull, and the two
  /// buffers of a triangle being clipped to it (the patch depth).
  std::vector<Eigen::Vector2d> plane_points, hull;
  std::vector<Eigen::Vector3d> clip_in, clip_out;
};

/// Temporal coherence of the narrow phase (the `allContacts` overload taking it): one record
/// per tree pair met, kept until the pair's relative motion exceeds `margin_m`. Records are
/// never removed and keep their capacity, so once every pair has been met and its record has
/// been as long as it will get, queries do not allocate. Not state: clearing it (or starting
/// from an empty one, as a copied sim::SimState does) changes no query's result, only its cost.
struct FrontierCache {
  /// Leaf node pairs of one tree pair, recorded with widened bounding tests at one pose.
  struct Record {
    std::uint64_t tree_a = 0, tree_b = 0;  ///< KdopTree::id of A and B
    bool valid = false;                    ///< false until the first descent
    Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();  ///< of b_in_a at the record
    Eigen::Vector3d translation = Eigen::Vector3d::Zero();   ///< of b_in_a at the record [m]
    double radius_b = 0.0;  ///< bound on |x| over B's vertices in B's frame [m]
    double slack = 0.0;     ///< motion margin the record was made with [m]
    /// (A node, B node) of every leaf pair reached, in the traversal's order.
    std::vector<std::array<std::uint32_t, 2>> leaves;
  };
  /// Motion margin of new records [m]: larger margins refresh less often but replay more leaf
  /// pairs. 0.5 mm suits hands closing at up to about 0.5 m/s at dt = 1 ms. Negative: no
  /// cache, every query descends the trees (the plain `allContacts`).
  double margin_m = 5e-4;
  std::vector<Record> records;
  std::uint64_t replays = 0;    ///< queries answered from a record so far
  std::uint64_t refreshes = 0;  ///< queries that descended (and recorded) so far
  /// Drops every record (keeps the memory): the next queries descend.
  void invalidate() {
    for (Record& r : records) r.valid = false;
  }
};

}  // namespace handsim::collision
