// SPDX-License-Identifier: GPL-3.0-or-later
// Triangle-triangle intersection after Moller (J. Graphics Tools 2(2), 1997): reject when one
// triangle lies strictly on one side of the other's plane; otherwise each triangle cuts the
// other's plane in a segment on the planes' common line and the answer is the overlap of the two
// segments. Coplanar pairs are clipped (Sutherland-Hodgman), degenerate triangles become
// segments. Tolerances: docs/collision.md, "Tolerance policy".
#include "handsim/collision/triangle_intersection.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <utility>

namespace handsim::collision {
namespace {

using Vec = Eigen::Vector3d;

int signWithin(double d, double eps) {
  return d > eps ? 1 : (d < -eps ? -1 : 0);
}

bool lexLess(const Vec& p, const Vec& q) {
  if (p.x() != q.x()) return p.x() < q.x();
  if (p.y() != q.y()) return p.y() < q.y();
  return p.z() < q.z();
}

// Point where segment (p, q) crosses a plane, given the signed distances of p and q (of
// strictly opposite sign). The end points are ordered canonically so that two triangles
// sharing the edge compute bit-identical points, which keeps intersection curves chainable.
Vec planeCrossing(Vec p, double dp, Vec q, double dq) {
  if (lexLess(q, p)) {
    std::swap(p, q);
    std::swap(dp, dq);
  }
  return p + (q - p) * (dp / (dp - dq));
}

// Part of a triangle lying in a plane, from the vertices' signed distances and their signs
// (not all zero, not all of one sign): one point (touching vertex) or a segment's two ends.
int planeSection(const Vec* v, const double* d, const int* s, Vec* out) {
  int n = 0;
  for (int i = 0; i < 3; ++i)
    if (s[i] == 0) out[n++] = v[i];
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    if (s[i] * s[j] < 0) out[n++] = planeCrossing(v[i], d[i], v[j], d[j]);
  }
  return n;
}

// Clips the convex polygon `poly` (n points, lying in the plane of triangle t) to the triangle
// (points within eps outside an edge count as inside); `normal` is t's unit normal, so normal x
// edge points into the triangle.
int clipToTriangle(std::array<Vec, 8>& poly, int n, const Vec* t, const Vec& normal, double eps) {
  std::array<Vec, 8> out;
  for (int i = 0; i < 3 && n > 0; ++i) {
    const Vec& origin = t[i];
    Vec inward = normal.cross(t[(i + 1) % 3] - origin);
    const double len = inward.norm();
    if (len > 0.0) inward /= len;
    int m = 0;
    for (int k = 0; k < n; ++k) {
      const Vec& p = poly[static_cast<std::size_t>(k)];
      const Vec& q = poly[static_cast<std::size_t>((k + 1) % n)];
      const double dp = inward.dot(p - origin);
      const double dq = inward.dot(q - origin);
      const bool p_in = dp >= -eps, q_in = dq >= -eps;
      if (p_in && m < 8) out[static_cast<std::size_t>(m++)] = p;
      // New vertex on the edge line itself (d = 0), not on the grown boundary; inside the
      // eps band the clamp keeps the end that is already accepted.
      if (p_in != q_in && m < 8) {
        const double s = std::min(1.0, std::max(0.0, dp / (dp - dq)));
        out[static_cast<std::size_t>(m++)] = p + (q - p) * s;
      }
    }
    n = m;
    poly = out;
  }
  return n;
}

// Fills p0/p1 with the two points of `pts` farthest apart.
void farthestPair(const Vec* pts, int n, TriangleIntersection& r) {
  double best = -1.0;
  for (int i = 0; i < n; ++i)
    for (int j = i; j < n; ++j) {
      const double d = (pts[i] - pts[j]).squaredNorm();
      if (d > best) {
        best = d;
        r.p0 = pts[i];
        r.p1 = pts[j];
      }
    }
}

TriangleIntersection clippedResult(std::array<Vec, 8>& poly, int n, const Vec* t, const Vec& normal,
                                   double eps, TriangleContactKind kind) {
  TriangleIntersection r;
  n = clipToTriangle(poly, n, t, normal, eps);
  if (n == 0) return r;
  // Drop consecutive near-duplicates produced by clipping at a shared vertex.
  int m = 0;
  for (int i = 0; i < n; ++i) {
    const Vec& p = poly[static_cast<std::size_t>(i)];
    if (m > 0 && (p - poly[static_cast<std::size_t>(m - 1)]).norm() <= eps) continue;
    poly[static_cast<std::size_t>(m++)] = p;
  }
  while (m > 1 && (poly[static_cast<std::size_t>(m - 1)] - poly[0]).norm() <= eps) --m;
  r.kind = kind;
  farthestPair(poly.data(), m, r);
  if (kind == TriangleContactKind::Coplanar) {
    r.polygon_size = std::min(m, 6);
    for (int i = 0; i < r.polygon_size; ++i)
      r.polygon[static_cast<std::size_t>(i)] = poly[static_cast<std::size_t>(i)];
  }
  return r;
}

// A zero-area triangle as the segment through its vertices: its longest edge.
std::pair<Vec, Vec> longestEdge(const Vec* v) {
  int best = 0;
  double len = -1.0;
  for (int i = 0; i < 3; ++i) {
    const double l = (v[(i + 1) % 3] - v[i]).squaredNorm();
    if (l > len) {
      len = l;
      best = i;
    }
  }
  return {v[best], v[(best + 1) % 3]};
}

TriangleIntersection segmentTriangle(const Vec& p, const Vec& q, const Vec* t, const Vec& normal,
                                     double eps) {
  TriangleIntersection r;
  const double dp = normal.dot(p - t[0]);
  const double dq = normal.dot(q - t[0]);
  const int sp = signWithin(dp, eps);
  const int sq = signWithin(dq, eps);
  if (sp * sq > 0) return r;
  if (sp == 0 && sq == 0) {
    std::array<Vec, 8> poly;
    poly[0] = p;
    poly[1] = q;
    return clippedResult(poly, 2, t, normal, eps, TriangleContactKind::Segment);
  }
  const Vec x = sp == 0 ? p : (sq == 0 ? q : planeCrossing(p, dp, q, dq));
  for (int i = 0; i < 3; ++i) {
    Vec inward = normal.cross(t[(i + 1) % 3] - t[i]);
    const double len = inward.norm();
    if (len > 0.0 && inward.dot(x - t[i]) / len < -eps) return r;
  }
  r.kind = TriangleContactKind::Segment;
  r.p0 = r.p1 = x;
  return r;
}

// Closest points of segments [p1, q1] and [p2, q2] (either may be a point); contact when they
// are within eps.
TriangleIntersection segmentSegment(const Vec& p1, const Vec& q1, const Vec& p2, const Vec& q2,
                                    double eps) {
  const Vec d1 = q1 - p1, d2 = q2 - p2, w = p1 - p2;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(w);
  const double tiny = eps * eps;
  double s = 0.0, t = 0.0;
  auto clamp01 = [](double x) { return std::min(1.0, std::max(0.0, x)); };
  if (a <= tiny && e <= tiny) {
    s = t = 0.0;
  } else if (a <= tiny) {
    t = clamp01(f / e);
  } else {
    const double c = d1.dot(w);
    if (e <= tiny) {
      s = clamp01(-c / a);
    } else {
      const double b = d1.dot(d2);
      const double denom = a * e - b * b;
      s = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0.0;
      t = (b * s + f) / e;
      if (t < 0.0) {
        t = 0.0;
        s = clamp01(-c / a);
      } else if (t > 1.0) {
        t = 1.0;
        s = clamp01((b - c) / a);
      }
    }
  }
  TriangleIntersection r;
  const Vec c1 = p1 + d1 * s, c2 = p2 + d2 * t;
  if ((c1 - c2).norm() <= eps) {
    r.kind = TriangleContactKind::Segment;
    r.p0 = r.p1 = 0.5 * (c1 + c2);
  }
  return r;
}

// Is all of triangle `a` strictly on one side of the plane through `origin` with (unnormalised)
// normal `cross`, beyond `limit` (= eps |cross|)?
bool oneSideOfPlane(const Vec* a, const Vec& origin, const Vec& cross, double limit) {
  const double d0 = cross.dot(a[0] - origin), d1 = cross.dot(a[1] - origin),
               d2 = cross.dot(a[2] - origin);
  return (d0 > limit && d1 > limit && d2 > limit) || (d0 < -limit && d1 < -limit && d2 < -limit);
}

// Everything after the fast rejection, shared by both overloads of intersectTriangles: `n_a`,
// `n_b` are the unit normals (used only for a non-degenerate triangle), `eps` the pair's
// tolerance.
TriangleIntersection intersectShaped(const Vec* a, const Vec* b, const Vec& n_a, const Vec& n_b,
                                     bool degenerate_a, bool degenerate_b, double eps) {
  TriangleIntersection none;
  const Vec& a0 = a[0];
  const Vec& b0 = b[0];
  if (degenerate_a || degenerate_b) {
    if (degenerate_a && degenerate_b) {
      const auto [pa, qa] = longestEdge(a);
      const auto [pb, qb] = longestEdge(b);
      return segmentSegment(pa, qa, pb, qb, eps);
    }
    if (degenerate_a) {
      const auto [p, q] = longestEdge(a);
      return segmentTriangle(p, q, b, n_b, eps);
    }
    const auto [p, q] = longestEdge(b);
    return segmentTriangle(p, q, a, n_a, eps);
  }

  // A against B's plane: reject when A is strictly on one side.
  double da[3];
  int sa[3];
  for (int i = 0; i < 3; ++i) {
    da[i] = n_b.dot(a[i] - b0);
    sa[i] = signWithin(da[i], eps);
  }
  if (sa[0] == sa[1] && sa[1] == sa[2]) {
    if (sa[0] != 0) return none;
    std::array<Vec, 8> poly = {a[0], a[1], a[2]};
    return clippedResult(poly, 3, b, n_b, eps, TriangleContactKind::Coplanar);
  }
  double db[3];
  int sb[3];
  for (int i = 0; i < 3; ++i) {
    db[i] = n_a.dot(b[i] - a0);
    sb[i] = signWithin(db[i], eps);
  }
  if (sb[0] == sb[1] && sb[1] == sb[2]) {
    if (sb[0] != 0) return none;
    std::array<Vec, 8> poly = {b[0], b[1], b[2]};
    return clippedResult(poly, 3, a, n_a, eps, TriangleContactKind::Coplanar);
  }

  // Each triangle meets the other's plane in a segment (or a point) on the common line.
  Vec seg_a[2], seg_b[2];
  const int na = planeSection(a, da, sa, seg_a);
  const int nb = planeSection(b, db, sb, seg_b);
  if (na == 1) seg_a[1] = seg_a[0];
  if (nb == 1) seg_b[1] = seg_b[0];

  // Parametrise along the common line; near-parallel planes (not snapped to coplanar) give a
  // poorly defined cross product, so fall back to the longer segment's direction.
  Vec dir = n_a.cross(n_b);
  const double sin_angle = dir.norm();
  if (sin_angle > 1e-8) {
    dir /= sin_angle;
  } else {
    const Vec da_dir = seg_a[1] - seg_a[0], db_dir = seg_b[1] - seg_b[0];
    dir = da_dir.squaredNorm() >= db_dir.squaredNorm() ? da_dir : db_dir;
    const double len = dir.norm();
    if (len <= eps) {
      if ((seg_a[0] - seg_b[0]).norm() > eps) return none;
      TriangleIntersection r;
      r.kind = TriangleContactKind::Segment;
      r.p0 = r.p1 = 0.5 * (seg_a[0] + seg_b[0]);
      return r;
    }
    dir /= len;
  }
  double ta0 = dir.dot(seg_a[0]), ta1 = dir.dot(seg_a[1]);
  double tb0 = dir.dot(seg_b[0]), tb1 = dir.dot(seg_b[1]);
  if (ta0 > ta1) {
    std::swap(ta0, ta1);
    std::swap(seg_a[0], seg_a[1]);
  }
  if (tb0 > tb1) {
    std::swap(tb0, tb1);
    std::swap(seg_b[0], seg_b[1]);
  }
  const double t_lo = std::max(ta0, tb0), t_hi = std::min(ta1, tb1);
  if (t_lo > t_hi + eps) return none;
  TriangleIntersection r;
  r.kind = TriangleContactKind::Segment;
  r.p0 = ta0 >= tb0 ? seg_a[0] : seg_b[0];
  r.p1 = ta1 <= tb1 ? seg_a[1] : seg_b[1];
  if (t_lo > t_hi) r.p0 = r.p1 = 0.5 * (r.p0 + r.p1);
  return r;
}

}  // namespace

