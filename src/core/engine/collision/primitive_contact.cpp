// SPDX-License-Identifier: GPL-3.0-or-later
// Closed-form contacts of analytic boxes and cylinders (primitive_contact.hpp, docs/collision.md
// "Analytic boxes and cylinders"). The box-box test is the separating-axis theorem for two
// oriented boxes (S. Gottschalk, M. C. Lin, D. Manocha, "OBBTree", SIGGRAPH 1996) with a
// manifold from clipping the incident face against the reference face (Sutherland-Hodgman).
#include "handsim/collision/primitive_contact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "handsim/geometry/tangent_basis.hpp"
#include "manifold_reduction.hpp"

namespace handsim::collision {
namespace {

// A box in the world: centre, axes (columns) and half extents.
struct WorldBox {
  Eigen::Vector3d c;
  Eigen::Matrix3d r;
  Eigen::Vector3d e;
};

WorldBox worldBox(const geometry::Box& box, const Eigen::Isometry3d& pose) {
  const Eigen::Isometry3d p = pose * box.pose;
  return {p.translation(), p.linear(), box.half_extent};
}

// The polygon `poly` (n points) clipped to the half space inward . (x - p) >= -eps, into `next`;
// returns its size. A convex polygon of up to 4 + k points after k planes: 8 fit.
constexpr int kMaxClip = 12;
int clipPlane(const std::array<Eigen::Vector3d, kMaxClip>& poly, int n, const Eigen::Vector3d& p,
              const Eigen::Vector3d& inward, double eps,
              std::array<Eigen::Vector3d, kMaxClip>& next) {
  int m = 0;
  for (int i = 0; i < n && m + 2 <= kMaxClip; ++i) {
    const Eigen::Vector3d& x = poly[static_cast<std::size_t>(i)];
    const Eigen::Vector3d& y = poly[static_cast<std::size_t>((i + 1) % n)];
    const double dx = inward.dot(x - p), dy = inward.dot(y - p);
    if (dx >= -eps) next[static_cast<std::size_t>(m++)] = x;
    if ((dx >= -eps) != (dy >= -eps))
      next[static_cast<std::size_t>(m++)] = x + (dx / (dx - dy)) * (y - x);
  }
  return m;
}

// The face manifold: reference box `ref`'s face on axis `axis` (outward `n`, pointing into the
// incident box `inc`) against inc's most anti-parallel face; points in `out` with `normal`
// (from A into B) and per-point depths clamped to `depth`.
int faceManifold(const WorldBox& ref, const WorldBox& inc, int axis, const Eigen::Vector3d& n,
                 double depth, const Eigen::Vector3d& normal, ConvexManifold& out) {
  const int j = (axis + 1) % 3, k = (axis + 2) % 3;
  const Eigen::Vector3d face_centre = ref.c + ref.e[axis] * n;
  // The incident face: the axis of inc most parallel to n, its side facing the reference.
  Eigen::Index m = 0;
  (inc.r.transpose() * n).cwiseAbs().maxCoeff(&m);
  const double side = inc.r.col(m).dot(n) > 0.0 ? -1.0 : 1.0;
  const int mi = static_cast<int>(m), m1 = (mi + 1) % 3, m2 = (mi + 2) % 3;
  const Eigen::Vector3d inc_centre = inc.c + side * inc.e[mi] * inc.r.col(mi);
  const Eigen::Vector3d u = inc.e[m1] * inc.r.col(m1), v = inc.e[m2] * inc.r.col(m2);
  std::array<Eigen::Vector3d, kMaxClip> poly, next;
  poly[0] = inc_centre + u + v;
  poly[1] = inc_centre - u + v;
  poly[2] = inc_centre - u - v;
  poly[3] = inc_centre + u - v;
  int count = 4;
  const double eps = 1e-12 * (ref.e.norm() + inc.e.norm());
  // The reference face's four side planes, inward.
  for (const int t : {j, k})
    for (const double s : {1.0, -1.0}) {
      const Eigen::Vector3d inward = -s * ref.r.col(t);
      count = clipPlane(poly, count, face_centre + s * ref.e[t] * ref.r.col(t), inward, eps, next);
      std::swap(poly, next);
    }
  std::array<Eigen::Vector3d, kMaxClip> pts;
  std::array<double, kMaxClip> depths{};
  int kept = 0;
  for (int i = 0; i < count; ++i) {
    const Eigen::Vector3d& x = poly[static_cast<std::size_t>(i)];
    const double h = -n.dot(x - face_centre);
    if (h < -eps) continue;
    const double d = std::clamp(h, 0.0, depth);
    pts[static_cast<std::size_t>(kept)] = x + (0.5 * d) * n;
    depths[static_cast<std::size_t>(kept++)] = d;
  }
  return reduceManifold(pts.data(), depths.data(), kept, normal, out);
}

// The one point of an edge-edge contact: half way between the closest points of A's edge along
// a.r.col(i) and B's along b.r.col(j) that are extreme along the normal `n` (from A into B).
Eigen::Vector3d edgePoint(const WorldBox& a, int i, const WorldBox& b, int j,
                          const Eigen::Vector3d& n) {
  Eigen::Vector3d pa = a.c, pb = b.c;
  for (int k = 0; k < 3; ++k) {
    if (k != i) pa += (a.r.col(k).dot(n) > 0.0 ? 1.0 : -1.0) * a.e[k] * a.r.col(k);
    if (k != j) pb -= (b.r.col(k).dot(n) > 0.0 ? 1.0 : -1.0) * b.e[k] * b.r.col(k);
  }
  const Eigen::Vector3d da = a.r.col(i), db = b.r.col(j), w = pa - pb;
  const double bb = da.dot(db), d = da.dot(w), e = db.dot(w);
  const double denom = 1.0 - bb * bb;
  double s = 0.0, t = 0.0;
  if (denom > 1e-12) {
    s = std::clamp((bb * e - d) / denom, -a.e[i], a.e[i]);
    t = std::clamp(bb * s + e, -b.e[j], b.e[j]);
    s = std::clamp(bb * t - d, -a.e[i], a.e[i]);
  }
  return 0.5 * ((pa + s * da) + (pb + t * db));
}

// boxBoxContact for a fixed order of the two boxes.
bool orderedBoxBox(const WorldBox& a, const WorldBox& b, ConvexManifold& out) {
  const Eigen::Vector3d d = b.c - a.c;
  const auto overlap = [&](const Eigen::Vector3d& n) {
    return (a.r.transpose() * n).cwiseAbs().dot(a.e) + (b.r.transpose() * n).cwiseAbs().dot(b.e) -
           std::abs(d.dot(n));
  };
  // Face axes: A's then B's.
  double best = std::numeric_limits<double>::infinity();
  int best_face = -1;
  for (int f = 0; f < 6; ++f) {
    const double o = overlap(f < 3 ? a.r.col(f) : b.r.col(f - 3));
    if (o < 0.0) return false;
    if (o < best) best = o, best_face = f;
  }
  // Edge axes, normalised; nearly parallel edges give no axis.
  double best_edge = std::numeric_limits<double>::infinity();
  int edge_i = -1, edge_j = -1;
  Eigen::Vector3d edge_axis = Eigen::Vector3d::Zero();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Eigen::Vector3d n = a.r.col(i).cross(b.r.col(j));
      const double len = n.norm();
      if (!(len > 1e-6)) continue;
      n /= len;
      const double o = overlap(n);
      if (o < 0.0) return false;
      if (o < best_edge) best_edge = o, edge_i = i, edge_j = j, edge_axis = n;
    }
  out.count = 0;
  if (edge_i >= 0 && best_edge < 0.95 * best) {
    const Eigen::Vector3d n = d.dot(edge_axis) >= 0.0 ? edge_axis : Eigen::Vector3d(-edge_axis);
    out.normal = n;
    out.depth = best_edge;
    out.points[0] = edgePoint(a, edge_i, b, edge_j, n);
    out.depths[0] = best_edge;
    out.count = 1;
    return true;
  }
  const bool ref_a = best_face < 3;
  const WorldBox& ref = ref_a ? a : b;
  const WorldBox& inc = ref_a ? b : a;
  const int axis = best_face % 3;
  const Eigen::Vector3d dir = ref_a ? d : Eigen::Vector3d(-d);  // from the reference to the other
  const Eigen::Vector3d n =
      ref.r.col(axis).dot(dir) >= 0.0 ? ref.r.col(axis) : Eigen::Vector3d(-ref.r.col(axis));
  out.normal = ref_a ? n : Eigen::Vector3d(-n);
  out.depth = best;
  out.count = faceManifold(ref, inc, axis, n, best, out.normal, out);
  if (out.count == 0) {
    // Rounding left nothing below the face: the centre of the overlap along the normal.
    out.points[0] = 0.5 * (a.c + b.c);
    out.depths[0] = best;
    out.count = 1;
  }
  return true;
}

// True when box (a, its world frame) comes after b in the fixed order of a query's two boxes.
bool boxAfter(const WorldBox& a, const WorldBox& b) {
  for (int i = 0; i < 3; ++i)
    if (a.e[i] != b.e[i]) return a.e[i] > b.e[i];
  for (int i = 0; i < 3; ++i)
    if (a.c[i] != b.c[i]) return a.c[i] > b.c[i];
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r)
      if (a.r(r, c) != b.r(r, c)) return a.r(r, c) > b.r(r, c);
  return false;
}

