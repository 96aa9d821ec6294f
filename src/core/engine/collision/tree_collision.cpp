// SPDX-License-Identifier: GPL-3.0-or-later
// Simultaneous descent of two k-DOP trees (Klosowski et al., IEEE TVCG 4(1), 1998, section 5):
// test the roots, descend into the larger volume only where volumes overlap, and run the exact
// triangle test (Moller 1997) at leaf pairs. k-DOPs are not rotation invariant, so a node of
// one tree is bounded along the other tree's slab directions through bases of its own slab
// directions (and along the other node's normal slab through its normal-slab basis);
// docs/collision.md, section 4, argues why this never misses a contact.
#include "handsim/collision/tree_collision.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "handsim/collision/contact_scratch.hpp"

namespace handsim::collision {
namespace {

using Vec = Eigen::Vector3d;

// Relative margin added to every slab comparison. It must exceed the triangle test's tolerance
// (kTriangleRelativeTolerance of the pair's size plus coordinate rounding) and the rounding of
// the support computations, so that no pair the exact test accepts is ever pruned.
constexpr double kMarginRelative = 1e-10;
static_assert(kMarginRelative > 10 * kTriangleRelativeTolerance);

// Bounding a k-DOP along a direction c that is not one of its own: for any three independent
// slab directions d_i with c = sum w_i d_i, c.x = sum w_i (d_i.x) lies in
// [sum w_i m_i - sum |w_i| h_i, sum w_i m_i + sum |w_i| h_i] (m_i, h_i: slab centre and
// half-width), so the interval always contains the DOP's projection. By linear-programming
// duality the exact support is the minimum over such bases; a table picks, per cell of
// directions, the basis that is tightest for a round DOP.
struct Basis {
  std::array<int, 3> index{};
  Eigen::Matrix3d to_weights;  // w = to_weights * c
};

struct BasisTable {
  static constexpr int kCells = 16;  // per cube-map face side
  std::vector<Basis> bases;
  std::vector<int> best;  // per cube-map cell: index into bases

  static int cellOf(const Vec& c) {
    int axis = 0;
    c.cwiseAbs().maxCoeff(&axis);
    const double major = std::abs(c[axis]);
    auto bin = [&](double x) {
      const int b = static_cast<int>((x / major + 1.0) * 0.5 * kCells);
      return std::min(kCells - 1, std::max(0, b));
    };
    const int face = 2 * axis + (c[axis] > 0.0 ? 1 : 0);
    return (face * kCells + bin(c[(axis + 1) % 3])) * kCells + bin(c[(axis + 2) % 3]);
  }

  explicit BasisTable(int k) {
    const Vec* d = kdopDirections(k);
    const int h = k / 2;
    for (int i = 0; i < h; ++i)
      for (int j = i + 1; j < h; ++j)
        for (int l = j + 1; l < h; ++l) {
          Eigen::Matrix3d u;
          u << d[i], d[j], d[l];
          const double det = u.determinant() / (d[i].norm() * d[j].norm() * d[l].norm());
          // Ill-conditioned bases give loose bounds and large weights; skip them.
          if (std::abs(det) < 0.15) continue;
          bases.push_back({{i, j, l}, u.inverse()});
        }
    best.resize(6 * kCells * kCells);
    for (int face = 0; face < 6; ++face)
      for (int iu = 0; iu < kCells; ++iu)
        for (int iv = 0; iv < kCells; ++iv) {
          const int axis = face / 2;
          Vec c;
          c[axis] = face % 2 == 1 ? 1.0 : -1.0;
          c[(axis + 1) % 3] = -1.0 + (2.0 * iu + 1.0) / kCells;
          c[(axis + 2) % 3] = -1.0 + (2.0 * iv + 1.0) / kCells;
          double tightest = std::numeric_limits<double>::infinity();
          int choice = 0;
          for (std::size_t b = 0; b < bases.size(); ++b) {
            const Vec w = bases[b].to_weights * c;
            double bound = 0.0;
            for (int m = 0; m < 3; ++m)
              bound += std::abs(w[m]) * d[bases[b].index[static_cast<std::size_t>(m)]].norm();
            if (bound < tightest) {
              tightest = bound;
              choice = static_cast<int>(b);
            }
          }
          best[static_cast<std::size_t>((face * kCells + iu) * kCells + iv)] = choice;
        }
  }

