// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/kinematics/forward_kinematics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace handsim::kinematics;

namespace {
constexpr double kPi = 3.14159265358979323846;

Chain anthroFinger(double a1, double a2, double a3, double a4) {
  // Seed 001 Table 1: (theta, alpha, a, d) = (th1, -90, a1, 0), (th2, 90, a2, 0),
  // (th3, 0, a3, 0), (th4, 0, a4, 0).
  Chain c;
  c.name = "index";
  const double alphas[4] = {-kPi / 2, kPi / 2, 0.0, 0.0};
  const double as[4] = {a1, a2, a3, a4};
  for (int i = 0; i < 4; ++i) {
    DhRow r;
    r.a = as[i];
    r.alpha = alphas[i];
    r.lower = -kPi;
    r.upper = kPi;
    c.rows.push_back(r);
    c.joint_names.push_back("J" + std::to_string(i + 1));
    c.links.emplace_back();
  }
  return c;
}
}  // namespace

// Seed 001 prints the fingertip pose 0T4 in closed form; it must equal the DH product.
TEST(ForwardKinematics, DhProductMatchesSeed001ClosedForm) {
  const double a1 = 0.008, a2 = 0.045, a3 = 0.025, a4 = 0.018;
  const Chain c = anthroFinger(a1, a2, a3, a4);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-kPi, kPi);
  for (int trial = 0; trial < 500; ++trial) {
    Eigen::Vector4d q(u(rng), u(rng), u(rng), u(rng));
    const double c1 = std::cos(q[0]), s1 = std::sin(q[0]), c2 = std::cos(q[1]), s2 = std::sin(q[1]),
                 c3 = std::cos(q[2]), s3 = std::sin(q[2]);
    const double c34 = std::cos(q[2] + q[3]), s34 = std::sin(q[2] + q[3]);
    Eigen::Matrix4d expected;
    expected << c1 * c2 * c34 - s1 * s34, -c1 * c2 * s34 - s1 * c34, c1 * s2,
        a4 * (c1 * c2 * c34 - s1 * s34) + a3 * (c1 * c2 * c3 - s1 * s3) + a2 * c1 * c2 + a1 * c1,
        s1 * c2 * c34 + c1 * s34, -s1 * c2 * s34 + c1 * c34, s1 * s2,
        a4 * (s1 * c2 * c34 + c1 * s34) + a3 * (s1 * c2 * c3 + c1 * s3) + a2 * s1 * c2 + a1 * s1,
        -s2 * c34, s2 * s34, c2, -a4 * s2 * c34 - a3 * s2 * c3 - a2 * s2,  //
        0, 0, 0, 1;
    const Eigen::Matrix4d got = forwardKinematics(c, q).tip().matrix();
    ASSERT_LT((got - expected).cwiseAbs().maxCoeff(), 1e-14) << "q = " << q.transpose();
  }
}

TEST(ForwardKinematics, FixedRowsTakeNoJointValue) {
  Chain c = anthroFinger(0.01, 0.02, 0.03, 0.04);
  c.rows[0].type = JointType::Fixed;
  c.rows[0].theta = 0.3;
  EXPECT_EQ(c.dof(), 3);
  EXPECT_EQ(c.rowOfJoint(0), 1);
  EXPECT_EQ(c.jointOfRow(0), -1);
  EXPECT_EQ(c.jointOfRow(3), 2);
  Chain full = anthroFinger(0.01, 0.02, 0.03, 0.04);
  const Eigen::Vector3d q(0.1, -0.2, 0.4);
  const Eigen::Vector4d qfull(0.3, 0.1, -0.2, 0.4);
  EXPECT_LT((fingertipPosition(c, q) - fingertipPosition(full, qfull)).norm(), 1e-15);
  EXPECT_THROW(forwardKinematics(c, qfull), std::invalid_argument);
}

TEST(Jacobian, MatchesCentralFiniteDifferences) {
  Chain c = anthroFinger(0.01, 0.045, 0.03, 0.02);
  c.rows[1].type = JointType::Prismatic;  // exercise a prismatic column too
  c.rows[1].d = 0.01;
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  const double h = 1e-6;
  for (int trial = 0; trial < 100; ++trial) {
    Eigen::Vector4d q(u(rng), 0.02 * u(rng), u(rng), u(rng));
    const Eigen::Vector3d offset(0.003, -0.002, 0.001);
    for (int frame = 1; frame <= 4; ++frame) {
      const Jacobian jac = geometricJacobian(c, q, frame, offset);
      for (int j = 0; j < 4; ++j) {
        Eigen::Vector4d qp = q, qm = q;
        qp[j] += h;
        qm[j] -= h;
        const auto fp = forwardKinematics(c, qp).at(frame);
        const auto fm = forwardKinematics(c, qm).at(frame);
        const Eigen::Vector3d v = (fp * offset - fm * offset) / (2 * h);
        // Angular velocity from dR/dq R^T (skew-symmetric part).
        const Eigen::Matrix3d dR = (fp.linear() - fm.linear()) / (2 * h);
        const Eigen::Matrix3d W = dR * forwardKinematics(c, q).at(frame).linear().transpose();
        const Eigen::Vector3d w(W(2, 1), W(0, 2), W(1, 0));
        EXPECT_LT((jac.block<3, 1>(0, j) - v).norm(), 1e-8);
        EXPECT_LT((jac.block<3, 1>(3, j) - w).norm(), 1e-8);
      }
    }
  }
}

// Chains have any length: 60 revolute rows of 1 cm about parallel z axes, each turned by
// 2 pi / 60, close a regular 60-gon, so the tip comes back to the base (a closed form).
TEST(ForwardKinematics, ChainsOfAnyLength) {
  Chain c;
  c.name = "long";
  const int n = 60;
  for (int r = 0; r < n; ++r) {
    DhRow row;
    row.a = 0.01;
    row.type = JointType::Revolute;
    row.lower = -10.0;
    row.upper = 10.0;
    c.rows.push_back(row);
    c.joint_names.push_back("J" + std::to_string(r));
  }
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(n, 2.0 * M_PI / n);
  ChainFrames frames;
  forwardKinematics(c, q, frames);
  EXPECT_EQ(frames.count, n + 1);
  EXPECT_LT(frames.tip().translation().norm(), 1e-12);
  // Half way round the tip is on the far side of the polygon: its diameter a / sin(pi / n).
  const Eigen::Vector3d mid = frames.at(n / 2).translation();
  EXPECT_NEAR(mid.norm(), 0.01 / std::sin(M_PI / n), 1e-12);
}
