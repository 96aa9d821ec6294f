// SPDX-License-Identifier: GPL-3.0-or-later
// Convex-convex narrow phase: GJK (E. G. Gilbert, D. W. Johnson, S. S. Keerthi, IEEE J. Robotics
// and Automation 4(2), 1988; termination as in G. van den Bergen, "Collision Detection in
// Interactive 3D Environments", 2004), EPA (van den Bergen, same book, ch. 4.3.6), the closest
// points on a simplex by Voronoi regions (C. Ericson, "Real-Time Collision Detection", 2005,
// 5.1.5-5.1.6), and a manifold by clipping the incident face against the reference face's side
// planes (Sutherland-Hodgman). docs/collision.md, "Convex narrow phase".
#include "handsim/collision/convex_contact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace handsim::collision {
namespace {

using detail::EpaFace;
using detail::SupportPoint;

/// Most EPA iterations and vertices (a capacity, never reached on polytopes in practice: EPA
/// stops on a face of the Minkowski difference).
constexpr int kMaxEpaIterations = 128;
constexpr int kMaxGjkIterations = 64;

/// Hull B in the frame of hull A (x_A = R x_B + t), and the support mapping of A - B there.
struct HullPair {
  const ConvexHull& a;
  const ConvexHull& b;
  Eigen::Matrix3d r;
  Eigen::Vector3d t;
  int last_a = 0, last_b = 0;  // warm starts of the hill climbing

  SupportPoint support(const Eigen::Vector3d& d) {
    last_a = a.support(d, last_a);
    last_b = b.support(-(r.transpose() * d), last_b);
    SupportPoint s;
    s.ia = last_a;
    s.ib = last_b;
    s.a = a.vertices[static_cast<std::size_t>(last_a)];
    s.b = r * b.vertices[static_cast<std::size_t>(last_b)] + t;
    s.w = s.a - s.b;
    return s;
  }
  Eigen::Vector3d bVertex(int i) const { return r * b.vertices[static_cast<std::size_t>(i)] + t; }
};

using Simplex = std::array<SupportPoint, 4>;

/// Closest point to the origin of segment s[0] s[1]; keeps in `s` the smallest feature it
/// lies on.
Eigen::Vector3d closestOnSegment(Simplex& s, int& n) {
  const Eigen::Vector3d ab = s[1].w - s[0].w;
  const double t = -s[0].w.dot(ab);
  if (t <= 0.0) {
    n = 1;
    return s[0].w;
  }
  const double len2 = ab.squaredNorm();
  if (t >= len2) {
    s[0] = s[1];
    n = 1;
    return s[0].w;
  }
  n = 2;
  return s[0].w + (t / len2) * ab;
}

/// Closest point to the origin of triangle s[0] s[1] s[2] (Ericson 5.1.5), same contract.
Eigen::Vector3d closestOnTriangle(Simplex& s, int& n) {
  const Eigen::Vector3d a = s[0].w, b = s[1].w, c = s[2].w;
  const Eigen::Vector3d ab = b - a, ac = c - a;
  const double d1 = -ab.dot(a), d2 = -ac.dot(a);
  if (d1 <= 0.0 && d2 <= 0.0) {
    n = 1;
    return a;
  }
  const double d3 = -ab.dot(b), d4 = -ac.dot(b);
  if (d3 >= 0.0 && d4 <= d3) {
    s[0] = s[1];
    n = 1;
    return b;
  }
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    n = 2;
    return a + (d1 / (d1 - d3)) * ab;
  }
  const double d5 = -ab.dot(c), d6 = -ac.dot(c);
  if (d6 >= 0.0 && d5 <= d6) {
    s[0] = s[2];
    n = 1;
    return c;
  }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    s[1] = s[2];
    n = 2;
    return a + (d2 / (d2 - d6)) * ac;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
    s[0] = s[1];
    s[1] = s[2];
    n = 2;
    return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  }
  const double sum = va + vb + vc;
  if (!(sum > 0.0)) {  // collinear: the closest of the three edges
    Simplex best = s;
    int best_n = 2;
    Eigen::Vector3d best_p = closestOnSegment(best, best_n);
    for (const auto& e : {std::array<int, 2>{0, 2}, std::array<int, 2>{1, 2}}) {
      Simplex t = s;
      t[0] = s[static_cast<std::size_t>(e[0])];
      t[1] = s[static_cast<std::size_t>(e[1])];
      int tn = 2;
      const Eigen::Vector3d p = closestOnSegment(t, tn);
      if (p.squaredNorm() < best_p.squaredNorm()) best = t, best_n = tn, best_p = p;
    }
    s = best;
    n = best_n;
    return best_p;
  }
  n = 3;
  return a + (vb / sum) * ab + (vc / sum) * ac;
}

