// SPDX-License-Identifier: GPL-3.0-or-later
// Condition number and manipulability of the planar 3R finger of seed 003, checked against the
// seed's printed 2 x 3 Jacobian, a Jacobian worked by hand, the closed-form determinant
// l1 l2 sin(theta2) of the (x, y, phi) Jacobian, and invariance under a base rotation.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/manipulability.hpp"

using namespace handsim::kinematics;

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = kPi / 180.0;
constexpr double l1 = 0.06, l2 = 0.04, l3 = 0.03;

Chain planar3R() {
  Chain c;
  c.name = "P";
  for (double a : {l1, l2, l3}) {
    DhRow r;
    r.a = a;
    r.lower = -kPi;
    r.upper = kPi;
    c.rows.push_back(r);
    c.joint_names.push_back("J");
    c.links.emplace_back();
  }
  return c;
}

Eigen::Vector3d q3(double a, double b, double c) {
  return {a, b, c};
}

// Seed 003's Jacobian of (x_p, y_p), as printed.
Eigen::Matrix<double, 2, 3> seedJacobian(double t1, double t2, double t3) {
  const double s1 = std::sin(t1), s12 = std::sin(t1 + t2), s123 = std::sin(t1 + t2 + t3);
  const double c1 = std::cos(t1), c12 = std::cos(t1 + t2), c123 = std::cos(t1 + t2 + t3);
  Eigen::Matrix<double, 2, 3> j;
  j << -l1 * s1 - l2 * s12 - l3 * s123, -l2 * s12 - l3 * s123, -l3 * s123,
      l1 * c1 + l2 * c12 + l3 * c123, l2 * c12 + l3 * c123, l3 * c123;
  return j;
}
}  // namespace

TEST(Manipulability, PlanarFingerIsSingularStretchedAndFolded) {
  const Chain c = planar3R();
  const double inf = std::numeric_limits<double>::infinity();
  const auto xy = TaskSpace::PlanarPosition;
  for (const Eigen::Vector3d& q :
       {q3(0, 0, 0), q3(0.7, 0, 0), q3(0.3, kPi, 0), q3(0, 0, kPi), q3(-0.4, kPi, kPi)}) {
    // All links on one line: every column of the (x, y) Jacobian is normal to that line.
    EXPECT_EQ(conditionNumber(taskJacobian(c, q, xy)), inf) << q.transpose();
    EXPECT_TRUE(nearSingular(taskJacobian(c, q, xy), 1e6));
  }
  // In 3-D the planar finger never moves along z: its position Jacobian is always singular.
  EXPECT_EQ(conditionNumber(taskJacobian(c, q3(0.1, 1, 1), TaskSpace::Position)), inf);
  // det of the (x, y, phi) Jacobian is l1 l2 sin(theta2): zero whenever theta2 is 0 or pi.
  EXPECT_EQ(conditionNumber(taskJacobian(c, q3(0.2, 0, 0.9), TaskSpace::Planar)), inf);
  EXPECT_LT(yoshikawaManipulability(taskJacobian(c, q3(0.2, 0, 0.9), TaskSpace::Planar)), 1e-15);

  // Approaching the stretched pose, the condition number grows like 1/theta2.
  const double k3 = conditionNumber(taskJacobian(c, q3(0, 1e-3, 0), TaskSpace::Planar));
  const double k4 = conditionNumber(taskJacobian(c, q3(0, 1e-4, 0), TaskSpace::Planar));
  EXPECT_GT(k3, 1e3);
  EXPECT_NEAR(k4 / k3, 10.0, 0.01);
  const double p3 = conditionNumber(taskJacobian(c, q3(0, 1e-3, 1e-3), xy));
  const double p4 = conditionNumber(taskJacobian(c, q3(0, 1e-4, 1e-4), xy));
  EXPECT_NEAR(p4 / p3, 10.0, 0.01);
  EXPECT_FALSE(nearSingular(taskJacobian(c, q3(0, 1.0, 1.0), xy), 10.0));
  EXPECT_THROW(nearSingular(taskJacobian(c, q3(0, 1, 1), xy), 0.5), std::invalid_argument);
}

