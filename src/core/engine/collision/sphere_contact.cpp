// SPDX-License-Identifier: GPL-3.0-or-later
// Closed-form sphere contacts (sphere_contact.hpp, docs/collision.md "Analytic spheres").
#include "handsim/collision/sphere_contact.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace handsim::collision {

bool sphereSphereContact(const geometry::Sphere& a, const Eigen::Isometry3d& a_pose,
                         const geometry::Sphere& b, const Eigen::Isometry3d& b_pose,
                         SphereContact& out) {
  const Eigen::Vector3d ca = a_pose * a.centre, cb = b_pose * b.centre;
  const Eigen::Vector3d d = cb - ca;
  const double dist = d.norm();
  const double depth = a.radius + b.radius - dist;
  if (!(depth > 0.0)) return false;
  out.normal = dist > 0.0 ? Eigen::Vector3d(d / dist) : Eigen::Vector3d::UnitZ();
  out.depth = depth;
  // Half way between A's deepest point (ca + ra n) and B's (cb - rb n): written symmetrically,
  // so swapping the spheres gives the same point to the last bit.
  out.point = 0.5 * (ca + cb) + 0.5 * (a.radius - b.radius) * out.normal;
  return true;
}

namespace {

// The closest point to `p` of the convex polygon `face` of `hull`, all in the hull frame.
Eigen::Vector3d closestOnFace(const ConvexHull& hull, const ConvexFace& face,
                              const Eigen::Vector3d& p) {
  const Eigen::Vector3d on_plane = p - (face.normal.dot(p) - face.offset) * face.normal;
  // Inside every edge (counter-clockwise seen from outside): the projection is the answer.
  bool inside = true;
  double best = std::numeric_limits<double>::infinity();
  Eigen::Vector3d best_point = on_plane;
  for (int k = 0; k < face.count; ++k) {
    const Eigen::Vector3d& v0 = hull.vertices[static_cast<std::size_t>(
        hull.face_vertices[static_cast<std::size_t>(face.first + k)])];
    const Eigen::Vector3d& v1 = hull.vertices[static_cast<std::size_t>(
        hull.face_vertices[static_cast<std::size_t>(face.first + (k + 1) % face.count)])];
    const Eigen::Vector3d e = v1 - v0;
    if (face.normal.cross(e).dot(on_plane - v0) < 0.0) inside = false;
    // The nearest point of the edge segment.
    const double len2 = e.squaredNorm();
    const double t = len2 > 0.0 ? std::clamp(e.dot(p - v0) / len2, 0.0, 1.0) : 0.0;
    const Eigen::Vector3d q = v0 + t * e;
    const double d2 = (p - q).squaredNorm();
    if (d2 < best) {
      best = d2;
      best_point = q;
    }
  }
  return inside ? on_plane : best_point;
}

// The simplex of GJK: up to four points of the hull less the query point.
struct Simplex {
  std::array<Eigen::Vector3d, 4> y = {Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero(),
                                      Eigen::Vector3d::Zero(), Eigen::Vector3d::Zero()};
  int n = 0;
};

// The point of triangle (a, b, c) nearest the origin, by the Voronoi regions of its vertices,
// edges and face; `s` becomes the smallest sub-simplex holding it.
Eigen::Vector3d nearestOnTriangle(const Eigen::Vector3d& a, const Eigen::Vector3d& b,
                                  const Eigen::Vector3d& c, Simplex& s) {
  const Eigen::Vector3d ab = b - a, ac = c - a;
  const double d1 = -ab.dot(a), d2 = -ac.dot(a);
  if (d1 <= 0.0 && d2 <= 0.0) {
    s.y[0] = a, s.n = 1;
    return a;
  }
  const double d3 = -ab.dot(b), d4 = -ac.dot(b);
  if (d3 >= 0.0 && d4 <= d3) {
    s.y[0] = b, s.n = 1;
    return b;
  }
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    s.y[0] = a, s.y[1] = b, s.n = 2;
    return a + (d1 / (d1 - d3)) * ab;
  }
  const double d5 = -ab.dot(c), d6 = -ac.dot(c);
  if (d6 >= 0.0 && d5 <= d6) {
    s.y[0] = c, s.n = 1;
    return c;
  }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    s.y[0] = a, s.y[1] = c, s.n = 2;
    return a + (d2 / (d2 - d6)) * ac;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
    s.y[0] = b, s.y[1] = c, s.n = 2;
    return b + ((d4 - d3) / ((d4 - d3) + (d5 - d6))) * (c - b);
  }
  const double sum = va + vb + vc;
  s.y[0] = a, s.y[1] = b, s.y[2] = c, s.n = 3;
  return a + (vb / sum) * ab + (vc / sum) * ac;
}

