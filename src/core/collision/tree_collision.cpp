// SPDX-License-Identifier: GPL-3.0-or-later
// Simultaneous descent of two k-DOP trees (Klosowski et al., IEEE TVCG 4(1), 1998, section 5):
// test the roots, descend into the larger volume only where volumes overlap, and run the exact
// triangle test (Moller 1997) at leaf pairs. k-DOPs are not rotation invariant, so a node of
// one tree is bounded in the other tree's frame by the support of its box part along each slab
// direction; docs/collision.md, "Traversal", argues why this never misses a contact.
#include "handsim/collision/tree_collision.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace handsim::collision {
namespace {

using Vec = Eigen::Vector3d;

// Relative margin added to every slab comparison. It must exceed the triangle test's tolerance
// (kTriangleRelativeTolerance of the pair's size plus coordinate rounding) and the rounding of
// the support computations, so that no pair the exact test accepts is ever pruned.
constexpr double kMarginRelative = 1e-10;
static_assert(kMarginRelative > 10 * kTriangleRelativeTolerance);

// One tree's slab directions rotated into the other tree's frame:
// projection onto direction d of A of a point x_B of B is dot(R^T d, x_B) + dot(d, t).
struct RotatedAxes {
  int count = 0;
  std::array<std::array<double, 3>, kMaxKdopAxes> dir{};  // direction in the other frame
  std::array<std::array<double, 3>, kMaxKdopAxes> abs{};  // its absolute components
  std::array<double, kMaxKdopAxes> offset{};
};

struct Query {
  const KdopTree& a;
  const KdopTree& b;
  Eigen::Isometry3d b_in_a;
  RotatedAxes a_axes_in_b;  // A's directions acting on B's boxes
  RotatedAxes b_axes_in_a;  // B's directions acting on A's boxes
  double margin = 0.0;
  CollisionStats stats;

