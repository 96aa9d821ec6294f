// SPDX-License-Identifier: GPL-3.0-or-later
// Ear clipping (Meisters, "Polygons have ears", Amer. Math. Monthly 82, 1975) in the plane of
// the polygon's Newell normal. The cursor walks around the polygon instead of restarting after
// each ear, so a simple polygon of n vertices usually costs O(n^2).
#include "handsim/geometry/polygon_triangulation.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>

namespace handsim::geometry {

namespace {

double cross2(const Eigen::Vector2d& a, const Eigen::Vector2d& b, const Eigen::Vector2d& c) {
  return (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
}

// Inside or on the boundary of the counter-clockwise triangle abc.
bool inTriangle(const Eigen::Vector2d& p, const Eigen::Vector2d& a, const Eigen::Vector2d& b,
                const Eigen::Vector2d& c, double eps) {
  return cross2(a, b, p) >= -eps && cross2(b, c, p) >= -eps && cross2(c, a, p) >= -eps;
}

}  // namespace

std::vector<std::array<int, 3>> triangulatePolygon(const std::vector<Eigen::Vector3d>& points,
                                                   const std::vector<int>& polygon,
                                                   bool assume_convex, int max_ear_clipping) {
  std::vector<std::array<int, 3>> out;
  // Drop consecutive repeats, including a closing vertex equal to the first.
  std::vector<int> poly;
  poly.reserve(polygon.size());
  for (int i : polygon)
    if (poly.empty() || poly.back() != i) poly.push_back(i);
  while (poly.size() > 1 && poly.back() == poly.front()) poly.pop_back();
  if (poly.size() < 3) return out;

  const auto at = [&](int i) -> const Eigen::Vector3d& {
    return points[static_cast<std::size_t>(i)];
  };
  const Eigen::Vector3d& origin = at(poly[0]);
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();
  double extent = 0.0;
  for (std::size_t i = 1; i + 1 < poly.size(); ++i)
    normal += (at(poly[i]) - origin).cross(at(poly[i + 1]) - origin);
  for (int i : poly) extent = std::max(extent, (at(i) - origin).norm());
  const double area_eps = 1e-12 * extent * extent;
  if (!(normal.norm() > area_eps)) return out;

  const auto emit = [&](int a, int b, int c) {
    if ((at(b) - at(a)).cross(at(c) - at(a)).norm() > area_eps) out.push_back({a, b, c});
  };
  const int n = static_cast<int>(poly.size());
  if (n == 3 || assume_convex || n > max_ear_clipping) {
    for (int i = 1; i + 1 < n; ++i)
      emit(poly[0], poly[static_cast<std::size_t>(i)], poly[static_cast<std::size_t>(i) + 1]);
    return out;
  }

  // 2-D frame (u, v) with u x v along the normal: the polygon is counter-clockwise in it.
  const Eigen::Vector3d w = normal.normalized();
  const Eigen::Vector3d u = w.unitOrthogonal();
  const Eigen::Vector3d v = w.cross(u);
  std::vector<Eigen::Vector2d> p2(poly.size());
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const Eigen::Vector3d d = at(poly[i]) - origin;
    p2[i] = {d.dot(u), d.dot(v)};
  }
  std::vector<int> next(poly.size()), prev(poly.size());
  for (int i = 0; i < n; ++i) {
    next[static_cast<std::size_t>(i)] = (i + 1) % n;
    prev[static_cast<std::size_t>(i)] = (i + n - 1) % n;
  }
  const auto P = [&](int i) -> const Eigen::Vector2d& { return p2[static_cast<std::size_t>(i)]; };
  const auto N = [&](int i) { return next[static_cast<std::size_t>(i)]; };
  const auto B = [&](int i) { return prev[static_cast<std::size_t>(i)]; };
  const auto remove = [&](int i) {
    next[static_cast<std::size_t>(B(i))] = N(i);
    prev[static_cast<std::size_t>(N(i))] = B(i);
  };
  // Ear tests cost O(n) each; a pathological (self-overlapping) polygon could need O(n^3) in
  // total, so the work is capped at O(n^2) and the rest is fanned.
  const long long work_cap = 8LL * n * n + 1000;
  long long work = 0;
  const auto isEar = [&](int i) {
    const int a = B(i), c = N(i);
    if (cross2(P(a), P(i), P(c)) <= area_eps) return false;
    for (int j = N(c); j != a; j = N(j)) {
      ++work;
      // Vertices at the same place as a corner (bridged holes) do not block the ear.
      if (P(j) == P(a) || P(j) == P(i) || P(j) == P(c)) continue;
      if (inTriangle(P(j), P(a), P(i), P(c), area_eps)) return false;
    }
    return true;
  };

  int remaining = n;
  int cursor = 0;
  int misses = 0;
  while (remaining > 3) {
    if (work > work_cap) {
      for (int i = N(cursor); N(i) != cursor; i = N(i))
        emit(poly[static_cast<std::size_t>(cursor)], poly[static_cast<std::size_t>(i)],
             poly[static_cast<std::size_t>(N(i))]);
      return out;
    }
    if (isEar(cursor)) {
      emit(poly[static_cast<std::size_t>(B(cursor))], poly[static_cast<std::size_t>(cursor)],
           poly[static_cast<std::size_t>(N(cursor))]);
      remove(cursor);
      cursor = N(cursor);
      --remaining;
      misses = 0;
      continue;
    }
    cursor = N(cursor);
    if (++misses < remaining) continue;
    // No ear in a full turn: the rest is self-intersecting or has collinear runs. Drop a
    // collinear vertex (it adds no area) if there is one, otherwise cut the most convex corner.
    int best = cursor;
    double best_cross = -std::numeric_limits<double>::infinity();
    bool dropped = false;
    for (int k = 0, i = cursor; k < remaining; ++k, i = N(i)) {
      const double c = cross2(P(B(i)), P(i), P(N(i)));
      if (std::abs(c) <= area_eps) {
        remove(i);
        cursor = N(i);
        dropped = true;
        break;
      }
      if (c > best_cross) {
        best_cross = c;
        best = i;
      }
    }
    if (!dropped) {
      emit(poly[static_cast<std::size_t>(B(best))], poly[static_cast<std::size_t>(best)],
           poly[static_cast<std::size_t>(N(best))]);
      remove(best);
      cursor = N(best);
    }
    --remaining;
    misses = 0;
  }
  emit(poly[static_cast<std::size_t>(B(cursor))], poly[static_cast<std::size_t>(cursor)],
       poly[static_cast<std::size_t>(N(cursor))]);
  return out;
}

}  // namespace handsim::geometry
