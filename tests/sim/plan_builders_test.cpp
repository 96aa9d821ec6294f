// SPDX-License-Identifier: GPL-3.0-or-later
// The plan builders every front end calls (issue 20 item 1): closing a grasp
// (tools/grasp_closing.hpp), moves chained into references (sim/trajectory_segments.hpp),
// lifting and shaking the palm (tools/lift_and_shake.hpp) and teleporting (sim/teleport.hpp),
// each against expectations worked here: distances and times of trapezoids in closed form,
// a lifted palm's displacement after a run, the shake's zero end velocity.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"
#include "handsim/sim/teleport.hpp"
#include "handsim/sim/trajectory_segments.hpp"
#include "handsim/tools/grasp_closing.hpp"
#include "handsim/tools/lift_and_shake.hpp"

using namespace handsim;

namespace {

constexpr double kPi = 3.14159265358979323846;

std::shared_ptr<const sim::Model> barrett() {
  auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  return sim::compileModel(hand, {}, sim::Options{});
}

// A trapezoid from rest to rest over distance d with cruise v and acceleration a lasts
// d / v + v / a when it reaches v (d >= v^2 / a), else 2 sqrt(d / a).
double trapezoidTime(double d, double v, double a) {
  return d >= v * v / a ? d / v + v / a : 2.0 * std::sqrt(d / a);
}

TEST(PlanBuilders, ClosingMovesEachClosingActuatorToItsUpperEndAtTheStatedSpeed) {
  const hand::HandModel hand = hand::loadHand("barrett");
  ASSERT_FALSE(hand.closing_actuators.empty());
  ASSERT_TRUE(sim::canClose(hand));
  std::vector<double> start(hand.actuators.size(), 0.0);
  for (std::size_t a = 0; a < start.size(); ++a) start[a] = hand.actuators[a].lower;
  const int already = hand.closing_actuators.back();
  start[static_cast<std::size_t>(already)] =
      hand.actuators[static_cast<std::size_t>(already)].upper;
  const sim::ClosingSpeed speed{1.0, 2.0, 0.5};
  const sim::ClosingReferences r = sim::closingReferences(hand, start, speed);
  ASSERT_EQ(r.actuators.size(), hand.actuators.size());
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    const bool closing = std::find(hand.closing_actuators.begin(), hand.closing_actuators.end(),
                                   static_cast<int>(a)) != hand.closing_actuators.end();
    if (!closing || static_cast<int>(a) == already) {
      EXPECT_TRUE(r.actuators[a].empty()) << a;  // not closing, or already closed
      continue;
    }
    ASSERT_EQ(r.actuators[a].segments().size(), 1u) << a;
    const hand::Actuator& act = hand.actuators[a];
    const double range = act.upper - act.lower;
    const double v = range / 2.0, acc = v / 0.5;
    // From the lower end over the whole range: it crosses it at v after ramping for 0.5 s.
    EXPECT_NEAR(r.actuators[a].end(), trapezoidTime(range, v, acc), 1e-12 * (1.0 + range));
    EXPECT_DOUBLE_EQ(r.actuators[a].position(0.0, -1.0), act.lower);
    EXPECT_DOUBLE_EQ(r.actuators[a].position(10.0, -1.0), act.upper);
    EXPECT_NEAR(r.actuators[a].velocity(1.0), v, 1e-12 * (1.0 + v));  // cruising at t = 1 s
  }
  EXPECT_THROW(sim::closingReferences(hand, {0.0}, speed), std::invalid_argument);
  EXPECT_THROW(sim::closingReferences(hand, start, {1.0, 0.0, 0.5}), std::invalid_argument);
}

TEST(PlanBuilders, ClosingPullsOnlyTheClosingTendonsFromWhereRunsStartThem) {
  const hand::HandModel hand = hand::loadHand("kthand");
  ASSERT_FALSE(hand.closing_tendons.empty());
  const sim::ClosingReferences r =
      sim::closingReferences(hand, std::vector<double>(hand.actuators.size(), 0.0));
  ASSERT_EQ(r.tendons.size(), hand.tendons.size());
  for (std::size_t t = 0; t < hand.tendons.size(); ++t) {
    const bool closing = std::find(hand.closing_tendons.begin(), hand.closing_tendons.end(),
                                   static_cast<int>(t)) != hand.closing_tendons.end();
    const hand::Tendon& ten = hand.tendons[t];
    if (!closing) {
      EXPECT_TRUE(r.tendons[t].empty());
      continue;
    }
    const double from = std::min(std::max(0.0, ten.lower), ten.upper);
    EXPECT_DOUBLE_EQ(r.tendons[t].position(0.0, -1.0), from);
    EXPECT_DOUBLE_EQ(r.tendons[t].position(100.0, -1.0), ten.upper);
  }
}

