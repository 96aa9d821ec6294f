// SPDX-License-Identifier: GPL-3.0-or-later
// Closed-form box and cylinder contacts (collision/primitive_contact.hpp) against independent
// references worked here: box-box depth and normal against the least overlap over the 15
// separating axes, each found by projecting the eight corners; a face resting on a face against
// the corners of its footprint; box-ground points against the corners; a cylinder's ground
// points against a dense sampling of its rims; sphere-box against a dense sampling of the box's
// surface; the point-cylinder distance against the cylinder's tessellation as it is refined;
// and every closed form's symmetry under swapping A and B.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "handsim/collision/convex_hull.hpp"
#include "handsim/collision/primitive_contact.hpp"
#include "handsim/geometry/primitives.hpp"

using namespace handsim;
using namespace handsim::collision;

namespace {

constexpr double kPi = 3.14159265358979323846;

std::vector<Eigen::Vector3d> corners(const geometry::Box& b, const Eigen::Isometry3d& pose) {
  std::vector<Eigen::Vector3d> c;
  for (int k = 0; k < 8; ++k) {
    const Eigen::Vector3d s((k & 1) ? 1.0 : -1.0, (k & 2) ? 1.0 : -1.0, (k & 4) ? 1.0 : -1.0);
    c.push_back(pose * (b.pose * Eigen::Vector3d(s.cwiseProduct(b.half_extent))));
  }
  return c;
}

// The overlap of the two corner sets' projections on unit axis n.
double projectedOverlap(const std::vector<Eigen::Vector3d>& a,
                        const std::vector<Eigen::Vector3d>& b, const Eigen::Vector3d& n) {
  double amin = 1e300, amax = -1e300, bmin = 1e300, bmax = -1e300;
  for (const auto& p : a) amin = std::min(amin, n.dot(p)), amax = std::max(amax, n.dot(p));
  for (const auto& p : b) bmin = std::min(bmin, n.dot(p)), bmax = std::max(bmax, n.dot(p));
  return std::min(amax - bmin, bmax - amin);
}

Eigen::Isometry3d randomPose(std::mt19937& rng, double spread) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::Isometry3d p = Eigen::Isometry3d::Identity();
  p.linear() = Eigen::Quaterniond(u(rng), u(rng), u(rng), u(rng)).normalized().toRotationMatrix();
  p.translation() = spread * Eigen::Vector3d(u(rng), u(rng), u(rng));
  return p;
}

Eigen::Isometry3d at(const Eigen::Vector3d& p) {
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.translation() = p;
  return pose;
}

// Sorted copy of the first `n` points, for comparing sets.
std::vector<Eigen::Vector3d> sorted(const ConvexManifold& m) {
  std::vector<Eigen::Vector3d> v(m.points.begin(), m.points.begin() + m.count);
  std::sort(v.begin(), v.end(), [](const Eigen::Vector3d& x, const Eigen::Vector3d& y) {
    return std::lexicographical_compare(x.data(), x.data() + 3, y.data(), y.data() + 3);
  });
  return v;
}

}  // namespace