/// Closest point to the origin of tetrahedron s[0..3] (Ericson 5.1.6); zero with n = 4 when the
/// origin is inside.
Eigen::Vector3d closestOnTetrahedron(Simplex& s, int& n, double flat) {
  static constexpr int kFaces[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
  const double volume = (s[1].w - s[0].w).dot((s[2].w - s[0].w).cross(s[3].w - s[0].w));
  const bool degenerate = std::abs(volume) <= flat;
  Simplex best;
  int best_n = 0;
  Eigen::Vector3d best_p = Eigen::Vector3d::Zero();
  double best_d = std::numeric_limits<double>::infinity();
  for (const auto& f : kFaces) {
    const Eigen::Vector3d& p0 = s[static_cast<std::size_t>(f[0])].w;
    const Eigen::Vector3d normal =
        (s[static_cast<std::size_t>(f[1])].w - p0).cross(s[static_cast<std::size_t>(f[2])].w - p0);
    const double origin_side = -normal.dot(p0);
    const double opposite_side = normal.dot(s[static_cast<std::size_t>(f[3])].w - p0);
    if (!degenerate && origin_side * opposite_side >= 0.0) continue;
    Simplex t;
    for (int i = 0; i < 3; ++i) t[static_cast<std::size_t>(i)] = s[static_cast<std::size_t>(f[i])];
    int tn = 3;
    const Eigen::Vector3d p = closestOnTriangle(t, tn);
    if (p.squaredNorm() < best_d) best = t, best_n = tn, best_p = p, best_d = p.squaredNorm();
  }
  if (best_n == 0) {  // on the inner side of every face
    n = 4;
    return Eigen::Vector3d::Zero();
  }
  s = best;
  n = best_n;
  return best_p;
}

/// GJK: true when the hulls overlap (or touch within rounding); `s`, `n` then hold a simplex
/// of A - B whose closest point to the origin is (nearly) the origin.
bool gjkOverlap(HullPair& pair, Simplex& s, int& n, double scale) {
  Eigen::Vector3d v = pair.a.interior - (pair.r * pair.b.interior + pair.t);
  if (v.squaredNorm() == 0.0) v = Eigen::Vector3d::UnitX();
  const double tiny = 1e-26 * scale * scale;
  const double flat = 1e-15 * scale * scale * scale;
  n = 0;
  for (int iter = 0; iter < kMaxGjkIterations; ++iter) {
    const SupportPoint w = pair.support(-v);
    const double vw = v.dot(w.w);
    if (vw > 0.0) return false;  // the plane normal to v separates the origin from A - B
    if (n > 0 && v.squaredNorm() - vw <= 1e-12 * v.squaredNorm()) return true;  // v ~ 0
    s[static_cast<std::size_t>(n++)] = w;
    switch (n) {
      case 1:
        v = s[0].w;
        break;
      case 2:
        v = closestOnSegment(s, n);
        break;
      case 3:
        v = closestOnTriangle(s, n);
        break;
      default:
        v = closestOnTetrahedron(s, n, flat);
        break;
    }
    if (n == 4 || v.squaredNorm() <= tiny) return true;
  }
  return v.squaredNorm() <= 1e-12 * scale * scale;
}

/// Grows a simplex containing the origin into a tetrahedron of A - B (the origin inside or on
/// its boundary). False when A - B is flat.
bool blowUp(HullPair& pair, Simplex& s, int& n, double scale) {
  const double eps = 1e-12 * scale;
  static const Eigen::Vector3d kAxes[6] = {Eigen::Vector3d::UnitX(), -Eigen::Vector3d::UnitX(),
                                           Eigen::Vector3d::UnitY(), -Eigen::Vector3d::UnitY(),
                                           Eigen::Vector3d::UnitZ(), -Eigen::Vector3d::UnitZ()};
  if (n == 1) {
    for (const Eigen::Vector3d& d : kAxes) {
      const SupportPoint w = pair.support(d);
      if ((w.w - s[0].w).norm() > eps) {
        s[1] = w;
        n = 2;
        break;
      }
    }
    if (n == 1) return false;
  }
  if (n == 2) {
    const Eigen::Vector3d axis = (s[1].w - s[0].w).normalized();
    const Eigen::Vector3d u = axis.unitOrthogonal(), v = axis.cross(u);
    for (int k = 0; k < 6 && n == 2; ++k) {
      const double angle = k * 1.0471975511965976;  // 60 deg steps
      const SupportPoint w = pair.support(std::cos(angle) * u + std::sin(angle) * v);
      if ((w.w - s[0].w).cross(axis).norm() > eps) {
        s[2] = w;
        n = 3;
      }
    }
    if (n == 2) return false;
  }
  if (n == 3) {
    const Eigen::Vector3d normal = (s[1].w - s[0].w).cross(s[2].w - s[0].w).normalized();
    for (const double sign : {1.0, -1.0}) {
      const SupportPoint w = pair.support(sign * normal);
      if (std::abs(normal.dot(w.w - s[0].w)) > eps) {
        s[3] = w;
        n = 4;
        break;
      }
    }
    if (n == 3) return false;
  }
  return true;
}

bool addFace(std::vector<SupportPoint>& vs, std::vector<EpaFace>& faces, int i, int j, int k) {
  const Eigen::Vector3d& p = vs[static_cast<std::size_t>(i)].w;
  Eigen::Vector3d normal =
      (vs[static_cast<std::size_t>(j)].w - p).cross(vs[static_cast<std::size_t>(k)].w - p);
  const double len = normal.norm();
  if (!(len > 0.0)) return false;
  normal /= len;
  faces.push_back({{i, j, k}, normal, normal.dot(p), true, -1});
  return true;
}

/// EPA from a tetrahedron of A - B that contains the origin: the face of A - B nearest the
/// origin. Returns its index in scratch.faces (-1 on a degenerate polytope).
int epa(HullPair& pair, const Simplex& s, ConvexScratch& scratch, double scale) {
  std::vector<SupportPoint>& vs = scratch.vertices;
  std::vector<EpaFace>& faces = scratch.faces;
  vs.clear();
  faces.clear();
  for (int i = 0; i < 4; ++i) vs.push_back(s[static_cast<std::size_t>(i)]);
  static constexpr int kTet[4][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}, {0, 2, 3, 1}, {1, 3, 2, 0}};
  for (const auto& f : kTet) {
    const Eigen::Vector3d& p = vs[static_cast<std::size_t>(f[0])].w;
    const Eigen::Vector3d normal =
        (vs[static_cast<std::size_t>(f[1])].w - p).cross(vs[static_cast<std::size_t>(f[2])].w - p);
    const bool flip = normal.dot(vs[static_cast<std::size_t>(f[3])].w - p) > 0.0;
    if (!addFace(vs, faces, f[0], flip ? f[2] : f[1], flip ? f[1] : f[2])) return -1;
  }
  const double tol = 1e-10 * scale;
  int closest = -1;
  for (int iter = 0; iter < kMaxEpaIterations; ++iter) {
    closest = -1;
    for (std::size_t f = 0; f < faces.size(); ++f)
      if (faces[f].alive &&
          (closest < 0 || faces[f].distance < faces[static_cast<std::size_t>(closest)].distance))
        closest = static_cast<int>(f);
    if (closest < 0) return -1;
    const EpaFace face = faces[static_cast<std::size_t>(closest)];
    const SupportPoint w = pair.support(face.normal);
    if (w.w.dot(face.normal) - face.distance <= tol) break;  // a face of A - B
    const int added = static_cast<int>(vs.size());
    vs.push_back(w);
    std::vector<std::array<int, 2>>& horizon = scratch.horizon;
    horizon.clear();
    for (EpaFace& f : faces) {
      if (!f.alive || f.normal.dot(w.w - vs[static_cast<std::size_t>(f.v[0])].w) <= 0.0) continue;
      f.alive = false;
      f.removed_at = iter;
      for (int e = 0; e < 3; ++e) {
        const std::array<int, 2> edge = {f.v[static_cast<std::size_t>(e)],
                                         f.v[static_cast<std::size_t>((e + 1) % 3)]};
        const auto twin =
            std::find(horizon.begin(), horizon.end(), std::array<int, 2>{edge[1], edge[0]});
        if (twin != horizon.end()) {
          *twin = horizon.back();
          horizon.pop_back();
        } else {
          horizon.push_back(edge);
        }
      }
    }
    const std::size_t before = faces.size();
    bool ok = true;
    for (const auto& edge : horizon) ok = addFace(vs, faces, edge[0], edge[1], added) && ok;
    if (!ok) {  // a sliver: undo this expansion and stop at the face found so far
      faces.resize(before);
      for (EpaFace& f : faces)
        if (f.removed_at == iter) f.alive = true, f.removed_at = -1;
      break;
    }
  }
  return closest;
}