TEST(PlanBuilders, SegmentsChainFromTheClampedStartAndWaitForThePreviousMove) {
  const hand::HandModel hand = hand::loadHand("barrett");
  const std::size_t na = hand.actuators.size();
  const hand::Actuator& a0 = hand.actuators[0];
  std::vector<double> initial(na, 0.0);
  initial[0] = a0.upper + 1000.0;  // above the range: clamped to its upper end
  const double mid = 0.5 * (a0.lower + a0.upper);
  const double d = a0.upper - mid;
  const std::vector<sim::TrajectorySegment> segments{
      {0, mid, d, 4.0 * d, 0.0},       // down from the upper end: 1 s + 0.25 s
      {0, a0.upper, d, 4.0 * d, 0.5},  // asks for 0.5 s but waits for the first to end
      {99, 1.0, 1.0, 1.0, 0.0}};       // no such actuator: skipped
  const auto t = sim::actuatorTrajectories(hand, initial, segments);
  ASSERT_EQ(t.size(), na);
  ASSERT_EQ(t[0].segments().size(), 2u);
  const double first = trapezoidTime(d, d, 4.0 * d);
  EXPECT_NEAR(first, 1.25, 1e-12);
  EXPECT_DOUBLE_EQ(t[0].segments()[0].from(), a0.upper);
  EXPECT_DOUBLE_EQ(t[0].segments()[1].start(), t[0].segments()[0].end());
  EXPECT_NEAR(t[0].end(), 2.0 * first, 1e-12);
  EXPECT_DOUBLE_EQ(t[0].position(first, 0.0), mid);
  for (std::size_t a = 1; a < na; ++a) EXPECT_TRUE(t[a].empty());
  // And back to the same moves.
  const auto back = sim::trajectorySegments(t);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_DOUBLE_EQ(back[1].start, t[0].segments()[0].end());
  EXPECT_DOUBLE_EQ(back[1].to, a0.upper);
}

