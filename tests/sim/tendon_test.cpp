// SPDX-License-Identifier: GPL-3.0-or-later
// The tendon-driven fingers (seed 002's KTHand): statics of the elastic tendon against the
// return springs, worked out by hand, with and without a blocked phalanx.
#include <gtest/gtest.h>

#include <cmath>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/sim/run.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

// Holds tendon T_index at `retraction` for 3 s without gravity; returns the index finger's
// joint angles and the tension at the end.
std::pair<kinematics::JointVector, double> settle(const hand::HandModel& hand, double retraction) {
  Options opt;
  opt.gravity_world.setZero();
  sim::Run run(compileModel(std::make_shared<const hand::HandModel>(hand), {}, opt), {});
  const int t = hand.tendonIndex("T_index");
  run.state().tendon_command[static_cast<std::size_t>(t)] = retraction;
  while (run.state().time < 3.0) run.step();
  const SimState& s = run.state();
  return {s.q[static_cast<std::size_t>(hand.fingerIndex("index"))],
          s.tendon_tension[static_cast<std::size_t>(t)]};
}

}  // namespace

// Free finger: r_j T = k_j q_j and T = K (m - sum r_j q_j) give T = K m / (1 + K sum r_j^2/k_j).
TEST(Tendon, FreeFingerReachesTheSpringTendonEquilibrium) {
  const hand::HandModel hand = hand::loadHand("kthand");
  const double m = 0.01, K = 20000.0;
  const double r[3] = {0.010, 0.008, 0.006}, k[3] = {0.06, 0.03, 0.015};
  double sum = 0.0;
  for (int j = 0; j < 3; ++j) sum += r[j] * r[j] / k[j];
  const double tension = K * m / (1.0 + K * sum);
  const auto [q, t] = settle(hand, m);
  EXPECT_NEAR(t, tension, 1e-6 * tension);
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(q[j], r[j] * tension / k[j], 1e-7) << j;
}

// A blocked proximal phalanx (held at 0.1 rad by its limit, as an object would hold it): the
// tendon keeps pulling the distal joints, which close further than on the free finger:
// T = K (m - r1 q1) / (1 + K (r2^2/k2 + r3^2/k3)).
TEST(Tendon, BlockedPhalanxLetsTheDistalOnesKeepClosing) {
  hand::HandModel hand = hand::loadHand("kthand");
  auto& index = hand.fingers[static_cast<std::size_t>(hand.fingerIndex("index"))];
  index.rows[static_cast<std::size_t>(index.rowOfJoint(0))].upper = 0.1;
  const double m = 0.01, K = 20000.0;
  const double r[3] = {0.010, 0.008, 0.006}, k[3] = {0.06, 0.03, 0.015};
  const double tension =
      K * (m - r[0] * 0.1) / (1.0 + K * (r[1] * r[1] / k[1] + r[2] * r[2] / k[2]));
  const auto [q, t] = settle(hand, m);
  EXPECT_NEAR(q[0], 0.1, 1e-12);
  EXPECT_NEAR(t, tension, 1e-6 * tension);
  EXPECT_NEAR(q[1], r[1] * tension / k[1], 1e-7);
  EXPECT_NEAR(q[2], r[2] * tension / k[2], 1e-7);
  const auto [free_q, free_t] = settle(hand::loadHand("kthand"), m);
  EXPECT_GT(q[1], free_q[1]);
  EXPECT_GT(q[2], free_q[2]);
}

