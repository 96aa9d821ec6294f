// SPDX-License-Identifier: GPL-3.0-or-later
// Closed-form sphere contacts (collision/sphere_contact.hpp) against independent references: the
// distance of a point to an axis-aligned box worked per region (inside: the nearest face;
// outside: the clamped point), two spheres' overlap from their centres, and a sphere against a
// box hull compared with the general convex narrow phase (convexContact, GJK/EPA) run on a
// finely tessellated ball's hull.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "handsim/collision/convex_contact.hpp"
#include "handsim/collision/convex_hull.hpp"
#include "handsim/collision/sphere_contact.hpp"
#include "handsim/geometry/primitives.hpp"

using namespace handsim;
using namespace handsim::collision;

namespace {

// The signed distance of p to the box [-h, h] (per axis), worked without the hull: outside, the
// length of p minus its clamp into the box; inside, minus the smallest gap to a face.
double boxDistance(const Eigen::Vector3d& h, const Eigen::Vector3d& p) {
  const Eigen::Vector3d clamped = p.cwiseMax(-h).cwiseMin(h);
  if ((p - clamped).norm() > 0.0) return (p - clamped).norm();
  return -(h - p.cwiseAbs()).minCoeff();
}

}  // namespace

TEST(SphereContact, PointToBoxDistanceMatchesTheClosedForm) {
  const Eigen::Vector3d h(0.02, 0.03, 0.05);
  const ConvexHull box = buildConvexHull(geometry::makeBox(2.0 * h));
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  int inside = 0, edge_or_corner = 0;
  for (int i = 0; i < 2000; ++i) {
    const Eigen::Vector3d p(u(rng), u(rng), u(rng));
    Eigen::Vector3d closest, normal;
    const double d = pointHullDistance(box, p, closest, normal);
    ASSERT_NEAR(d, boxDistance(h, p), 1e-14) << p.transpose();
    // The closest point is on the surface and at that distance; the normal is unit and points
    // from the surface to p outside.
    EXPECT_NEAR((p - closest).norm(), std::abs(d), 1e-14);
    EXPECT_NEAR(normal.norm(), 1.0, 1e-14);
    if (d > 1e-12) {
      EXPECT_NEAR(normal.dot(p - closest), d, 1e-14);
    }
    inside += d < 0.0 ? 1 : 0;
    const int out_axes = ((p.cwiseAbs() - h).array() > 0.0).count();
    edge_or_corner += out_axes >= 2 ? 1 : 0;
  }
  // Every region was visited: inside, beyond a face, an edge and a corner.
  EXPECT_GT(inside, 10);
  EXPECT_GT(edge_or_corner, 100);
}

TEST(SphereContact, SpheresOverlapByTheirRadiiLessTheirDistanceInEitherOrder) {
  const geometry::Sphere a{Eigen::Vector3d(0.001, 0.0, 0.0), 0.03};
  const geometry::Sphere b{Eigen::Vector3d::Zero(), 0.02};
  Eigen::Isometry3d pa = Eigen::Isometry3d::Identity(), pb = Eigen::Isometry3d::Identity();
  pa.linear() = Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  pb.translation() = Eigen::Vector3d(0.03, 0.02, -0.01);
  const Eigen::Vector3d ca = pa * a.centre, cb = pb * b.centre;
  const double dist = (cb - ca).norm();
  SphereContact ab, ba;
  ASSERT_TRUE(sphereSphereContact(a, pa, b, pb, ab));
  ASSERT_TRUE(sphereSphereContact(b, pb, a, pa, ba));
  EXPECT_NEAR(ab.depth, 0.05 - dist, 1e-15);
  EXPECT_NEAR((ab.normal - (cb - ca) / dist).norm(), 0.0, 1e-15);
  // Half way between the deepest points: A's at ca + ra n, B's at cb - rb n.
  const Eigen::Vector3d mid = 0.5 * ((ca + 0.03 * ab.normal) + (cb - 0.02 * ab.normal));
  EXPECT_NEAR((ab.point - mid).norm(), 0.0, 1e-15);
  EXPECT_EQ(ab.depth, ba.depth);
  EXPECT_NEAR((ab.normal + ba.normal).norm(), 0.0, 1e-16);
  EXPECT_NEAR((ab.point - ba.point).norm(), 0.0, 1e-16);
  // Apart by a micrometre: no contact.
  pb.translation() = ca + (0.05 + 1e-6) * Eigen::Vector3d(0.6, 0.0, 0.8) - b.centre;
  EXPECT_FALSE(sphereSphereContact(a, pa, b, pb, ab));
}