// Random boxes in random poses: the depth is the least projected overlap over the 15 axes
// (face axes unless an edge axis is below 0.95 of them), the normal that axis pointing from A
// to B; apart exactly when some axis separates them; every point lies within depth / 2 of both
// surfaces; swapping A and B flips the normal and keeps the points and depths.
TEST(PrimitiveContact, BoxBoxMatchesTheFifteenAxesByCorners) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> size(0.005, 0.05);
  int hits = 0, edges = 0, misses = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const geometry::Box a{randomPose(rng, 0.01), Eigen::Vector3d(size(rng), size(rng), size(rng))};
    const geometry::Box b{randomPose(rng, 0.01), Eigen::Vector3d(size(rng), size(rng), size(rng))};
    const Eigen::Isometry3d pa = randomPose(rng, 0.03), pb = randomPose(rng, 0.03);
    const auto ca = corners(a, pa), cb = corners(b, pb);
    const Eigen::Matrix3d ra = (pa * a.pose).linear(), rb = (pb * b.pose).linear();
    double face = 1e300, edge = 1e300;
    Eigen::Vector3d face_axis = Eigen::Vector3d::Zero(), edge_axis = Eigen::Vector3d::Zero();
    for (int i = 0; i < 3; ++i) {
      for (const Eigen::Vector3d& n : {Eigen::Vector3d(ra.col(i)), Eigen::Vector3d(rb.col(i))}) {
        const double o = projectedOverlap(ca, cb, n);
        if (o < face) face = o, face_axis = n;
      }
      for (int j = 0; j < 3; ++j) {
        const Eigen::Vector3d n = ra.col(i).cross(rb.col(j));
        if (n.norm() < 1e-6) continue;
        const double o = projectedOverlap(ca, cb, n.normalized());
        if (o < edge) edge = o, edge_axis = n.normalized();
      }
    }
    const bool apart = std::min(face, edge) < 0.0;
    ConvexManifold ab, ba;
    const bool hit = boxBoxContact(a, pa, b, pb, ab);
    ASSERT_EQ(boxBoxContact(b, pb, a, pa, ba), hit);
    ASSERT_EQ(hit, !apart) << "trial " << trial;
    if (!hit) {
      ++misses;
      continue;
    }
    ++hits;
    const bool by_edge = edge < 0.95 * face;
    edges += by_edge ? 1 : 0;
    const double depth = by_edge ? edge : face;
    const Eigen::Vector3d axis = by_edge ? edge_axis : face_axis;
    EXPECT_NEAR(ab.depth, depth, 1e-14) << "trial " << trial;
    EXPECT_NEAR(std::abs(ab.normal.dot(axis)), 1.0, 1e-12) << "trial " << trial;
    // From A to B: along the normal, B's centre lies beyond A's.
    EXPECT_NEAR(projectedOverlap(ca, cb, ab.normal), depth, 1e-14);
    EXPECT_GE(ab.normal.dot((pb * b.pose).translation() - (pa * a.pose).translation()), 0.0);
    ASSERT_GE(ab.count, 1);
    for (int k = 0; k < ab.count; ++k) {
      const Eigen::Vector3d& p = ab.points[static_cast<std::size_t>(k)];
      EXPECT_LE(ab.depths[static_cast<std::size_t>(k)], depth + 1e-15);
      Eigen::Vector3d closest, normal;
      EXPECT_LE(pointBoxDistance(a, pa.inverse() * p, closest, normal), 0.5 * depth + 1e-12);
      EXPECT_LE(pointBoxDistance(b, pb.inverse() * p, closest, normal), 0.5 * depth + 1e-12);
    }
    // Symmetric.
    EXPECT_EQ(ba.depth, ab.depth);
    EXPECT_EQ(ba.normal, Eigen::Vector3d(-ab.normal));
    ASSERT_EQ(ba.count, ab.count);
    const auto pab = sorted(ab), pba = sorted(ba);
    for (std::size_t k = 0; k < pab.size(); ++k) EXPECT_EQ(pab[k], pba[k]);
  }
  // Every kind was met.
  EXPECT_GT(hits, 300);
  EXPECT_GT(misses, 300);
  EXPECT_GT(edges, 20);
}

// A 2 x 3 x 1 cm box yawed 0.3 rad, its bottom 0.1 mm into the top of a 20 cm table box: four
// points at its bottom corners (worked here), half way between the faces, each 0.1 mm deep,
// normal straight up from the table into the box.
TEST(PrimitiveContact, AFaceOnAFaceIsCarriedAtItsFourCorners) {
  const geometry::Box table{Eigen::Isometry3d::Identity(), Eigen::Vector3d(0.1, 0.1, 0.05)};
  const geometry::Box box{Eigen::Isometry3d::Identity(), Eigen::Vector3d(0.01, 0.015, 0.005)};
  Eigen::Isometry3d pt = Eigen::Isometry3d::Identity(), pb = Eigen::Isometry3d::Identity();
  pt.translation() << 1.0, 2.0, 0.0;
  pb.linear() = Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  pb.translation() << 1.02, 2.01, 0.05 + 0.005 - 1e-4;
  ConvexManifold m;
  ASSERT_TRUE(boxBoxContact(table, pt, box, pb, m));
  EXPECT_NEAR((m.normal - Eigen::Vector3d::UnitZ()).norm(), 0.0, 1e-15);
  EXPECT_NEAR(m.depth, 1e-4, 1e-15);
  ASSERT_EQ(m.count, 4);
  for (int k = 0; k < 4; ++k) {
    const double sx = (k == 0 || k == 3) ? 1.0 : -1.0, sy = k < 2 ? 1.0 : -1.0;
    const Eigen::Vector3d corner = pb * Eigen::Vector3d(sx * 0.01, sy * 0.015, -0.005);
    const Eigen::Vector3d expected = corner + Eigen::Vector3d(0, 0, 0.5e-4);
    double best = 1e300;
    for (int i = 0; i < 4; ++i)
      best = std::min(best, (m.points[static_cast<std::size_t>(i)] - expected).norm());
    EXPECT_LT(best, 1e-14) << "corner " << k;
    EXPECT_NEAR(m.depths[static_cast<std::size_t>(k)], 1e-4, 1e-15);
  }
}