// Sphere `a` against a primitive whose signed distance (in its frame) `distance` gives.
template <typename Distance>
bool sphereAgainst(const geometry::Sphere& a, const Eigen::Isometry3d& a_pose,
                   const Eigen::Isometry3d& frame, double reach, Distance distance,
                   SphereContact& out) {
  const Eigen::Vector3d centre_world = a_pose * a.centre;
  const Eigen::Vector3d centre_b = frame.inverse() * centre_world;
  if (centre_b.norm() >= reach + a.radius) return false;
  Eigen::Vector3d closest, outward;
  const double dist = distance(centre_b, closest, outward);
  const double depth = a.radius - dist;
  if (!(depth > 0.0)) return false;
  out.normal = -(frame.linear() * outward);
  out.depth = depth;
  const Eigen::Vector3d deepest = centre_world + a.radius * out.normal;
  out.point = 0.5 * (deepest + frame * closest);
  return true;
}

}  // namespace

int boxGroundPoints(const geometry::Box& box, const Eigen::Isometry3d& pose, double height,
                    double margin, std::array<Eigen::Vector3d, kMaxGroundPoints>& out) {
  const WorldBox w = worldBox(box, pose);
  std::array<Eigen::Vector3d, 8> corners;
  int n = 0;
  for (int k = 0; k < 8; ++k) {
    const Eigen::Vector3d s((k & 1) ? 1.0 : -1.0, (k & 2) ? 1.0 : -1.0, (k & 4) ? 1.0 : -1.0);
    const Eigen::Vector3d p = w.c + w.r * s.cwiseProduct(w.e);
    if (height - p.z() >= -margin) corners[static_cast<std::size_t>(n++)] = p;
  }
  // Deepest first (lowest z; ties in corner order), four at most: an insertion sort (stable,
  // and std::stable_sort may allocate).
  for (int i = 1; i < n; ++i)
    for (int k = i; k > 0 && corners[static_cast<std::size_t>(k)].z() <
                                 corners[static_cast<std::size_t>(k - 1)].z();
         --k)
      std::swap(corners[static_cast<std::size_t>(k)], corners[static_cast<std::size_t>(k - 1)]);
  n = std::min(n, 4);
  for (int k = 0; k < n; ++k)
    out[static_cast<std::size_t>(k)] = corners[static_cast<std::size_t>(k)];
  return n;
}

