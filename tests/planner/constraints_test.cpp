// SPDX-License-Identifier: GPL-3.0-or-later
// Planner constraints (docs/planner.md, "Constraints"): every returned grasp checked here
// against the geometry of the constraint, the hand's vertices placed by the test itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "../support/quick_planner.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/planner/grasp_records.hpp"
#include "handsim/planner/planner.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;

namespace {

sim::ObjectModel box(const Eigen::Vector3d& size) {
  auto g = std::make_shared<sim::BodyGeometry>();
  g->collision = sim::makeCollisionBody(geometry::makeBox(size), 18);
  sim::ObjectModel o;
  o.name = "box";
  o.geometry = g;
  sim::computeMassProperties(o, 1000.0);
  return o;
}

const planner::PlannerModel& barrettOnCube() {
  static const planner::PlannerModel pm = planner::compilePlannerModel(
      std::make_shared<const hand::HandModel>(hand::loadHand("barrett")),
      box(Eigen::Vector3d::Constant(0.05)));
  return pm;
}

// A box standing 12 cm tall: grasps from above and the sides need not reach its bottom (the
// engine does not simulate the table, so a 5 cm cube's wrapping fingers would pass below it).
const planner::PlannerModel& barrettOnTallBox() {
  static const planner::PlannerModel pm = planner::compilePlannerModel(
      std::make_shared<const hand::HandModel>(hand::loadHand("barrett")),
      box(Eigen::Vector3d(0.05, 0.05, 0.12)));
  return pm;
}

planner::PlannerOptions quick() {
  planner::PlannerOptions o = test::quickPlanner(24, 2, 0.4);
  o.annealing_steps = 100;
  return o;
}

// The lowest z of the hand's collision vertices in the object frame: the palm at `palm`, each
// finger's links placed by forward kinematics of `q` (computed here from the chains).
double lowestHandPoint(const sim::Model& m, const Eigen::Isometry3d& palm,
                       const std::vector<kinematics::JointVector>& q) {
  const auto& g = *m.hand_geometry;
  double z = HUGE_VAL;
  for (const auto& v : g.palm.collision.mesh.vertices) z = std::min(z, (palm * v).z());
  for (std::size_t f = 0; f < g.links.size(); ++f) {
    const auto frames = kinematics::forwardKinematics(m.hand().fingers[f], q[f]);
    for (std::size_t r = 0; r < g.links[f].size(); ++r) {
      const Eigen::Isometry3d pose = palm * m.hand().fingers[f].base * frames.at(r + 1);
      for (const auto& v : g.links[f][r].collision.mesh.vertices) z = std::min(z, (pose * v).z());
    }
  }
  return z;
}

// The closed hand in the object's final frame.
double lowestClosedPoint(const planner::PlannerModel& pm, const planner::PlannedGrasp& g) {
  return lowestHandPoint(*pm.model, g.closed.object_pose.inverse() * g.palm_object, g.closed.q);
}

}  // namespace

TEST(PlannerConstraints, ATableUnderTheObjectKeepsEveryReturnedHandAboveIt) {
  const auto& pm = barrettOnTallBox();
  const double table = -0.06;  // the box's bottom face
  planner::PlannerOptions o = quick();
  // Without the table some returned grasps reach below the box's bottom (the check can fail).
  const auto free = planner::planGrasps(pm, o);
  ASSERT_FALSE(free.empty());
  int below = 0;
  for (const auto& g : free) below += lowestClosedPoint(pm, g) < table - 1e-6 ? 1 : 0;
  EXPECT_GE(below, 1);

  planner::SupportPlane plane;
  plane.point = Eigen::Vector3d(0.0, 0.0, table);
  plane.normal = Eigen::Vector3d(0.0, 0.0, 2.0);  // normalised by the planner
  o.constraints.support_plane = plane;
  // (The annealing baseline finds none here within a test's budget; the cone test runs it.)
  for (planner::Strategy s : {planner::Strategy::SurfaceNormals}) {
    o.strategy = s;
    const auto grasps = planner::planGrasps(pm, o);
    ASSERT_FALSE(grasps.empty()) << planner::strategyName(s);
    for (const auto& g : grasps) {
      // The pre-grasp: the hand's joints as the actuators place them.
      sim::SimState st = sim::makeState(*pm.model);
      planner::setConfiguration(pm, g.palm_object, g.pregrasp, st);
      EXPECT_GE(lowestHandPoint(*pm.model, g.palm_object, st.q), table - 1e-9)
          << planner::strategyName(s) << " candidate " << g.candidate;
      EXPECT_GE(lowestClosedPoint(pm, g), table - 1e-9)
          << planner::strategyName(s) << " candidate " << g.candidate;
    }
  }
}