TEST(Manipulability, GeometricJacobianMatchesSeed003AndHandWorkedNumbers) {
  const Chain c = planar3R();
  // Hand-worked at (0, 90, 90) deg: link directions (1,0), (0,1), (-1,0); tip (30, 40) mm.
  // Column i = z x (tip - origin of joint i): (-40, 30), (-40, -30), (0, -30) mm.
  const Eigen::MatrixXd jp = taskJacobian(c, q3(0, 90 * kDeg, 90 * kDeg), TaskSpace::Planar);
  Eigen::Matrix3d hand;
  hand << -0.04, -0.04, 0.0, 0.03, -0.03, -0.03, 1, 1, 1;
  EXPECT_LT((jp - hand).cwiseAbs().maxCoeff(), 1e-15);
  // Seed 003's formula at its worked configuration and at random ones.
  std::mt19937_64 gen(3);
  std::uniform_real_distribution<double> u(-kPi, kPi);
  std::vector<Eigen::Vector3d> qs{q3(18.43 * kDeg, 34.70 * kDeg, 36.87 * kDeg)};
  for (int i = 0; i < 20; ++i) qs.push_back(q3(u(gen), u(gen), u(gen)));
  for (const auto& q : qs) {
    const Eigen::MatrixXd j = taskJacobian(c, q, TaskSpace::PlanarPosition);
    ASSERT_EQ(j.rows(), 2);
    EXPECT_LT((j - seedJacobian(q[0], q[1], q[2])).cwiseAbs().maxCoeff(), 1e-15);
    // The 3-D position Jacobian adds a zero z row (planar finger).
    EXPECT_LT(taskJacobian(c, q, TaskSpace::Position).row(2).cwiseAbs().maxCoeff(), 1e-15);
  }
}

TEST(Manipulability, YoshikawaOfThePlanarTaskIsL1L2SinTheta2) {
  const Chain c = planar3R();
  std::mt19937_64 gen(5);
  std::uniform_real_distribution<double> u(-kPi, kPi);
  for (int i = 0; i < 50; ++i) {
    const Eigen::Vector3d q = q3(u(gen), u(gen), u(gen));
    const Eigen::MatrixXd j = taskJacobian(c, q, TaskSpace::Planar);
    EXPECT_NEAR(yoshikawaManipulability(j), l1 * l2 * std::abs(std::sin(q[1])), 1e-16);
    EXPECT_NEAR(yoshikawaManipulability(j), std::sqrt((j * j.transpose()).determinant()), 1e-15);
  }
  // More task rows than joints: J J^T is singular.
  EXPECT_EQ(yoshikawaManipulability(taskJacobian(c, q3(0, 1, 1), TaskSpace::PositionOrientation)),
            0.0);
}

TEST(Manipulability, ConditionNumberIsInvariantUnderBaseRotation) {
  // A spatial 4R chain (twists and offsets), so that every task Jacobian has full rank.
  Chain c;
  c.name = "S";
  const double a[] = {0.01, 0.05, 0.04, 0.03}, alpha[] = {1.2, -0.4, 0.9, 0.0},
               d[] = {0.0, 0.02, -0.01, 0.0};
  for (int i = 0; i < 4; ++i) {
    DhRow r;
    r.a = a[i];
    r.alpha = alpha[i];
    r.d = d[i];
    r.lower = -kPi;
    r.upper = kPi;
    c.rows.push_back(r);
    c.joint_names.push_back("J" + std::to_string(i));
    c.links.emplace_back();
  }
  // Same chain behind a fixed, purely rotational first row: its Jacobian is expressed in a
  // frame rotated by Rz(0.7) Rx(1.1).
  Chain rotated = c;
  DhRow turn;
  turn.type = JointType::Fixed;
  turn.theta = 0.7;
  turn.alpha = 1.1;
  rotated.rows.insert(rotated.rows.begin(), turn);
  rotated.joint_names.insert(rotated.joint_names.begin(), "turn");
  rotated.links.insert(rotated.links.begin(), LinkInertia{});
  std::mt19937_64 gen(11);
  std::uniform_real_distribution<double> u(-kPi, kPi);
  for (int i = 0; i < 20; ++i) {
    const Eigen::Vector4d q(u(gen), u(gen), u(gen), u(gen));
    for (TaskSpace s : {TaskSpace::Position, TaskSpace::PositionOrientation}) {
      const Eigen::MatrixXd ja = taskJacobian(c, q, s), jb = taskJacobian(rotated, q, s);
      EXPECT_GT((ja - jb).norm(), 1e-3);  // the matrices do differ
      ASSERT_TRUE(std::isfinite(conditionNumber(ja)));
      EXPECT_NEAR(conditionNumber(ja) / conditionNumber(jb), 1.0, 1e-9);
      EXPECT_NEAR(yoshikawaManipulability(ja), yoshikawaManipulability(jb), 1e-15);
    }
  }
}

TEST(Manipulability, ShippedDexterousFingerIsSingularWhenStretched) {
  const auto h = handsim::hand::loadHand("dexterous3");
  const Chain& f1 = h.fingers[0];  // wrist, J1, J2, J3
  const double inf = std::numeric_limits<double>::infinity();
  // Stretched: the three flexion columns are parallel; with the wrist column the position
  // Jacobian still has rank 2.
  EXPECT_EQ(conditionNumber(taskJacobian(f1, Eigen::VectorXd::Zero(4), TaskSpace::Position)), inf);
  Eigen::VectorXd q(4);
  q << 0.0, 45 * kDeg, 45 * kDeg, 45 * kDeg;
  EXPECT_TRUE(std::isfinite(conditionNumber(taskJacobian(f1, q, TaskSpace::Position))));
}
