// SPDX-License-Identifier: GPL-3.0-or-later
// Start poses live in one place, the run plan (issue 20 item 3): the model holds shapes and
// mass properties only, so one const model serves runs that start their objects in different
// places, and Run::reset puts the objects back where the run's own plan says.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../support/box_objects.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;

namespace {

// A free 10 cm box far from the hand (which sits at the origin): it falls under gravity.
std::shared_ptr<const sim::Model> fallingBoxModel() {
  return sim::compileModel(test::barrettHand(),
                           {test::boxObject("box", Eigen::Vector3d(0.1, 0.1, 0.1), true, 500.0)},
                           sim::Options{});
}

sim::RunPlan planAt(const Eigen::Vector3d& where, double yaw) {
  sim::RunPlan plan;
  Eigen::Isometry3d pose = test::at(where);
  pose.linear() = Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  plan.object_pose_world = {pose};
  return plan;
}

// Exactly equal, bit for bit.
bool samePose(const Eigen::Isometry3d& a, const Eigen::Isometry3d& b) {
  return a.matrix() == b.matrix();
}

}  // namespace

TEST(RunStartPoses, TwoRunsOnOneConstModelStartAndResetAtTheirOwnPlansPoses) {
  const std::shared_ptr<const sim::Model> model = fallingBoxModel();
  const sim::RunPlan plan_a = planAt({5.0, 0.0, 1.0}, 0.3);
  const sim::RunPlan plan_b = planAt({-4.0, 2.0, 3.0}, -1.1);
  sim::Run a(model, plan_a);
  sim::Run b(model, plan_b);
  EXPECT_EQ(&a.model(), &b.model());  // one model, shared
  EXPECT_TRUE(samePose(a.state().object_pose_world.at(0), plan_a.object_pose_world[0]));
  EXPECT_TRUE(samePose(b.state().object_pose_world.at(0), plan_b.object_pose_world[0]));

  // Interleaved: each falls from its own start, and resetting one leaves the other alone.
  for (int i = 0; i < 50; ++i) {
    a.step();
    if (i % 2 == 0) b.step();
  }
  EXPECT_LT(a.state().object_pose_world[0].translation().z(), 1.0 - 1e-3);  // it moved
  EXPECT_LT(b.state().object_pose_world[0].translation().z(), 3.0 - 1e-3);
  const sim::SimState b_before = b.state();
  a.reset();
  EXPECT_TRUE(samePose(a.state().object_pose_world[0], plan_a.object_pose_world[0]));
  EXPECT_TRUE(a.state().object_twist_world[0].isZero(0.0));
  EXPECT_EQ(a.state().step, 0);
  EXPECT_TRUE(samePose(b.state().object_pose_world[0], b_before.object_pose_world[0]));
  EXPECT_EQ(b.state().step, b_before.step);
  for (int i = 0; i < 20; ++i) a.step();
  b.reset();
  EXPECT_TRUE(samePose(b.state().object_pose_world[0], plan_b.object_pose_world[0]));
  EXPECT_FALSE(samePose(a.state().object_pose_world[0], plan_a.object_pose_world[0]));

  // A run of the same model with a plan that places nothing starts at the world origin: no
  // plan's pose leaked into the model.
  const sim::Run c(model, sim::RunPlan{});
  EXPECT_TRUE(samePose(c.state().object_pose_world.at(0), Eigen::Isometry3d::Identity()));
}

TEST(RunStartPoses, AResetAfterTheObjectMovedRestoresThePlanPose) {
  const sim::RunPlan plan = planAt({5.0, 0.0, 1.0}, 0.7);
  sim::Run run(fallingBoxModel(), plan);
  for (int i = 0; i < 100; ++i) run.step();
  ASSERT_FALSE(samePose(run.state().object_pose_world[0], plan.object_pose_world[0]));
  run.reset();
  EXPECT_TRUE(samePose(run.state().object_pose_world[0], plan.object_pose_world[0]));
  // Moved by hand between steps (as the GUI and Python do): a reset undoes that too, and the
  // run then repeats itself bit for bit.
  for (int i = 0; i < 30; ++i) run.step();
  const Eigen::Isometry3d after_30 = run.state().object_pose_world[0];
  run.state().object_pose_world[0] = test::at({0.0, 0.0, 7.0});
  run.reset();
  EXPECT_TRUE(samePose(run.state().object_pose_world[0], plan.object_pose_world[0]));
  for (int i = 0; i < 30; ++i) run.step();
  EXPECT_TRUE(samePose(run.state().object_pose_world[0], after_30));
}

TEST(RunStartPoses, PosesOfTheWrongCountAreRefused) {
  const auto model = fallingBoxModel();
  sim::RunPlan two = planAt({5.0, 0.0, 1.0}, 0.0);
  two.object_pose_world.push_back(two.object_pose_world[0]);
  EXPECT_THROW(sim::Run(model, two), std::invalid_argument);
  EXPECT_THROW(sim::makeState(*model, {}, Eigen::Isometry3d::Identity(), two.object_pose_world),
               std::invalid_argument);
  Eigen::Isometry3d bad = Eigen::Isometry3d::Identity();
  bad.translation().x() = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(sim::makeState(*model, {}, Eigen::Isometry3d::Identity(), {bad}),
               std::invalid_argument);
}

TEST(RunStartPoses, TheScenarioReaderPutsEachObjectsPoseInThePlan) {
  const std::string cube = hand::assetDirectory() + "/objects/cube.wrl";
  const std::string text =
      "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
      " \"duration_s\": 0.01, \"objects\": [\n"
      "  {\"mesh\": \"" +
      cube +
      "\", \"pose\": {\"translation_m\": [0.1, 0.2, 0.3]}},\n"
      "  {\"mesh\": \"" +
      cube + "\"}]}";
  const sim::Scenario sc = sim::parseScenario(text, "poses.json");
  ASSERT_EQ(sc.objects.size(), 2u);
  ASSERT_EQ(sc.plan.object_pose_world.size(), 2u);
  EXPECT_EQ(sc.plan.object_pose_world[0].translation(), Eigen::Vector3d(0.1, 0.2, 0.3));
  EXPECT_TRUE(samePose(sc.plan.object_pose_world[1], Eigen::Isometry3d::Identity()));
  const auto run = sim::runScenario(sc);
  EXPECT_TRUE(samePose(run->plan().object_pose_world[0], sc.plan.object_pose_world[0]));
}