TEST(PlanBuilders, ALiftMovesThePalmByTheDistanceAgainstGravity) {
  // Gravity along (1, 2, -2) / 3: up is (-1, -2, 2) / 3; a 0.09 m lift ends 0.09 m that way,
  // after the trapezoid's time along the line (each axis scaled, so all end together).
  const Eigen::Vector3d g = 9.81 * Eigen::Vector3d(1.0, 2.0, -2.0) / 3.0;
  const Eigen::Vector3d up = sim::liftDirection(g);
  EXPECT_TRUE(up.isApprox(Eigen::Vector3d(-1.0, -2.0, 2.0) / 3.0, 1e-15));
  EXPECT_TRUE(sim::liftDirection(Eigen::Vector3d::Zero()).isApprox(Eigen::Vector3d::UnitZ()));
  sim::PalmMotion motion;
  const double end = sim::appendPalmLift(motion, up, 0.09, 0.05, 0.25, 0.2);
  EXPECT_NEAR(end, 0.2 + trapezoidTime(0.09, 0.05, 0.25), 1e-12);  // 0.2 + 1.8 + 0.2
  EXPECT_NEAR(end, 2.2, 1e-12);
  Eigen::Isometry3d start = Eigen::Isometry3d::Identity();
  start.translation() = Eigen::Vector3d(0.1, -0.3, 0.4);
  start.linear() = Eigen::AngleAxisd(0.7, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const sim::PalmKinematics k = motion.at(start, end + 1.0);
  EXPECT_NEAR((k.pose_world.translation() - start.translation() - 0.09 * up).norm(), 0.0, 1e-12);
  EXPECT_TRUE(k.pose_world.linear().isApprox(start.linear(), 1e-15));
  // Cruising at 1 s: 0.05 m/s along up.
  EXPECT_NEAR((motion.at(start, 1.2).linear_velocity_world - 0.05 * up).norm(), 0.0, 1e-12);
  // A second lift before the first ends is refused.
  EXPECT_THROW(sim::appendPalmLift(motion, up, 0.01, 0.05, 0.25, 1.0), std::invalid_argument);
}

TEST(PlanBuilders, ARunWithALiftCarriesThePalmExactlyThatFar) {
  auto model = barrett();
  sim::RunPlan plan;
  plan.palm_pose_world.translation() = Eigen::Vector3d(0.0, 0.0, 0.3);
  const double end = sim::appendPalmLift(
      plan.palm_motion, sim::liftDirection(model->options.gravity_world), 0.04, 0.1, 0.5, 0.0);
  // 0.04 >= 0.1^2 / 0.5 = 0.02: it cruises; 0.04 / 0.1 + 0.1 / 0.5 = 0.6 s.
  EXPECT_NEAR(end, 0.6, 1e-12);
  plan.duration = 0.7;
  sim::Run run(model, plan);
  run.runToEnd();
  EXPECT_NEAR(run.state().palm_pose_world.translation().z(), 0.34, 1e-12);
  EXPECT_NEAR(run.state().palm_pose_world.translation().head<2>().norm(), 0.0, 1e-15);
}

TEST(PlanBuilders, AShakeStartsAndEndsAtRestAndReturnsToItsStart) {
  sim::PalmMotion motion;
  const Eigen::Vector3d side(0.6, 0.8, 0.0);
  sim::appendPalmShake(motion, side, 0.01, 2.0, 3, 0.5);
  const Eigen::Isometry3d start = Eigen::Isometry3d::Identity();
  // x(t) = A (sin wt - sin 2wt / 2): x'(t) = A w (cos wt - cos 2wt) = 0 at whole periods.
  for (double t : {0.5, 0.5 + 1.5}) {
    const sim::PalmKinematics k = motion.at(start, t);
    EXPECT_NEAR(k.linear_velocity_world.norm(), 0.0, 1e-12) << t;
    EXPECT_NEAR(k.pose_world.translation().norm(), 0.0, 1e-12) << t;
  }
  // At a quarter period: A (1 - 0) along side; velocity A w (0 - (-1)) = A w.
  const double w = 2.0 * kPi * 2.0;
  const sim::PalmKinematics q = motion.at(start, 0.5 + 0.125);
  EXPECT_NEAR((q.pose_world.translation() - 0.01 * side).norm(), 0.0, 1e-12);
  EXPECT_NEAR((q.linear_velocity_world - 0.01 * w * side).norm(), 0.0, 1e-12);
  EXPECT_TRUE(motion.axis(sim::PalmMotion::Z).empty());  // no component along z
  sim::PalmMotion none;
  sim::appendPalmShake(none, side, 0.0, 2.0, 3, 0.0);
  sim::appendPalmShake(none, side, 0.01, 2.0, 0, 0.0);
  EXPECT_TRUE(none.empty());
}

TEST(PlanBuilders, TeleportPutsTheHandAtRestWhereAsked) {
  auto model = barrett();
  sim::Run run(model, sim::RunPlan{});
  sim::SimState& s = run.state();
  const hand::HandModel& hand = model->hand();
  std::vector<double> to(hand.actuators.size());
  for (std::size_t a = 0; a < to.size(); ++a)
    to[a] = 0.3 * hand.actuators[a].lower + 0.7 * hand.actuators[a].upper;
  s.actuator_velocity.assign(to.size(), 1.0);
  sim::teleportActuators(*model, s, to);
  EXPECT_EQ(s.actuator_position, to);
  EXPECT_EQ(s.actuator_command, to);
  EXPECT_EQ(s.actuator_reference, to);
  for (double v : s.actuator_velocity) EXPECT_EQ(v, 0.0);
  // The link frames follow: a fresh state made at `to` has the same frames.
  const sim::SimState fresh = sim::makeState(*model, to);
  for (std::size_t f = 0; f < s.link_frames.size(); ++f)
    EXPECT_TRUE(s.link_frames[f].tip().isApprox(fresh.link_frames[f].tip(), 1e-12)) << f;
  std::vector<double> bad = to;
  bad[0] = std::nan("");
  EXPECT_THROW(sim::teleportActuators(*model, s, bad), std::invalid_argument);
  EXPECT_THROW(sim::teleportActuators(*model, s, {1.0}), std::invalid_argument);
  EXPECT_EQ(s.actuator_position, to);  // unchanged by the refusals

  Eigen::Isometry3d palm = Eigen::Isometry3d::Identity();
  palm.translation() = Eigen::Vector3d(0.2, 0.0, 0.1);
  sim::teleportPalm(*model, s, palm);
  EXPECT_TRUE(s.palm_pose_world.isApprox(palm));
  palm.translation().x() = INFINITY;
  EXPECT_THROW(sim::teleportPalm(*model, s, palm), std::invalid_argument);
  EXPECT_THROW(sim::teleportObject(*model, s, 0, Eigen::Isometry3d::Identity()),
               std::invalid_argument);  // the model has no object
}

}  // namespace
