// SPDX-License-Identifier: GPL-3.0-or-later
// The palm link and the arm (issue 24, items 2 and 3; docs/arm.md): a URDF's joints from the
// root to the named palm link become the arm, the palm's subtree the hand; the shipped arm's
// forward kinematics against one worked here from its file's numbers; arm IK reaches poses
// made by FK from random in-limit configurations and reports the miss of an unreachable one.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/hand/arm_ik.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim {
namespace {

// base -j1(z)- l1 -j2(y)- l2 =fixed= palm; palm -f1a(x)- f1 -f1b(x)- f1tip; palm -f2a(x)- f2.
const char* kArmHand = R"(<robot name="arm_hand">
  <link name="base"/>
  <joint name="j1" type="revolute"><origin xyz="0 0 0.2" rpy="0 0 0"/><parent link="base"/>
    <child link="l1"/><axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <link name="l1"/>
  <joint name="j2" type="revolute"><origin xyz="0.3 0 0" rpy="0 0 0"/><parent link="l1"/>
    <child link="l2"/><axis xyz="0 1 0"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>
  <link name="l2"><visual><geometry><box size="0.1 0.02 0.02"/></geometry></visual></link>
  <joint name="mount" type="fixed"><origin xyz="0.1 0 0" rpy="0 1.5707963267948966 0"/>
    <parent link="l2"/><child link="palm"/></joint>
  <link name="palm"><inertial><mass value="0.1"/><inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="f1a" type="revolute"><origin xyz="0 0.02 0.05"/><parent link="palm"/>
    <child link="f1"/><axis xyz="1 0 0"/><limit lower="0" upper="1.5" effort="1" velocity="1"/></joint>
  <link name="f1"><inertial><mass value="0.02"/><inertia ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="f1b" type="revolute"><origin xyz="0 0 0.04"/><parent link="f1"/>
    <child link="f1tip"/><axis xyz="1 0 0"/><limit lower="0" upper="1.5" effort="1" velocity="1"/></joint>
  <link name="f1tip"><inertial><mass value="0.01"/><inertia ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="f2a" type="revolute"><origin xyz="0 -0.02 0.05"/><parent link="palm"/>
    <child link="f2"/><axis xyz="-1 0 0"/><limit lower="0" upper="1.5" effort="1" velocity="1"/></joint>
  <link name="f2"><inertial><mass value="0.02"/><inertia ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"/></inertial></link>
</robot>)";

hand::UrdfOptions palmOptions(const std::string& palm) {
  hand::UrdfOptions o;
  o.palm_link = palm;
  o.sidecar_text = std::string(R"({"format": "handsim-urdf-sidecar", "version": 1})");
  return o;
}

/// The palm of kArmHand in the base frame, worked from the file's numbers.
Eigen::Isometry3d palmByHand(double q1, double q2) {
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  t.translate(Eigen::Vector3d(0, 0, 0.2));
  t.rotate(Eigen::AngleAxisd(q1, Eigen::Vector3d::UnitZ()));
  t.translate(Eigen::Vector3d(0.3, 0, 0));
  t.rotate(Eigen::AngleAxisd(q2, Eigen::Vector3d::UnitY()));
  t.translate(Eigen::Vector3d(0.1, 0, 0));
  t.rotate(Eigen::AngleAxisd(1.5707963267948966, Eigen::Vector3d::UnitY()));
  return t;
}