TriangleIntersection intersectTriangles(const Vec& a0, const Vec& a1, const Vec& a2, const Vec& b0,
                                        const Vec& b1, const Vec& b2, double relative_tolerance) {
  const Vec a[3] = {a0, a1, a2};
  const Vec b[3] = {b0, b1, b2};

  // Tolerance scaled by the pair's size, plus the rounding of the coordinates themselves.
  const Vec lo = a0.cwiseMin(a1).cwiseMin(a2).cwiseMin(b0).cwiseMin(b1).cwiseMin(b2);
  const Vec hi = a0.cwiseMax(a1).cwiseMax(a2).cwiseMax(b0).cwiseMax(b1).cwiseMax(b2);
  const double max_abs = std::max(lo.cwiseAbs().maxCoeff(), hi.cwiseAbs().maxCoeff());
  const double eps = relative_tolerance * (hi - lo).norm() + 8.0 * DBL_EPSILON * max_abs;

  // Smallest height = 2 area / longest edge; below eps the triangle is a segment or a point.
  const Vec cross_b = (b1 - b0).cross(b2 - b0);
  const double len_b = cross_b.norm();
  const double edge_b = std::sqrt(
      std::max({(b1 - b0).squaredNorm(), (b2 - b1).squaredNorm(), (b0 - b2).squaredNorm()}));
  const bool degenerate_b = len_b <= eps * edge_b;
  // Fast rejection (most pairs a hierarchy hands over): all of A strictly on one side of B's
  // plane. Every later branch rejects such a pair too, so the answer is unchanged.
  if (!degenerate_b && oneSideOfPlane(a, b0, cross_b, eps * len_b)) return TriangleIntersection{};
  const Vec cross_a = (a1 - a0).cross(a2 - a0);
  const double len_a = cross_a.norm();
  const double edge_a = std::sqrt(
      std::max({(a1 - a0).squaredNorm(), (a2 - a1).squaredNorm(), (a0 - a2).squaredNorm()}));
  const bool degenerate_a = len_a <= eps * edge_a;
  const Vec n_a = len_a > 0.0 ? Vec(cross_a / len_a) : Vec::Zero();
  const Vec n_b = len_b > 0.0 ? Vec(cross_b / len_b) : Vec::Zero();
  return intersectShaped(a, b, n_a, n_b, degenerate_a, degenerate_b, eps);
}

