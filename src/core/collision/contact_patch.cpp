// SPDX-License-Identifier: GPL-3.0-or-later
// Contact surface generation (seed 000, section IV): intersection segments that share end
// points form one patch (union-find over the end points, found near each other through a list
// sorted by grid cell); per patch the area-weighted normal and the bounding-box centre give a
// point contact.
#include "handsim/collision/contact_patch.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>

#include "handsim/collision/contact_scratch.hpp"

namespace handsim::collision {
namespace {

using Vec = Eigen::Vector3d;
using Cell = std::array<std::int64_t, 3>;

// Union-find over `parent` with path halving; a join hangs the larger root under the smaller, so
// every set's root is its smallest member whatever the order of the joins.
int findRoot(std::vector<int>& parent, int x) {
  while (parent[static_cast<std::size_t>(x)] != x) {
    auto& p = parent[static_cast<std::size_t>(x)];
    p = parent[static_cast<std::size_t>(p)];
    x = p;
  }
  return x;
}

void joinSets(std::vector<int>& parent, int a, int b) {
  a = findRoot(parent, a);
  b = findRoot(parent, b);
  if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
}

// The points that represent a contact for chaining and for the patch's bounding box.
int contactPoints(const TriangleIntersection& x, const Vec** out) {
  if (x.kind == TriangleContactKind::Coplanar && x.polygon_size > 0) {
    for (int i = 0; i < x.polygon_size; ++i) out[i] = &x.polygon[static_cast<std::size_t>(i)];
    return x.polygon_size;
  }
  out[0] = &x.p0;
  out[1] = &x.p1;
  return 2;
}

Vec rawNormal(const geometry::TriangleMesh& m, int t) {
  const auto& tri = m.triangles[static_cast<std::size_t>(t)];
  const Vec& a = m.vertices[static_cast<std::size_t>(tri[0])];
  return (m.vertices[static_cast<std::size_t>(tri[1])] - a)
      .cross(m.vertices[static_cast<std::size_t>(tri[2])] - a);
}

// Sorts and removes repeats in place (keeps the capacity).
void makeDistinct(std::vector<int>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// Joins every two contacts that have points within `tol` of each other. Points within tol lie in
// the same or adjacent cells of side tol, so each point is compared with the points of its 27
// neighbouring cells: in the list sorted by cell (lexicographically), the three cells
// (x + dx, y + dy, z - 1 .. z + 1) are one contiguous run. Each unordered pair of points is
// examined once, from the one earlier in the list: runs with dx = -1, or with dx = 0 and
// dy = -1, lie wholly before the point, and in its own run only later entries count. The run
// (dx, dy) of a point starts at the first entry not below (x + dx, y + dy, z - 1) and ends before
// the first above (x + dx, y + dy, z + 1); both bounds grow with the point's cell, so one cursor
// per bound walks forward through the sorted list once (instead of a binary search per point).
void joinNearbyPoints(const std::vector<detail::CellPoint>& points, double tol,
                      std::vector<int>& parent) {
  constexpr std::array<std::array<std::int64_t, 2>, 4> kRuns{{{0, 1}, {1, -1}, {1, 0}, {1, 1}}};
  const std::size_t n = points.size();
  std::array<std::size_t, 4> first{}, last{};
  auto examine = [&](std::size_t i, std::size_t from, std::size_t to) {
    const detail::CellPoint& p = points[i];
    for (std::size_t j = from; j < to; ++j) {
      const detail::CellPoint& other = points[j];
      if (other.contact != p.contact && (*other.point - *p.point).norm() <= tol)
        joinSets(parent, p.contact, other.contact);
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Cell& c = points[i].cell;
    // Own run: the later entries up to (x, y, z + 1).
    const Cell own_end{c[0], c[1], c[2] + 1};
    std::size_t end = i + 1;
    while (end < n && !(own_end < points[end].cell)) ++end;
    examine(i, i + 1, end);
    for (std::size_t r = 0; r < kRuns.size(); ++r) {
      const Cell lo{c[0] + kRuns[r][0], c[1] + kRuns[r][1], c[2] - 1};
      const Cell hi{c[0] + kRuns[r][0], c[1] + kRuns[r][1], c[2] + 1};
      while (first[r] < n && points[first[r]].cell < lo) ++first[r];
      last[r] = std::max(last[r], first[r]);
      while (last[r] < n && !(hi < points[last[r]].cell)) ++last[r];
      examine(i, first[r], last[r]);
    }
  }
}

// The same joins as joinNearbyPoints over packed cells: key = (x - x_min + 1) 2^42 +
// (y - y_min + 1) 2^21 + (z - z_min + 1) with every field below 2^21 - 1, so keys order as cells
// do lexicographically and the neighbouring cell (x + dx, y + dy, z + dz) has key
// key + dx 2^42 + dy 2^21 + dz without carries.
void joinNearbyKeys(const std::vector<detail::CellKey>& keys,
                    const std::vector<detail::CellPoint>& points, double tol,
                    std::vector<int>& parent) {
  constexpr std::uint64_t kX = std::uint64_t{1} << 42, kY = std::uint64_t{1} << 21;
  constexpr std::array<std::uint64_t, 4> kRuns{{kY, kX - kY, kX, kX + kY}};
  const std::size_t n = keys.size();
  std::array<std::size_t, 4> first{}, last{};
  auto examine = [&](std::size_t i, std::size_t from, std::size_t to) {
    const detail::CellPoint& p = points[keys[i].point];
    for (std::size_t j = from; j < to; ++j) {
      const detail::CellPoint& other = points[keys[j].point];
      if (other.contact != p.contact && (*other.point - *p.point).norm() <= tol)
        joinSets(parent, p.contact, other.contact);
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t k = keys[i].key;
    std::size_t end = i + 1;
    while (end < n && keys[end].key <= k + 1) ++end;
    examine(i, i + 1, end);
    for (std::size_t r = 0; r < kRuns.size(); ++r) {
      const std::uint64_t lo = k + kRuns[r] - 1, hi = k + kRuns[r] + 1;
      while (first[r] < n && keys[first[r]].key < lo) ++first[r];
      last[r] = std::max(last[r], first[r]);
      while (last[r] < n && keys[last[r]].key <= hi) ++last[r];
      examine(i, first[r], last[r]);
    }
  }
}

// Packs the points' cells into `keys` (joinNearbyKeys) when every axis spans fewer than
// 2^21 - 2 cells; false (keys unusable) otherwise.
bool packCells(const std::vector<detail::CellPoint>& points, std::vector<detail::CellKey>& keys) {
  keys.clear();
  if (points.empty()) return true;
  Cell lo = points[0].cell, hi = lo;
  for (const detail::CellPoint& p : points)
    for (std::size_t a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], p.cell[a]);
      hi[a] = std::max(hi[a], p.cell[a]);
    }
  constexpr std::int64_t kSpan = (std::int64_t{1} << 21) - 3;
  for (std::size_t a = 0; a < 3; ++a)  // hi - lo cannot overflow: cells come from doubles / tol
    if (hi[a] < lo[a] || hi[a] - lo[a] >= kSpan) return false;
  const std::size_t n = points.size();
  keys.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Cell& c = points[i].cell;
    const auto field = [&](std::size_t a) { return static_cast<std::uint64_t>(c[a] - lo[a] + 1); };
    keys[i].key = (field(0) << 42) | (field(1) << 21) | field(2);
    keys[i].point = static_cast<std::uint32_t>(i);
  }
  return true;
}

// static_cast<int64_t>(std::floor(x / tol)) for every quotient the cast is defined for, without
// the libm call (the x86-64 baseline has no rounding instruction): truncation, one down for a
// negative non-integer.
std::int64_t cellCoordinate(double x, double tol) {
  const double q = x / tol;
  auto t = static_cast<std::int64_t>(q);
  if (q < static_cast<double>(t)) --t;
  return t;
}

// Empties a patch kept from an earlier call, keeping its vectors' capacity.
void resetPatch(ContactPatch& p) {
  p.point.setZero();
  p.normal.setZero();
  p.depth_m = 0.0;
  p.object_area_m2 = 0.0;
  p.bounds = geometry::Aabb{};
  p.contacts.clear();
  p.link_triangles.clear();
  p.object_triangles.clear();
}

}  // namespace

std::size_t buildContactPatches(const geometry::TriangleMesh& link,
                                const geometry::TriangleMesh& object,
                                const Eigen::Isometry3d& object_in_link,
                                const std::vector<TrianglePairContact>& contacts,
                                ContactScratch& scratch, const ContactPatchOptions& options) {
  if (!(options.join_tolerance_m > 0.0))
    throw std::invalid_argument("join_tolerance_m must be positive");
  const double tol = options.join_tolerance_m;
  const std::size_t n = contacts.size();
  std::vector<int>& parent = scratch.parent;
  parent.resize(n);
  std::iota(parent.begin(), parent.end(), 0);

  // Chaining points keyed by their cell of side tol. A contact has at most 6 points; reserving
  // for 6 makes the buffer's growth depend on the contact count only.
  std::vector<detail::CellPoint>& points = scratch.cell_points;
  if (points.capacity() < 6 * n) points.reserve(6 * n);
  points.resize(6 * n);
  std::size_t point_count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Vec* pts[6];
    const int count = contactPoints(contacts[i].intersection, pts);
    for (int k = 0; k < count; ++k) {
      detail::CellPoint& p = points[point_count++];
      p.cell[0] = cellCoordinate(pts[k]->x(), tol);
      p.cell[1] = cellCoordinate(pts[k]->y(), tol);
      p.cell[2] = cellCoordinate(pts[k]->z(), tol);
      p.contact = static_cast<int>(i);
      p.point = pts[k];
    }
  }
  points.resize(point_count);
  // Order within a cell does not matter: the components, and so their smallest members, do not
  // depend on the order of the joins. Packed cells sort as 16-byte keys; cells spread too far
  // for them (over 0.2 m at the default tolerance) sort as they are.
  std::vector<detail::CellKey>& keys = scratch.cell_keys;
  if (keys.capacity() < 6 * n) keys.reserve(6 * n);
  if (packCells(points, keys)) {
    std::sort(keys.begin(), keys.end(),
              [](const detail::CellKey& l, const detail::CellKey& r) { return l.key < r.key; });
    joinNearbyKeys(keys, points, tol, parent);
  } else {
    std::sort(
        points.begin(), points.end(),
        [](const detail::CellPoint& l, const detail::CellPoint& r) { return l.cell < r.cell; });
    joinNearbyPoints(points, tol, parent);
  }