int cylinderGroundPoints(const geometry::Cylinder& cylinder, const Eigen::Isometry3d& pose,
                         double height, double margin,
                         std::array<Eigen::Vector3d, kMaxGroundPoints>& out) {
  const Eigen::Isometry3d p = pose * cylinder.pose;
  const Eigen::Vector3d axis = p.linear().col(2), c = p.translation();
  // Down in the cap plane: the lowest rim direction; any, for an upright cylinder.
  Eigen::Vector3d down = -(Eigen::Vector3d::UnitZ() - axis.z() * axis);
  Eigen::Vector3d side;
  if (down.norm() > 1e-12) {
    down.normalize();
    side = axis.cross(down);
  } else {
    geometry::tangentBasis(axis, down, side);
  }
  int n = 0;
  for (const double cap : {-1.0, 1.0}) {
    const Eigen::Vector3d centre = c + cap * cylinder.half_length * axis;
    const Eigen::Vector3d rim[4] = {down, side, -side, -down};
    for (const Eigen::Vector3d& dir : rim) {
      const Eigen::Vector3d q = centre + cylinder.radius * dir;
      if (height - q.z() >= -margin) out[static_cast<std::size_t>(n++)] = q;
    }
  }
  return n;
}

double pointBoxDistance(const geometry::Box& box, const Eigen::Vector3d& p,
                        Eigen::Vector3d& closest, Eigen::Vector3d& normal) {
  const Eigen::Vector3d q = box.pose.inverse() * p;
  const Eigen::Vector3d& e = box.half_extent;
  const Eigen::Vector3d clamped = q.cwiseMax(-e).cwiseMin(e);
  Eigen::Vector3d local_closest, local_normal;
  double distance;
  if (clamped != q) {
    local_closest = clamped;
    distance = (q - clamped).norm();
    local_normal = (q - clamped) / distance;
  } else {
    // Inside: the nearest face.
    Eigen::Index i = 0;
    (e - q.cwiseAbs()).minCoeff(&i);
    const double s = q[i] >= 0.0 ? 1.0 : -1.0;
    local_closest = q;
    local_closest[i] = s * e[i];
    local_normal = Eigen::Vector3d::Zero();
    local_normal[i] = s;
    distance = -(e[i] - std::abs(q[i]));
  }
  closest = box.pose * local_closest;
  normal = box.pose.linear() * local_normal;
  return distance;
}