  const Basis& lookup(const Vec& c) const {
    return bases[static_cast<std::size_t>(best[static_cast<std::size_t>(cellOf(c))])];
  }
};

const BasisTable& basisTable(int k) {
  switch (k) {
    case 14: {
      static const BasisTable table(14);
      return table;
    }
    case 18: {
      static const BasisTable table(18);
      return table;
    }
    default: {
      static const BasisTable table(26);
      return table;
    }
  }
}

// One tree's slab directions ("own") expressed through bases of the other tree's directions:
// maps a node of the other tree (slab centres and half-widths) to an interval along each own
// direction. (Also intersecting with the box basis x, y, z was measured to never prune a
// single extra node on the benchmark scenes, so only the table's basis is used.)
// Only the first `count` entries are ever read, and `build` writes them, so the arrays are left
// uninitialised: a frontier replay builds none, and zeroing them (1.2 kB per query) showed in
// the profile.
struct DirectionBounds {
  int count = 0;
  std::array<std::array<int, 3>, kMaxKdopAxes> index;
  std::array<std::array<double, 3>, kMaxKdopAxes> w, abs_w;
  std::array<double, kMaxKdopAxes> offset;

  // `rotated[j]`: own direction j in the other tree's frame; `offsets[j]`: the translation's
  // contribution to projections on it.
  void build(int own_axes, const Vec* rotated, const double* offsets, int other_k) {
    const BasisTable& table = basisTable(other_k);
    count = own_axes;
    for (std::size_t j = 0; j < static_cast<std::size_t>(own_axes); ++j) {
      const Basis& b = table.lookup(rotated[j]);
      const Vec weights = b.to_weights * rotated[j];
      index[j] = b.index;
      for (std::size_t m = 0; m < 3; ++m) {
        w[j][m] = weights[static_cast<Eigen::Index>(m)];
        abs_w[j][m] = std::abs(weights[static_cast<Eigen::Index>(m)]);
      }
      offset[j] = offsets[j];
    }
  }
};

// A node's extent along the other tree's directions (in the other tree's frame), and the node's
// normal-slab direction expressed in the other tree's frame with the translation's offset.
using Bounds = detail::NodeBounds;

void boundNode(const DirectionBounds& d, const double* mid, const double* half, Bounds& out) {
  for (std::size_t j = 0; j < static_cast<std::size_t>(d.count); ++j) {
    const auto& i = d.index[j];
    out.mid[j] =
        d.w[j][0] * mid[i[0]] + d.w[j][1] * mid[i[1]] + d.w[j][2] * mid[i[2]] + d.offset[j];
    out.rad[j] =
        d.abs_w[j][0] * half[i[0]] + d.abs_w[j][1] * half[i[1]] + d.abs_w[j][2] * half[i[2]];
  }
}

struct Query {
  const KdopTree& a;
  const KdopTree& b;
  Eigen::Isometry3d b_in_a;
  DirectionBounds a_dirs_on_b;  // bounds B's nodes along A's directions
  DirectionBounds b_dirs_on_a;  // bounds A's nodes along B's directions
  double margin = 0.0;          // of every test at this pose
  double node_margin = 0.0;     // of the node-pair tests: `margin`, widened for a frontier record
  CollisionStats stats;

