// SPDX-License-Identifier: GPL-3.0-or-later
// Start poses and velocities live in one place, the run plan (issue 20 item 3): the model holds
// shapes and mass properties only, so one const model serves runs that start their objects in
// different places at different velocities, and Run::reset puts the objects back where, and
// as fast as, the run's own plan says.
#include <gtest/gtest.h>

#include <functional>
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

// Start velocities live in the plan too (RunPlan::object_twist_world), never in the model.
namespace {

// A free 10 cm cube of 500 kg/m^3 (and, `with_fixed`, a fixed one) in zero gravity, far from
// the hand: nothing acts on the free one, so it coasts, x(t) = x0 + v t with v and w constant
// (a cube's inertia is isotropic: no gyroscopic torque).
std::shared_ptr<const sim::Model> coastingModel(bool with_fixed = false) {
  sim::Options opt;
  opt.gravity_world.setZero();
  std::vector<sim::ObjectModel> objects = {
      test::boxObject("box", Eigen::Vector3d(0.1, 0.1, 0.1), true, 500.0)};
  if (with_fixed)
    objects.push_back(test::boxObject("wall", Eigen::Vector3d(0.1, 0.1, 0.1), false, 500.0));
  return sim::compileModel(test::barrettHand(), std::move(objects), opt);
}

sim::RunPlan movingPlan(const Eigen::Vector3d& where, const sim::Twist& twist) {
  sim::RunPlan plan = planAt(where, 0.0);
  plan.object_twist_world = {twist};
  return plan;
}

// Where the coasting cube of `plan` is after `t` seconds (its frame is its centre of mass).
Eigen::Vector3d coasted(const sim::RunPlan& plan, double t) {
  return plan.object_pose_world[0].translation() + plan.object_twist_world[0].head<3>() * t;
}

}  // namespace

TEST(RunStartTwists, TwoRunsOnOneConstModelStartAndResetWithTheirOwnPlansTwists) {
  const std::shared_ptr<const sim::Model> model = coastingModel();
  const sim::RunPlan plan_a = movingPlan({5.0, 0.0, 1.0}, test::twist({0.3, -0.2, 0.1}, {0, 0, 2}));
  const sim::RunPlan plan_b = movingPlan({-4.0, 2.0, 3.0}, test::twist({-0.5, 0.0, 0.4}));
  sim::Run a(model, plan_a);
  sim::Run b(model, plan_b);
  EXPECT_EQ(a.state().object_twist_world.at(0), plan_a.object_twist_world[0]);
  EXPECT_EQ(b.state().object_twist_world.at(0), plan_b.object_twist_world[0]);

  // Interleaved, each coasts at its own plan's velocity: v t in closed form.
  for (int i = 0; i < 200; ++i) {
    a.step();
    if (i % 2 == 0) b.step();
  }
  const double ta = a.state().time, tb = b.state().time;
  ASSERT_GT(ta, 0.1);
  EXPECT_LT((a.state().object_pose_world[0].translation() - coasted(plan_a, ta)).norm(), 1e-12);
  EXPECT_LT((b.state().object_pose_world[0].translation() - coasted(plan_b, tb)).norm(), 1e-12);
  EXPECT_LT((a.state().object_twist_world[0] - plan_a.object_twist_world[0]).norm(), 1e-12);
  // Turning at 2 rad/s about z for ta seconds (the quaternion step turns 2 atan(w dt / 2) per
  // step, (w dt)^3 / 12 short of w dt: 1.3e-7 rad after 200 steps).
  const Eigen::AngleAxisd turned(a.state().object_pose_world[0].linear());
  EXPECT_NEAR(turned.angle(), 2.0 * ta, 2e-7);
  EXPECT_LT((turned.axis() - Eigen::Vector3d::UnitZ()).norm(), 1e-9);

  // A reset after the object was stopped by hand restarts it at the plan's twist, and the run
  // repeats itself bit for bit; the other run is left alone.
  const Eigen::Isometry3d a_at_200 = a.state().object_pose_world[0];
  const sim::SimState b_before = b.state();
  a.state().object_twist_world[0].setZero();
  a.reset();
  EXPECT_EQ(a.state().object_twist_world[0], plan_a.object_twist_world[0]);
  EXPECT_TRUE(samePose(a.state().object_pose_world[0], plan_a.object_pose_world[0]));
  for (int i = 0; i < 200; ++i) a.step();
  EXPECT_TRUE(samePose(a.state().object_pose_world[0], a_at_200));
  EXPECT_TRUE(samePose(b.state().object_pose_world[0], b_before.object_pose_world[0]));
  EXPECT_EQ(b.state().object_twist_world[0], b_before.object_twist_world[0]);
  b.reset();
  EXPECT_EQ(b.state().object_twist_world[0], plan_b.object_twist_world[0]);

  // A plan without twists starts the same model's object at rest: no plan's twist leaked into
  // the model.
  sim::Run c(model, planAt({5.0, 0.0, 1.0}, 0.0));
  EXPECT_TRUE(c.state().object_twist_world.at(0).isZero(0.0));
  for (int i = 0; i < 50; ++i) c.step();
  EXPECT_TRUE(samePose(c.state().object_pose_world[0], test::at({5.0, 0.0, 1.0})));
}