TEST(ArmPalmLink, JointsFromTheRootToThePalmAreTheArm) {
  const hand::HandModel h = hand::parseUrdfHand(kArmHand, "arm_hand.urdf", palmOptions("palm"));
  ASSERT_FALSE(h.arm.empty());
  EXPECT_EQ(h.arm.dof(), 2);
  EXPECT_EQ(h.arm.base_link, "base");
  EXPECT_EQ(h.arm.palm_link, "palm");
  EXPECT_EQ(h.arm.chain.jointIndex("j1"), 0);
  EXPECT_EQ(h.arm.chain.jointIndex("j2"), 1);
  // The hand: two fingers below the palm (3 joints), no actuator for an arm joint.
  EXPECT_EQ(h.fingers.size(), 2u);
  EXPECT_EQ(h.totalDof(), 3);
  EXPECT_EQ(h.actuators.size(), 3u);
  EXPECT_EQ(h.actuatorIndex("j1"), -1);
  EXPECT_EQ(h.tree.links[0].name, "palm");
  // The arm's drawn box is on its last frame.
  ASSERT_EQ(h.arm.link_shapes.size(), h.arm.chain.rows.size() + 1);
  EXPECT_FALSE(h.arm.link_shapes[2].visual.shapes.empty());
  for (const auto& q :
       {Eigen::Vector2d(0, 0), Eigen::Vector2d(0.7, -1.1), Eigen::Vector2d(-1.9, 1.3)}) {
    const Eigen::Isometry3d fk = kinematics::forwardKinematics(h.arm.chain, q).tip();
    EXPECT_LT((fk.matrix() - palmByHand(q[0], q[1]).matrix()).norm(), 1e-12);
  }
  // Without a palm link the root is the palm and the arm joints are in every finger's chain.
  const hand::HandModel whole = hand::parseUrdfHand(kArmHand, "arm_hand.urdf", palmOptions(""));
  EXPECT_TRUE(whole.arm.empty());
  EXPECT_EQ(whole.totalDof(), 3 + 2 * 2);
}

TEST(ArmPalmLink, SidecarNamesThePalm) {
  hand::UrdfOptions o;
  o.sidecar_text =
      std::string(R"({"format": "handsim-urdf-sidecar", "version": 1, "palm_link": "palm"})");
  const hand::HandModel h = hand::parseUrdfHand(kArmHand, "arm_hand.urdf", o);
  EXPECT_EQ(h.arm.dof(), 2);
  EXPECT_EQ(h.totalDof(), 3);
}

TEST(ArmPalmLink, BadPalmLinksAreRefusedWithTheirName) {
  // Not a link; a link whose arm would leave finger f2 hanging off it.
  for (const char* palm : {"nowhere", "f1"}) {
    try {
      hand::parseUrdfHand(kArmHand, "arm_hand.urdf", palmOptions(palm));
      ADD_FAILURE() << palm << " accepted";
    } catch (const io::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(palm), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("arm_hand.urdf"), std::string::npos) << e.what();
    }
  }
  // A movable joint off the arm, not below the palm.
  std::string branched = kArmHand;
  branched.replace(branched.find("</robot>"), 8,
                   R"(<joint name="side" type="revolute"><parent link="l1"/><child link="s"/>
  <axis xyz="1 0 0"/><limit lower="0" upper="1" effort="1" velocity="1"/></joint><link name="s"/></robot>)");
  try {
    hand::parseUrdfHand(branched, "arm_hand.urdf", palmOptions("palm"));
    ADD_FAILURE() << "a movable joint off the arm was accepted";
  } catch (const io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'side'"), std::string::npos) << e.what();
  }
}

std::string shippedArm() {
  return hand::assetDirectory() + "/hands/urdf/arm5.urdf";
}

/// arm5's flange in its base frame, worked from the file's numbers.
Eigen::Isometry3d arm5ByHand(const Eigen::VectorXd& q) {
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  t.translate(Eigen::Vector3d(0, 0, 0.1));
  t.rotate(Eigen::AngleAxisd(q[0], Eigen::Vector3d::UnitZ()));
  t.translate(Eigen::Vector3d(0, 0, 0.25));
  t.rotate(Eigen::AngleAxisd(q[1], Eigen::Vector3d::UnitY()));
  t.translate(Eigen::Vector3d(0.3, 0, 0));
  t.rotate(Eigen::AngleAxisd(q[2], Eigen::Vector3d::UnitY()));
  t.translate(Eigen::Vector3d(0, 0, -0.13));
  t.rotate(Eigen::AngleAxisd(q[3], Eigen::Vector3d::UnitY()));
  t.translate(Eigen::Vector3d(0, 0, -0.04));
  t.rotate(Eigen::AngleAxisd(q[4], Eigen::Vector3d::UnitZ()));
  return t;
}