// A slack tendon cannot push: released, the springs bring the finger back to rest.
TEST(Tendon, SlackTendonCarriesNoTension) {
  const hand::HandModel hand = hand::loadHand("kthand");
  Options opt;
  opt.gravity_world.setZero();
  RunPlan plan;
  plan.initial.assign(hand.actuators.size(), 0.0);
  for (int j = 0; j < 3; ++j)
    plan.initial[static_cast<std::size_t>(hand.driverOf({hand.fingerIndex("index"), j}).first)] =
        0.5;
  sim::Run run(compileModel(std::make_shared<const hand::HandModel>(hand), {}, opt), plan);
  const SimState& s = run.state();
  double worst = 0.0;
  while (s.time < 3.0) {
    run.step();
    worst =
        std::max(worst, s.tendon_tension[static_cast<std::size_t>(hand.tendonIndex("T_index"))]);
  }
  EXPECT_EQ(worst, 0.0);
  for (int j = 0; j < 3; ++j)
    EXPECT_NEAR(s.q[static_cast<std::size_t>(hand.fingerIndex("index"))][j], 0.0, 1e-6);
}

TEST(Tendon, HandFileErrors) {
  const std::string base = R"({"format": "handsim-hand", "version": 1, "id": "t",
  "fingers": [{"name": "F", "joints": [
    {"name": "J1", "a_m": 0.04, "limits_deg": [0, 90], "inertial": {"mass_kg": 0.01, "rod_radius_m": 0.005}},
    {"name": "J2", "a_m": 0.03, "limits_deg": [0, 90], "inertial": {"mass_kg": 0.01, "rod_radius_m": 0.005}}]}],
  "actuators": [ACTUATORS],
  "tendons": [{"name": "T", "range_m": [0, 0.03],
    "joints": [{"joint": "F.J1", "pulley_radius_m": 0.01}, {"joint": "F.J2", "pulley_radius_m": RADIUS}]}]})";
  auto text = [&](const std::string& actuators, const std::string& radius) {
    std::string s = base;
    s.replace(s.find("ACTUATORS"), 9, actuators);
    s.replace(s.find("RADIUS"), 6, radius);
    return s;
  };
  const hand::HandModel ok = hand::parseHandFile(text("", "0.008"), "t.json");
  ASSERT_EQ(ok.tendons.size(), 1u);
  EXPECT_EQ(ok.actuators.size(), 2u);  // passive direct actuators for the pulled joints
  EXPECT_EQ(ok.actuators[0].servo.kp, 0.0);
  EXPECT_THROW(hand::parseHandFile(text("", "-0.008"), "t.json"), io::InputError);
  EXPECT_THROW(
      hand::parseHandFile(
          text(R"({"name": "M", "range": [0, 1], "drives": [{"joint": "F.J1", "ratio": 1}]})",
               "0.008"),
          "t.json"),
      io::InputError);
}

// A joint at rest on its limit stays at rest. In the shipped closing scenario the fingers hang
// on their 0 deg stops under gravity before the tendons tighten; a joint pushed onto its stop
// through the finger's shared inertia used to be let through and clamped, and chattered
// between 0 and 2.9e-5 rad at +-0.2 rad/s every step (issue #12). Now every stop that the
// coupled impulses reach gets its constraint in the same step.
TEST(Tendon, AJointRestingOnItsLimitStaysAtRest) {
  const Scenario sc = loadScenario(hand::assetDirectory() + "/scenarios/kthand_close.json");
  RunPlan plan = sc.plan;
  plan.duration = 0.4;  // the tendons are still slack: every flexion joint rests on 0 deg
  sim::Run run(compileScenario(sc), plan);
  const hand::HandModel& hand = *sc.hand;
  double worst_angle = 0.0, worst_speed = 0.0;
  while (!run.finished()) {
    run.step();
    for (const char* f : {"index", "middle", "thumb"}) {
      const auto fi = static_cast<std::size_t>(hand.fingerIndex(f));
      for (int j = 0; j < 3; ++j) {
        const int jj = run.state().q[fi].size() - 3 + j;
        worst_angle = std::max(worst_angle, std::abs(run.state().q[fi][jj]));
        worst_speed = std::max(worst_speed, std::abs(run.state().qd[fi][jj]));
      }
    }
  }
  EXPECT_LT(worst_angle, 1e-12);
  EXPECT_LT(worst_speed, 1e-9);
}
