// SPDX-License-Identifier: GPL-3.0-or-later
// The state's one contact list (SimState::contacts): every pair kind of a step in one list, in
// the order of the solve's rows, each contact naming its two bodies by their ids in the model's
// body table, checked against the bodies the test put in the scene and against Newton (at rest
// the contact forces on each free body balance its weight, m g worked here).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/box_objects.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

constexpr double kG = 9.81;

// The net force the contacts of `s` apply to body `id`: +F where it is pushed, -F where it
// pushes (Newton's third law between the two bodies of each contact) [N], world frame.
Eigen::Vector3d netContactForce(const SimState& s, int id) {
  Eigen::Vector3d f = Eigen::Vector3d::Zero();
  for (const Contact& c : s.contacts) {
    if (c.body_b == id) f += c.forceOnObjectWorld();
    if (c.body_a == id) f -= c.forceOnObjectWorld();
  }
  return f;
}

// The contacts' pair kinds never go back: links on objects, then objects, then links on links.
bool inRunOrder(const BodyTable& t, const SimState& s) {
  int last = 0;
  for (const Contact& c : s.contacts) {
    const int kind = static_cast<int>(t.pairOf(c));
    if (kind < last) return false;
    last = kind;
  }
  return true;
}

std::string pairName(const BodyTable& t, const Contact& c) {
  return t[c.body_a].name + "->" + t[c.body_b].name;
}

}  // namespace

// Far from the hand: a free 6 cm cube of 200 g (density 926 kg/m^3) on the ground, a free 4 cm
// cube of 64 g (1000 kg/m^3) resting on it, and a 1 cm fixed cube inside the palm. At rest the
// list holds the ground's contacts on the bottom cube and the top cube's on it, all named by
// the table, all solved; the fixed cube in the palm has none (a fixed object and the palm are
// never queried: nothing to solve); each cube's contact forces carry its weight: the top one
// m_top g, the bottom one m_bottom g (the ground's push less the top cube's).
TEST(ContactList, StackedCubesOnTheGroundNameTheirBodiesAndCarryTheirWeights) {
  Options opt;
  opt.ground.enabled = true;
  const double bottom_edge = 0.06, top_edge = 0.04;
  const double bottom_density = 0.2 / (bottom_edge * bottom_edge * bottom_edge);
  const ObjectModel bottom =
      test::boxObject("bottom", Eigen::Vector3d::Constant(bottom_edge), true, bottom_density);
  const ObjectModel top = test::boxObject("top", Eigen::Vector3d::Constant(top_edge), true, 1000.0);
  const ObjectModel in_palm =
      test::boxObject("in_palm", Eigen::Vector3d::Constant(0.01), false, 1000.0);
  auto model = compileModel(test::barrettHand(), {bottom, top, in_palm}, opt);
  const BodyTable& t = model->bodies;
  const int bottom_id = t.find("bottom"), top_id = t.find("top"), palm_cube = t.find("in_palm");
  ASSERT_EQ(bottom_id, t.object(0));
  ASSERT_EQ(top_id, t.object(1));
  ASSERT_EQ(palm_cube, t.object(2));
  const double m_bottom = 0.2, m_top = 1000.0 * top_edge * top_edge * top_edge;
  ASSERT_NEAR(model->objects[0].mass.mass_kg, m_bottom, 1e-9);
  ASSERT_NEAR(model->objects[1].mass.mass_kg, m_top, 1e-9);
  // The palm at the origin: the small fixed cube at the centre of the palm's bounding sphere,
  // inside the palm's mesh and clear of the fingers.
  const Eigen::Vector3d palm_centre = model->hand_geometry->palm.collision.centre;
  SimState s = test::stateAt(
      *model, {test::at({5.0, 0.0, 0.5 * bottom_edge}),
               test::at({5.0, 0.0, bottom_edge + 0.5 * top_edge + 1e-4}), test::at(palm_centre)});
  while (s.time < 1.0) step(*model, s);
  ASSERT_EQ(s.warning_count, 0);
  ASSERT_LT(s.object_twist_world[0].norm() + s.object_twist_world[1].norm(), 1e-6) << "at rest";

  int ground_on_bottom = 0, top_on_bottom = 0;
  for (const Contact& c : s.contacts) {
    // Only the two pairs the scene makes, each named by the table.
    const std::string pair = pairName(t, c);
    EXPECT_TRUE(pair == "ground->bottom" || pair == "top->bottom") << pair;
    EXPECT_EQ(t.pairOf(c), ContactPair::Object) << pair;
    EXPECT_NE(c.body_a, palm_cube) << pair;
    EXPECT_NE(c.body_b, palm_cube) << pair;
    EXPECT_GE(c.force, 0.0);
    ground_on_bottom += pair == "ground->bottom" ? 1 : 0;
    top_on_bottom += pair == "top->bottom" ? 1 : 0;
  }
  EXPECT_GE(ground_on_bottom, 3);  // a face: its support polygon
  EXPECT_GE(top_on_bottom, 3);
  EXPECT_TRUE(inRunOrder(t, s));
  // Newton at rest, each cube: its contacts carry its weight.
  const Eigen::Vector3d w_top(0.0, 0.0, m_top * kG), w_bottom(0.0, 0.0, m_bottom * kG);
  EXPECT_LT((netContactForce(s, top_id) - w_top).norm(), 1e-6 * w_top.norm());
  EXPECT_LT((netContactForce(s, bottom_id) - w_bottom).norm(), 1e-6 * w_top.norm());
  // The ground carries both.
  Eigen::Vector3d ground = Eigen::Vector3d::Zero();
  for (const Contact& c : s.contacts)
    if (c.body_a == BodyTable::kGroundId) ground += c.forceOnObjectWorld();
  EXPECT_LT((ground - w_top - w_bottom).norm(), 1e-6 * w_top.norm());
  // The fixed cube stayed where it was put, untouched by the palm around it.
  EXPECT_TRUE(s.object_pose_world[2].translation().isApprox(palm_centre, 0.0));
}

