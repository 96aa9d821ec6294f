// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/planner/contact_points.hpp"
#include "handsim/planner/surface_distance.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;

TEST(ContactPoints, BarrettPadsFaceTheWayTheLinksClose) {
  const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  const auto model = sim::compileModel(hand, {});
  const auto points = planner::palmarContactPoints(*model);
  // The palm and the two moving links of each finger (the knuckle links only spread).
  ASSERT_EQ(points.size(), 7u);
  EXPECT_EQ(points[0].finger, -1);
  EXPECT_GT(points[0].normal_body.dot(hand->approach_palm), 0.7);
  // Each link point: on its mesh, and its normal along the motion of that point as the
  // finger motor turns a little (finite difference of the kinematics, done here).
  std::vector<double> a(4, 8000.0), b = a;
  a[3] = b[3] = 0.0;
  for (int m = 0; m < 3; ++m) b[static_cast<std::size_t>(m)] += 100.0;
  const sim::SimState s0 = sim::makeState(*model, a), s1 = sim::makeState(*model, b);
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto& p = points[i];
    ASSERT_GE(p.row, 1);
    const auto& mesh =
        model->hand_geometry
            ->links[static_cast<std::size_t>(p.finger)][static_cast<std::size_t>(p.row)]
            .collision.mesh;
    const planner::SurfaceTree tree = planner::buildSurfaceTree(mesh);
    EXPECT_NEAR(planner::closestSurfacePoint(tree, p.point_body).distance, 0.0, 1e-9);
    const Eigen::Isometry3d t0 = sim::linkPoseWorld(*model, s0, p.finger, p.row);
    const Eigen::Isometry3d t1 = sim::linkPoseWorld(*model, s1, p.finger, p.row);
    const Eigen::Vector3d motion = (t1 * p.point_body - t0 * p.point_body).normalized();
    EXPECT_GT((t0.linear() * p.normal_body).dot(motion), 0.5) << p.finger << "." << p.row;
  }
}