  // `node_bounds`: false when only leaf pairs will be tested (a frontier replay).
  Query(const KdopTree& ta, const KdopTree& tb, const Eigen::Isometry3d& pose,
        bool node_bounds = true)
      : a(ta), b(tb), b_in_a(pose) {
    const Eigen::Matrix3d r = pose.linear();
    const Vec t = pose.translation();
    // Weights of the well-conditioned bases stay below ~10 |direction|; 20x covers rounding.
    margin = 20.0 * kMarginRelative * (a.scale() + b.scale() + t.norm());
    node_margin = margin;
    if (!node_bounds) return;
    std::array<Vec, kMaxKdopAxes> rotated;
    std::array<double, kMaxKdopAxes> offsets{};
    // Projection on A's direction d of a point x_B of B: dot(R^T d, x_B) + dot(d, t).
    const Vec* da = kdopDirections(a.k());
    for (std::size_t j = 0; j < static_cast<std::size_t>(a.axisCount()); ++j) {
      rotated[j] = r.transpose() * da[j];
      offsets[j] = da[j].dot(t);
    }
    a_dirs_on_b.build(a.axisCount(), rotated.data(), offsets.data(), b.k());
    // x_B = R^T (x_A - t), so dot(d, x_B) = dot(R d, x_A) - dot(R d, t).
    const Vec* db = kdopDirections(b.k());
    for (std::size_t j = 0; j < static_cast<std::size_t>(b.axisCount()); ++j) {
      rotated[j] = r * db[j];
      offsets[j] = -rotated[j].dot(t);
    }
    b_dirs_on_a.build(b.axisCount(), rotated.data(), offsets.data(), a.k());
  }
};

// Is a node disjoint from the other node along its own normal slab? `own_record` holds the own
// normal in the other node's frame; the other node is bounded along it through its normal-slab
// basis (its normal and two of its k-DOP slabs).
bool normalSeparated(const KdopTree::NormalSlab& own, const Bounds& own_record,
                     const KdopTree::NormalSlab& other, const double* other_mid,
                     const double* other_half, double margin) {
  const Vec w = other.to_weights * own_record.normal_in_other;
  const auto i = static_cast<std::size_t>(other.axes[0]);
  const auto j = static_cast<std::size_t>(other.axes[1]);
  const double mid =
      w[0] * other.centre + w[1] * other_mid[i] + w[2] * other_mid[j] + own_record.normal_offset;
  const double rad = std::abs(w[0]) * other.half_width + std::abs(w[1]) * other_half[i] +
                     std::abs(w[2]) * other_half[j];
  return std::abs(mid - own.centre) > own.half_width + rad + margin;
}

// Is a node, whose own slabs are (mid, half), disjoint from the other node's bounds along the
// same directions (beyond the margin)?
bool separated(const double* mid, const double* half, const Bounds& other, int count,
               double margin) {
  for (std::size_t j = 0; j < static_cast<std::size_t>(count); ++j)
    if (std::abs(other.mid[j] - mid[j]) > half[j] + other.rad[j] + margin) return true;
  return false;
}

double boxSize(const KdopTree& t, std::size_t n) {
  const double* half = t.slabHalfWidth(n);
  return half[0] + half[1] + half[2];
}

// Exact tests of one leaf pair; `on_hit(slot_a, slot_b, intersection)` returns true to stop.
// Cheap box rejections come first (B's moved triangles against A's leaf box, then triangle box
// against triangle box); the margin keeps them more permissive than the exact test.
template <class OnHit>
bool leafPair(Query& q, std::size_t na, const KdopTree::Node& la, const KdopTree::Node& lb,
              OnHit&& on_hit) {
  ++q.stats.leaf_pairs;
  constexpr std::size_t kMaxLeaf = 16;
  std::array<Vec, 3 * kMaxLeaf> vb;  // B's surviving triangles moved into A's frame
  std::array<Vec, kMaxLeaf> b_min, b_max;
  std::array<int, kMaxLeaf> b_slot{};
  const double* a_mid = q.a.slabCentre(na);
  const double* a_half = q.a.slabHalfWidth(na);
  const Vec leaf_lo =
      Vec(a_mid[0] - a_half[0], a_mid[1] - a_half[1], a_mid[2] - a_half[2]).array() - q.margin;
  const Vec leaf_hi =
      Vec(a_mid[0] + a_half[0], a_mid[1] + a_half[1], a_mid[2] + a_half[2]).array() + q.margin;
  Vec live_min = Vec::Constant(std::numeric_limits<double>::infinity()), live_max = -live_min;
  std::size_t live = 0;
  for (int i = 0; i < lb.count; ++i) {
    const Vec* v = q.b.slotVertices(static_cast<std::size_t>(lb.first + i));
    for (std::size_t c = 0; c < 3; ++c) vb[3 * live + c] = q.b_in_a * v[c];
    const Vec lo = vb[3 * live].cwiseMin(vb[3 * live + 1]).cwiseMin(vb[3 * live + 2]);
    const Vec hi = vb[3 * live].cwiseMax(vb[3 * live + 1]).cwiseMax(vb[3 * live + 2]);
    if ((lo.array() > leaf_hi.array()).any() || (hi.array() < leaf_lo.array()).any()) continue;
    b_min[live] = lo;
    b_max[live] = hi;
    b_slot[live] = lb.first + i;
    live_min = live_min.cwiseMin(lo);
    live_max = live_max.cwiseMax(hi);
    ++live;
  }
  if (live == 0) return false;
  for (int i = 0; i < la.count; ++i) {
    const Vec* va = q.a.slotVertices(static_cast<std::size_t>(la.first + i));
    const Vec a_min = va[0].cwiseMin(va[1]).cwiseMin(va[2]).array() - q.margin;
    const Vec a_max = va[0].cwiseMax(va[1]).cwiseMax(va[2]).array() + q.margin;
    if ((a_min.array() > live_max.array()).any() || (a_max.array() < live_min.array()).any())
      continue;
    for (std::size_t s = 0; s < live; ++s) {
      if ((a_min.array() > b_max[s].array()).any() || (b_min[s].array() > a_max.array()).any())
        continue;
      ++q.stats.triangle_tests;
      const TriangleIntersection hit =
          intersectTriangles(va[0], va[1], va[2], vb[3 * s], vb[3 * s + 1], vb[3 * s + 2]);
      if (hit.intersects() && on_hit(la.first + i, b_slot[s], hit)) return true;
    }
  }
  return false;
}

// The frontier replay's leaf pairs (same tests, same order, same results as `leafPair`), with
// every leaf's triangles prepared once per query in `scratch.query_triangles`: a leaf of B that
// meets several leaves of A is moved into A's frame once, and each triangle's plane, normal and
// edge lengths are computed once however many exact tests it takes part in. The moved
// vertices, boxes and shapes are the values leafPair and the six-vertex intersectTriangles
// compute, so hits are equal bit for bit.
class PreparedLeaves {
 public:
  PreparedLeaves(Query& q, ContactScratch& scratch) : q_(q), s_(scratch) {
    if (s_.leaf_entry_a.size() < q.a.nodeCount()) s_.leaf_entry_a.resize(q.a.nodeCount(), 0);
    if (s_.leaf_entry_b.size() < q.b.nodeCount()) s_.leaf_entry_b.resize(q.b.nodeCount(), 0);
    // Tags hold the query number in 32 bits: before it would wrap, every entry is cleared and
    // numbering restarts (0 is never a query's number), so no stale entry can match.
    if (++s_.query_number > 0xffffffffu) {
      std::fill(s_.leaf_entry_a.begin(), s_.leaf_entry_a.end(), 0);
      std::fill(s_.leaf_entry_b.begin(), s_.leaf_entry_b.end(), 0);
      s_.query_number = 1;
    }
    s_.query_triangles.clear();
  }

