// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/formats/scenario.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/io/input_error.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {
std::string scenario(const std::string& trajectories) {
  return "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
         " \"duration_s\": 0.5, \"dt_s\": 0.002, \"record_every\": 5,\n"
         " \"trajectories\": [" +
         trajectories + "]}\n";
}
}  // namespace

// A joint target in degrees becomes encoder counts through the drive ratio: the BarrettHand's
// inner joint turns 1/125 deg per count, so 100 deg is 12500 counts.
TEST(Scenario, JointTargetsInDegreesBecomeActuatorUnits) {
  const Scenario sc = parseScenario(
      scenario("{\"joint\": \"F3.J2\", \"segments\": [{\"to_deg\": 100, \"max_velocity_deg\": 80,"
               " \"max_acceleration_deg\": 160}]}"),
      "s.json");
  ASSERT_EQ(sc.plan.trajectories.size(), 4u);
  const auto& seg = sc.plan.trajectories[2].segments().at(0);
  EXPECT_NEAR(seg.to(), 12500.0, 1e-9);
  EXPECT_NEAR(seg.peakVelocity(), 80.0 * 125.0, 1e-9);  // v^2/a = 40 deg < 100 deg: cruises
  EXPECT_NEAR(sc.options.dt, 0.002, 0);
  int calls = 0;
  double last = 0.0;
  const auto run = runScenario(sc, [&](double f) {
    ++calls;
    EXPECT_GT(f, last);
    last = f;
  });
  EXPECT_EQ(run->recorder().rowCount(), 1u + 250u / 5u);  // initial row + every 5th of 250 steps
  EXPECT_GE(calls, 90);
  EXPECT_DOUBLE_EQ(last, 1.0);
}

TEST(Scenario, ErrorsAreLocated) {
  auto expect = [](const std::string& text, int line, const std::string& phrase) {
    try {
      parseScenario(text, "bad.json");
      FAIL() << phrase;
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.location().line, line) << e.what();
      EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    }
  };
  expect(scenario("{\"actuator\": \"M3\", \"segments\": [{\"to\": 99999, \"max_velocity\": 1,"
                  " \"max_acceleration\": 1}]}"),
         3, "outside the actuator's range");
  expect(scenario("{\"actuator\": \"M3\", \"segments\": [{\"to\": 100, \"max_velocity\": 0,"
                  " \"max_acceleration\": 1}]}"),
         3, "must be positive");
  expect(scenario("{\"actuator\": \"M3\", \"segments\": [{\"to\": 100, \"max_velocity\": 10,"
                  " \"max_acceleration\": 10, \"start_s\": 1}, {\"to\": 0, \"max_velocity\": 10,"
                  " \"max_acceleration\": 10, \"start_s\": 2}]}"),
         3, "before the previous one ends");
  expect(scenario("{\"actuator\": \"M3\", \"joint\": \"F1.J2\", \"segments\": []}"), 3,
         "exactly one of");
  std::string bad_hand = scenario("");
  bad_hand.replace(bad_hand.find("\"barrett\""), 9, "\"nohand\"");
  expect(bad_hand, 1, "not a built-in hand id");
}