// The ground points of a box in random poses: the corners at most `margin` above the plane,
// the deepest four, found here by listing the eight.
TEST(PrimitiveContact, BoxGroundPointsAreItsLowestCorners) {
  std::mt19937 rng(3);
  const geometry::Box box{randomPose(rng, 0.01), Eigen::Vector3d(0.02, 0.01, 0.03)};
  std::array<Eigen::Vector3d, kMaxGroundPoints> pts;
  for (int trial = 0; trial < 500; ++trial) {
    const Eigen::Isometry3d pose = randomPose(rng, 0.03);
    const double height = 0.0, margin = 0.004;
    std::vector<Eigen::Vector3d> c = corners(box, pose);
    std::vector<Eigen::Vector3d> expected;
    for (const auto& p : c)
      if (p.z() <= height + margin) expected.push_back(p);
    std::sort(expected.begin(), expected.end(),
              [](const Eigen::Vector3d& x, const Eigen::Vector3d& y) { return x.z() < y.z(); });
    if (expected.size() > 4) expected.resize(4);
    const int n = boxGroundPoints(box, pose, height, margin, pts);
    ASSERT_EQ(static_cast<std::size_t>(n), expected.size());
    for (int k = 0; k < n; ++k)
      EXPECT_LT((pts[static_cast<std::size_t>(k)] - expected[static_cast<std::size_t>(k)]).norm(),
                1e-15);
  }
  // Resting on a face: its four bottom corners.
  const Eigen::Isometry3d flat = at({0.0, 0.0, 0.03 - 1e-5}) * box.pose.inverse();
  ASSERT_EQ(boxGroundPoints(box, flat, 0.0, 1e-4, pts), 4);
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(pts[static_cast<std::size_t>(k)].z(), -1e-5, 1e-15);
}

// A cylinder's ground points against its rims sampled at 100,000 angles: upright, the four
// points of the lower rim; on its side, the two ends of the line of contact; tilted, the
// lowest rim point.
TEST(PrimitiveContact, CylinderGroundPointsAreItsLowestRimPoints) {
  const geometry::Cylinder cyl{Eigen::Isometry3d::Identity(), 0.02, 0.05};
  std::array<Eigen::Vector3d, kMaxGroundPoints> pts;
  const auto lowestRim = [&](const Eigen::Isometry3d& pose) {
    Eigen::Vector3d best(0, 0, 1e300);
    for (int cap = -1; cap <= 1; cap += 2)
      for (int i = 0; i < 100000; ++i) {
        const double t = 2.0 * kPi * i / 100000.0;
        const Eigen::Vector3d p =
            pose * Eigen::Vector3d(0.02 * std::cos(t), 0.02 * std::sin(t), cap * 0.05);
        if (p.z() < best.z()) best = p;
      }
    return best;
  };
  // Upright, 0.1 mm into the ground.
  Eigen::Isometry3d up = Eigen::Isometry3d::Identity();
  up.translation() << 0.3, 0.2, 0.05 - 1e-4;
  ASSERT_EQ(cylinderGroundPoints(cyl, up, 0.0, 1e-5, pts), 4);
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(pts[static_cast<std::size_t>(k)].z(), -1e-4, 1e-15);
    EXPECT_NEAR((pts[static_cast<std::size_t>(k)] - up.translation()).head<2>().norm(), 0.02,
                1e-15);
  }
  // On its side (axis along x, then yawed): the two ends of the line, one radius below the axis.
  Eigen::Isometry3d side = Eigen::Isometry3d::Identity();
  side.linear() = (Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitZ()) *
                   Eigen::AngleAxisd(kPi / 2, Eigen::Vector3d::UnitY()))
                      .toRotationMatrix();
  side.translation() << 0.1, 0.0, 0.02 - 1e-4;
  ASSERT_EQ(cylinderGroundPoints(cyl, side, 0.0, 1e-5, pts), 2);
  const Eigen::Vector3d axis = side.linear().col(2);
  EXPECT_NEAR(std::abs(axis.dot(pts[0] - pts[1])), 0.1, 1e-15);
  for (int k = 0; k < 2; ++k) EXPECT_NEAR(pts[static_cast<std::size_t>(k)].z(), -1e-4, 1e-15);
  // Tilted: one point, the sampled rims' lowest (to the sampling's r (1 - cos(pi / 1e5)) and
  // its spacing).
  std::mt19937 rng(8);
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::Isometry3d pose = randomPose(rng, 0.0);
    if (std::abs(pose.linear().col(2).z()) > 0.99 || std::abs(pose.linear().col(2).z()) < 0.01)
      continue;
    const Eigen::Vector3d low = lowestRim(pose);
    pose.translation().z() -= low.z() + 1e-5;
    ASSERT_EQ(cylinderGroundPoints(cyl, pose, 0.0, 0.0, pts), 1) << "trial " << trial;
    // No lower than the samples' lowest by more than the sampling's r (1 - cos(pi / 1e5)).
    EXPECT_LE(pts[0].z(), -1e-5 + 1e-15);
    EXPECT_GE(pts[0].z(), -1e-5 - 2e-11);
    EXPECT_LT((pts[0] - (low - Eigen::Vector3d(0, 0, low.z() + 1e-5))).norm(), 2e-6);
  }
}