void boundPreparedTriangle(PreparedTriangle& t) {
  t.lo = t.v[0].cwiseMin(t.v[1]).cwiseMin(t.v[2]);
  t.hi = t.v[0].cwiseMax(t.v[1]).cwiseMax(t.v[2]);
}

void shapePreparedTriangle(PreparedTriangle& t) {
  const Vec& v0 = t.v[0];
  const Vec& v1 = t.v[1];
  const Vec& v2 = t.v[2];
  t.cross = (v1 - v0).cross(v2 - v0);
  t.cross_norm = t.cross.norm();
  t.longest_edge = std::sqrt(
      std::max({(v1 - v0).squaredNorm(), (v2 - v1).squaredNorm(), (v0 - v2).squaredNorm()}));
  t.normal = t.cross_norm > 0.0 ? Vec(t.cross / t.cross_norm) : Vec::Zero();
}

PreparedTriangle prepareTriangle(const Vec& a0, const Vec& a1, const Vec& a2) {
  PreparedTriangle t;
  t.v = {a0, a1, a2};
  boundPreparedTriangle(t);
  shapePreparedTriangle(t);
  return t;
}

TriangleIntersection intersectTriangles(const PreparedTriangle& a, const PreparedTriangle& b,
                                        double relative_tolerance) {
  // The six-vertex overload's tolerance: min and max are exact, so the pair's box is the union
  // of the triangles' boxes bit for bit.
  const Vec lo = a.lo.cwiseMin(b.lo);
  const Vec hi = a.hi.cwiseMax(b.hi);
  const double max_abs = std::max(lo.cwiseAbs().maxCoeff(), hi.cwiseAbs().maxCoeff());
  const double eps = relative_tolerance * (hi - lo).norm() + 8.0 * DBL_EPSILON * max_abs;
  const bool degenerate_b = b.cross_norm <= eps * b.longest_edge;
  if (!degenerate_b && oneSideOfPlane(a.v.data(), b.v[0], b.cross, eps * b.cross_norm))
    return TriangleIntersection{};
  const bool degenerate_a = a.cross_norm <= eps * a.longest_edge;
  return intersectShaped(a.v.data(), b.v.data(), a.normal, b.normal, degenerate_a, degenerate_b,
                         eps);
}

}  // namespace handsim::collision