TEST(PlannerConstraints, TheSupportTableIsABoxWhoseTopFaceLiesInThePlane) {
  planner::SupportPlane plane;
  plane.point = Eigen::Vector3d(0.01, -0.02, -0.03);
  plane.normal = Eigen::Vector3d(1.0, 0.0, 1.0).normalized();
  const sim::ObjectModel t = planner::supportTable();
  const Eigen::Isometry3d pose = planner::supportTablePose(plane);
  EXPECT_TRUE(t.fixed);
  double top = -HUGE_VAL, bottom = HUGE_VAL;
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  const auto& vs = t.geometry->collision.mesh.vertices;
  for (const auto& v : vs) {
    const Eigen::Vector3d w = pose * v;
    const double h = plane.normal.dot(w - plane.point);
    top = std::max(top, h);
    bottom = std::min(bottom, h);
    centre += w;
  }
  centre /= static_cast<double>(vs.size());
  EXPECT_NEAR(top, 0.0, 1e-12);       // the top face in the plane
  EXPECT_NEAR(bottom, -0.05, 1e-12);  // 5 cm thick, below it
  // Centred under the plane's point.
  EXPECT_NEAR((centre - (plane.point - 0.025 * plane.normal)).norm(), 0.0, 1e-12);
}

TEST(PlannerConstraints, TheTableIsABodyTheFingersCloseAgainst) {
  // The 5 cm cube on a table: pre-grasps searched above the table, each closed with the table
  // (as the planner closes them) and without it. Without, some fingers pass below the table
  // top; with it, they stop on it, at most the contact's penetration (1 mm) below its top.
  // (The planner's own check, in the cube's final frame, then drops grasps that touch it.)
  const auto& pm = barrettOnCube();
  const double table = -0.025;  // the cube's bottom face
  planner::PlannerOptions o = quick();
  planner::SupportPlane plane;
  plane.point = Eigen::Vector3d(0.0, 0.0, table);
  o.constraints.support_plane = plane;
  const auto with_table = planner::closingModel(pm, o);
  ASSERT_EQ(with_table->objects.size(), 2u);
  EXPECT_TRUE(with_table->objects[1].fixed);
  int through = 0;
  for (int i = 0; i < 12; ++i) {
    const planner::PlannedGrasp g = planner::planCandidate(pm, o, i, with_table);
    if (g.start_collision || g.closed.start_collision) continue;
    // In the world (the table's frame; the floating cube may have moved).
    EXPECT_GE(lowestHandPoint(*pm.model, g.palm_object, g.closed.q), table - 1e-3) << i;
    const auto bare = planner::closeHand(pm, g.palm_object, g.pregrasp, o.closing);
    if (lowestHandPoint(*pm.model, g.palm_object, bare.q) < table - 2e-3) ++through;
  }
  EXPECT_GE(through, 1);
}