/// The face of `hull` (frame of the hull) most aligned with `d`, among those around the
/// support vertex along `d`; `alignment` gets normal . d / |d|.
int alignedFace(const ConvexHull& hull, const Eigen::Vector3d& d, int start, double& alignment) {
  const auto v = static_cast<std::size_t>(hull.support(d, start));
  int best = -1;
  alignment = -2.0;
  for (int k = hull.vertex_face_first[v]; k < hull.vertex_face_first[v + 1]; ++k) {
    const int f = hull.vertex_faces[static_cast<std::size_t>(k)];
    const double c = hull.faces[static_cast<std::size_t>(f)].normal.dot(d);
    if (c > alignment) alignment = c, best = f;
  }
  return best;
}

/// Keeps at most kMaxManifoldPoints of `pts` (with `depths`): the deepest, the farthest from
/// it, and the two that span the largest triangles on either side of that segment.
int reducePoints(std::vector<Eigen::Vector3d>& pts, std::vector<double>& depths,
                 const Eigen::Vector3d& normal, ConvexManifold& out) {
  const std::size_t m = pts.size();
  std::array<std::size_t, kMaxManifoldPoints> keep{};
  int count = 0;
  if (m <= static_cast<std::size_t>(kMaxManifoldPoints)) {
    for (std::size_t i = 0; i < m; ++i) keep[static_cast<std::size_t>(count++)] = i;
  } else {
    std::size_t i0 = 0, i1 = 0, i2 = 0, i3 = 0;
    for (std::size_t i = 1; i < m; ++i)
      if (depths[i] > depths[i0]) i0 = i;
    for (std::size_t i = 0; i < m; ++i)
      if ((pts[i] - pts[i0]).squaredNorm() > (pts[i1] - pts[i0]).squaredNorm()) i1 = i;
    double hi = 0.0, lo = 0.0;
    const Eigen::Vector3d e = pts[i1] - pts[i0];
    for (std::size_t i = 0; i < m; ++i) {
      const double area = e.cross(pts[i] - pts[i0]).dot(normal);
      if (area > hi) hi = area, i2 = i;
      if (area < lo) lo = area, i3 = i;
    }
    keep[static_cast<std::size_t>(count++)] = i0;
    if (i1 != i0) keep[static_cast<std::size_t>(count++)] = i1;
    if (hi > 0.0) keep[static_cast<std::size_t>(count++)] = i2;
    if (lo < 0.0) keep[static_cast<std::size_t>(count++)] = i3;
  }
  for (int k = 0; k < count; ++k) {
    out.points[static_cast<std::size_t>(k)] = pts[keep[static_cast<std::size_t>(k)]];
    out.depths[static_cast<std::size_t>(k)] = depths[keep[static_cast<std::size_t>(k)]];
  }
  return count;
}

