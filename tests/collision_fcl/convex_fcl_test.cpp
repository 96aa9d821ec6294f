// SPDX-License-Identifier: GPL-3.0-or-later
// The convex narrow phase against FCL 0.7 (a peer, linked by this test only): fcl::Convex of the
// same hulls, FCL's signed distance (libccd's GJK and EPA), penetration depth and normal on random
// overlapping poses of boxes, a rounded hull and a random hull.
#include <gtest/gtest.h>

#include <fcl/geometry/shape/convex.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/distance.h>
#include <cstdio>

#include <Eigen/Geometry>
#include <memory>
#include <random>
#include <vector>

#include "handsim/collision/convex_contact.hpp"
#include "handsim/collision/convex_hull.hpp"
#include "handsim/collision/primitives.hpp"

#include "../support/random_pose.hpp"

using namespace handsim::collision;

namespace {

std::shared_ptr<fcl::Convexd> toFcl(const ConvexHull& hull) {
  auto vertices =
      std::make_shared<std::vector<fcl::Vector3d>>(hull.vertices.begin(), hull.vertices.end());
  auto faces = std::make_shared<std::vector<int>>();
  for (const ConvexFace& f : hull.faces) {
    faces->push_back(f.count);
    for (int k = 0; k < f.count; ++k)
      faces->push_back(hull.face_vertices[static_cast<std::size_t>(f.first + k)]);
  }
  return std::make_shared<fcl::Convexd>(vertices, static_cast<int>(hull.faces.size()), faces);
}

}  // namespace

TEST(ConvexContactFcl, DepthAndNormalMatchFclGjkEpa) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Eigen::Vector3d> cloud(60);
  for (auto& p : cloud) p = 0.02 * Eigen::Vector3d(u(rng), 0.7 * u(rng), 0.5 * u(rng));
  const std::vector<ConvexHull> hulls = {
      buildConvexHull(makeBox(Eigen::Vector3d(0.04, 0.03, 0.02))),
      buildConvexHull(makeUvSphere(0.015, 6, 10)), buildConvexHull(cloud)};
  std::vector<std::shared_ptr<fcl::Convexd>> shapes;
  for (const ConvexHull& h : hulls) shapes.push_back(toFcl(h));
  ConvexScratch scratch;
  int compared = 0;
  for (int trial = 0; trial < 900; ++trial) {
    const std::size_t i = static_cast<std::size_t>(trial % 3),
                      j = static_cast<std::size_t>(trial / 3 % 3);
    const Eigen::Isometry3d a = handsim::test::randomRigidPose(rng, 0.02),
                            b = handsim::test::randomRigidPose(rng, 0.02);
    ConvexManifold m;
    const bool hit = convexContact(hulls[i], a, hulls[j], b, scratch, m);
    fcl::CollisionObjectd oa(shapes[i], a), ob(shapes[j], b);
    // FCL's signed distance: libccd's GJK, then EPA when the shapes overlap (-depth).
    fcl::DistanceRequestd request(true, true);
    request.gjk_solver_type = fcl::GST_LIBCCD;
    fcl::DistanceResultd result;
    fcl::distance(&oa, &ob, request, result);
    const bool fcl_hit = result.min_distance < 0.0;
    // Near-touching poses may be decided either way by the two tolerances.
    if (hit != fcl_hit) {
      EXPECT_LT(std::max(m.depth, std::abs(result.min_distance)), 1e-9) << trial;
      continue;
    }
    if (!hit) continue;
    ++compared;
    EXPECT_NEAR(m.depth, -result.min_distance, 1e-9) << trial;
    // Its witness points: A's minus B's is depth times the normal from A into B.
    const Eigen::Vector3d gap = result.nearest_points[0] - result.nearest_points[1];
    if (m.depth > 1e-6) {
      EXPECT_GT(m.normal.dot(gap.normalized()), 1.0 - 1e-9) << trial;
    }
    // FCL's collide (MPR along the centre line) finds a separating translation no shorter.
    fcl::CollisionRequestd collide_request(1, true);
    fcl::CollisionResultd collide_result;
    fcl::collide(&oa, &ob, collide_request, collide_result);
    if (collide_result.isCollision()) {
      EXPECT_GE(collide_result.getContact(0).penetration_depth, m.depth - 1e-9) << trial;
    }
  }
  EXPECT_GT(compared, 300);
}