  Query(const KdopTree& ta, const KdopTree& tb, const Eigen::Isometry3d& pose)
      : a(ta), b(tb), b_in_a(pose) {
    const Eigen::Matrix3d r = pose.linear();
    const Vec t = pose.translation();
    a_axes_in_b.count = a.axisCount();
    const Vec* da = kdopDirections(a.k());
    for (int j = 0; j < a_axes_in_b.count; ++j) {
      const Vec d = r.transpose() * da[j];
      for (int c = 0; c < 3; ++c) {
        a_axes_in_b.dir[static_cast<std::size_t>(j)][static_cast<std::size_t>(c)] = d[c];
        a_axes_in_b.abs[static_cast<std::size_t>(j)][static_cast<std::size_t>(c)] = std::abs(d[c]);
      }
      a_axes_in_b.offset[static_cast<std::size_t>(j)] = da[j].dot(t);
    }
    // x_B = R^T (x_A - t), so dot(d, x_B) = dot(R d, x_A) - dot(R d, t).
    b_axes_in_a.count = b.axisCount();
    const Vec* db = kdopDirections(b.k());
    for (int j = 0; j < b_axes_in_a.count; ++j) {
      const Vec d = r * db[j];
      for (int c = 0; c < 3; ++c) {
        b_axes_in_a.dir[static_cast<std::size_t>(j)][static_cast<std::size_t>(c)] = d[c];
        b_axes_in_a.abs[static_cast<std::size_t>(j)][static_cast<std::size_t>(c)] = std::abs(d[c]);
      }
      b_axes_in_a.offset[static_cast<std::size_t>(j)] = -d.dot(t);
    }
    // Directions are at most sqrt(3) long; 2x covers them.
    margin = 2.0 * kMarginRelative * (a.scale() + b.scale() + t.norm());
  }
};

// Is the box (axes 0-2 of a DOP) given by lo/hi, seen through `axes`, disjoint from the slabs
// [smin, smax] of the other DOP?
bool separated(const RotatedAxes& axes, const double* box_lo, const double* box_hi,
               const double* smin, const double* smax, double margin) {
  const double c0 = 0.5 * (box_lo[0] + box_hi[0]), c1 = 0.5 * (box_lo[1] + box_hi[1]),
               c2 = 0.5 * (box_lo[2] + box_hi[2]);
  const double h0 = 0.5 * (box_hi[0] - box_lo[0]), h1 = 0.5 * (box_hi[1] - box_lo[1]),
               h2 = 0.5 * (box_hi[2] - box_lo[2]);
  for (int j = 0; j < axes.count; ++j) {
    const auto& d = axes.dir[static_cast<std::size_t>(j)];
    const auto& e = axes.abs[static_cast<std::size_t>(j)];
    const double mid = d[0] * c0 + d[1] * c1 + d[2] * c2 + axes.offset[static_cast<std::size_t>(j)];
    const double rad = e[0] * h0 + e[1] * h1 + e[2] * h2;
    if (mid - rad > smax[j] + margin || mid + rad < smin[j] - margin) return true;
  }
  return false;
}

bool overlap(const Query& q, std::size_t na, std::size_t nb) {
  const double* a_lo = q.a.slabMin(na);
  const double* a_hi = q.a.slabMax(na);
  const double* b_lo = q.b.slabMin(nb);
  const double* b_hi = q.b.slabMax(nb);
  return !separated(q.a_axes_in_b, b_lo, b_hi, a_lo, a_hi, q.margin) &&
         !separated(q.b_axes_in_a, a_lo, a_hi, b_lo, b_hi, q.margin);
}

double boxSize(const KdopTree& t, std::size_t n) {
  const double* lo = t.slabMin(n);
  const double* hi = t.slabMax(n);
  return (hi[0] - lo[0]) + (hi[1] - lo[1]) + (hi[2] - lo[2]);
}

// Exact tests of one leaf pair; `on_hit(slot_a, slot_b, intersection)` returns true to stop.
template <class OnHit>
bool leafPair(Query& q, const KdopTree::Node& la, const KdopTree::Node& lb, OnHit&& on_hit) {
  std::array<Vec, 48> vb;  // B's triangles moved into A's frame (at most 16 per leaf)
  std::array<Vec, 16> b_min, b_max;
  for (int i = 0; i < lb.count; ++i) {
    const Vec* v = q.b.slotVertices(static_cast<std::size_t>(lb.first + i));
    const auto s = static_cast<std::size_t>(i);
    for (std::size_t c = 0; c < 3; ++c) vb[3 * s + c] = q.b_in_a * v[c];
    b_min[s] = vb[3 * s].cwiseMin(vb[3 * s + 1]).cwiseMin(vb[3 * s + 2]);
    b_max[s] = vb[3 * s].cwiseMax(vb[3 * s + 1]).cwiseMax(vb[3 * s + 2]);
  }
  for (int i = 0; i < la.count; ++i) {
    const Vec* va = q.a.slotVertices(static_cast<std::size_t>(la.first + i));
    const Vec a_min = va[0].cwiseMin(va[1]).cwiseMin(va[2]);
    const Vec a_max = va[0].cwiseMax(va[1]).cwiseMax(va[2]);
    for (int j = 0; j < lb.count; ++j) {
      const auto s = static_cast<std::size_t>(j);
      ++q.stats.triangle_tests;
      // Cheap box rejection; the margin keeps it more permissive than the exact test.
      if ((a_min.array() > b_max[s].array() + q.margin).any() ||
          (b_min[s].array() > a_max.array() + q.margin).any())
        continue;
      const TriangleIntersection hit =
          intersectTriangles(va[0], va[1], va[2], vb[3 * s], vb[3 * s + 1], vb[3 * s + 2]);
      if (hit.intersects() && on_hit(la.first + i, lb.first + j, hit)) return true;
    }
  }
  return false;
}

template <class OnHit>
void traverse(Query& q, OnHit&& on_hit) {
  if (q.a.empty() || q.b.empty()) return;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack;
  stack.reserve(128);
  stack.emplace_back(0, 0);
  while (!stack.empty()) {
    const auto [na, nb] = stack.back();
    stack.pop_back();
    ++q.stats.node_tests;
    if (!overlap(q, na, nb)) continue;
    const KdopTree::Node& node_a = q.a.node(na);
    const KdopTree::Node& node_b = q.b.node(nb);
    if (node_a.isLeaf() && node_b.isLeaf()) {
      if (leafPair(q, node_a, node_b, on_hit)) return;
      continue;
    }
    // Descend the larger volume so that both sides shrink at a similar rate.
    const bool split_a =
        node_b.isLeaf() || (!node_a.isLeaf() && boxSize(q.a, na) >= boxSize(q.b, nb));
    if (split_a) {
      stack.emplace_back(static_cast<std::uint32_t>(node_a.first), nb);
      stack.emplace_back(na + 1, nb);
    } else {
      stack.emplace_back(na, static_cast<std::uint32_t>(node_b.first));
      stack.emplace_back(na, nb + 1);
    }
  }
}

void addStats(CollisionStats* out, const CollisionStats& s) {
  if (out == nullptr) return;
  out->node_tests += s.node_tests;
  out->triangle_tests += s.triangle_tests;
}

}  // namespace

bool anyContact(const KdopTree& a, const KdopTree& b, const Eigen::Isometry3d& b_in_a,
                CollisionStats* stats) {
  Query q(a, b, b_in_a);
  bool found = false;
  traverse(q, [&](int, int, const TriangleIntersection&) { return found = true; });
  addStats(stats, q.stats);
  return found;
}

std::vector<TrianglePairContact> allContacts(const KdopTree& a, const KdopTree& b,
                                             const Eigen::Isometry3d& b_in_a,
                                             CollisionStats* stats) {
  Query q(a, b, b_in_a);
  std::vector<TrianglePairContact> out;
  traverse(q, [&](int slot_a, int slot_b, const TriangleIntersection& hit) {
    out.push_back({a.slotTriangle(static_cast<std::size_t>(slot_a)),
                   b.slotTriangle(static_cast<std::size_t>(slot_b)), hit});
    return false;
  });
  addStats(stats, q.stats);
  return out;
}

}  // namespace handsim::collision
