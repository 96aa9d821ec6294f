// SPDX-License-Identifier: GPL-3.0-or-later
// Contact surface generation (seed 000, section IV): intersection segments that share end
// points form one patch (union-find over the end points, found near each other through a list
// sorted by grid cell); per patch the area-weighted normal and the bounding-box centre give a
// point contact.
#include "handsim/collision/contact_patch.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "handsim/collision/contact_scratch.hpp"
#include "handsim/geometry/tangent_basis.hpp"

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

// The intersection curve of a set of triangle-pair contacts, for the normal of a patch: the
// second moment of its crossing segments (points uniform along each) and the push direction
// sum over the pairs of weight (n_B - n_A), outward unit normals.
struct CurveSums {
  double weight = 0.0;                               // total segment length [m]
  Vec first = Vec::Zero();                           // sum of len * midpoint
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();  // sum of len * (m m^T + d d^T / 12)
  Vec crossing = Vec::Zero();                        // sum of len (n_B - n_A), crossing pairs
  Vec flush = Vec::Zero();  // sum of overlap area (n_B - n_A), coplanar pairs
  double flush_weight = 0.0;

  // The normal out of B into A, zero when these contacts do not decide it: when their faces
  // push no clear way (|sum len (n_B - n_A)| below 5 % of the length: faces crossing at
  // less than 3 deg on average, nearly coincident faces, whose crossing line says nothing).
  Vec normal() const {
    const Vec push = crossing.norm() > 0.05 * weight ? crossing : flush;
    if (!(push.norm() > 0.0) || push.norm() <= 1e-9 * (weight + flush_weight)) return Vec::Zero();
    if (push == flush && weight > 0.0) return Vec::Zero();
    if (!(weight > 0.0)) return push.normalized();
    const Vec mean = first / weight;
    const Eigen::Matrix3d cov = second / weight - mean * mean.transpose();
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig;
    eig.computeDirect(cov);
    const Eigen::Vector3d l = eig.eigenvalues().cwiseMax(0.0);  // ascending
    if (l[0] <= 0.25 * l[1]) {
      // The curve spans a surface: its plane's normal, on the side the faces push.
      const Vec axis = eig.eigenvectors().col(0);
      const double side = axis.dot(push);
      if (std::abs(side) > 1e-6 * push.norm()) return side > 0.0 ? Vec(axis) : Vec(-axis);
      return Vec::Zero();
    }
    // A line (an edge lying on a face): the push without its component along the line.
    if (l[1] <= 0.25 * l[2]) {
      const Vec line = eig.eigenvectors().col(2);
      const Vec across = push - push.dot(line) * line;
      return across.norm() > 1e-6 * push.norm() ? Vec(across.normalized()) : Vec::Zero();
    }
    return push.normalized();
  }
};

void addToCurve(const geometry::TriangleMesh& a, const geometry::TriangleMesh& b,
                const Eigen::Matrix3d& b_rotation, const TrianglePairContact& c, CurveSums& sums) {
  const auto unit = [](const Vec& v) {
    const double n = v.norm();
    return n > 0.0 ? Vec(v / n) : Vec::Zero();
  };
  const Vec push = b_rotation * unit(rawNormal(b, c.triangle_b)) - unit(rawNormal(a, c.triangle_a));
  const TriangleIntersection& x = c.intersection;
  if (x.kind != TriangleContactKind::Coplanar) {
    const Vec d = x.p1 - x.p0;
    const Vec m = 0.5 * (x.p0 + x.p1);
    const double len = d.norm();
    sums.weight += len;
    sums.first += len * m;
    sums.second += len * (m * m.transpose() + d * d.transpose() / 12.0);
    sums.crossing += len * push;
    return;
  }
  double area2 = 0.0;  // twice the overlap polygon's area (a fan from its first vertex)
  for (int k = 2; k < x.polygon_size; ++k)
    area2 += (x.polygon[static_cast<std::size_t>(k - 1)] - x.polygon[0])
                 .cross(x.polygon[static_cast<std::size_t>(k)] - x.polygon[0])
                 .norm();
  sums.flush += area2 * push;
  sums.flush_weight += area2;
}