  // Gather the patches in order of their smallest contact index, reusing earlier patches.
  std::vector<int>& patch_of_root = scratch.patch_of_root;
  patch_of_root.assign(n, -1);
  std::vector<ContactPatch>& patches = scratch.patches;
  std::size_t patch_count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto root = static_cast<std::size_t>(findRoot(parent, static_cast<int>(i)));
    if (patch_of_root[root] < 0) {
      patch_of_root[root] = static_cast<int>(patch_count);
      if (patch_count == patches.size())
        patches.emplace_back();
      else
        resetPatch(patches[patch_count]);
      ++patch_count;
    }
    ContactPatch& p = patches[static_cast<std::size_t>(patch_of_root[root])];
    p.contacts.push_back(static_cast<int>(i));
    p.link_triangles.push_back(contacts[i].triangle_a);
    p.object_triangles.push_back(contacts[i].triangle_b);
    const Vec* pts[6];
    const int count = contactPoints(contacts[i].intersection, pts);
    for (int k = 0; k < count; ++k) p.bounds.extend(*pts[k]);
  }

  const Eigen::Matrix3d rotation = object_in_link.linear();
  for (std::size_t k = 0; k < patch_count; ++k) {
    ContactPatch& p = patches[k];
    makeDistinct(p.link_triangles);
    makeDistinct(p.object_triangles);
    p.point = 0.5 * (p.bounds.min + p.bounds.max);
    // |raw normal| is twice the area, so the raw sum is twice the area-weighted sum.
    Vec sum = Vec::Zero();
    double area2 = 0.0;
    for (int t : p.object_triangles) {
      const Vec raw = rawNormal(object, t);
      sum += raw;
      area2 += raw.norm();
    }
    p.object_area_m2 = 0.5 * area2;
    sum = rotation * sum;
    if (sum.norm() <= 1e-12 * area2) {
      // The object's faces cancel (e.g. a thin plate pierced through): the link's inward
      // normals are the next best evidence of the push direction.
      sum.setZero();
      for (int t : p.link_triangles) sum -= rawNormal(link, t);
    }
    const double len = sum.norm();
    p.normal = len > 0.0 ? Vec(sum / len) : Vec::Zero();
    for (int t : p.link_triangles)
      for (int c : link.triangles[static_cast<std::size_t>(t)])
        p.depth_m =
            std::max(p.depth_m, p.normal.dot(p.point - link.vertices[static_cast<std::size_t>(c)]));
  }
  return patch_count;
}

std::vector<ContactPatch> buildContactPatches(const geometry::TriangleMesh& link,
                                              const geometry::TriangleMesh& object,
                                              const Eigen::Isometry3d& object_in_link,
                                              const std::vector<TrianglePairContact>& contacts,
                                              const ContactPatchOptions& options) {
  ContactScratch scratch;
  const std::size_t count =
      buildContactPatches(link, object, object_in_link, contacts, scratch, options);
  scratch.patches.resize(count);
  return std::move(scratch.patches);
}

}  // namespace handsim::collision
