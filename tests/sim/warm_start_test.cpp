// SPDX-License-Identifier: GPL-3.0-or-later
// The warm-started contact solve (SolverOptions::warm_start, tolerance) in whole runs: a box at
// rest on the ground carries its weight and does not drift, the two-finger gripper's squeezed
// cube does not creep against gravity, and a repeated run is the same bit for bit.
#include <gtest/gtest.h>

#include <limits>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

#include "../support/box_objects.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

Options warmOptions() {
  Options opt;
  opt.solver.warm_start = true;
  opt.solver.tolerance = 1e-9;
  return opt;
}

}  // namespace

TEST(WarmStart, ABoxAtRestOnTheGroundCarriesItsWeight) {
  Options opt = warmOptions();
  opt.ground.enabled = true;
  const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  const Eigen::Vector3d size(0.1, 0.06, 0.04);
  const double density = 800.0, weight = density * size.prod() * 9.81;
  auto model = compileModel(hand, {test::boxObject("box", size, true, density)}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.1})});
  while (s.time < 1.0) step(*model, s);
  const Eigen::Vector3d rest = s.object_pose_world[0].translation();
  for (int i = 0; i < 2000; ++i) {
    step(*model, s);
    Eigen::Vector3d total = Eigen::Vector3d::Zero();
    for (const Contact& c : s.object_contacts) {
      ASSERT_GE(c.force, 0.0);
      total += c.forceOnObjectWorld();
    }
    // Newton: at rest, the ground's forces balance gravity (tolerance 1e-9 of the solve).
    ASSERT_LT((total - Eigen::Vector3d(0, 0, weight)).norm(), 1e-6 * weight) << "step " << i;
  }
  EXPECT_LT((s.object_pose_world[0].translation() - rest).norm(), 1e-9);
  EXPECT_EQ(s.warning_count, 0);
}

TEST(WarmStart, TheGrippersSqueezedCubeDoesNotCreep) {
  Scenario sc = loadScenario(hand::assetDirectory() + "/scenarios/gripper2p_hold_cube.json");
  sc.options.solver.warm_start = true;
  sc.options.solver.tolerance = 1e-9;
  RunPlan plan = sc.plan;
  plan.duration = 0.0;
  plan.record_every = std::numeric_limits<int>::max();
  sim::Run run(compileScenario(sc), plan);
  while (run.state().time < 1.0) run.step();
  const Eigen::Vector3d held = run.state().object_pose_world[0].translation();
  double worst = 0.0;
  while (run.state().time < 4.0) {
    run.step();
    worst = std::max(worst, (run.state().object_pose_world[0].translation() - held).norm());
  }
  // 3 s of gravity unresisted would be 44 m; the pads' friction (2 x mu 10 N) holds 1.96 N.
  EXPECT_LT(worst, 1e-9);
  EXPECT_EQ(run.state().warning_count, 0);
}

TEST(WarmStart, ARepeatedRunIsTheSameBitForBit) {
  Scenario sc = loadScenario(hand::assetDirectory() + "/scenarios/gripper2p_hold_cube.json");
  sc.options.solver.warm_start = true;
  sc.options.solver.tolerance = 1e-9;
  RunPlan plan = sc.plan;
  plan.duration = 0.0;
  plan.record_every = std::numeric_limits<int>::max();
  const auto model = compileScenario(sc);
  sim::Run a(model, plan), b(model, plan);
  for (int i = 0; i < 800; ++i) {
    a.step();
    b.step();
  }
  ASSERT_FALSE(a.state().contacts.empty());
  EXPECT_EQ(a.state().actuator_position, b.state().actuator_position);
  EXPECT_TRUE(a.state().object_pose_world[0].matrix() == b.state().object_pose_world[0].matrix());
  ASSERT_EQ(a.state().contacts.size(), b.state().contacts.size());
  for (std::size_t k = 0; k < a.state().contacts.size(); ++k)
    EXPECT_EQ(a.state().contacts[k].force, b.state().contacts[k].force);
}