TEST(PlannerConstraints, EveryApproachAxisLiesInTheCone) {
  const auto& pm = barrettOnCube();
  planner::PlannerOptions o = quick();
  planner::ApproachCone cone;
  cone.axis = -Eigen::Vector3d::UnitZ();  // from above
  cone.half_angle = 20.0 * M_PI / 180.0;
  o.constraints.approach_cone = cone;
  for (planner::Strategy s : {planner::Strategy::SurfaceNormals, planner::Strategy::Annealing}) {
    o.strategy = s;
    const auto grasps = planner::planGrasps(pm, o);
    ASSERT_FALSE(grasps.empty()) << planner::strategyName(s);
    for (const auto& g : grasps) {
      // The BarrettHand approaches along +z of its palm: the palm's third column.
      const Eigen::Vector3d u = g.palm_object.linear().col(2);
      const double angle = std::acos(std::clamp(-u.z() / u.norm(), -1.0, 1.0));
      EXPECT_LE(angle, 20.0 * M_PI / 180.0 + 1e-12) << planner::strategyName(s);
    }
  }
  // Without the cone the same run approaches from elsewhere too.
  o.constraints = {};
  o.strategy = planner::Strategy::SurfaceNormals;
  double widest = 0.0;
  for (const auto& g : planner::planGrasps(pm, o))
    widest = std::max(widest, std::acos(std::clamp(-g.palm_object.linear()(2, 2), -1.0, 1.0)));
  EXPECT_GT(widest, 20.0 * M_PI / 180.0);
}

TEST(PlannerConstraints, EveryPalmLiesInTheRegion) {
  const auto& pm = barrettOnCube();
  planner::PlannerOptions o = quick();
  planner::PalmRegion region;  // above the cube's top face
  region.lower = Eigen::Vector3d(-0.1, -0.1, 0.03);
  region.upper = Eigen::Vector3d(0.1, 0.1, 0.2);
  o.constraints.palm_region = region;
  const auto grasps = planner::planGrasps(pm, o);
  ASSERT_FALSE(grasps.empty());
  for (const auto& g : grasps) {
    const Eigen::Vector3d p = g.palm_object.translation();
    EXPECT_GE(p.z(), 0.03);
    EXPECT_LE(p.cwiseAbs().head<2>().maxCoeff(), 0.1);
  }
}

TEST(PlannerConstraints, RecordedWithTheRunAndRead) {
  planner::PlannerOptions o = quick();
  o.constraints.support_plane = planner::SupportPlane{};
  planner::ApproachCone cone;
  cone.half_angle = 0.3;
  o.constraints.approach_cone = cone;
  planner::GraspRecord r;
  r.hand = "barrett";
  r.object = "cube";
  r.run = planner::runInfo(o, barrettOnCube());
  r.grasp.candidate = 0;
  r.grasp.amplitudes = Eigen::VectorXd::Zero(0);
  r.grasp.pregrasp = Eigen::VectorXd::Zero(0);
  const std::string line = planner::graspRecordsText({r});
  EXPECT_NE(line.find("\"approach_cone\""), std::string::npos);
  const auto back = planner::parseGraspRecords(line, "mem");
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0].run.constraints == r.run.constraints);
  EXPECT_FALSE(back[0].run.constraints.palm_region);
  EXPECT_EQ(planner::graspRecordsText(back), line);
}

TEST(PlannerConstraints, CommandLineFormsAndBadInput) {
  const geometry::TriangleMesh box = geometry::makeBox(Eigen::Vector3d(0.1, 0.2, 0.3));
  const auto bottom = planner::parseSupportPlane("bottom", box);
  EXPECT_DOUBLE_EQ(bottom.point.z(), -0.15);
  EXPECT_EQ(bottom.normal, Eigen::Vector3d::UnitZ());
  const auto cone = planner::parseApproachCone("0,0,-2,30");
  EXPECT_TRUE(cone.axis.isApprox(-Eigen::Vector3d::UnitZ()));
  EXPECT_NEAR(cone.half_angle, M_PI / 6.0, 1e-15);
  EXPECT_THROW(planner::parseApproachCone("0,0,-1"), std::invalid_argument);
  EXPECT_THROW(planner::parseApproachCone("0,0,0,30"), std::invalid_argument);
  EXPECT_THROW(planner::parseApproachCone("0,0,1,200"), std::invalid_argument);
  EXPECT_THROW(planner::parseSupportPlane("0,0,0,0,0,x", box), std::invalid_argument);
  EXPECT_THROW(planner::parsePalmRegion("0,0,0,-1,1,1"), std::invalid_argument);
  planner::PlannerOptions o = quick();
  planner::ApproachCone bad;
  bad.half_angle = 0.0;
  o.constraints.approach_cone = bad;
  EXPECT_THROW(planner::planGrasps(barrettOnCube(), o), std::invalid_argument);
}
