// SPDX-License-Identifier: GPL-3.0-or-later
// A program that only steps a model links handsim_engine alone (docs/development.md,
// "Libraries"): this test links the whole engine archive and nothing of formats or tools (no
// URDF parser, no JSON reader), so a link error here is an engine file calling a loader or a
// tool. It builds a hand and an object in code, compiles the model and runs it.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "handsim/geometry/primitives.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/trapezoidal_profile.hpp"

namespace handsim {
namespace {

constexpr double kLink = 0.05;  // [m] each of the finger's two links

// One planar finger of two revolute joints about the palm's z axis (standard DH, links along
// x), each joint driven by its own servo. The distal link carries a box in memory (as a URDF
// hand's shapes are), so the finger can touch things; the proximal one has no body.
std::shared_ptr<const hand::HandModel> twoLinkFinger() {
  hand::HandModel h;
  h.id = "engine_only";
  h.name = "Two-link finger built in code";
  kinematics::Chain finger;
  finger.name = "F1";
  for (int r = 0; r < 2; ++r) {
    kinematics::DhRow row;
    row.a = kLink;
    row.lower = -1.5;
    row.upper = 1.5;
    finger.rows.push_back(row);
    finger.joint_names.push_back("J" + std::to_string(r + 1));
    // A 50 g rod along x_i ending at the origin of {i}: about that origin m a^2 / 3 across it.
    kinematics::LinkInertia link;
    link.mass = 0.05;
    link.com = Eigen::Vector3d(-kLink / 2.0, 0.0, 0.0);
    const double across = link.mass * kLink * kLink / 3.0;
    link.inertia = Eigen::Vector3d(1e-6, across, across).asDiagonal();
    finger.links.push_back(link);
  }
  h.fingers.push_back(finger);
  for (int j = 0; j < 2; ++j) {
    hand::Actuator a;
    a.name = "A" + std::to_string(j + 1);
    a.lower = -1.5;
    a.upper = 1.5;
    a.drives.push_back({{0, j}, 1.0, 0.0});
    h.actuators.push_back(a);
  }
  // The distal link's box, in its frame {2} (origin at the fingertip, link along -x from it).
  geometry::MeshShape box;
  box.mesh = geometry::makeBox(Eigen::Vector3d(kLink, 0.01, 0.01));
  box.mesh.transform(Eigen::Affine3d(Eigen::Translation3d(-kLink / 2.0, 0.0, 0.0)));
  h.link_shapes.assign(1, std::vector<hand::BodyShapes>(2));
  h.link_shapes[0][1].collision.shapes.push_back(box);
  h.link_shapes[0][1].source = "link F1 row 2 (in code)";
  return std::make_shared<const hand::HandModel>(h);
}

// A fixed 2 cm cube in the way of the fingertip when the first joint turns towards +y.
sim::ObjectModel blockInTheWay() {
  auto g = std::make_shared<sim::BodyGeometry>();
  g->collision = sim::makeCollisionBody(geometry::makeBox(Eigen::Vector3d::Constant(0.02)), 18);
  sim::ObjectModel o;
  o.name = "block";
  o.geometry = g;
  o.fixed = true;
  sim::computeMassProperties(o, 1000.0);
  return o;
}

// The first joint turns to 1 rad along a trapezoid; the block stops the finger on its way.
std::unique_ptr<sim::Run> closeOnTheBlock() {
  auto model = sim::compileModel(twoLinkFinger(), {blockInTheWay()}, sim::Options{}, nullptr);
  sim::RunPlan plan;
  plan.duration = 1.0;
  plan.object_pose_world = {Eigen::Isometry3d(Eigen::Translation3d(0.085, 0.045, 0.0))};
  plan.trajectories.resize(2);
  plan.trajectories[0].append(sim::TrapezoidalProfile(0.0, 1.0, 2.0, 20.0, 0.0));
  auto run = std::make_unique<sim::Run>(model, plan);
  run->runToEnd();
  return run;
}

TEST(EngineOnly, CompilesAModelBuiltInCodeAndRunsIt) {
  const auto run = closeOnTheBlock();
  const sim::SimState& s = run->state();
  EXPECT_EQ(s.step, 1000);
  ASSERT_EQ(s.q.size(), 1u);
  EXPECT_TRUE(s.q[0].allFinite());
  EXPECT_TRUE(s.qd[0].allFinite());
  // Unblocked, the servo would reach 1 rad; the block holds the fingertip well short of it.
  EXPECT_GT(s.q[0][0], 0.1);
  EXPECT_LT(s.q[0][0], 0.9);
  EXPECT_FALSE(s.contacts.empty());
  EXPECT_GT(run->recorder().rowCount(), 0u);
}

TEST(EngineOnly, RunsAreBitIdentical) {
  const auto a = closeOnTheBlock();
  const auto b = closeOnTheBlock();
  EXPECT_EQ(a->state().q[0], b->state().q[0]);
  EXPECT_EQ(a->state().qd[0], b->state().qd[0]);
}

TEST(EngineOnly, AHandNamingMeshFilesNeedsTheFormatsLibrary) {
  hand::HandModel h = *twoLinkFinger();
  h.palm_mesh = "palm.wrl";
  EXPECT_THROW(
      sim::compileModel(std::make_shared<const hand::HandModel>(h), {}, sim::Options{}, nullptr),
      std::invalid_argument);
}

}  // namespace
}  // namespace handsim
