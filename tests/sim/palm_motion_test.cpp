// SPDX-License-Identifier: GPL-3.0-or-later
// The palm carried through the world (sim/palm_motion.hpp): its twist and acceleration against
// finite differences of its pose, sinusoids and trapezoids against their closed forms, the
// finger dynamics in an accelerating palm against a resting palm under the equivalent gravity,
// and the scenario block with its errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"

using namespace handsim;

namespace {

constexpr double kPi = 3.14159265358979323846;

sim::PalmMotion everyAxis() {
  sim::PalmMotion m;
  m.axis(sim::PalmMotion::X).segments.append(sim::TrapezoidalProfile(0.0, 0.05, 0.1, 0.4, 0.1));
  m.axis(sim::PalmMotion::Y).sinusoids.push_back({0.02, 1.5, 0.0, 3.0});
  m.axis(sim::PalmMotion::Z).segments.append(sim::TrapezoidalProfile(0.0, 0.1, 0.2, 1.0));
  m.axis(sim::PalmMotion::Z).sinusoids.push_back({0.01, 4.0, 0.2, 2.0});
  m.axis(sim::PalmMotion::RX).sinusoids.push_back({0.3, 0.7, 0.0, 1.0});
  m.axis(sim::PalmMotion::RY).segments.append(sim::TrapezoidalProfile(0.0, -0.6, 1.0, 3.0, 0.05));
  m.axis(sim::PalmMotion::RZ).segments.append(sim::TrapezoidalProfile(0.0, 1.2, 2.0, 5.0));
  return m;
}

Eigen::Isometry3d startPose() {
  Eigen::Isometry3d p = Eigen::Isometry3d::Identity();
  p.linear() = Eigen::AngleAxisd(0.4, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  p.translation() = Eigen::Vector3d(0.3, -0.2, 0.5);
  return p;
}

// Angular velocity from two nearby rotations: log(R(t+h) R(t-h)^T) / 2h.
Eigen::Vector3d angularRate(const Eigen::Matrix3d& before, const Eigen::Matrix3d& after, double h) {
  const Eigen::AngleAxisd aa(after * before.transpose());
  return aa.axis() * aa.angle() / (2.0 * h);
}

}  // namespace

TEST(PalmMotion, TwistAndAccelerationAreTheDerivativesOfThePose) {
  const sim::PalmMotion m = everyAxis();
  const Eigen::Isometry3d start = startPose();
  const double h = 1e-6;
  // Away from the instants where a trapezoid's acceleration or a sinusoid switches.
  for (double t : {0.03, 0.12, 0.37, 0.55, 0.81, 1.13, 1.61, 1.9}) {
    const sim::PalmKinematics k = m.at(start, t);
    const sim::PalmKinematics a = m.at(start, t - h), b = m.at(start, t + h);
    const Eigen::Vector3d v_fd = (b.pose_world.translation() - a.pose_world.translation()) / (2 * h);
    EXPECT_LT((v_fd - k.linear_velocity_world).norm(), 1e-7) << "t = " << t;
    const Eigen::Vector3d w_fd = angularRate(a.pose_world.linear(), b.pose_world.linear(), h);
    EXPECT_LT((w_fd - k.angular_velocity_world).norm(), 1e-7) << "t = " << t;
    const Eigen::Vector3d acc_fd = (b.linear_velocity_world - a.linear_velocity_world) / (2 * h);
    EXPECT_LT((acc_fd - k.linear_acceleration_world).norm(), 1e-6) << "t = " << t;
    const Eigen::Vector3d alpha_fd = (b.angular_velocity_world - a.angular_velocity_world) / (2 * h);
    EXPECT_LT((alpha_fd - k.angular_acceleration_world).norm(), 1e-6) << "t = " << t;
  }
  // At rest after every axis has finished: the pose is the start moved by each end offset.
  const sim::PalmKinematics end = m.at(start, 10.0);
  EXPECT_LT((end.pose_world.translation() - start.translation() - Eigen::Vector3d(0.05, 0, 0.1))
                .norm(),
            1e-15);
  const Eigen::Matrix3d r_end = (Eigen::AngleAxisd(1.2, Eigen::Vector3d::UnitZ()) *
                                 Eigen::AngleAxisd(-0.6, Eigen::Vector3d::UnitY()))
                                    .toRotationMatrix() *
                                start.linear();
  EXPECT_LT((end.pose_world.linear() - r_end).norm(), 1e-14);
  EXPECT_EQ(end.linear_velocity_world.norm() + end.angular_velocity_world.norm(), 0.0);
}

TEST(PalmMotion, ASinusoidRunsWholeCyclesFromZeroToZero) {
  const sim::Sinusoid s{0.02, 2.0, 1.0, 3.0};
  EXPECT_DOUBLE_EQ(s.end(), 2.5);
  EXPECT_EQ(s.position(0.9), 0.0);
  EXPECT_NEAR(s.position(1.125), 0.02, 1e-15);  // a quarter period in
  EXPECT_NEAR(s.position(1.375), -0.02, 1e-15);
  EXPECT_NEAR(s.velocity(1.0 + 1e-12), 0.02 * 2 * kPi * 2.0, 1e-9);
  EXPECT_EQ(s.position(2.6), 0.0);
  EXPECT_NEAR(s.acceleration(1.125), -0.02 * std::pow(2 * kPi * 2.0, 2), 1e-12);
}

TEST(PalmMotion, ARunCarriesThePalmAndRecordsItsPose) {
  auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  const auto model = sim::compileModel(hand, {}, sim::Options{});
  sim::RunPlan plan;
  plan.duration = 1.0;
  plan.palm_pose_world = startPose();
  // Lift 0.1 m at 0.2 m/s, 1 m/s^2: accelerate 0.2 s over 0.02 m, cruise 0.3 s, decelerate.
  plan.palm_motion.axis(sim::PalmMotion::Z).segments.append(
      sim::TrapezoidalProfile(0.0, 0.1, 0.2, 1.0));
  sim::Run run(model, plan);
  run.runToEnd();
  const auto z = run.recorder().series("palm.z");
  const auto t = run.recorder().series("time");
  for (std::size_t i = 0; i < t.size(); i += 37) {
    // The closed form of the trapezoid, worked here.
    double lift;
    if (t[i] < 0.2) lift = 0.5 * t[i] * t[i];
    else if (t[i] < 0.5) lift = 0.02 + 0.2 * (t[i] - 0.2);
    else if (t[i] < 0.7) lift = 0.1 - 0.5 * (0.7 - t[i]) * (0.7 - t[i]);
    else lift = 0.1;
    EXPECT_NEAR(z[i], 0.5 + lift, 1e-12) << "t = " << t[i];
  }
  EXPECT_EQ(run.recorder().unit("palm.z"), "m");
  const Eigen::Quaterniond q(startPose().linear());
  EXPECT_NEAR(run.recorder().series("palm.qw").back(), q.w(), 1e-15);
  // The finger bases are carried along: the palm frame is what moved.
  EXPECT_NEAR(run.state().palm_pose_world.translation().z(), 0.6, 1e-15);
}

TEST(PalmMotion, FingersInAnAcceleratingPalmFeelTheEquivalentGravity) {
  // Einstein's elevator: a palm accelerating up at a feels like gravity g + a at rest.
  auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  const double a = 3.0;
  sim::Options moving_options;
  const auto moving_model = sim::compileModel(hand, {}, moving_options);
  sim::Options heavy_options;
  heavy_options.gravity_world = moving_options.gravity_world - Eigen::Vector3d(0, 0, a);
  const auto heavy_model = sim::compileModel(hand, {}, heavy_options);

  sim::RunPlan plan;
  plan.duration = 0.3;
  plan.palm_pose_world.linear() =
      Eigen::AngleAxisd(0.5 * kPi, Eigen::Vector3d::UnitX()).toRotationMatrix();  // fingers sideways
  for (std::size_t i = 0; i < hand->actuators.size(); ++i) {
    sim::ActuatorTrajectory tr;
    const auto& act = hand->actuators[i];
    tr.append(sim::TrapezoidalProfile(act.lower, act.lower + 0.3 * (act.upper - act.lower),
                                      act.upper - act.lower, 4.0 * (act.upper - act.lower)));
    plan.trajectories.push_back(tr);
  }
  sim::RunPlan lifted = plan;
  // Accelerates at a for 0.4 s: longer than the run.
  lifted.palm_motion.axis(sim::PalmMotion::Z).segments.append(
      sim::TrapezoidalProfile(0.0, 10.0, 0.4 * a, a));
  sim::Run moving(moving_model, lifted);
  sim::Run heavy(heavy_model, plan);
  moving.runToEnd();
  heavy.runToEnd();
  double largest = 0.0;
  for (const std::string col : {"F1.J2.torque", "F2.J3.torque", "F3.J2.torque", "F1.J1.torque"}) {
    const auto x = moving.recorder().series(col), y = heavy.recorder().series(col);
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(x[i], y[i], 1e-12) << col << " row " << i;
      largest = std::max(largest, std::abs(y[i]));
    }
  }
  EXPECT_GT(largest, 1e-3) << "the test needs torques to compare";
  // And the equivalence is not trivial: the resting palm under plain gravity differs.
  sim::Run plain(moving_model, plan);
  plain.runToEnd();
  EXPECT_GT(std::abs(plain.recorder().series("F1.J2.torque").back() -
                     heavy.recorder().series("F1.J2.torque").back()),
            1e-5);
}