  template <class OnHit>
  bool leafPair(std::uint32_t na, std::uint32_t nb, OnHit&& on_hit) {
    ++q_.stats.leaf_pairs;
    const KdopTree::Node& la = q_.a.node(na);
    const KdopTree::Node& lb = q_.b.node(nb);
    const std::size_t first_a = leaf(na, true), first_b = leaf(nb, false);
    constexpr std::size_t kMaxLeaf = 16;
    std::array<std::size_t, kMaxLeaf> live_index;  // written before read; zeroing showed
    const double margin = q_.margin;
    const double* a_mid = q_.a.slabCentre(na);
    const double* a_half = q_.a.slabHalfWidth(na);
    const Vec leaf_lo =
        Vec(a_mid[0] - a_half[0], a_mid[1] - a_half[1], a_mid[2] - a_half[2]).array() - margin;
    const Vec leaf_hi =
        Vec(a_mid[0] + a_half[0], a_mid[1] + a_half[1], a_mid[2] + a_half[2]).array() + margin;
    Vec live_min = Vec::Constant(std::numeric_limits<double>::infinity()), live_max = -live_min;
    std::size_t live = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(lb.count); ++i) {
      const PreparedTriangle& t = s_.query_triangles[first_b + i].t;
      if ((t.lo.array() > leaf_hi.array()).any() || (t.hi.array() < leaf_lo.array()).any())
        continue;
      live_index[live++] = first_b + i;
      live_min = live_min.cwiseMin(t.lo);
      live_max = live_max.cwiseMax(t.hi);
    }
    if (live == 0) return false;
    for (std::size_t i = 0; i < static_cast<std::size_t>(la.count); ++i) {
      detail::QueryTriangle& ta = s_.query_triangles[first_a + i];
      const Vec a_min = ta.t.lo.array() - margin;
      const Vec a_max = ta.t.hi.array() + margin;
      if ((a_min.array() > live_max.array()).any() || (a_max.array() < live_min.array()).any())
        continue;
      for (std::size_t s = 0; s < live; ++s) {
        detail::QueryTriangle& tb = s_.query_triangles[live_index[s]];
        if ((a_min.array() > tb.t.hi.array()).any() || (tb.t.lo.array() > a_max.array()).any())
          continue;
        ++q_.stats.triangle_tests;
        shape(ta);
        shape(tb);
        const TriangleIntersection hit = intersectTriangles(ta.t, tb.t);
        if (hit.intersects() && on_hit(la.first + static_cast<int>(i),
                                       lb.first + static_cast<int>(live_index[s] - first_b), hit))
          return true;
      }
    }
    return false;
  }

