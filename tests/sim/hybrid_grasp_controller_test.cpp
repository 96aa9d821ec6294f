// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 002's hybrid force/position grasp controller on the KTHand-like hand.
#include "handsim/sim/hybrid_grasp_controller.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/scenario.hpp"

using namespace handsim;
using namespace handsim::sim;

// u = T^T D e with the seed's T (eq. 1), D = I and e = (1, 2, 3, 4), worked by hand:
// e1 (1,0,0,0) + e2 (0,1,1,1) + e3 (0,1/3,1/3,-1) + e4 (0,1,-1,0) = (1, 7, -1, -1).
TEST(HybridGraspController, OutputIsTransposeTimesGainsTimesError) {
  const HybridGraspOptions o;
  const Eigen::Vector4d u = HybridGraspController::output(o.transform, Eigen::Vector4d::Ones(),
                                                          Eigen::Vector4d(1, 2, 3, 4));
  EXPECT_NEAR((u - Eigen::Vector4d(1, 7, -1, -1)).norm(), 0.0, 1e-15);
  const Eigen::Vector4d scaled = HybridGraspController::output(
      o.transform, Eigen::Vector4d(2, 0, 0, 0), Eigen::Vector4d(1, 2, 3, 4));
  EXPECT_NEAR((scaled - Eigen::Vector4d(2, 0, 0, 0)).norm(), 0.0, 1e-15);
}

TEST(HybridGraspController, NeedsTheKthandActuators) {
  const hand::HandModel barrett = hand::loadHand("barrett");
  EXPECT_THROW(HybridGraspController controller(barrett), std::invalid_argument);
}

// The shipped scenario: closing until all three fingers touch, then 10 N held with the
// position rows kept at their values at the switch, then retraction.
TEST(HybridGraspController, GraspsTheCylinderAtTheDesiredForce) {
  const Scenario sc =
      loadScenario(hand::assetDirectory() + "/scenarios/kthand_cylinder_grasp.json");
  ASSERT_TRUE(sc.plan.controller.has_value());
  const auto run = runScenario(sc);
  const Recorder& rec = run->recorder();
  const auto phase = rec.series("controller.phase");
  const auto t = rec.series("time");
  // The tactile sums from the recorder, independent of the controller's own bookkeeping.
  const auto fi = rec.series("index.tactile_force");
  const auto fm = rec.series("middle.tactile_force");
  const auto ft = rec.series("thumb.tactile_force");
  const auto x3 = rec.series("controller.x3");
  const auto x4 = rec.series("controller.x4");
  std::size_t hybrid = 0, retract = 0;
  for (std::size_t i = 1; i < phase.size(); ++i) {
    ASSERT_GE(phase[i], phase[i - 1]) << "phases only move forwards";
    if (!hybrid && phase[i] == 1.0) hybrid = i;
    if (!retract && phase[i] == 2.0) retract = i;
  }
  ASSERT_GT(hybrid, 0u);
  ASSERT_GT(retract, hybrid);
  // Every finger touched before the switch.
  EXPECT_GT(fi[hybrid - 1] + fi[hybrid], 0.0);
  EXPECT_GT(ft[hybrid - 1] + ft[hybrid], 0.0);
  // During the last second of the hold the total force sits at 10 N and the position rows
  // at their references (taken from x at the switch).
  for (std::size_t i = hybrid; i < retract; ++i) {
    if (t[i] < t[retract] - 1.0) continue;
    EXPECT_NEAR(fi[i] + fm[i] + ft[i], 10.0, 0.05) << "t = " << t[i];
    EXPECT_NEAR(x3[i], x3[hybrid], 2e-4);
    EXPECT_NEAR(x4[i], x4[hybrid], 1e-6);
  }
  // Bumpless: no tendon jumps by more than the closing or release speed allows in a step.
  const auto ti = rec.series("T_index.position");
  double worst = 0.0;
  for (std::size_t i = 1; i < ti.size(); ++i) worst = std::max(worst, std::abs(ti[i] - ti[i - 1]));
  EXPECT_LE(worst, 0.02 * 0.001 * 1.05);
  // Retraction releases the object.
  EXPECT_EQ(fi.back() + fm.back() + ft.back(), 0.0);
}

// The shipped bottle grasp: every finger touches, then the controller holds 10 N.
TEST(HybridGraspController, GraspsTheBottleAtTheDesiredForce) {
  const Scenario sc = loadScenario(hand::assetDirectory() + "/scenarios/kthand_bottle_grasp.json");
  const auto run = runScenario(sc);
  const Recorder& rec = run->recorder();
  const auto phase = rec.series("controller.phase");
  const auto t = rec.series("time");
  const auto total = rec.series("controller.force");
  double held = -1.0;
  for (std::size_t i = 1; i < phase.size(); ++i)
    if (phase[i - 1] == 1.0 && phase[i] == 2.0) held = total[i - 1];
  EXPECT_NEAR(held, 10.0, 0.05);
  double sum = 0.0;
  for (const char* f : {"index", "middle", "thumb"})
    sum += rec.series(std::string(f) + ".tactile_force")[t.size() / 2];
  EXPECT_GT(sum, 0.0);
}