// A face's own normal where the fitted one is off it by no more than the curve's thickness
// allows: a rim found partly on one face of an edge and partly on the other lies on two levels
// a depth apart, which tilts the fitted plane by up to about depth / width (0.12 deg for a 5 cm
// box sunk 0.1 mm, enough to read side faces into the depth). The candidates are the outward
// normals of B's patch triangles and the inward ones of A's (so the choice does not depend on
// which mesh is A); the nearest within 2 thickness / width replaces the fit.
void snapToFace(const geometry::TriangleMesh& a, const geometry::TriangleMesh& b,
                const Eigen::Matrix3d& b_rotation, const std::vector<TrianglePairContact>& contacts,
                ContactPatch& p) {
  if (p.normal.isZero(0.0)) return;
  // Thickness along the normal and width across it (twice the largest distance from the
  // points' mean), both independent of the mesh frames.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  Vec mean = Vec::Zero();
  int points = 0;
  for (int i : p.contacts) {
    const Vec* ip[6];
    const int count = contactPoints(contacts[static_cast<std::size_t>(i)].intersection, ip);
    for (int j = 0; j < count; ++j) {
      lo = std::min(lo, p.normal.dot(*ip[j]));
      hi = std::max(hi, p.normal.dot(*ip[j]));
      mean += *ip[j];
      ++points;
    }
  }
  if (points == 0) return;
  mean /= points;
  double radius = 0.0;
  for (int i : p.contacts) {
    const Vec* ip[6];
    const int count = contactPoints(contacts[static_cast<std::size_t>(i)].intersection, ip);
    for (int j = 0; j < count; ++j) {
      const Vec d = *ip[j] - mean;
      radius = std::max(radius, (d - p.normal.dot(d) * p.normal).norm());
    }
  }
  const double width = 2.0 * radius;
  if (!(width > 0.0)) return;
  const double allowed = 2.0 * (hi - lo) / width;
  Vec best = p.normal;
  double best_cos = std::cos(std::min(allowed, 0.1));
  const auto consider = [&](const Vec& raw) {
    const double len = raw.norm();
    if (!(len > 0.0)) return;
    const double c = p.normal.dot(raw) / len;
    if (c > best_cos) {
      best_cos = c;
      best = raw / len;
    }
  };
  for (int t : p.object_triangles) consider(b_rotation * rawNormal(b, t));
  for (int t : p.link_triangles) consider(-rawNormal(a, t));
  p.normal = best;
}

// The normal of every patch, out of B into A, the same line whichever mesh is called A: the
// normal of the plane that best fits the patch's intersection curve (the least axis of its
// second moment), turned to the side that the faces of B push A (the sum of n_B - n_A over the
// crossing pairs, weighted by segment length). Where the surfaces cross decides it, not how far
// the crossing triangles extend (area-weighted face normals tilted a cube's contact by 27 deg
// when a flush face beside it counted), and it holds for the degenerate contacts of meshed
// boxes: a box sunk flush into another gives its rim, found on either face of each edge or on
// the two nearly coincident side faces, and the rim spans the contact face. A curve that is a
// line (an edge on a face) gives the push without its part along the line; a patch that decides
// nothing on its own (a piece of a rim cut off by the chaining) takes the normal of all the
// patches' contacts together. Only coplanar overlaps: the push of the flush faces.
void patchNormals(const geometry::TriangleMesh& a, const geometry::TriangleMesh& b,
                  const Eigen::Matrix3d& b_rotation,
                  const std::vector<TrianglePairContact>& contacts,
                  std::vector<ContactPatch>& patches, std::size_t count) {
  if (count == 0) return;
  CurveSums whole;
  for (const TrianglePairContact& c : contacts) addToCurve(a, b, b_rotation, c, whole);
  const Vec whole_normal = whole.normal();
  for (std::size_t k = 0; k < count; ++k) {
    ContactPatch& p = patches[k];
    if (count == 1) {
      p.normal = whole_normal;
      break;
    }
    CurveSums sums;
    for (int i : p.contacts)
      addToCurve(a, b, b_rotation, contacts[static_cast<std::size_t>(i)], sums);
    p.normal = sums.normal();
    if (p.normal.isZero(0.0)) p.normal = whole_normal;
  }
  for (std::size_t k = 0; k < count; ++k) snapToFace(a, b, b_rotation, contacts, patches[k]);
}