// A sphere against a box: the depth is the radius less the centre's distance to the box's
// surface, found here over a 400 x 400 grid on each face (to its spacing), for centres outside
// near faces, edges and corners; the contact's normal points from the centre to the closest
// surface point outside.
TEST(PrimitiveContact, SphereBoxMatchesADenseSamplingOfTheSurface) {
  std::mt19937 rng(21);
  const geometry::Box box{randomPose(rng, 0.01), Eigen::Vector3d(0.02, 0.03, 0.01)};
  const Eigen::Isometry3d pb = randomPose(rng, 0.05);
  std::vector<Eigen::Vector3d> surface;
  constexpr int kGrid = 400;
  for (int axis = 0; axis < 3; ++axis)
    for (const double s : {-1.0, 1.0})
      for (int i = 0; i <= kGrid; ++i)
        for (int j = 0; j <= kGrid; ++j) {
          Eigen::Vector3d q;
          q[axis] = s * box.half_extent[axis];
          q[(axis + 1) % 3] = box.half_extent[(axis + 1) % 3] * (2.0 * i / kGrid - 1.0);
          q[(axis + 2) % 3] = box.half_extent[(axis + 2) % 3] * (2.0 * j / kGrid - 1.0);
          surface.push_back(pb * (box.pose * q));
        }
  const double spacing = 2.0 * 0.03 / kGrid;
  std::uniform_real_distribution<double> u(-0.045, 0.045);
  int tested = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const Eigen::Vector3d local(u(rng), u(rng), u(rng));
    const Eigen::Vector3d centre = pb * (box.pose * local);
    Eigen::Vector3d closest, normal;
    if (pointBoxDistance(box, box.pose * local, closest, normal) <= 0.0) continue;
    double best = 1e300;
    Eigen::Vector3d best_point = Eigen::Vector3d::Zero();
    for (const auto& p : surface)
      if ((p - centre).norm() < best) best = (p - centre).norm(), best_point = p;
    const geometry::Sphere ball{Eigen::Vector3d::Zero(), best + 0.004};
    SphereContact c;
    ASSERT_TRUE(sphereBoxContact(ball, at(centre), box, pb, c));
    EXPECT_NEAR(c.depth, 0.004, spacing);
    // The sample nearest the centre is within a grid spacing of the closest point.
    EXPECT_LT((c.normal - (best_point - centre).normalized()).norm(), 2.0 * spacing / best);
    ++tested;
  }
  EXPECT_GT(tested, 30);
}

