// SPDX-License-Identifier: GPL-3.0-or-later
// The stable-step bound (sim/stability.hpp) against the simulation itself: just below it a
// disturbance dies out, just above it grows; scenario files beyond it are refused with a
// located error, runs beyond it are warned, runaways and objects inside the hand at the start
// are counted warnings.
#include "handsim/sim/stability.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

// Largest actuator speed after 2000 steps at `fraction` of the bound, from every actuator at
// mid-range moving at 0.2% of its range per second, without gravity (the servos hold).
double growth(const std::string& id, double fraction) {
  const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand(id));
  const auto probe = compileModel(hand, {});
  const double dt_max = stableStep(*probe, makeState(*probe)).dt_max;
  Options o;
  o.dt = fraction * dt_max;
  o.gravity_world.setZero();
  RunPlan plan;
  for (const auto& a : hand->actuators) plan.initial.push_back(0.5 * (a.lower + a.upper));
  sim::Run run(compileModel(hand, {}, o), plan);
  double v0 = 0.0;
  for (std::size_t a = 0; a < hand->actuators.size(); ++a) {
    run.state().actuator_velocity[a] =
        0.002 * (hand->actuators[a].upper - hand->actuators[a].lower);
    v0 = std::max(v0, std::abs(run.state().actuator_velocity[a]));
  }
  forwardPosition(run.model(), run.state());
  for (int i = 0; i < 2000; ++i) run.step();
  double v1 = 0.0;
  for (double v : run.state().actuator_velocity) v1 = std::max(v1, std::abs(v));
  return v1 / v0;
}

}  // namespace

TEST(Stability, TheBoundSeparatesDecayFromGrowth) {
  for (const char* id : {"barrett", "anthro20", "dexterous3"}) {
    EXPECT_LT(growth(id, 0.95), 1e-3) << id;
    EXPECT_GT(growth(id, 1.05), 10.0) << id;
  }
}

// For one BarrettHand servo alone, worked by hand: the rotor's 0.01 kg m^2 dominates the
// finger's inertia at the primary joint, k = kp = 5 N m/rad, c = kd = 0.45 N m s/rad, so
// dt^2 k/m + 2 dt c/m = 4 gives dt = (-c + sqrt(c^2 + 4 k m)) / k with m a little above 0.01.
TEST(Stability, OneServoByHand) {
  const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  const auto m = compileModel(hand, {});
  const double dt = stableStep(*m, makeState(*m)).dt_max;
  const double rotor_only = (-0.45 + std::sqrt(0.45 * 0.45 + 4 * 5.0 * 0.01)) / 5.0;
  EXPECT_GT(dt, rotor_only);         // the links add inertia, which slows the mode
  EXPECT_LT(dt, 1.2 * rotor_only);  // but little: the rotor dominates
}

TEST(Stability, ScenarioFilesBeyondTheBoundAreRefused) {
  auto scenario = [](const std::string& dt) {
    return "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
           " \"duration_s\": 1,\n \"dt_s\": " +
           dt + "}\n";
  };
  EXPECT_NO_THROW(parseScenario(scenario("0.03"), "ok.json"));
  try {
    parseScenario(scenario("0.05"), "big.json");
    FAIL() << "a step beyond the stable limit was accepted";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().line, 3);
    EXPECT_EQ(e.location().field, "/dt_s");
    EXPECT_NE(std::string(e.what()).find("stable limit 0.038"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("servo of M"), std::string::npos) << e.what();
  }
}

TEST(Stability, RunsBeyondTheBoundWarnAndRunawaysAreCounted) {
  // Servos a million times stiffer than the BarrettHand's, with no torque limit to hide it.
  auto stiff = std::make_shared<hand::HandModel>(hand::loadHand("barrett"));
  for (auto& a : stiff->actuators) {
    a.servo.kp *= 1e6;
    a.servo.torque_limit = 1e12;
  }
  const std::shared_ptr<const hand::HandModel> hand = stiff;
  Options o;
  o.dt = 1e-3;
  RunPlan plan;
  plan.initial = {8000, 8000, 8000, 1500};
  sim::Run run(compileModel(hand, {}, o), plan);
  ASSERT_GE(run.state().warning_count, 1);
  EXPECT_NE(run.state().warnings.front().find("above the stable step"), std::string::npos)
      << run.state().warnings.front();
  run.state().actuator_velocity = {500.0, 0.0, 0.0, 0.0};
  forwardPosition(run.model(), run.state());
  for (int i = 0; i < 400; ++i) run.step();
  const auto& w = run.state().warnings;
  EXPECT_TRUE(std::any_of(w.begin(), w.end(), [](const std::string& x) {
    return x.find("runaway: F1.J2") != std::string::npos;
  })) << w.back();
}

TEST(Stability, AnObjectInsideTheHandAtTheStartIsWarned) {
  const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  ObjectModel cube = loadObject(hand::assetDirectory() + "/objects/cube.wrl");
  // Centred on finger 3's fingertip at the open pose: the outer link is inside the cube.
  const auto& f3 = hand->fingers[2];
  const auto model = compileModel(hand, {cube});
  sim::RunPlan plan;
  plan.object_pose_world = {Eigen::Isometry3d::Identity()};
  plan.object_pose_world[0].translation() =
      f3.base * kinematics::fingertipPosition(f3, kinematics::JointVector::Zero(f3.dof()));
  sim::Run inside(model, plan);
  ASSERT_EQ(inside.state().warning_count, 1);
  EXPECT_NE(inside.state().warnings.front().find("overlaps the hand"), std::string::npos);
  plan.object_pose_world[0].translation() = Eigen::Vector3d(0.0, 0.0, 10.0);
  sim::Run clear(model, plan);
  EXPECT_EQ(clear.state().warning_count, 0);
}