 private:
  static void shape(detail::QueryTriangle& t) {
    if (t.shaped) return;
    shapePreparedTriangle(t.t);
    t.shaped = true;
  }

  // Index of leaf `n`'s first triangle in the query's list, adding the leaf (A's triangles as
  // stored, B's moved by the query's pose, each bounded) on first use.
  std::size_t leaf(std::uint32_t n, bool of_a) {
    std::uint64_t& entry = (of_a ? s_.leaf_entry_a : s_.leaf_entry_b)[n];
    if (entry >> 32 == s_.query_number) return static_cast<std::size_t>(entry & 0xffffffffu);
    const std::size_t first = s_.query_triangles.size();
    entry = (s_.query_number << 32) | first;
    const KdopTree& tree = of_a ? q_.a : q_.b;
    const KdopTree::Node& node = tree.node(n);
    for (int i = 0; i < node.count; ++i) {
      const Vec* v = tree.slotVertices(static_cast<std::size_t>(node.first + i));
      s_.query_triangles.emplace_back();
      detail::QueryTriangle& t = s_.query_triangles.back();
      for (std::size_t c = 0; c < 3; ++c) t.t.v[c] = of_a ? v[c] : Vec(q_.b_in_a * v[c]);
      boundPreparedTriangle(t.t);
      t.shaped = false;
    }
    return first;
  }

