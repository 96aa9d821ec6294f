// SPDX-License-Identifier: GPL-3.0-or-later
// Distances of contact points to a sphere and a box against closed forms worked here, and the
// contact energy built on them.
#include <gtest/gtest.h>

#include <cmath>

#include "handsim/geometry/primitives.hpp"
#include "handsim/planner/energy.hpp"
#include "handsim/planner/random.hpp"
#include "handsim/planner/surface_distance.hpp"

using namespace handsim;
using planner::closestSurfacePoint;

namespace {

// Signed distance of p to the box |x| <= h (per axis), worked by hand: outside, the length
// of the part of |p| - h that is positive; inside, minus the nearest face's distance.
double boxDistance(const Eigen::Vector3d& p, const Eigen::Vector3d& h) {
  const Eigen::Vector3d q = p.cwiseAbs() - h;
  if ((q.array() > 0.0).any()) return q.cwiseMax(0.0).norm();
  return q.maxCoeff();
}

}  // namespace

TEST(SurfaceDistance, BoxMatchesTheClosedFormOutsideInsideAndAtEdges) {
  const Eigen::Vector3d size(0.06, 0.04, 0.02);
  const planner::SurfaceTree tree = planner::buildSurfaceTree(geometry::makeBox(size));
  planner::Random rng(7, 0);
  for (int i = 0; i < 2000; ++i) {
    const Eigen::Vector3d p(rng.uniform(-0.08, 0.08), rng.uniform(-0.06, 0.06),
                            rng.uniform(-0.04, 0.04));
    const planner::SurfacePoint s = closestSurfacePoint(tree, p);
    const double expected = boxDistance(p, 0.5 * size);
    ASSERT_NEAR(s.distance, expected, 1e-12) << p.transpose();
    ASSERT_NEAR((p - s.point).norm(), std::abs(expected), 1e-12);
  }
  // A point straight above the +z face: the face's normal, and the foot below it.
  const planner::SurfacePoint top = closestSurfacePoint(tree, Eigen::Vector3d(0.01, 0.005, 0.05));
  EXPECT_NEAR(top.distance, 0.04, 1e-15);
  EXPECT_TRUE(top.normal.isApprox(Eigen::Vector3d::UnitZ(), 1e-12));
  EXPECT_TRUE(top.point.isApprox(Eigen::Vector3d(0.01, 0.005, 0.01), 1e-12));
}

TEST(SurfaceDistance, SphereMatchesTheClosedFormWithinTheFacets) {
  const double r = 0.05;
  const int segments = 64;
  const planner::SurfaceTree tree = planner::buildSurfaceTree(geometry::makeSphere(r, segments));
  // The facets lie between the sphere and a sphere of radius r cos(theta) with theta the
  // largest angle from a facet's corner to its centre, below 2 pi / segments.
  const double sag = r * (1.0 - std::cos(2.0 * M_PI / segments));
  planner::Random rng(3, 0);
  for (int i = 0; i < 500; ++i) {
    Eigen::Vector3d u(rng.normal(), rng.normal(), rng.normal());
    u.normalize();
    const double at = rng.uniform(0.01, 0.12);
    const planner::SurfacePoint s = closestSurfacePoint(tree, at * u);
    ASSERT_NEAR(s.distance, at - r, sag) << at;
    ASSERT_GT(s.normal.dot(u), std::cos(2.0 * M_PI / segments));
  }
}

TEST(ContactEnergy, IsDistanceOverLengthPlusMisalignment) {
  const Eigen::Vector3d size(0.04, 0.04, 0.04);
  const planner::SurfaceTree tree = planner::buildSurfaceTree(geometry::makeBox(size));
  // Two points: one 5 mm above the top face facing it squarely (energy 0.5: 5 mm / 10 mm, no
  // misalignment), one 3 mm beside the +x face facing along +y (90 degrees: 0.3 + 0.5).
  std::vector<planner::PointDistance> pts(2);
  pts[0].point = Eigen::Vector3d(0.0, 0.0, 0.025);
  pts[0].normal = -Eigen::Vector3d::UnitZ();
  pts[1].point = Eigen::Vector3d(0.023, 0.0, 0.0);
  pts[1].normal = Eigen::Vector3d::UnitY();
  for (auto& p : pts) p.surface = closestSurfacePoint(tree, p.point);
  const double e0 = 0.005 / planner::kContactLength + 0.0;
  const double e1 = 0.003 / planner::kContactLength + 0.5;
  EXPECT_NEAR(planner::contactEnergy(pts), 0.5 * (e0 + e1), 1e-12);
  // Only the first is a virtual contact (within 5 mm and facing the surface).
  const auto v = planner::virtualContacts(pts, 0.005 + 1e-12, 0.5);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_TRUE(v[0].normal.isApprox(-Eigen::Vector3d::UnitZ(), 1e-12));
  EXPECT_NEAR(v[0].point.z(), 0.02, 1e-15);
}
