// SPDX-License-Identifier: GPL-3.0-or-later
// The drawn k-DOP must be the slabs' intersection: every corner inside every slab, every slab
// touched on both sides, and a closed surface.
#include "handsim/collision/kdop_polytope.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "handsim/geometry/primitives.hpp"

using namespace handsim::collision;
using handsim::geometry::TriangleMesh;

namespace {

void expectTight(const TriangleMesh& poly, const KdopTree& tree, std::size_t node) {
  const int n = tree.axisCount();
  const Eigen::Vector3d* d = kdopDirections(tree.k());
  const double* centre = tree.slabCentre(node);
  const double* half = tree.slabHalfWidth(node);
  ASSERT_FALSE(poly.vertices.empty());
  for (int i = 0; i < n; ++i) {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (const Eigen::Vector3d& v : poly.vertices) {
      const double p = d[i].dot(v);
      EXPECT_GE(p, centre[i] - half[i] - 1e-9) << "slab " << i;
      EXPECT_LE(p, centre[i] + half[i] + 1e-9) << "slab " << i;
      lo = std::min(lo, p);
      hi = std::max(hi, p);
    }
    EXPECT_NEAR(lo, centre[i] - half[i], 1e-9) << "slab " << i;
    EXPECT_NEAR(hi, centre[i] + half[i], 1e-9) << "slab " << i;
  }
  EXPECT_TRUE(handsim::geometry::isWatertight(poly));
  EXPECT_GT(handsim::geometry::signedVolume(poly), 0.0);
}

}  // namespace

TEST(KdopPolytope, RootOfASphereIsTightForEveryK) {
  TriangleMesh sphere = handsim::geometry::makeSphere(0.03, 24);
  Eigen::Affine3d pose = Eigen::Affine3d::Identity();
  pose.rotate(Eigen::AngleAxisd(0.4, Eigen::Vector3d(1, 2, 3).normalized()));
  pose.translate(Eigen::Vector3d(0.01, -0.02, 0.05));
  pose.scale(Eigen::Vector3d(1.0, 0.5, 1.7));
  sphere.transform(pose);
  for (int k : {14, 18, 26}) {
    SCOPED_TRACE(k);
    const KdopTree tree(sphere, {k, 8});
    const TriangleMesh poly = kdopNodePolytope(tree, 0);
    expectTight(poly, tree, 0);
    // Corner cuts: more faces than a box; contains every mesh vertex.
    EXPECT_GT(poly.triangleCount(), 12u);
    // Every node of the first levels too.
    for (std::size_t i = 1; i < std::min<std::size_t>(tree.nodeCount(), 7); ++i) {
      SCOPED_TRACE(i);
      expectTight(kdopNodePolytope(tree, i), tree, i);
    }
  }
}

TEST(KdopPolytope, AxisSlabsAloneGiveTheBox) {
  const Eigen::Vector3d* d = kdopDirections(14);
  const double lower[3] = {-1.0, 0.0, 2.0};
  const double upper[3] = {1.0, 0.5, 3.0};
  const TriangleMesh box = kdopPolytope(d, lower, upper, 3);
  EXPECT_EQ(box.vertices.size(), 8u);
  EXPECT_EQ(box.triangleCount(), 12u);
  EXPECT_NEAR(handsim::geometry::signedVolume(box), 2.0 * 0.5 * 1.0, 1e-12);
}

TEST(KdopPolytope, CornerCutDisjointSlabsAndBadInput) {
  const Eigen::Vector3d* d = kdopDirections(14);
  // The unit cube's corner with x + y + z >= 2.5: a tetrahedron of volume 0.5^3 / 6.
  const double lower[7] = {0, 0, 0, 2.5, -10, -10, -10};
  const double upper[7] = {1, 1, 1, 3.0, 10, 10, 10};
  const TriangleMesh corner = kdopPolytope(d, lower, upper, 7);
  EXPECT_EQ(corner.vertices.size(), 4u);
  EXPECT_NEAR(handsim::geometry::signedVolume(corner), 0.125 / 6.0, 1e-12);
  const double far_lower[7] = {0, 0, 0, 3.5, -10, -10, -10};  // x + y + z >= 3.5 > 3
  EXPECT_TRUE(kdopPolytope(d, far_lower, upper, 7).vertices.empty());
  EXPECT_THROW(kdopPolytope(d + 1, lower, upper, 3), std::invalid_argument);
  EXPECT_THROW(kdopPolytope(d, lower, upper, 2), std::invalid_argument);
}
