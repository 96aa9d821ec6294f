// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/contact/patch_friction.hpp"

#include <algorithm>
#include <cmath>

#include "handsim/geometry/tangent_basis.hpp"

namespace handsim::contact {

namespace {

double cross2(const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
  return a.x() * b.y() - a.y() * b.x();
}

// The integral of sec^3 from 0 to atan(t), times 2: t sqrt(1 + t^2) + asinh(t).
double secCubed2(double t) {
  return t * std::sqrt(1.0 + t * t) + std::asinh(t);
}

// Andrew's monotone chain over `sorted` (lexicographically sorted points): the hull's vertices
// counter-clockwise, without collinear ones, into `hull`.
void convexHull(const std::vector<Eigen::Vector2d>& sorted, std::vector<Eigen::Vector2d>& hull) {
  hull.clear();
  const std::size_t n = sorted.size();
  if (n < 3) {
    hull.assign(sorted.begin(), sorted.end());
    return;
  }
  for (std::size_t pass = 0; pass < 2; ++pass) {
    const std::size_t start = hull.size();
    for (std::size_t k = 0; k < n; ++k) {
      const Eigen::Vector2d& p = sorted[pass == 0 ? k : n - 1 - k];
      while (hull.size() >= start + 2 && cross2(hull[hull.size() - 1] - hull[hull.size() - 2],
                                                p - hull[hull.size() - 2]) <= 0.0)
        hull.pop_back();
      hull.push_back(p);
    }
    hull.pop_back();  // the last point of each chain starts the other
  }
}

}  // namespace

double convexPolygonMeanDistance(const std::vector<Eigen::Vector2d>& polygon,
                                 const Eigen::Vector2d& centre) {
  double integral = 0.0, twice_area = 0.0;
  for (std::size_t i = 0; i < polygon.size(); ++i) {
    const Eigen::Vector2d a = polygon[i] - centre;
    const Eigen::Vector2d b = polygon[(i + 1) % polygon.size()] - centre;
    twice_area += cross2(a, b);
    const Eigen::Vector2d edge = b - a;
    const double length = edge.norm();
    if (length == 0.0) continue;
    const Eigen::Vector2d e = edge / length;
    const double h = std::abs(cross2(e, a));  // distance of the centre from the edge's line
    if (h <= 1e-12 * length) continue;        // the centre on this edge: no fan triangle
    // The fan triangle (centre, a, b) in polar coordinates about the centre: the edge is at
    // rho(phi) = h / cos(phi), phi measured from the foot of the perpendicular, so
    // integral |x| dA = integral h^3 / (3 cos^3 phi) dphi.
    integral += h * h * h / 6.0 * std::abs(secCubed2(b.dot(e) / h) - secCubed2(a.dot(e) / h));
  }
  const double area = 0.5 * std::abs(twice_area);
  return area > 0.0 ? integral / area : 0.0;
}

void patchFrictionPoints(const Eigen::Vector3d* points, std::size_t count,
                         const Eigen::Vector3d& normal, PatchFrictionScratch& scratch,
                         Eigen::Vector3d* friction_points) {
  std::copy(points, points + count, friction_points);
  if (count < 2) return;
  Eigen::Vector3d t1, t2;
  geometry::tangentBasis(normal, t1, t2);
  std::vector<Eigen::Vector2d>& plane = scratch.plane;
  plane.resize(count);
  for (std::size_t i = 0; i < count; ++i) plane[i] = {points[i].dot(t1), points[i].dot(t2)};
  std::vector<Eigen::Vector2d>& sorted = scratch.sorted;
  sorted.assign(plane.begin(), plane.end());
  std::sort(sorted.begin(), sorted.end(), [](const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
    return a.x() < b.x() || (a.x() == b.x() && a.y() < b.y());
  });
  // The farthest pair: the patch's length, and the direction of a line patch.
  Eigen::Vector2d from = sorted.front(), to = sorted.back();
  double extent2 = (to - from).squaredNorm();
  for (std::size_t i = 0; i < count; ++i)
    for (std::size_t j = i + 1; j < count; ++j)
      if ((plane[j] - plane[i]).squaredNorm() > extent2) {
        extent2 = (plane[j] - plane[i]).squaredNorm();
        from = plane[i];
        to = plane[j];
      }
  if (extent2 < 1e-24) return;  // all at one place (1e-12 m)
  std::vector<Eigen::Vector2d>& hull = scratch.hull;
  convexHull(sorted, hull);
  double twice_area = 0.0;
  Eigen::Vector2d weighted = Eigen::Vector2d::Zero();
  for (std::size_t i = 0; hull.size() >= 3 && i < hull.size(); ++i) {
    const Eigen::Vector2d& a = hull[i];
    const Eigen::Vector2d& b = hull[(i + 1) % hull.size()];
    const double c = cross2(a - hull[0], b - hull[0]);
    twice_area += c;
    weighted += c * (hull[0] + a + b) / 3.0;
  }
  Eigen::Vector2d centre;
  double mean_area;  // mean distance of the loaded patch from its centre
  if (hull.size() >= 3 && 0.5 * twice_area > 1e-6 * extent2) {
    centre = weighted / twice_area;
    mean_area = convexPolygonMeanDistance(hull, centre);
  } else {
    // A line patch: a uniform load along a segment of length L has mean distance L / 4 from
    // its middle.
    const Eigen::Vector2d d = (to - from).normalized();
    double lo = plane[0].dot(d), hi = lo, across = 0.0;
    for (const Eigen::Vector2d& p : plane) {
      lo = std::min(lo, p.dot(d));
      hi = std::max(hi, p.dot(d));
      across += cross2(d, p);
    }
    across /= static_cast<double>(count);
    centre = 0.5 * (lo + hi) * d + across * Eigen::Vector2d(-d.y(), d.x());
    mean_area = 0.25 * (hi - lo);
  }
  double mean_points = 0.0;
  for (const Eigen::Vector2d& p : plane) mean_points += (p - centre).norm();
  mean_points /= static_cast<double>(count);
  if (mean_points <= 0.0) return;
  // Never beyond the points themselves (interior points can make the points' mean smaller).
  const double kappa = std::min(1.0, mean_area / mean_points);
  for (std::size_t i = 0; i < count; ++i) {
    const Eigen::Vector2d r = plane[i] - centre;
    friction_points[i] = points[i] + (kappa - 1.0) * (r.x() * t1 + r.y() * t2);
  }
}

}  // namespace handsim::contact