// The sphere against a box hull, the same as convexContact's on a 128-segment ball's hull. The
// tessellation's vertices lie on the sphere, its faces span pi/64 of latitude and 2 pi/128 of
// longitude, so a face's centre is within a = sqrt(2) pi/128 = 0.0347 rad of its corners: the
// faces lie inside the sphere by at most r (1 - cos a) = 6.0e-4 r (the faceted depth is smaller
// by up to that much, never larger), and a face's normal is within a of the sphere's there.
TEST(SphereContact, SphereAgainstAHullAgreesWithTheConvexNarrowPhaseOnAFineBall) {
  const double r = 0.03;
  const geometry::Sphere ball{Eigen::Vector3d::Zero(), r};
  const ConvexHull ball_hull = buildConvexHull(geometry::makeSphere(r, 128));
  const ConvexHull box = buildConvexHull(geometry::makeBox(Eigen::Vector3d(0.08, 0.06, 0.04)));
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  ConvexScratch scratch;
  int compared = 0;
  for (int i = 0; i < 200; ++i) {
    Eigen::Isometry3d box_pose = Eigen::Isometry3d::Identity();
    box_pose.linear() =
        Eigen::Quaterniond(u(rng), u(rng), u(rng), u(rng)).normalized().toRotationMatrix();
    box_pose.translation() = Eigen::Vector3d(u(rng), u(rng), u(rng)) * 0.01;
    // The ball's centre near the box's surface, off a face, an edge or a corner.
    const Eigen::Vector3d dir = Eigen::Vector3d(u(rng), u(rng), u(rng)).normalized();
    Eigen::Isometry3d ball_pose = Eigen::Isometry3d::Identity();
    ball_pose.translation() =
        box_pose * (Eigen::Vector3d(0.04, 0.03, 0.02).cwiseProduct(dir.cwiseSign()) +
                    (0.028 + 0.004 * u(rng)) * dir);
    SphereContact exact;
    ConvexManifold m;
    const bool hit = sphereHullContact(ball, ball_pose, box, box_pose, exact);
    const bool hull_hit = convexContact(ball_hull, ball_pose, box, box_pose, scratch, m);
    if (!hit || !hull_hit || m.depth < 2e-4) continue;
    ++compared;
    EXPECT_NEAR(exact.depth, m.depth, 6.1e-4 * r) << "trial " << i;
    EXPECT_GE(exact.depth, m.depth - 1e-12) << "trial " << i;
    EXPECT_LT((exact.normal - m.normal).norm(), 0.035) << "trial " << i;
    // The deepest manifold point and ours lie on the contact's line, to within its width.
    double deepest = -1.0;
    Eigen::Vector3d at = Eigen::Vector3d::Zero();
    for (int k = 0; k < m.count; ++k)
      if (m.depths[static_cast<std::size_t>(k)] > deepest) {
        deepest = m.depths[static_cast<std::size_t>(k)];
        at = m.points[static_cast<std::size_t>(k)];
      }
    EXPECT_LT((at - exact.point).norm(), 0.1 * r) << "trial " << i;
  }
  EXPECT_GT(compared, 40);
}

// pointHullDistance (GJK outside) on a hull of 400 random points against a brute force written
// here: the smallest distance from p to any triangle of the hull's triangulation, each
// triangle's nearest point found by projecting onto its plane and, when the projection falls
// outside, clamping onto its three edges.
TEST(SphereContact, PointToAManyFacedHullMatchesTheBruteForce) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Eigen::Vector3d> cloud;
  for (int i = 0; i < 400; ++i)
    cloud.push_back(Eigen::Vector3d(0.03 * u(rng), 0.01 * u(rng), 0.02 * u(rng)));
  const ConvexHull hull = buildConvexHull(cloud);
  ASSERT_GT(hull.faces.size(), 50u);
  const auto segment = [](const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                          const Eigen::Vector3d& b) {
    const Eigen::Vector3d e = b - a;
    const double t = std::clamp(e.dot(p - a) / e.squaredNorm(), 0.0, 1.0);
    return (p - (a + t * e)).norm();
  };
  const geometry::TriangleMesh& mesh = hull.triangles;
  for (int i = 0; i < 300; ++i) {
    const Eigen::Vector3d p(0.08 * u(rng), 0.08 * u(rng), 0.08 * u(rng));
    double brute = std::numeric_limits<double>::infinity();
    bool inside = true;
    for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
      const Eigen::Vector3d& a = mesh.vertices[static_cast<std::size_t>(mesh.triangles[t][0])];
      const Eigen::Vector3d& b = mesh.vertices[static_cast<std::size_t>(mesh.triangles[t][1])];
      const Eigen::Vector3d& c = mesh.vertices[static_cast<std::size_t>(mesh.triangles[t][2])];
      const Eigen::Vector3d n = (b - a).cross(c - a).normalized();
      const double h = n.dot(p - a);
      inside = inside && h <= 0.0;
      const Eigen::Vector3d f = p - h * n;
      const bool in = n.dot((b - a).cross(f - a)) >= 0.0 && n.dot((c - b).cross(f - b)) >= 0.0 &&
                      n.dot((a - c).cross(f - c)) >= 0.0;
      const double d =
          in ? std::abs(h) : std::min({segment(p, a, b), segment(p, b, c), segment(p, c, a)});
      brute = std::min(brute, d);
    }
    Eigen::Vector3d closest, normal;
    const double d = pointHullDistance(hull, p, closest, normal);
    EXPECT_NEAR(std::abs(d), brute, 1e-12) << "point " << i;
    EXPECT_EQ(d < 0.0, inside) << "point " << i;
  }
}
