// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's penalty contact in the engine between free objects and as a scenario: two boxes
// colliding without gravity or friction conserve linear momentum and angular momentum about a
// fixed point (the pair's forces are equal, opposite and act at one point, worked here from the
// bodies' states); a NaN and an exploding scene give counted warnings and clean stops; the
// scenario keys are located errors when bad and read back after saving; a warm step does not
// allocate.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/sim/penalty_contacts.hpp"
#include "handsim/sim/step.hpp"

#include "../support/box_objects.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

ObjectModel freeBox(const Eigen::Vector3d& size, double density) {
  ObjectModel o = test::boxObject("box", size, true, density);
  o.friction = 0.0;
  return o;
}

struct Momenta {
  Eigen::Vector3d linear = Eigen::Vector3d::Zero();
  Eigen::Vector3d angular = Eigen::Vector3d::Zero();  // about the world origin
};

Momenta momenta(const Model& model, const SimState& s) {
  Momenta m;
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    const geometry::MassProperties& mp = model.objects[o].mass;
    const Eigen::Matrix3d R = s.object_pose_world[o].linear();
    const Eigen::Vector3d com = s.object_pose_world[o] * mp.centre_of_mass;
    const Eigen::Vector3d p = mp.mass_kg * s.object_twist_world[o].head<3>();
    m.linear += p;
    m.angular += com.cross(p) + R * mp.inertia_com * R.transpose() * s.object_twist_world[o].tail<3>();
  }
  return m;
}

}  // namespace

// Two boxes, the second turned, meeting off-centre so that both spin after the impact.
TEST(PenaltyCollision, FreeObjectsConserveMomentum) {
  Options opt;
  opt.contact.useVolumePenalty();
  opt.gravity_world.setZero();
  ObjectModel a = freeBox({0.1, 0.1, 0.1}, 500.0);
  ObjectModel b = freeBox({0.08, 0.12, 0.06}, 800.0);
  Eigen::Isometry3d b_pose = test::at({5.2, 0.03, 1.02});
  b_pose.linear() =
      Eigen::AngleAxisd(0.4, Eigen::Vector3d(0.2, 1.0, 0.3).normalized()).toRotationMatrix();
  const Twist a_twist = test::twist({0.5, 0.0, 0.0}, {0.0, 0.0, 1.0});
  const Twist b_twist = test::twist({-0.3, 0.05, 0.0}, {2.0, 0.0, 0.0});
  auto model = compileModel(test::barrettHand(), {a, b}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 1.0}), b_pose}, {}, {a_twist, b_twist});
  const Momenta start = momenta(*model, s);
  bool touched = false;
  for (int i = 0; i < 600; ++i) {
    step(*model, s);
    touched = touched || !s.object_contacts.empty();
  }
  ASSERT_TRUE(touched);
  const Momenta end = momenta(*model, s);
  EXPECT_LT((end.linear - start.linear).norm(), 1e-9 * start.linear.norm());
  EXPECT_LT((end.angular - start.angular).norm(), 1e-9 * start.angular.norm());
  // The collision did something: the first box's velocity changed.
  EXPECT_GT((s.object_twist_world[0].head<3>() - a_twist.head<3>()).norm(), 0.1);
  EXPECT_EQ(s.warning_count, 0);
}

// A NaN spin, and boxes started deep inside each other with a stiffness of 1e12 N/m, are
// numerical trouble: a counted warning, the object stopped, nothing non-finite in the state.
TEST(PenaltyCollision, NanAndExplodingScenesStopCleanly) {
  for (const bool nan : {true, false}) {
    Options opt;
    opt.contact.useVolumePenalty();
    opt.ground.enabled = true;
    // (The implicit normal force separates the pair at most at depth / dt: 1 m boxes 0.8 m
    // deep in each other leave at 800 m/s, far beyond the runaway bound.)
    ObjectModel a = freeBox({1.0, 1.0, 1.0}, 500.0);
    ObjectModel b = freeBox({1.0, 1.0, 1.0}, 500.0);
    if (!nan) {
      opt.contact.volumePenalty()->penalty.stiffness_n_per_m = 1e12;
      opt.contact.volumePenalty()->penalty.first_contact_gain = 0.0;
    }
    auto model = compileModel(test::barrettHand(), {a, b}, opt);
    SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 2.0}), test::at({5.2, 0.0, 2.0})});
    // Written into the state (a plan's non-finite twist is refused before the run starts).
    if (nan) s.object_twist_world[0][3] = std::numeric_limits<double>::quiet_NaN();
    for (int i = 0; i < 200; ++i) step(*model, s);
    EXPECT_GE(s.warning_count, 1);
    EXPECT_TRUE(s.object_stopped[0] || s.object_stopped[1]);
    for (std::size_t o = 0; o < 2; ++o) {
      EXPECT_TRUE(s.object_pose_world[o].matrix().allFinite());
      EXPECT_TRUE(s.object_twist_world[o].allFinite());
    }
  }
}