// The one file format: a scenario written by scenarioToJson reads back into the same run, bit
// for bit, with every kind of content changed from its default: palm pose, objects with
// scale, pose and friction, dt, gravity, contact and solver options, joint targets in degrees
// (written back in counts), start times, tendons and the grasp controller.
TEST(Scenario, SavedScenarioRunsBitForBitAsTheOriginal) {
  const std::string dir = ::testing::TempDir() + "/handsim_roundtrip";
  std::filesystem::create_directories(dir);
  for (const char* name : {"barrett_breakaway_cube.json", "kthand_bottle_grasp.json"}) {
    Scenario sc = loadScenario(hand::assetDirectory() + "/scenarios/" + name);
    sc.plan.duration = 0.6;
    sc.plan.palm_pose_world.linear() =
        Eigen::AngleAxisd(0.4, Eigen::Vector3d(1, 1, 0).normalized()).toRotationMatrix();
    sc.plan.palm_pose_world.translation() = Eigen::Vector3d(0.01, -0.02, 0.5);
    // Objects keep their place relative to the palm.
    ASSERT_EQ(sc.plan.object_pose_world.size(), sc.objects.size());
    for (auto& pose : sc.plan.object_pose_world) pose = sc.plan.palm_pose_world * pose;
    sc.options.dt = 0.0015;
    sc.options.gravity_world = Eigen::Vector3d(0.5, -0.25, -9.7);
    sc.options.contact.constraint()->slop = 2e-4;
    sc.options.solver.sweeps = 40;
    sc.plan.record_every = 3;
    const std::string path = dir + "/" + name;
    saveScenario(sc, path);
    const Scenario back = loadScenario(path);
    EXPECT_TRUE(back.plan.palm_pose_world.isApprox(sc.plan.palm_pose_world, 0.0));
    EXPECT_EQ(back.options.dt, sc.options.dt);
    EXPECT_EQ(back.options.contact.constraint()->slop, sc.options.contact.constraint()->slop);
    EXPECT_EQ(back.options.solver.sweeps, 40);
    ASSERT_EQ(back.objects.size(), sc.objects.size());
    ASSERT_EQ(back.plan.object_pose_world.size(), sc.objects.size());
    for (std::size_t o = 0; o < sc.objects.size(); ++o)
      EXPECT_TRUE(back.plan.object_pose_world[o].isApprox(sc.plan.object_pose_world[o], 0.0));
    EXPECT_EQ(back.plan.controller.has_value(), sc.plan.controller.has_value());
    const auto a = runScenario(sc);
    const auto b = runScenario(back);
    EXPECT_GT(a->recorder().rowCount(), 100u);
    EXPECT_EQ(a->recorder().toCsv(), b->recorder().toCsv()) << name;
    // Saving what was read gives the same file again.
    EXPECT_EQ(scenarioToJson(back, path), scenarioToJson(sc, path));
  }
}

TEST(Scenario, TheRestingToleranceIsReadCheckedAndSavedWhenNotTheDefault) {
  const std::string head =
      "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
      " \"duration_s\": 0.1,\n \"contact\": {";
  const Scenario plain = parseScenario(head + "\"slop_m\": 0.0002}}", "r.json");
  EXPECT_EQ(plain.options.contact.constraint()->resting_tolerance, 1e-9);
  // The default is not written (files saved before it existed stay the same); another value is.
  EXPECT_EQ(scenarioToJson(plain, "r.json").find("resting_tolerance_m"), std::string::npos);
  const Scenario off = parseScenario(head + "\"resting_tolerance_m\": 0}}", "r.json");
  EXPECT_EQ(off.options.contact.constraint()->resting_tolerance, 0.0);
  const Scenario back = parseScenario(scenarioToJson(off, "r.json"), "r.json");
  EXPECT_EQ(back.options.contact.constraint()->resting_tolerance, 0.0);
  for (const char* bad : {"\"resting_tolerance_m\": -1e-9}}", "\"resting_tolerance_m\": 0.01}}",
                          "\"model\": \"seed004\", \"resting_tolerance_m\": 1e-9}}"}) {
    try {
      parseScenario(head + bad, "r.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.location().line, 3) << bad;
      EXPECT_NE(std::string(e.what()).find("/contact/resting_tolerance_m"), std::string::npos)
          << e.what();
    }
  }
}

TEST(Scenario, PalmPoseAndContactOptionsAreReadAndChecked) {
  const std::string text =
      "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
      " \"duration_s\": 0.1, \"palm_pose\": {\"translation_m\": [0, 0, 1], \"rpy_deg\": [180, 0, "
      "0]},\n"
      " \"contact\": {\"slop_m\": 0.0002, \"kdop_k\": 26}}";
  const Scenario sc = parseScenario(text, "p.json");
  EXPECT_NEAR(sc.plan.palm_pose_world.translation().z(), 1.0, 0.0);
  EXPECT_NEAR(sc.plan.palm_pose_world.linear()(2, 2), -1.0, 1e-15);
  EXPECT_EQ(sc.options.contact.kdop_k, 26);
  std::string bad = text;
  bad.replace(bad.find("26"), 2, "12");
  try {
    parseScenario(bad, "p.json");
    FAIL();
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().line, 3);
    EXPECT_NE(std::string(e.what()).find("/contact/kdop_k"), std::string::npos) << e.what();
  }
}