  Query& q_;
  ContactScratch& s_;
};

// Depth-first descent. Each stack entry refers to the bounds of its A node along B's directions
// and of its B node along A's directions; a record is computed only when a test first needs it
// and is then shared by every pair the node takes part in. A new child is first tested with its
// own slabs against the other node's (usually existing) record, so a pair separated there never
// pays for bounding the child. Records live in a stack-ordered pool: an entry's records are
// never newer than those of the entries above it, so popping an entry releases every later one.
// Stack and pool are the scratch's, kept between queries so that a warm query allocates nothing.
// `on_leaf(na, nb)` is called for every leaf pair reached, in the traversal's order, and returns
// true to stop. The order depends on the trees alone (which child is split and visited first
// does not depend on the pose), so the leaf pairs reached at any pose, and with any margin,
// come in one fixed relative order.
template <class OnLeaf>
void traverse(Query& q, ContactScratch& scratch, OnLeaf&& on_leaf) {
  if (q.a.empty() || q.b.empty()) return;
  using Entry = detail::TraversalEntry;
  std::vector<Entry>& stack = scratch.stack;
  std::vector<detail::TraversalRecord>& pool = scratch.records;
  stack.clear();
  stack.reserve(128);
  if (pool.size() < 64) pool.resize(64);
  std::uint32_t top = 0;
  auto alloc = [&](std::uint32_t node, bool of_a) {
    if (top == pool.size()) pool.resize(2 * pool.size());
    detail::TraversalRecord& r = pool[top];
    r.node = node;
    r.of_a = of_a;
    r.dop_ready = false;
    r.normal_ready = false;
    return top++;
  };
  const Eigen::Matrix3d rot = q.b_in_a.linear();
  const Vec shift = q.b_in_a.translation();
  // The k-DOP bounds (the expensive part) and the moved normal are computed separately, each on
  // first use.
  auto ensureDop = [&](std::uint32_t i) -> const Bounds& {
    detail::TraversalRecord& r = pool[i];
    if (!r.dop_ready) {
      if (r.of_a)
        boundNode(q.b_dirs_on_a, q.a.slabCentre(r.node), q.a.slabHalfWidth(r.node), r.bounds);
      else
        boundNode(q.a_dirs_on_b, q.b.slabCentre(r.node), q.b.slabHalfWidth(r.node), r.bounds);
      r.dop_ready = true;
    }
    return r.bounds;
  };
  auto ensureNormal = [&](std::uint32_t i) -> const Bounds& {
    detail::TraversalRecord& r = pool[i];
    if (!r.normal_ready) {
      if (r.of_a) {
        const Vec& n = q.a.normalSlab(r.node).normal;
        r.bounds.normal_in_other = rot.transpose() * n;
        r.bounds.normal_offset = n.dot(shift);
      } else {
        r.bounds.normal_in_other = rot * q.b.normalSlab(r.node).normal;
        r.bounds.normal_offset = -r.bounds.normal_in_other.dot(shift);
      }
      r.normal_ready = true;
    }
    return r.bounds;
  };
  const int axes_a = q.a.axisCount(), axes_b = q.b.axisCount();
  // Cheapest tests first: the new child's own slabs against the other node's bounds (usually
  // computed already), then the two normal slabs, and only then the other node's slabs against
  // the child's bounds, which need the child's k-DOP bounds.
  auto overlap = [&](const Entry& e, bool new_a) {
    ++q.stats.node_tests;
    const double* a_mid = q.a.slabCentre(e.na);
    const double* a_half = q.a.slabHalfWidth(e.na);
    const double* b_mid = q.b.slabCentre(e.nb);
    const double* b_half = q.b.slabHalfWidth(e.nb);
    const double margin = q.node_margin;
    if (new_a ? separated(a_mid, a_half, ensureDop(e.bounds_b), axes_a, margin)
              : separated(b_mid, b_half, ensureDop(e.bounds_a), axes_b, margin))
      return false;
    const KdopTree::NormalSlab& sa = q.a.normalSlab(e.na);
    const KdopTree::NormalSlab& sb = q.b.normalSlab(e.nb);
    if (sa.valid && sb.valid &&
        (normalSeparated(sa, ensureNormal(e.bounds_a), sb, b_mid, b_half, margin) ||
         normalSeparated(sb, ensureNormal(e.bounds_b), sa, a_mid, a_half, margin)))
      return false;
    return new_a ? !separated(b_mid, b_half, ensureDop(e.bounds_a), axes_b, margin)
                 : !separated(a_mid, a_half, ensureDop(e.bounds_b), axes_a, margin);
  };
  {
    const std::uint32_t ra = alloc(0, true);
    const Entry root{0, 0, ra, alloc(0, false)};
    if (!overlap(root, true)) return;
    stack.push_back(root);
  }
  while (!stack.empty()) {
    const Entry e = stack.back();
    stack.pop_back();
    top = std::max(e.bounds_a, e.bounds_b) + 1;
    const KdopTree::Node& node_a = q.a.node(e.na);
    const KdopTree::Node& node_b = q.b.node(e.nb);
    if (node_a.isLeaf() && node_b.isLeaf()) {
      if (on_leaf(e.na, e.nb)) return;
      continue;
    }
    // Descend the larger volume so that both sides shrink at a similar rate. The right child
    // is pushed first, so the left one is visited first.
    const bool split_a =
        node_b.isLeaf() || (!node_a.isLeaf() && boxSize(q.a, e.na) >= boxSize(q.b, e.nb));
    const KdopTree::Node& split = split_a ? node_a : node_b;
    const std::uint32_t parent = split_a ? e.na : e.nb;
    for (const std::uint32_t c : {static_cast<std::uint32_t>(split.first), parent + 1}) {
      const std::uint32_t r = alloc(c, split_a);
      const Entry child = split_a ? Entry{c, e.nb, r, e.bounds_b} : Entry{e.na, c, e.bounds_a, r};
      if (overlap(child, split_a))
        stack.push_back(child);
      else
        --top;  // the child's record is the newest one
    }
  }
}

void addStats(CollisionStats* out, const CollisionStats& s) {
  if (out == nullptr) return;
  out->node_tests += s.node_tests;
  out->triangle_tests += s.triangle_tests;
  out->frontier_replays += s.frontier_replays;
  out->frontier_refreshes += s.frontier_refreshes;
  out->leaf_pairs += s.leaf_pairs;
}

// Every leaf pair reached by the full descent at `q`'s pose, given to the exact tests.
template <class OnHit>
void descend(Query& q, ContactScratch& scratch, OnHit&& on_hit) {
  traverse(q, scratch, [&](std::uint32_t na, std::uint32_t nb) {
    return leafPair(q, na, q.a.node(na), q.b.node(nb), on_hit);
  });
}

// Largest norm of the slab directions of either tree, and of a normal slab's (1): how far a
// projection moves per metre a point moves.
double largestDirectionNorm(const KdopTree& a, const KdopTree& b) {
  double n = 1.0;
  for (const KdopTree* t : {&a, &b}) {
    const Vec* d = kdopDirections(t->k());
    for (int j = 0; j < t->axisCount(); ++j) n = std::max(n, d[j].norm());
  }
  return n;
}

// Bound on |x| over the tree's vertices (its own frame) from the root's x, y, z slabs [m].
double radiusBound(const KdopTree& t) {
  const double* mid = t.slabCentre(0);
  const double* half = t.slabHalfWidth(0);
  double r2 = 0.0;
  for (int i = 0; i < 3; ++i) {
    const double far = std::abs(mid[i]) + half[i];
    r2 += far * far;
  }
  return std::sqrt(r2) * (1.0 + 1e-12);
}

// Upper bound on how far any vertex of B moved relative to A between the record and `pose`:
// |(R - R0) x + (t - t0)| <= |R - R0|_F |x| + |t - t0| (the Frobenius norm bounds the spectral
// one), rounded up.
double motionSinceRecord(const FrontierCache::Record& r, const Eigen::Isometry3d& pose) {
  const double dt = (pose.translation() - r.translation).norm();
  const double dr = (pose.linear() - r.rotation).norm();
  return (dt + dr * r.radius_b) * (1.0 + 1e-12);
}

}  // namespace