namespace {

const char* kScenario = R"({
  "format": "handsim-scenario", "version": 1, "hand": "barrett", "duration_s": 0.01,
  "ground": {},
  "contact": {"model": "seed004", "friction": "tanh", "g1_n_per_m": 50000, "gi": 10,
              "filter_natural_frequency_radps": 20000, "mu": 0.3},
  "objects": [{"mesh": "objects/cube.wrl", "free": true, "mass_kg": 0.2,
               "pose": {"translation_m": [0.5, 0, 0.1]}}]
})";

}  // namespace

TEST(PenaltyCollision, ScenarioKeysReadBackAndBadOnesAreLocated) {
  const std::string dir = hand::assetDirectory() + "/scenarios/";
  Scenario sc;
  try {
    sc = parseScenario(kScenario, dir + "penalty.json");
  } catch (const io::InputError& e) {
    GTEST_SKIP() << "no shipped cube here: " << e.what();
  }
  EXPECT_EQ(sc.options.contact.kind(), ContactModel::VolumePenalty);
  EXPECT_EQ(sc.options.contact.volumePenalty()->friction, PenaltyFriction::Tanh);
  EXPECT_EQ(sc.options.contact.volumePenalty()->penalty.stiffness_n_per_m, 50000.0);
  EXPECT_EQ(sc.options.contact.volumePenalty()->penalty.first_contact_gain, 10.0);
  const std::string saved = scenarioToJson(sc, dir + "penalty.json");
  const Scenario back = parseScenario(saved, dir + "penalty.json");
  EXPECT_EQ(back.options.contact.kind(), ContactModel::VolumePenalty);
  EXPECT_EQ(back.options.contact.volumePenalty()->friction, PenaltyFriction::Tanh);
  EXPECT_EQ(back.options.contact.volumePenalty()->penalty.stiffness_n_per_m, 50000.0);
  EXPECT_EQ(back.options.contact.volumePenalty()->penalty.filter_natural_frequency_radps, 20000.0);
  EXPECT_EQ(back.options.contact.volumePenalty()->anchor.stiffness_n_per_m,
            sc.options.contact.volumePenalty()->anchor.stiffness_n_per_m);
  // Bad values name their field.
  auto failsAt = [&](const std::string& from, const std::string& to, const std::string& field) {
    std::string text = kScenario;
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    try {
      parseScenario(text, dir + "penalty.json");
      ADD_FAILURE() << "accepted " << to;
    } catch (const io::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  failsAt("\"seed004\"", "\"seed005\"", "/contact/model");
  failsAt("\"tanh\"", "\"sticky\"", "/contact/friction");
  failsAt("\"g1_n_per_m\": 50000", "\"g1_n_per_m\": -1", "/contact/g1_n_per_m");
  failsAt("\"model\": \"seed004\", ", "", "only with");  // seed004 keys need the model
  // and the constraint model's keys are refused with seed004, naming the model they belong to
  // (each model holds only its own options, ContactOptions::model).
  failsAt("\"model\": \"seed004\", ", "\"model\": \"seed004\", \"slop_m\": 0.001, ",
          "/contact/slop_m");
  failsAt("\"model\": \"seed004\", ", "\"model\": \"seed004\", \"object_push\": 0.1, ",
          "only with \"model\": \"default\"");
  // A step too large for the explicit friction (0.2 kg under eq. 8: 2 m / (beta + mu gamma m g)
  // = 6 ms).
  failsAt("\"duration_s\": 0.01,", "\"duration_s\": 0.1, \"dt_s\": 0.02,", "/dt_s");
}

namespace handsim::test {
inline std::atomic<long> g_allocations{0};  // counted by step_allocation_test.cpp's malloc
}  // namespace handsim::test

// A free box resting on the ground with the anchor friction and two boxes pressed together:
// once warm, steps do not allocate (the overlap's scratch and the stage's vectors keep their
// capacity).
TEST(PenaltyCollision, WarmStepsDoNotAllocate) {
  Options opt;
  opt.contact.useVolumePenalty();
  opt.ground.enabled = true;
  ObjectModel a = freeBox({0.1, 0.1, 0.1}, 200.0);
  ObjectModel b = freeBox({0.1, 0.1, 0.1}, 200.0);
  a.friction = b.friction = 0.5;
  auto model = compileModel(test::barrettHand(), {a, b}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.05}), test::at({5.0, 0.0, 0.15})});
  for (int i = 0; i < 500; ++i) step(*model, s);
  {
    const long probe = handsim::test::g_allocations.load();
    auto* p = new std::vector<int>(100);
    delete p;
    if (handsim::test::g_allocations.load() == probe)
      GTEST_SKIP() << "malloc is not counted in this build";
  }
  const long before = handsim::test::g_allocations.load();
  std::size_t contacts = 0;
  for (int i = 0; i < 500; ++i) {
    step(*model, s);
    contacts += s.object_contacts.size();
  }
  EXPECT_EQ(handsim::test::g_allocations.load() - before, 0);
  EXPECT_GE(contacts, 500u * 2u);  // ground-box and box-box every step
}