// The distance of points to the solid cylinder against the distance to its tessellation's
// hull: the tessellation lies inside (a larger distance outside), and the gap shrinks as the
// segments are refined, below r (1 - cos(pi / n)) + 1e-12 at every n.
TEST(PrimitiveContact, CylinderDistanceIsTheLimitOfItsTessellation) {
  std::mt19937 rng(4);
  const geometry::Cylinder cyl{Eigen::Isometry3d::Identity(), 0.02, 0.04};
  std::uniform_real_distribution<double> u(-0.07, 0.07);
  std::vector<Eigen::Vector3d> points;
  for (int i = 0; i < 300; ++i) points.emplace_back(u(rng), u(rng), u(rng));
  double previous = 1e300;
  for (const int n : {8, 32, 128, 512}) {
    // makeCylinder runs along y: turned onto z.
    geometry::TriangleMesh mesh = geometry::makeCylinder(0.02, 0.08, n);
    mesh.transform(Eigen::Affine3d(Eigen::AngleAxisd(kPi / 2, Eigen::Vector3d::UnitX())));
    const ConvexHull hull = buildConvexHull(mesh);
    double worst = 0.0;
    for (const Eigen::Vector3d& p : points) {
      Eigen::Vector3d c1, n1, c2, n2;
      const double exact = pointCylinderDistance(cyl, p, c1, n1);
      const double tess = pointHullDistance(hull, p, c2, n2);
      EXPECT_GE(tess, exact - 1e-12);
      worst = std::max(worst, tess - exact);
      // The closed form's closest point is on the surface at that distance.
      EXPECT_NEAR((p - c1).norm(), std::abs(exact), 1e-14);
    }
    EXPECT_LE(worst, 0.02 * (1.0 - std::cos(kPi / n)) + 1e-12) << n << " segments";
    EXPECT_LT(worst, previous);
    previous = worst;
  }
}

// A sphere against a cylinder, the cases worked by hand: beside the side, above a cap, off the
// rim (the nearest point on the edge circle), and with the centre inside.
TEST(PrimitiveContact, SphereCylinderCasesByHand) {
  geometry::Cylinder cyl{Eigen::Isometry3d::Identity(), 0.02, 0.04};
  cyl.pose.linear() = Eigen::AngleAxisd(kPi / 2, Eigen::Vector3d::UnitX()).toRotationMatrix();
  // Its axis along y: it spans |y| <= 0.04 and x^2 + z^2 <= 0.02^2.
  const Eigen::Isometry3d id = Eigen::Isometry3d::Identity();
  const geometry::Sphere ball{Eigen::Vector3d::Zero(), 0.01};
  SphereContact c;
  // Beside the side at x = 0.025: 5 mm in.
  ASSERT_TRUE(sphereCylinderContact(ball, at({0.025, 0.01, 0.0}), cyl, id, c));
  EXPECT_NEAR(c.depth, 0.005, 1e-15);
  EXPECT_NEAR((c.normal - Eigen::Vector3d(-1, 0, 0)).norm(), 0.0, 1e-15);
  EXPECT_NEAR((c.point - Eigen::Vector3d(0.0175, 0.01, 0.0)).norm(), 0.0, 1e-15);
  // Above the cap at y = 0.046: 4 mm in.
  ASSERT_TRUE(sphereCylinderContact(ball, at({0.005, 0.046, 0.003}), cyl, id, c));
  EXPECT_NEAR(c.depth, 0.004, 1e-15);
  EXPECT_NEAR((c.normal - Eigen::Vector3d(0, -1, 0)).norm(), 0.0, 1e-15);
  // Off the rim: centre at radius 0.026, 0.005 beyond the cap: distance hypot(0.006, 0.005).
  const double d = std::hypot(0.006, 0.005);
  ASSERT_TRUE(sphereCylinderContact(ball, at({0.0, -0.045, 0.026}), cyl, id, c));
  EXPECT_NEAR(c.depth, 0.01 - d, 1e-15);
  EXPECT_NEAR((c.normal - Eigen::Vector3d(0, 0.005, -0.006) / d).norm(), 0.0, 1e-14);
  // Centre inside, nearer the side (3 mm) than the caps: depth r + 3 mm.
  ASSERT_TRUE(sphereCylinderContact(ball, at({0.0, 0.0, -0.017}), cyl, id, c));
  EXPECT_NEAR(c.depth, 0.013, 1e-15);
  EXPECT_NEAR((c.normal - Eigen::Vector3d(0, 0, 1)).norm(), 0.0, 1e-15);
  // Apart.
  EXPECT_FALSE(sphereCylinderContact(ball, at({0.031, 0.0, 0.0}), cyl, id, c));
}