// The point of the simplex nearest the origin, the simplex reduced to the smallest part that
// holds it. False when the origin is inside the tetrahedron (or on it).
bool nearestOnSimplex(Simplex& s, Eigen::Vector3d& v) {
  if (s.n == 1) {
    v = s.y[0];
    return true;
  }
  if (s.n == 2) {
    const Eigen::Vector3d a = s.y[0], ab = s.y[1] - s.y[0];
    const double len2 = ab.squaredNorm();
    const double t = len2 > 0.0 ? -a.dot(ab) / len2 : 0.0;
    if (t <= 0.0) {
      s.n = 1;
      v = a;
    } else if (t >= 1.0) {
      s.y[0] = s.y[1], s.n = 1;
      v = s.y[0];
    } else {
      v = a + t * ab;
    }
    return true;
  }
  if (s.n == 3) {
    const Simplex in = s;
    v = nearestOnTriangle(in.y[0], in.y[1], in.y[2], s);
    return true;
  }
  // A tetrahedron: the nearest point of the faces the origin lies beyond.
  const Simplex in = s;
  static constexpr int kFace[4][4] = {{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}};
  double best = std::numeric_limits<double>::infinity();
  bool outside = false;
  for (const auto& f : kFace) {
    const Eigen::Vector3d& a = in.y[static_cast<std::size_t>(f[0])];
    const Eigen::Vector3d n =
        (in.y[static_cast<std::size_t>(f[1])] - a).cross(in.y[static_cast<std::size_t>(f[2])] - a);
    const double origin_side = -n.dot(a);
    const double other_side = n.dot(in.y[static_cast<std::size_t>(f[3])] - a);
    if (origin_side * other_side >= 0.0) continue;  // the origin is on the inner side
    outside = true;
    Simplex part;
    const Eigen::Vector3d q = nearestOnTriangle(a, in.y[static_cast<std::size_t>(f[1])],
                                                in.y[static_cast<std::size_t>(f[2])], part);
    if (q.squaredNorm() < best) {
      best = q.squaredNorm();
      v = q;
      s = part;
    }
  }
  return outside;
}

// GJK's nearest point of the hull to p, as v = nearest - p. False when p is inside (or on) the
// hull, or the iteration does not settle.
bool gjkNearest(const ConvexHull& hull, const Eigen::Vector3d& p, Eigen::Vector3d& v) {
  if (hull.vertices.empty()) return false;
  const double scale = hull.radius + (p - hull.interior).norm();
  const double tiny = 1e-12 * scale;
  Simplex s;
  v = hull.interior - p;
  int start = hull.supportStart(-v);
  for (int iteration = 0; iteration < 64; ++iteration) {
    const double vv = v.squaredNorm();
    if (vv <= tiny * tiny) return false;  // p on the hull or inside
    start = hull.support(-v, start);
    const Eigen::Vector3d w = hull.vertices[static_cast<std::size_t>(start)] - p;
    // No vertex nearer along v than the simplex's point: v is the nearest point (to 1e-12).
    if (vv - v.dot(w) <= 1e-12 * vv) return s.n > 0;
    bool repeated = false;
    for (int k = 0; k < s.n; ++k) repeated = repeated || s.y[static_cast<std::size_t>(k)] == w;
    if (repeated) return s.n > 0;
    s.y[static_cast<std::size_t>(s.n++)] = w;
    if (!nearestOnSimplex(s, v)) return false;
  }
  return false;
}

}  // namespace