/// The manifold in A's frame: reference face (A's or B's, whichever is better aligned with the
/// EPA normal) against the other hull's most anti-parallel face. 0 points when the faces meet
/// at more than 45 deg to the normal or nothing of the incident face lies below the reference.
int clipManifold(const HullPair& pair, const Eigen::Vector3d& normal, double depth,
                 ConvexScratch& scratch, ConvexManifold& out) {
  const Eigen::Vector3d normal_in_b = pair.r.transpose() * normal;
  double align_a = 0.0, align_b = 0.0;
  // The support searches start from EPA's last support vertices, next to the contact.
  const int fa = alignedFace(pair.a, normal, pair.last_a, align_a);
  const int fb = alignedFace(pair.b, -normal_in_b, pair.last_b, align_b);
  constexpr double kMinAlignment = 0.70710678118654752440;
  if (fa < 0 || fb < 0 || std::max(align_a, align_b) < kMinAlignment) return 0;
  const bool ref_a = align_a >= align_b;
  const ConvexHull& ref = ref_a ? pair.a : pair.b;
  const ConvexHull& inc = ref_a ? pair.b : pair.a;
  const ConvexFace& rf = ref.faces[static_cast<std::size_t>(ref_a ? fa : fb)];
  // Everything in A's frame.
  const auto refPoint = [&](int i) {
    return ref_a ? pair.a.vertices[static_cast<std::size_t>(i)] : pair.bVertex(i);
  };
  const auto incPoint = [&](int i) {
    return ref_a ? pair.bVertex(i) : pair.a.vertices[static_cast<std::size_t>(i)];
  };
  const Eigen::Vector3d ref_normal = ref_a ? rf.normal : Eigen::Vector3d(pair.r * rf.normal);
  const double ref_offset =
      ref_normal.dot(refPoint(ref.face_vertices[static_cast<std::size_t>(rf.first)]));
  // The incident face: the other hull's face most anti-parallel to the reference normal.
  const Eigen::Vector3d inc_dir =
      ref_a ? Eigen::Vector3d(-(pair.r.transpose() * ref_normal)) : Eigen::Vector3d(-ref_normal);
  double align_inc = 0.0;
  const int fi = alignedFace(inc, inc_dir, ref_a ? pair.last_b : pair.last_a, align_inc);
  if (fi < 0) return 0;
  const ConvexFace& incf = inc.faces[static_cast<std::size_t>(fi)];
  std::vector<Eigen::Vector3d>& poly = scratch.clip_in;
  std::vector<Eigen::Vector3d>& next = scratch.clip_out;
  poly.clear();
  for (int k = 0; k < incf.count; ++k)
    poly.push_back(incPoint(inc.face_vertices[static_cast<std::size_t>(incf.first + k)]));
  // Sutherland-Hodgman against the reference face's side planes (inward: normal x edge).
  const double eps = 1e-12 * (pair.a.radius + pair.b.radius);
  for (int k = 0; k < rf.count && !poly.empty(); ++k) {
    const Eigen::Vector3d p = refPoint(ref.face_vertices[static_cast<std::size_t>(rf.first + k)]);
    const Eigen::Vector3d q =
        refPoint(ref.face_vertices[static_cast<std::size_t>(rf.first + (k + 1) % rf.count)]);
    Eigen::Vector3d inward = ref_normal.cross(q - p);
    const double len = inward.norm();
    if (!(len > 0.0)) continue;
    inward /= len;
    next.clear();
    for (std::size_t i = 0; i < poly.size(); ++i) {
      const Eigen::Vector3d& x = poly[i];
      const Eigen::Vector3d& y = poly[(i + 1) % poly.size()];
      const double dx = inward.dot(x - p), dy = inward.dot(y - p);
      if (dx >= -eps) next.push_back(x);
      if ((dx >= -eps) != (dy >= -eps)) next.push_back(x + (dx / (dx - dy)) * (y - x));
    }
    std::swap(poly, next);
  }
  // Points of the incident face below the reference plane, moved half way to it.
  std::vector<double>& depths = scratch.clip_depth;
  next.clear();
  depths.clear();
  for (const Eigen::Vector3d& x : poly) {
    const double h = ref_offset - ref_normal.dot(x);
    if (h < -eps) continue;
    const double d = std::clamp(h, 0.0, depth);
    next.push_back(x + (0.5 * d) * ref_normal);
    depths.push_back(d);
  }
  if (next.empty()) return 0;
  return reducePoints(next, depths, normal, out);
}