bool anyContact(const KdopTree& a, const KdopTree& b, const Eigen::Isometry3d& b_in_a,
                CollisionStats* stats) {
  ContactScratch scratch;
  return anyContact(a, b, b_in_a, scratch, stats);
}

bool anyContact(const KdopTree& a, const KdopTree& b, const Eigen::Isometry3d& b_in_a,
                ContactScratch& scratch, CollisionStats* stats) {
  Query q(a, b, b_in_a);
  bool found = false;
  descend(q, scratch, [&](int, int, const TriangleIntersection&) { return found = true; });
  addStats(stats, q.stats);
  return found;
}

void allContacts(const KdopTree& a, const KdopTree& b, const Eigen::Isometry3d& b_in_a,
                 ContactScratch& scratch, std::vector<TrianglePairContact>& out,
                 CollisionStats* stats) {
  out.clear();
  Query q(a, b, b_in_a);
  descend(q, scratch, [&](int slot_a, int slot_b, const TriangleIntersection& hit) {
    out.push_back({a.slotTriangle(static_cast<std::size_t>(slot_a)),
                   b.slotTriangle(static_cast<std::size_t>(slot_b)), hit});
    return false;
  });
  addStats(stats, q.stats);
}

void allContacts(const KdopTree& a, const KdopTree& b, const Eigen::Isometry3d& b_in_a,
                 FrontierCache& cache, ContactScratch& scratch,
                 std::vector<TrianglePairContact>& out, CollisionStats* stats) {
  if (!(cache.margin_m >= 0.0)) {  // disabled (or NaN): the plain descent
    allContacts(a, b, b_in_a, scratch, out, stats);
    return;
  }
  out.clear();
  if (a.empty() || b.empty()) return;
  FrontierCache::Record* rec = nullptr;
  for (FrontierCache::Record& r : cache.records)
    if (r.tree_a == a.id() && r.tree_b == b.id()) {
      rec = &r;
      break;
    }
  if (rec == nullptr) {
    cache.records.emplace_back();
    rec = &cache.records.back();
    rec->tree_a = a.id();
    rec->tree_b = b.id();
  }
  // Constructed in place: a braced temporary would copy the 200-byte intersection twice.
  auto on_hit = [&](int slot_a, int slot_b, const TriangleIntersection& hit) {
    out.emplace_back(a.slotTriangle(static_cast<std::size_t>(slot_a)),
                     b.slotTriangle(static_cast<std::size_t>(slot_b)), hit);
    return false;
  };

  const bool replay = rec->valid && motionSinceRecord(*rec, b_in_a) <= rec->slack;
  Query q(a, b, b_in_a, !replay);
  if (replay) {
    ++q.stats.frontier_replays;
    ++cache.replays;
  } else {
    // Record at this pose: every node-pair test widened by how far a projection can move when
    // the points move by the slack (plus this pose's margin again, for the rounding of the
    // later pose's tests), so that at any pose within the slack every leaf pair holding an
    // intersecting triangle pair is among the recorded ones.
    ++q.stats.frontier_refreshes;
    ++cache.refreshes;
    rec->valid = false;
    rec->slack = cache.margin_m;
    rec->rotation = b_in_a.linear();
    rec->translation = b_in_a.translation();
    rec->radius_b = radiusBound(b);
    q.node_margin = 2.0 * q.margin + largestDirectionNorm(a, b) * rec->slack * (1.0 + 1e-9);
    rec->leaves.clear();
    traverse(q, scratch, [&](std::uint32_t na, std::uint32_t nb) {
      rec->leaves.push_back({na, nb});
      return false;
    });
    rec->valid = true;
  }
  // The recorded leaf pairs in traversal order: those the full descent at this pose reaches
  // come in its order, and the others hold no intersecting triangle pair.
  PreparedLeaves leaves(q, scratch);
  for (const std::array<std::uint32_t, 2>& l : rec->leaves)
    if (leaves.leafPair(l[0], l[1], on_hit)) break;
  addStats(stats, q.stats);
}

std::vector<TrianglePairContact> allContacts(const KdopTree& a, const KdopTree& b,
                                             const Eigen::Isometry3d& b_in_a,
                                             CollisionStats* stats) {
  ContactScratch scratch;
  std::vector<TrianglePairContact> out;
  allContacts(a, b, b_in_a, scratch, out, stats);
  return out;
}

}  // namespace handsim::collision