// Writes the convex hull of `pts` (counter-clockwise, no repeated or collinear vertices) to
// `hull` (Andrew's monotone chain; sorts `pts`). One or two vertices when the points are a
// point or lie on a line.
void convexHull(std::vector<Eigen::Vector2d>& pts, std::vector<Eigen::Vector2d>& hull) {
  std::sort(pts.begin(), pts.end(), [](const Eigen::Vector2d& l, const Eigen::Vector2d& r) {
    return l.x() < r.x() || (l.x() == r.x() && l.y() < r.y());
  });
  hull.clear();
  if (pts.empty()) return;
  const auto turn = [](const Eigen::Vector2d& o, const Eigen::Vector2d& a,
                       const Eigen::Vector2d& b) {
    return (a.x() - o.x()) * (b.y() - o.y()) - (a.y() - o.y()) * (b.x() - o.x());
  };
  hull.resize(2 * pts.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {  // lower hull
    while (k >= 2 && turn(hull[k - 2], hull[k - 1], pts[i]) <= 0.0) --k;
    hull[k++] = pts[i];
  }
  for (std::size_t i = pts.size() - 1, lower = k + 1; i-- > 0;) {  // upper hull
    while (k >= lower && turn(hull[k - 2], hull[k - 1], pts[i]) <= 0.0) --k;
    hull[k++] = pts[i];
  }
  hull.resize(k > 1 ? k - 1 : k);  // the last point repeats the first
}

// The patch's penetration along its normal n (out of B into A), the same whichever mesh is A:
// over the patch, the farthest reach of B's patch triangles along n minus that of A's along
// -n (A's surface inside B lies on B's side, B's inside A on A's side; their spread along n is
// the overlap's thickness). "Over the patch": each triangle is first clipped to the convex hull
// of the patch's intersection points in the tangent plane (widened by a hair), a region that
// does not depend on either mesh's frame, so the far parts of large triangles do not count: a
// cube's edge 0.1 mm into a face read 11.3 mm from the unclipped vertices of its 5 cm triangles,
// and the pushing side's vertices alone read 0 for a small box sunk into a large box's face.
double patchDepth(const geometry::TriangleMesh& a, const geometry::TriangleMesh& b,
                  const Eigen::Isometry3d& b_in_a, const std::vector<TrianglePairContact>& contacts,
                  const ContactPatch& p, ContactScratch& scratch) {
  const Vec& n = p.normal;
  Vec t1, t2;
  geometry::tangentBasis(n, t1, t2);
  std::vector<Eigen::Vector2d>& pts = scratch.plane_points;
  pts.clear();
  double extent = 0.0;
  for (int i : p.contacts) {
    const Vec* ip[6];
    const int count = contactPoints(contacts[static_cast<std::size_t>(i)].intersection, ip);
    for (int j = 0; j < count; ++j) {
      pts.emplace_back(t1.dot(*ip[j]), t2.dot(*ip[j]));
      extent = std::max(extent, (pts.back() - pts.front()).norm());
    }
  }
  std::vector<Eigen::Vector2d>& hull = scratch.hull;
  convexHull(pts, hull);
  if (hull.empty()) return 0.0;
  // The region's sides as half-planes m . (t1 . x, t2 . x) >= c (m a unit vector of the tangent
  // plane), each moved out by the pad: the hull's edges (their inward normals kept in the
  // points' buffer, no longer needed), or a thin box around a point or a segment.
  const double pad = 1e-9 + 1e-9 * extent;
  std::array<std::pair<Eigen::Vector2d, double>, 4> box;
  const bool polygon = hull.size() >= 3;
  if (polygon) {
    pts.resize(hull.size());
    for (std::size_t i = 0; i < hull.size(); ++i) {
      const Eigen::Vector2d e = hull[(i + 1) % hull.size()] - hull[i];
      pts[i] = Eigen::Vector2d(-e.y(), e.x()).normalized();
    }
  } else {
    const Eigen::Vector2d d = hull.size() == 2 ? Eigen::Vector2d((hull[1] - hull[0]).normalized())
                                               : Eigen::Vector2d(1.0, 0.0);
    const Eigen::Vector2d m(-d.y(), d.x());
    box = {{{d, d.dot(hull.front()) - pad},
            {-d, -d.dot(hull.back()) - pad},
            {m, m.dot(hull.front()) - pad},
            {-m, -m.dot(hull.front()) - pad}}};
  }
  const std::size_t side_count = polygon ? hull.size() : box.size();
  const auto side = [&](std::size_t i) -> std::pair<Eigen::Vector2d, double> {
    if (!polygon) return box[i];
    return {pts[i], pts[i].dot(hull[i]) - pad};
  };
  const auto inside = [&](const Vec& v) {
    const Eigen::Vector2d uv(t1.dot(v), t2.dot(v));
    for (std::size_t i = 0; i < side_count; ++i) {
      const auto [m, c] = side(i);
      if (m.dot(uv) < c) return false;
    }
    return true;
  };
  // The extreme of sign * n . x over the part of triangle (v0, v1, v2) in the region
  // (Sutherland-Hodgman against each side), or -infinity when none of it is. Clipping only cuts
  // a triangle, so a triangle whose vertices cannot beat `best` is skipped, and one wholly inside
  // needs no clipping.
  const auto reach = [&](const Vec& v0, const Vec& v1, const Vec& v2, double sign, double best) {
    const double e0 = sign * n.dot(v0), e1 = sign * n.dot(v1), e2 = sign * n.dot(v2);
    const double most = std::max({e0, e1, e2});
    if (most <= best) return best;
    if (inside(v0) && inside(v1) && inside(v2)) return most;
    std::vector<Vec>& in = scratch.clip_in;
    std::vector<Vec>& out = scratch.clip_out;
    in.assign({v0, v1, v2});
    for (std::size_t j = 0; j < side_count; ++j) {
      const auto [m2, c] = side(j);
      const Vec m = m2.x() * t1 + m2.y() * t2;
      out.clear();
      for (std::size_t i = 0; i < in.size(); ++i) {
        const Vec& cur = in[i];
        const Vec& nxt = in[(i + 1) % in.size()];
        const double dc = m.dot(cur) - c, dn = m.dot(nxt) - c;
        if (dc >= 0.0) out.push_back(cur);
        if ((dc >= 0.0) != (dn >= 0.0)) out.push_back(cur + (dc / (dc - dn)) * (nxt - cur));
      }
      std::swap(in, out);
      if (in.empty()) return best;
    }
    for (const Vec& v : in) best = std::max(best, sign * n.dot(v));
    return best;
  };
  double lowest_a = -std::numeric_limits<double>::infinity();  // as -min n . x over A
  double highest_b = -std::numeric_limits<double>::infinity();
  for (int t : p.link_triangles) {
    const auto& tri = a.triangles[static_cast<std::size_t>(t)];
    lowest_a = reach(a.vertices[static_cast<std::size_t>(tri[0])],
                     a.vertices[static_cast<std::size_t>(tri[1])],
                     a.vertices[static_cast<std::size_t>(tri[2])], -1.0, lowest_a);
  }
  lowest_a = -lowest_a;
  for (int t : p.object_triangles) {
    const auto& tri = b.triangles[static_cast<std::size_t>(t)];
    highest_b = reach(b_in_a * b.vertices[static_cast<std::size_t>(tri[0])],
                      b_in_a * b.vertices[static_cast<std::size_t>(tri[1])],
                      b_in_a * b.vertices[static_cast<std::size_t>(tri[2])], 1.0, highest_b);
  }
  const double depth = highest_b - lowest_a;
  return std::isfinite(depth) ? std::max(0.0, depth) : 0.0;
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
  // The depth's buffers (patchDepth), sized by the contact count too: a patch has at most 6n
  // points, a hull of them at most as many vertices (2 x 6n while it is built), a clipped
  // triangle at most 3 + 6n.
  if (scratch.plane_points.capacity() < 6 * n) scratch.plane_points.reserve(6 * n);
  if (scratch.hull.capacity() < 12 * n) scratch.hull.reserve(12 * n);
  for (std::vector<Vec>* v : {&scratch.clip_in, &scratch.clip_out})
    if (v->capacity() < 6 * n + 4) v->reserve(6 * n + 4);
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
    double area2 = 0.0;
    for (int t : p.object_triangles) area2 += rawNormal(object, t).norm();
    p.object_area_m2 = 0.5 * area2;
  }
  patchNormals(link, object, rotation, contacts, patches, patch_count);
  for (std::size_t k = 0; k < patch_count; ++k) {
    ContactPatch& p = patches[k];
    if (!p.normal.isZero(0.0))
      p.depth_m = patchDepth(link, object, object_in_link, contacts, p, scratch);
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