// The BarrettHand closing on the shipped cube, which still rests on the ground (1.9 s of
// barrett_lift_cube.json): one list with the links' contacts on the cube first (links of all
// three fingers, each named as its joint), then the ground's; at rest the cube's contact forces
// carry its weight (0.2 kg, m g worked here; 5 %: the fingers still creep).
TEST(ContactList, FingersAndGroundOnTheCubeInOneListCarryItsWeight) {
  Scenario sc;
  try {
    sc = loadScenario(hand::assetDirectory() + "/scenarios/barrett_lift_cube.json");
  } catch (const std::exception& e) {
    GTEST_SKIP() << e.what();
  }
  sim::Run run(compileScenario(sc), sc.plan);
  while (run.state().time < 1.9 - 1e-9) run.step();
  const Model& m = run.model();
  const BodyTable& t = m.bodies;
  const SimState& s = run.state();
  const int cube = t.find("cube");
  ASSERT_EQ(cube, t.object(0));
  bool finger[3] = {false, false, false};
  int ground = 0;
  for (const Contact& c : s.contacts) {
    const Body& a = t[c.body_a];
    const Body& b = t[c.body_b];
    if (t.pairOf(c) == ContactPair::LinkObject) {
      EXPECT_EQ(c.body_b, cube) << pairName(t, c);
      ASSERT_EQ(a.kind, BodyKind::Link);
      ASSERT_GE(a.finger, 0);
      ASSERT_LT(a.finger, 3);
      EXPECT_EQ(c.body_a, t.link(a.finger, a.row));
      EXPECT_EQ(a.name.rfind(m.hand().fingers[static_cast<std::size_t>(a.finger)].name + ".", 0),
                0u)
          << a.name;
      finger[a.finger] = finger[a.finger] || c.force > 0.0;
    } else {
      EXPECT_EQ(pairName(t, c), "ground->cube");
      EXPECT_EQ(b.kind, BodyKind::Object);
      ++ground;
    }
  }
  EXPECT_TRUE(finger[0] && finger[1] && finger[2]) << "all three fingers press";
  EXPECT_GE(ground, 3);
  EXPECT_TRUE(inRunOrder(t, s));
  const double weight = 0.2 * kG;
  const Eigen::Vector3d net = netContactForce(s, cube);
  EXPECT_NEAR(net.z(), weight, 0.05 * weight);
  EXPECT_LT(std::hypot(net.x(), net.y()), 0.05 * weight);
}
