// SPDX-License-Identifier: GPL-3.0-or-later
// The arm drives the palm (issue 24, item 2; docs/arm.md): the palm's twist and acceleration
// from the arm's joint motion against finite differences of the forward-kinematics pose, and a
// run of a hand mounted on the shipped arm whose palm follows the arm's FK step by step.
#include <gtest/gtest.h>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/sim/arm_motion.hpp"
#include "handsim/sim/run.hpp"

namespace handsim {
namespace {

hand::ArmModel shippedArm() {
  return hand::loadUrdfArm(hand::assetDirectory() + "/hands/urdf/arm5.urdf", "flange");
}

/// q(t) = q0 + a sin(w t + phase) per joint: smooth, all joints moving at once.
struct Wave {
  Eigen::VectorXd q0, a, w, ph;
  Eigen::VectorXd q(double t) const {
    return q0 + (a.array() * (w.array() * t + ph.array()).sin()).matrix();
  }
  Eigen::VectorXd qd(double t) const {
    return (a.array() * w.array() * (w.array() * t + ph.array()).cos()).matrix();
  }
  Eigen::VectorXd qdd(double t) const {
    return (-a.array() * w.array().square() * (w.array() * t + ph.array()).sin()).matrix();
  }
};

Eigen::Vector3d rotationVector(const Eigen::Matrix3d& r) {
  const Eigen::AngleAxisd aa(r);
  return aa.angle() * aa.axis();
}

TEST(ArmMotion, PalmTwistAndAccelerationMatchFiniteDifferencesOfTheFkPose) {
  hand::ArmModel arm = shippedArm();
  // A mount with an offset, so the palm origin is off the last joint's axis.
  hand::HandModel h;
  Eigen::Isometry3d mount = Eigen::Isometry3d::Identity();
  mount.translate(Eigen::Vector3d(0.02, -0.03, 0.08));
  mount.rotate(Eigen::AngleAxisd(0.4, Eigen::Vector3d(1, 2, 3).normalized()));
  hand::mountOnArm(h, arm, mount);
  const kinematics::Chain& chain = h.arm.chain;
  Wave wave;
  wave.q0 = (Eigen::VectorXd(5) << 0.3, -0.4, 0.6, 0.2, -0.5).finished();
  wave.a = (Eigen::VectorXd(5) << 0.5, 0.4, 0.7, 0.9, 1.1).finished();
  wave.w = (Eigen::VectorXd(5) << 2.0, 3.1, 1.7, 4.2, 2.6).finished();
  wave.ph = (Eigen::VectorXd(5) << 0.1, 1.2, 2.3, 0.7, 1.9).finished();
  Eigen::Isometry3d base = Eigen::Isometry3d::Identity();
  base.translate(Eigen::Vector3d(0.5, -0.2, 0.7));
  base.rotate(Eigen::AngleAxisd(0.9, Eigen::Vector3d(0.3, -1, 0.2).normalized()));
  const auto pose = [&](double t) {
    return base * kinematics::forwardKinematics(chain, wave.q(t)).tip();
  };
  const double h1 = 1e-5;  // for velocities
  const auto omegaFd = [&](double t) {
    return Eigen::Vector3d(
        rotationVector(pose(t + h1).linear() * pose(t - h1).linear().transpose()) / (2 * h1));
  };
  for (double t : {0.0, 0.37, 1.1, 2.9}) {
    const sim::PalmKinematics k =
        sim::armPalmKinematics(chain, base, wave.q(t), wave.qd(t), wave.qdd(t));
    EXPECT_LT((k.pose_world.matrix() - pose(t).matrix()).norm(), 1e-12);
    const Eigen::Vector3d v_fd =
        (pose(t + h1).translation() - pose(t - h1).translation()) / (2 * h1);
    const double h2 = 1e-4;  // for accelerations
    const Eigen::Vector3d a_fd =
        (pose(t + h2).translation() - 2 * pose(t).translation() + pose(t - h2).translation()) /
        (h2 * h2);
    const Eigen::Vector3d alpha_fd = (omegaFd(t + h2) - omegaFd(t - h2)) / (2 * h2);
    EXPECT_LT((k.linear_velocity_world - v_fd).norm(), 1e-7 * (1 + v_fd.norm())) << t;
    EXPECT_LT((k.angular_velocity_world - omegaFd(t)).norm(), 1e-7 * (1 + omegaFd(t).norm())) << t;
    EXPECT_LT((k.linear_acceleration_world - a_fd).norm(), 1e-4 * (1 + a_fd.norm())) << t;
    EXPECT_LT((k.angular_acceleration_world - alpha_fd).norm(), 1e-4 * (1 + alpha_fd.norm())) << t;
    // Not trivially small: the check would pass for zero otherwise.
    EXPECT_GT(a_fd.norm(), 0.1);
    EXPECT_GT(alpha_fd.norm(), 1.0);
  }
}

TEST(ArmMotion, RunMovesThePalmWhereTheArmPutsIt) {
  hand::HandModel h = hand::loadHand("gripper2p");
  Eigen::Isometry3d mount = Eigen::Isometry3d::Identity();
  mount.rotate(Eigen::AngleAxisd(3.141592653589793, Eigen::Vector3d::UnitX()));
  hand::mountOnArm(h, shippedArm(), mount);
  sim::Options options;
  auto model = sim::compileModel(std::make_shared<const hand::HandModel>(h), {}, options);
  sim::RunPlan plan;
  plan.duration = 0.8;
  plan.palm_pose_world.translation() = Eigen::Vector3d(0.3, 0.1, 0.4);
  plan.arm.initial = {0.1, -0.2, 0.3, 0.0, 0.2};
  plan.arm.motion.resize(5);
  plan.arm.motion[1].segments.append(sim::TrapezoidalProfile(0.0, -0.3, 1.0, 4.0, 0.05));
  plan.arm.motion[4].sinusoids.push_back({0.2, 3.0, 0.1, 1.0});
  sim::Run run(model, plan);
  // At the start the palm is where the plan puts it; the arm's base follows from that.
  EXPECT_LT((run.state().palm_pose_world.matrix() - plan.palm_pose_world.matrix()).norm(), 1e-12);
  const Eigen::Isometry3d base =
      plan.palm_pose_world *
      kinematics::forwardKinematics(h.arm.chain,
                                    Eigen::Map<const Eigen::VectorXd>(plan.arm.initial.data(), 5))
          .tip()
          .inverse();
  const int lift_col = run.recorder().columnIndex("arm.shoulder_lift");
  ASSERT_GE(lift_col, 0);
  while (!run.finished()) {
    run.step();
    const sim::ArmJointState js = sim::armJointsAt(plan.arm, 5, run.state().time);
    const Eigen::Isometry3d want = base * kinematics::forwardKinematics(h.arm.chain, js.q).tip();
    ASSERT_LT((run.state().palm_pose_world.matrix() - want.matrix()).norm(), 1e-12)
        << run.state().time;
  }
  // The shoulder lift ended its move: -0.3 from its start.
  EXPECT_NEAR(run.state().arm_position[1], -0.2 - 0.3, 1e-12);
  EXPECT_NEAR(run.recorder().series("arm.shoulder_lift").back(), -0.5, 1e-12);
  // Arm and palm motions together are refused; an arm plan for a hand without an arm too.
  sim::RunPlan both = plan;
  both.palm_motion.axis(sim::PalmMotion::Z).sinusoids.push_back({0.01, 1.0, 0.0, 1.0});
  EXPECT_THROW(sim::Run(model, both), std::invalid_argument);
  auto plain = sim::compileModel(
      std::make_shared<const hand::HandModel>(hand::loadHand("gripper2p")), {}, options);
  EXPECT_THROW(sim::Run(plain, plan), std::invalid_argument);
}

}  // namespace
}  // namespace handsim