Eigen::VectorXd randomInLimits(const kinematics::Chain& c, std::mt19937& rng) {
  Eigen::VectorXd q(c.dof());
  for (int j = 0; j < c.dof(); ++j) {
    const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
    q[j] = std::uniform_real_distribution<double>(row.lower, row.upper)(rng);
  }
  return q;
}

TEST(ArmUrdf, ShippedArmMatchesItsFile) {
  const hand::ArmModel arm = hand::loadUrdfArm(shippedArm(), "flange");
  ASSERT_EQ(arm.dof(), 5);
  std::mt19937 rng(24);
  for (int k = 0; k < 20; ++k) {
    const Eigen::VectorXd q = randomInLimits(arm.chain, rng);
    EXPECT_LT((kinematics::forwardKinematics(arm.chain, q).tip().matrix() - arm5ByHand(q).matrix())
                  .norm(),
              1e-12);
  }
  EXPECT_THROW(hand::loadUrdfArm(shippedArm(), "base_link"), io::InputError);
  EXPECT_THROW(hand::loadUrdfArm(shippedArm(), "hand"), io::InputError);
}

TEST(ArmIk, ReachesPosesOfRandomInLimitConfigurations) {
  const hand::ArmModel arm = hand::loadUrdfArm(shippedArm(), "flange");
  std::mt19937 rng(7);
  const Eigen::VectorXd q0 = Eigen::VectorXd::Zero(arm.dof());
  for (int k = 0; k < 30; ++k) {
    const Eigen::VectorXd q_true = randomInLimits(arm.chain, rng);
    const Eigen::Isometry3d target = arm5ByHand(q_true);  // the file's FK, worked here
    const hand::ArmIkResult r = hand::solveArmIk(arm, target, q0);
    EXPECT_TRUE(r.reached) << "case " << k << ": miss " << r.position_error * 1e3 << " mm, "
                           << r.orientation_error * 180 / 3.14159 << " deg";
    // Checked by the file's FK, not the solver's.
    const Eigen::Isometry3d got = arm5ByHand(r.q);
    EXPECT_LT((got.translation() - target.translation()).norm(), 1e-5);
    EXPECT_LT(Eigen::AngleAxisd(got.linear() * target.linear().transpose()).angle(), 1e-4);
    for (int j = 0; j < arm.dof(); ++j) {
      const auto& row = arm.chain.rows[static_cast<std::size_t>(arm.chain.rowOfJoint(j))];
      EXPECT_GE(r.q[j], row.lower);
      EXPECT_LE(r.q[j], row.upper);
    }
  }
}

TEST(ArmIk, UnreachablePoseReportsTheMissWithoutHanging) {
  const hand::ArmModel arm = hand::loadUrdfArm(shippedArm(), "flange");
  Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
  target.translation() = Eigen::Vector3d(2.0, 0.0, 0.2);  // the arm reaches about 0.5 m
  const auto t0 = std::chrono::steady_clock::now();
  const hand::ArmIkResult r = hand::solveArmIk(arm, target, Eigen::VectorXd::Zero(arm.dof()));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_FALSE(r.reached);
  // The nearest the flange gets is its full stretch towards the target: at least 2 - 0.52 m.
  EXPECT_GT(r.position_error, 1.4);
  EXPECT_LT(r.position_error, 1.7);
  EXPECT_LT(seconds, 2.0);
  EXPECT_THROW(hand::solveArmIk(arm, target, Eigen::VectorXd::Zero(3)), std::invalid_argument);
}

}  // namespace
}  // namespace handsim