TEST(RunStartTwists, AFixedObjectStaysAtRestWhateverItsPlanTwist) {
  sim::RunPlan plan;
  plan.object_pose_world = {test::at({5.0, 0.0, 1.0}), test::at({-5.0, 0.0, 1.0})};
  plan.object_twist_world = {test::twist({0.1, 0.0, 0.0}), test::twist({1.0, 2.0, 3.0}, {4, 5, 6})};
  sim::Run run(coastingModel(true), plan);
  EXPECT_EQ(run.state().object_twist_world.at(0), plan.object_twist_world[0]);
  EXPECT_TRUE(run.state().object_twist_world.at(1).isZero(0.0));
  for (int i = 0; i < 100; ++i) run.step();
  EXPECT_TRUE(samePose(run.state().object_pose_world[1], plan.object_pose_world[1]));
  EXPECT_TRUE(run.state().object_twist_world[1].isZero(0.0));
}

TEST(RunStartTwists, TwistsOfTheWrongCountOrNotFiniteAreRefusedNamingTheObject) {
  const auto model = coastingModel();
  const std::vector<Eigen::Isometry3d> pose = {test::at({5.0, 0.0, 1.0})};
  const sim::Twist v = test::twist({0.1, 0.0, 0.0});
  sim::RunPlan two = movingPlan({5.0, 0.0, 1.0}, v);
  two.object_twist_world.push_back(v);
  EXPECT_THROW(sim::Run(model, two), std::invalid_argument);
  EXPECT_THROW(sim::makeState(*model, {}, Eigen::Isometry3d::Identity(), pose, {v, v}),
               std::invalid_argument);
  sim::Twist bad = v;
  bad[4] = std::numeric_limits<double>::quiet_NaN();
  const auto message = [&](const std::function<void()>& f) {
    try {
      f();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(nothing thrown)");
  };
  const std::string from_state = message(
      [&] { (void)sim::makeState(*model, {}, Eigen::Isometry3d::Identity(), pose, {bad}); });
  EXPECT_NE(from_state.find("'box'"), std::string::npos) << from_state;
  EXPECT_NE(from_state.find("twist"), std::string::npos) << from_state;
  const std::string from_plan = message([&] { sim::Run(model, movingPlan({5.0, 0.0, 1.0}, bad)); });
  EXPECT_NE(from_plan.find("'box'"), std::string::npos) << from_plan;
  // A good plan on the run is kept when a bad one is refused.
  sim::Run run(model, movingPlan({5.0, 0.0, 1.0}, v));
  EXPECT_THROW(run.setPlan(movingPlan({5.0, 0.0, 1.0}, bad)), std::invalid_argument);
  EXPECT_EQ(run.plan().object_twist_world.at(0), v);
}

TEST(RunStartTwists, TheScenarioReaderPutsEachObjectsVelocityInThePlan) {
  const std::string cube = hand::assetDirectory() + "/objects/cube.wrl";
  const std::string text =
      "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
      " \"duration_s\": 0.01, \"gravity_mps2\": [0, 0, 0], \"objects\": [\n"
      "  {\"mesh\": \"" +
      cube +
      "\", \"free\": true, \"pose\": {\"translation_m\": [0.5, 0.2, 0.3]},\n"
      "   \"linear_velocity_mps\": [0.25, -0.5, 1.0], \"angular_velocity_radps\": [0, 0, 0]},\n"
      "  {\"mesh\": \"" +
      cube + "\", \"free\": true, \"pose\": {\"translation_m\": [-0.5, 0, 0]},\n" +
      "   \"angular_velocity_radps\": [0, 3, 0]},\n"
      "  {\"mesh\": \"" +
      cube + "\", \"pose\": {\"translation_m\": [0, -0.5, 0]}}]}";
  const sim::Scenario sc = sim::parseScenario(text, "twists.json");
  ASSERT_EQ(sc.plan.object_twist_world.size(), 3u);
  EXPECT_EQ(sc.plan.object_twist_world[0], test::twist({0.25, -0.5, 1.0}));
  EXPECT_EQ(sc.plan.object_twist_world[1], test::twist({0, 0, 0}, {0, 3, 0}));
  EXPECT_TRUE(sc.plan.object_twist_world[2].isZero(0.0));
  // The run starts them so, and the first one coasts v t.
  sim::Run run(sim::compileScenario(sc), sc.plan);
  EXPECT_EQ(run.state().object_twist_world.at(0), sc.plan.object_twist_world[0]);
  EXPECT_EQ(run.state().object_twist_world.at(1), sc.plan.object_twist_world[1]);
  run.runToEnd();
  const Eigen::Vector3d moved =
      run.state().object_pose_world[0].translation() - sc.plan.object_pose_world[0].translation();
  EXPECT_LT((moved - run.state().time * Eigen::Vector3d(0.25, -0.5, 1.0)).norm(), 1e-12);
  // The writer reads them from the plan: a plan with a twist too many is refused, and the
  // file read back gives the plan's twists.
  sim::Scenario wrong = sc;
  wrong.plan.object_twist_world.push_back(sim::Twist::Zero());
  EXPECT_THROW((void)sim::scenarioToJson(wrong, "twists.json"), std::invalid_argument);
  const sim::Scenario back =
      sim::parseScenario(sim::scenarioToJson(sc, "twists.json"), "twists.json");
  EXPECT_EQ(back.plan.object_twist_world, sc.plan.object_twist_world);
}