double pointCylinderDistance(const geometry::Cylinder& cylinder, const Eigen::Vector3d& p,
                             Eigen::Vector3d& closest, Eigen::Vector3d& normal) {
  const Eigen::Vector3d q = cylinder.pose.inverse() * p;
  const double r = cylinder.radius, h = cylinder.half_length;
  const double rho = q.head<2>().norm();
  const Eigen::Vector2d radial =
      rho > 0.0 ? Eigen::Vector2d(q.head<2>() / rho) : Eigen::Vector2d::UnitX();
  Eigen::Vector3d local_closest, local_normal;
  double distance;
  if (rho > r || std::abs(q.z()) > h) {
    local_closest << std::min(rho, r) * radial, std::clamp(q.z(), -h, h);
    distance = (q - local_closest).norm();
    local_normal = (q - local_closest) / distance;
  } else if (r - rho < h - std::abs(q.z())) {
    // Inside, nearer the side.
    local_closest << r * radial, q.z();
    local_normal << radial, 0.0;
    distance = -(r - rho);
  } else {
    const double s = q.z() >= 0.0 ? 1.0 : -1.0;
    local_closest << q.head<2>(), s * h;
    local_normal << 0.0, 0.0, s;
    distance = -(h - std::abs(q.z()));
  }
  closest = cylinder.pose * local_closest;
  normal = cylinder.pose.linear() * local_normal;
  return distance;
}

bool sphereBoxContact(const geometry::Sphere& a, const Eigen::Isometry3d& a_pose,
                      const geometry::Box& b, const Eigen::Isometry3d& b_pose, SphereContact& out) {
  // In B's body frame; pointBoxDistance places the box in it.
  const auto distance = [&b](const Eigen::Vector3d& p, Eigen::Vector3d& closest,
                             Eigen::Vector3d& normal) {
    return pointBoxDistance(b, p, closest, normal);
  };
  const double reach = b.pose.translation().norm() + b.half_extent.norm();
  return sphereAgainst(a, a_pose, b_pose, reach, distance, out);
}

bool sphereCylinderContact(const geometry::Sphere& a, const Eigen::Isometry3d& a_pose,
                           const geometry::Cylinder& b, const Eigen::Isometry3d& b_pose,
                           SphereContact& out) {
  const auto distance = [&b](const Eigen::Vector3d& p, Eigen::Vector3d& closest,
                             Eigen::Vector3d& normal) {
    return pointCylinderDistance(b, p, closest, normal);
  };
  const double reach = b.pose.translation().norm() + std::hypot(b.radius, b.half_length);
  return sphereAgainst(a, a_pose, b_pose, reach, distance, out);
}

bool boxBoxContact(const geometry::Box& a, const Eigen::Isometry3d& a_pose, const geometry::Box& b,
                   const Eigen::Isometry3d& b_pose, ConvexManifold& out) {
  out.count = 0;
  out.depth = 0.0;
  out.normal.setZero();
  const WorldBox wa = worldBox(a, a_pose), wb = worldBox(b, b_pose);
  if ((wa.c - wb.c).norm() > wa.e.norm() + wb.e.norm()) return false;
  if (!boxAfter(wa, wb)) return orderedBoxBox(wa, wb, out);
  const bool hit = orderedBoxBox(wb, wa, out);
  out.normal = -out.normal;
  return hit;
}

}  // namespace handsim::collision
