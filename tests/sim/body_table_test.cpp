// SPDX-License-Identifier: GPL-3.0-or-later
// The model's body table (sim/body_table.hpp) and the bodies every contact names: the ids name
// the bodies the contact geometrically lies on (the point within reach of both bodies' bounding
// spheres at their poses, the ground's plane), in both contact models, for link-object,
// object-ground, object-palm, object-object and link-link contacts.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

// The body's world pose in the state (the ground: identity).
Eigen::Isometry3d poseOf(const Model& model, const SimState& s, const Body& b) {
  switch (b.kind) {
    case BodyKind::Ground: return Eigen::Isometry3d::Identity();
    case BodyKind::Palm: return s.palm_pose_world;
    case BodyKind::Link: return linkPoseWorld(model, s, b.finger, b.row);
    case BodyKind::Object: return s.object_pose_world[static_cast<std::size_t>(b.object)];
  }
  return Eigen::Isometry3d::Identity();
}

// How far the point lies outside the body's reach: its bounding sphere, or above the ground
// plane [m] (0 when within).
double outside(const Model& model, const SimState& s, const Body& b, const Eigen::Vector3d& p) {
  if (b.kind == BodyKind::Ground) return std::max(0.0, p.z() - model.options.ground.height);
  const Eigen::Vector3d centre = poseOf(model, s, b) * b.collision->centre;
  return std::max(0.0, (p - centre).norm() - b.collision->radius);
}

// Runs the scenario and checks every contact of every step; returns the pair kinds seen.
std::set<std::string> checkContacts(const std::string& file, double duration) {
  Scenario sc = loadScenario(hand::assetDirectory() + "/scenarios/" + file);
  RunPlan plan = sc.plan;
  plan.duration = duration;
  Run run(compileScenario(sc), plan);
  const Model& model = run.model();
  const BodyTable& t = model.bodies;
  std::set<std::string> kinds;
  while (!run.finished()) {
    run.step();
    const SimState& s = run.state();
    for (const auto* list : {&s.contacts, &s.object_contacts, &s.link_contacts})
      for (const Contact& c : *list) {
        EXPECT_GE(c.body_a, 0);
        EXPECT_GE(c.body_b, 0);
        if (c.body_a < 0 || c.body_b < 0) return kinds;
        EXPECT_NE(c.body_a, c.body_b);
        const Body& a = t[c.body_a];
        const Body& b = t[c.body_b];
        // Within the step's motion and the depth of both bodies (fixed slack: a few mm).
        const double slack = 5e-3 + c.depth;
        EXPECT_LE(outside(model, s, a, c.point_world), slack) << a.name << " at t " << s.time;
        EXPECT_LE(outside(model, s, b, c.point_world), slack) << b.name << " at t " << s.time;
        kinds.insert(std::string(bodyKindName(a.kind)) + "-" + bodyKindName(b.kind));
      }
  }
  return kinds;
}

}  // namespace

TEST(BodyTable, GroundPalmLinksThenObjectsWithUniqueNames) {
  Scenario sc;
  try {
    sc = loadScenario(hand::assetDirectory() + "/scenarios/barrett_lift_cube.json");
  } catch (const std::exception& e) {
    GTEST_SKIP() << e.what();
  }
  const auto model = compileScenario(sc);
  const BodyTable& t = model->bodies;
  const hand::HandModel& hand = model->hand();
  std::size_t links = 0;
  for (const auto& f : hand.fingers) links += f.rows.size();
  ASSERT_EQ(t.size(), 2 + links + model->objects.size());
  EXPECT_EQ(t[BodyTable::kGroundId].kind, BodyKind::Ground);
  EXPECT_EQ(t[BodyTable::kGroundId].collision, nullptr);
  EXPECT_EQ(t[BodyTable::kPalmId].kind, BodyKind::Palm);
  EXPECT_EQ(t[BodyTable::kPalmId].collision, &model->hand_geometry->palm.collision);
  std::set<std::string> names;
  for (std::size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(t.bodies[i].id, static_cast<int>(i));
    EXPECT_TRUE(names.insert(t.bodies[i].name).second) << t.bodies[i].name;
    EXPECT_EQ(t.find(t.bodies[i].name), static_cast<int>(i));
  }
  // Finger 3's second joint (the BarrettHand's F3.J2) names the link its row moves.
  const int f3 = 2;
  const int j2_row = hand.fingers[f3].rowOfJoint(1);
  const Body& link = t[t.link(f3, j2_row)];
  EXPECT_EQ(link.kind, BodyKind::Link);
  EXPECT_EQ(link.name, hand.jointName({f3, 1}));
  EXPECT_EQ(link.collision, &model->hand_geometry->links[f3][static_cast<std::size_t>(j2_row)].collision);
  const Body& cube = t[t.object(0)];
  EXPECT_EQ(cube.kind, BodyKind::Object);
  EXPECT_EQ(cube.name, model->objects[0].name);
  EXPECT_EQ(cube.fixed, model->objects[0].fixed);
  EXPECT_EQ(t.find("no such body"), -1);
}

TEST(BodyTable, EveryContactNamesTheBodiesItLiesOn) {
  std::set<std::string> kinds;
  try {
    // The BarrettHand lifting a free cube off the ground: links on the cube, the cube on the
    // ground.
    for (const auto& k : checkContacts("barrett_lift_cube.json", 1.5)) kinds.insert(k);
    // A free cube dropped on the ground, and the seed-004 model's gripper holding a cube.
    for (const auto& k : checkContacts("free_cube_drop.json", 0.5)) kinds.insert(k);
    for (const auto& k : checkContacts("gripper3r_shake.json", 0.3)) kinds.insert(k);
  } catch (const std::exception& e) {
    GTEST_SKIP() << e.what();
  }
  EXPECT_TRUE(kinds.count("link-object")) << ::testing::PrintToString(kinds);
  EXPECT_TRUE(kinds.count("ground-object")) << ::testing::PrintToString(kinds);
}