double pointHullDistance(const ConvexHull& hull, const Eigen::Vector3d& p, Eigen::Vector3d& closest,
                         Eigen::Vector3d& normal) {
  // Outside: GJK (Gilbert, Johnson and Keerthi, IEEE J. Robotics and Automation 4(2), 1988)
  // on the hull less p, which on a polytope ends at the exact nearest point; inside, or when it
  // does not settle, the scan over every face below answers.
  Eigen::Vector3d v;
  if (gjkNearest(hull, p, v)) {
    const double dist = v.norm();
    closest = p + v;
    normal = -v / dist;
    return dist;
  }
  // The face whose plane p is farthest in front of (or least behind).
  double max_plane = -std::numeric_limits<double>::infinity();
  const ConvexFace* nearest_plane = nullptr;
  for (const ConvexFace& f : hull.faces) {
    const double s = f.normal.dot(p) - f.offset;
    if (s > max_plane) {
      max_plane = s;
      nearest_plane = &f;
    }
  }
  if (nearest_plane == nullptr) {
    closest = p;
    normal = Eigen::Vector3d::UnitZ();
    return 0.0;
  }
  if (max_plane <= 0.0) {
    // Inside (or on the surface): the nearest face plane is the nearest surface point, since
    // the face's polygon contains the foot of the perpendicular of an interior point's
    // nearest plane.
    normal = nearest_plane->normal;
    closest = p - max_plane * normal;
    return max_plane;
  }
  // Outside: the nearest point lies on a face that p is in front of.
  double best = std::numeric_limits<double>::infinity();
  for (const ConvexFace& f : hull.faces) {
    if (f.normal.dot(p) - f.offset <= 0.0) continue;
    const Eigen::Vector3d q = closestOnFace(hull, f, p);
    const double d2 = (p - q).squaredNorm();
    if (d2 < best) {
      best = d2;
      closest = q;
    }
  }
  const double dist = std::sqrt(best);
  // A point touching the surface to rounding: the plane's normal.
  normal = dist > 0.0 ? Eigen::Vector3d((p - closest) / dist) : nearest_plane->normal;
  return dist;
}

bool sphereHullContact(const geometry::Sphere& a, const Eigen::Isometry3d& a_pose,
                       const ConvexHull& b, const Eigen::Isometry3d& b_pose, SphereContact& out) {
  const Eigen::Vector3d centre_world = a_pose * a.centre;
  const Eigen::Vector3d centre_b = b_pose.inverse() * centre_world;
  // Cheap rejections: beyond the hull's bounding sphere; beyond the hull's support plane along
  // the direction from its interior to the centre.
  if ((centre_b - b.interior).norm() >= b.radius + a.radius) return false;
  if (!b.vertices.empty()) {
    Eigen::Vector3d d = centre_b - b.interior;
    if (d.squaredNorm() > 0.0) {
      d.normalize();
      const int w = b.support(d, b.supportStart(d));
      if (d.dot(centre_b - b.vertices[static_cast<std::size_t>(w)]) >= a.radius) return false;
    }
  }
  Eigen::Vector3d closest, outward;
  const double distance = pointHullDistance(b, centre_b, closest, outward);
  const double depth = a.radius - distance;
  if (!(depth > 0.0)) return false;
  // From the sphere into the hull: against the hull's outward direction at the closest point.
  out.normal = -(b_pose.linear() * outward);
  out.depth = depth;
  // Half way between the sphere's deepest point and the hull's surface point.
  const Eigen::Vector3d deepest = centre_world + a.radius * out.normal;
  out.point = 0.5 * (deepest + b_pose * closest);
  return true;
}

}  // namespace handsim::collision