bool orderedContact(const ConvexHull& a, const Eigen::Isometry3d& a_pose, const ConvexHull& b,
                    const Eigen::Isometry3d& b_pose, ConvexScratch& scratch, ConvexManifold& out) {
  out.count = 0;
  out.depth = 0.0;
  out.normal.setZero();
  if (a.empty() || b.empty()) return false;
  if ((a_pose * a.interior - b_pose * b.interior).norm() > a.radius + b.radius) return false;
  const Eigen::Isometry3d b_in_a = a_pose.inverse() * b_pose;
  HullPair pair{a, b, b_in_a.linear(), b_in_a.translation()};
  const Eigen::Vector3d towards_b = pair.r * b.interior + pair.t - a.interior;
  pair.last_a = a.supportStart(towards_b);
  pair.last_b = b.supportStart(-(pair.r.transpose() * towards_b));
  const double scale = a.radius + b.radius + (pair.t + pair.r * b.interior - a.interior).norm();
  Simplex s;
  int n = 0;
  if (!gjkOverlap(pair, s, n, scale)) return false;
  if (n < 4 && !blowUp(pair, s, n, scale)) return false;
  const int f = epa(pair, s, scratch, scale);
  if (f < 0) return false;
  const EpaFace& face = scratch.faces[static_cast<std::size_t>(f)];
  const Eigen::Vector3d normal = face.normal;
  const double depth = std::max(face.distance, 0.0);
  int count = clipManifold(pair, normal, depth, scratch, out);
  if (count == 0) {
    // One point: the witnesses of the origin's projection onto the face, half way.
    const SupportPoint& p0 = scratch.vertices[static_cast<std::size_t>(face.v[0])];
    const SupportPoint& p1 = scratch.vertices[static_cast<std::size_t>(face.v[1])];
    const SupportPoint& p2 = scratch.vertices[static_cast<std::size_t>(face.v[2])];
    const Eigen::Vector3d p = face.distance * normal;
    const Eigen::Vector3d e1 = p1.w - p0.w, e2 = p2.w - p0.w, ep = p - p0.w;
    const double d11 = e1.dot(e1), d12 = e1.dot(e2), d22 = e2.dot(e2);
    const double det = d11 * d22 - d12 * d12;
    double l1 = 0.0, l2 = 0.0;
    if (det > 0.0) {
      l1 = std::clamp((d22 * e1.dot(ep) - d12 * e2.dot(ep)) / det, 0.0, 1.0);
      l2 = std::clamp((d11 * e2.dot(ep) - d12 * e1.dot(ep)) / det, 0.0, 1.0 - l1);
    }
    const double l0 = 1.0 - l1 - l2;
    out.points[0] = 0.5 * (l0 * (p0.a + p0.b) + l1 * (p1.a + p1.b) + l2 * (p2.a + p2.b));
    out.depths[0] = depth;
    count = 1;
  }
  out.count = count;
  out.depth = depth;
  out.normal = a_pose.linear() * normal;
  for (int k = 0; k < count; ++k)
    out.points[static_cast<std::size_t>(k)] = a_pose * out.points[static_cast<std::size_t>(k)];
  return true;
}

/// True when (a, a_pose) comes after (b, b_pose) in the fixed order of a query's two hulls.
bool comesAfter(const ConvexHull& a, const Eigen::Isometry3d& a_pose, const ConvexHull& b,
                const Eigen::Isometry3d& b_pose) {
  if (a.fingerprint != b.fingerprint) return a.fingerprint > b.fingerprint;
  const Eigen::Matrix4d& ma = a_pose.matrix();
  const Eigen::Matrix4d& mb = b_pose.matrix();
  for (int c = 3; c >= 0; --c)  // translation first, then the rotation's columns
    for (int r = 0; r < 3; ++r)
      if (ma(r, c) != mb(r, c)) return ma(r, c) > mb(r, c);
  return false;
}

}  // namespace

bool convexContact(const ConvexHull& a, const Eigen::Isometry3d& a_pose, const ConvexHull& b,
                   const Eigen::Isometry3d& b_pose, ConvexScratch& scratch, ConvexManifold& out) {
  if (!comesAfter(a, a_pose, b, b_pose)) return orderedContact(a, a_pose, b, b_pose, scratch, out);
  const bool hit = orderedContact(b, b_pose, a, a_pose, scratch, out);
  out.normal = -out.normal;
  return hit;
}

}  // namespace handsim::collision