TEST(PalmMotion, ScenarioBlockRoundTripsAndNamesItsErrors) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / "handsim_palm_scenario";
  fs::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& palm) {
    const fs::path p = dir / name;
    std::ofstream(p) << R"({"format": "handsim-scenario", "version": 1, "hand": "barrett",
  "duration_s": 0.5, "palm": )"
                     << palm << "}\n";
    return p.string();
  };
  const std::string good = write("good.json", R"({
    "pose": {"translation_m": [0, 0, 0.3]},
    "motion": {"z": {"segments": [{"to": 0.1, "max_velocity": 0.2, "max_acceleration": 1.0,
                                   "start_s": 0.1}]},
               "x": {"sinusoids": [{"amplitude": 0.01, "frequency_hz": 5, "cycles": 2}]}}})");
  const sim::Scenario sc = sim::loadScenario(good);
  EXPECT_NEAR(sc.plan.palm_pose_world.translation().z(), 0.3, 1e-15);
  ASSERT_EQ(sc.plan.palm_motion.axis(sim::PalmMotion::Z).segments.segments().size(), 1u);
  EXPECT_DOUBLE_EQ(sc.plan.palm_motion.axis(sim::PalmMotion::Z).segments.segments()[0].start(),
                   0.1);
  ASSERT_EQ(sc.plan.palm_motion.axis(sim::PalmMotion::X).sinusoids.size(), 1u);
  const std::string saved = (dir / "saved.json").string();
  sim::saveScenario(sc, saved);
  const sim::Scenario again = sim::loadScenario(saved);
  for (double t : {0.0, 0.05, 0.17, 0.33, 0.5}) {
    const auto k1 = sc.plan.palm_motion.at(sc.plan.palm_pose_world, t);
    const auto k2 = again.plan.palm_motion.at(again.plan.palm_pose_world, t);
    EXPECT_TRUE(k1.pose_world.isApprox(k2.pose_world, 1e-15)) << t;
  }
  const auto error = [&](const std::string& palm) {
    try {
      sim::loadScenario(write("bad.json", palm));
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(R"({"motion": {"w": {}}})").find("/palm/motion/w"), std::string::npos);
  EXPECT_NE(error(R"({"motion": {"x": {"sinusoids": [{"amplitude": 0.01, "frequency_hz": -1}]}}})")
                .find("/palm/motion/x/sinusoids/0/frequency_hz"),
            std::string::npos);
  EXPECT_NE(error(R"({"motion": {"z": {"segments": [{"to": 1e9, "max_velocity": 1,
               "max_acceleration": 1}]}}})")
                .find("/palm/motion/z/segments/0/to"),
            std::string::npos);
  EXPECT_NE(error(R"({"motion": {"z": {"wobble": 1}}})").find("wobble"), std::string::npos);
}
