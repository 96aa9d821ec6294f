// SPDX-License-Identifier: GPL-3.0-or-later
// Closed-form sphere contacts (sphere_contact.hpp, docs/collision.md "Analytic spheres").
#include "handsim/collision/sphere_contact.hpp"

#include <algorithm>
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
    const Eigen::Vector3d& v0 =
        hull.vertices[static_cast<std::size_t>(hull.face_vertices[static_cast<std::size_t>(
            face.first + k)])];
    const Eigen::Vector3d& v1 =
        hull.vertices[static_cast<std::size_t>(hull.face_vertices[static_cast<std::size_t>(
            face.first + (k + 1) % face.count)])];
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

}  // namespace

double pointHullDistance(const ConvexHull& hull, const Eigen::Vector3d& p,
                         Eigen::Vector3d& closest, Eigen::Vector3d& normal) {
  // Outside, locally first: the nearest point q of the faces around the support vertex along
  // the current direction n, then n = (p - q) / |p - q|, until no vertex lies beyond q along n.
  // That certifies q exactly (the whole hull is on the far side of the plane through q normal
  // to p - q, at |p - q| from p), without visiting every face. When it does not settle, or p
  // is behind the faces it sees (inside), the scan over every face below answers.
  if (!hull.vertex_face_first.empty() && !hull.vertices.empty()) {
    Eigen::Vector3d n = p - hull.interior;
    if (n.squaredNorm() > 0.0) n.normalize();
    int v = hull.support(n, hull.supportStart(n));
    const double eps = 1e-12 * (hull.radius + (p - hull.interior).norm());
    for (int iteration = 0; iteration < 16; ++iteration) {
      double best = std::numeric_limits<double>::infinity();
      Eigen::Vector3d q = p;
      const auto vi = static_cast<std::size_t>(v);
      for (int k = hull.vertex_face_first[vi]; k < hull.vertex_face_first[vi + 1]; ++k) {
        const ConvexFace& f =
            hull.faces[static_cast<std::size_t>(hull.vertex_faces[static_cast<std::size_t>(k)])];
        if (f.normal.dot(p) - f.offset <= 0.0) continue;
        const Eigen::Vector3d c = closestOnFace(hull, f, p);
        const double d2 = (p - c).squaredNorm();
        if (d2 < best) {
          best = d2;
          q = c;
        }
      }
      if (!(best > 0.0) || !std::isfinite(best)) break;
      const double dist = std::sqrt(best);
      n = (p - q) / dist;
      const int w = hull.support(n, v);
      if (n.dot(hull.vertices[static_cast<std::size_t>(w)]) <= n.dot(q) + eps) {
        closest = q;
        normal = n;
        return dist;
      }
      v = w;
    }
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
