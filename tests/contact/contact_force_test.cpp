// SPDX-License-Identifier: GPL-3.0-or-later
// Contact force from joint torques: torques built independently (the paper's lever formula on
// the forward-kinematics frames, and finite differences of the contact point) must give back
// the force; a force through every joint axis must be reported as unobservable.
#include "handsim/contact/contact_force.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "handsim/kinematics/forward_kinematics.hpp"

using namespace handsim::contact;
using namespace handsim::kinematics;
using Eigen::Vector3d;

namespace {
constexpr double kPi = 3.14159265358979323846;

Chain randomChain(std::mt19937& rng, int rows) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Chain c;
  c.name = "random";
  for (int i = 0; i < rows; ++i) {
    DhRow r;
    r.a = 0.05 * u(rng);
    r.d = 0.03 * u(rng);
    r.alpha = kPi * u(rng);
    r.theta = kPi * u(rng);
    const int kind = static_cast<int>(std::floor(3.0 * (u(rng) + 1.0) / 2.0));
    r.type = kind == 0 ? JointType::Prismatic
                       : (kind == 1 && i > 0 ? JointType::Fixed : JointType::Revolute);
    c.rows.push_back(r);
    c.joint_names.push_back("J" + std::to_string(i));
    c.links.emplace_back();
  }
  return c;
}

// The paper's lever formula, joint by joint, on the FK frames: tau_m = Z_m . ((p - p_m) x F)
// for a revolute joint, Z_m . F for a prismatic one.
Eigen::VectorXd leverTorques(const Chain& c, const Eigen::VectorXd& q, int link_row,
                             const Vector3d& p, const Vector3d& f) {
  const ChainFrames frames = forwardKinematics(c, q);
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(c.dof());
  for (int r = 0, j = 0; r < static_cast<int>(c.rows.size()); ++r) {
    const JointType type = c.rows[static_cast<std::size_t>(r)].type;
    if (type == JointType::Fixed) continue;
    if (r <= link_row) {
      const Vector3d z = frames.at(r).linear().col(2);
      tau[j] =
          type == JointType::Revolute ? z.dot((p - frames.at(r).translation()).cross(f)) : z.dot(f);
    }
    ++j;
  }
  return tau;
}

}  // namespace

TEST(ContactForce, RecoversTheForceFromTorquesOnRandomChains) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int checked = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const Chain c = randomChain(rng, 2 + trial % 5);
    Eigen::VectorXd q(c.dof());
    for (int i = 0; i < c.dof(); ++i) q[i] = u(rng);
    std::uniform_int_distribution<int> row(0, static_cast<int>(c.rows.size()) - 1);
    const int link_row = row(rng);
    const ChainFrames frames = forwardKinematics(c, q);
    const Vector3d p =
        frames.at(link_row + 1) * Vector3d(0.02 * u(rng), 0.02 * u(rng), 0.01 * u(rng));
    const Vector3d d = Vector3d(u(rng), u(rng), u(rng)).normalized();
    const double f = 20.0 * u(rng);
    const Eigen::VectorXd tau = leverTorques(c, q, link_row, p, f * d);
    const ContactForceEstimate est = contactForceFromTorques(c, q, link_row, p, 3.0 * d, tau);
    if (!est.well_posed) {
      EXPECT_LT(est.lever_m, kDefaultLeverTolerance);
      continue;
    }
    ++checked;
    EXPECT_NEAR(est.force_n, f, 1e-9 * (1.0 + std::abs(f))) << "trial " << trial;
    EXPECT_LT(est.residual_nm, 1e-12);
    // A torque component that no force along d explains shows up in the residual.
    Eigen::VectorXd disturbed = tau;
    disturbed[0] += 0.1;
    const auto noisy = contactForceFromTorques(c, q, link_row, p, d, disturbed);
    const Eigen::VectorXd a = leverTorques(c, q, link_row, p, d);
    const double expected = 0.1 * std::sqrt(std::max(0.0, 1.0 - a[0] * a[0] / a.squaredNorm()));
    EXPECT_NEAR(noisy.residual_nm, expected, 1e-9) << "trial " << trial;
  }
  EXPECT_GT(checked, 400);
}

TEST(ContactForce, ForwardMapEqualsVirtualWorkByFiniteDifferences) {
  // tau_j = dp/dq_j . F, with p the contact point carried rigidly by the link.
  std::mt19937 rng(8);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    const Chain c = randomChain(rng, 2 + trial % 5);
    Eigen::VectorXd q(c.dof());
    for (int i = 0; i < c.dof(); ++i) q[i] = u(rng);
    const int link_row = static_cast<int>(c.rows.size()) - 1 - trial % 2;
    const Vector3d local(0.02 * u(rng), 0.02 * u(rng), 0.02 * u(rng));
    const Vector3d p = forwardKinematics(c, q).at(link_row + 1) * local;
    const Vector3d force(u(rng), u(rng), u(rng));
    const Eigen::VectorXd tau = jointTorquesFromContactForce(c, q, link_row, p, force);
    ASSERT_EQ(tau.size(), c.dof());
    const double h = 1e-6;
    for (int j = 0; j < c.dof(); ++j) {
      Eigen::VectorXd qp = q, qm = q;
      qp[j] += h;
      qm[j] -= h;
      const Vector3d dp = (forwardKinematics(c, qp).at(link_row + 1) * local -
                           forwardKinematics(c, qm).at(link_row + 1) * local) /
                          (2 * h);
      EXPECT_NEAR(tau[j], dp.dot(force), 1e-8) << "trial " << trial << " joint " << j;
    }
  }
}

TEST(ContactForce, ForceThroughTheJointAxesIsReportedAsUnobservable) {
  // Planar two-link finger (all z axes parallel): a normal along z, or one on link 1 pointing
  // at joint 1's axis, produces no torque whatever f is.
  Chain c;
  c.name = "planar";
  for (double a : {0.07, 0.056}) {
    DhRow r;
    r.a = a;
    c.rows.push_back(r);
    c.joint_names.push_back("J");
    c.links.emplace_back();
  }
  const Eigen::Vector2d q(0.3, 0.5);
  const Eigen::Vector2d tau(0.4, 0.1);
  const ChainFrames frames = forwardKinematics(c, q);
  const Vector3d p = frames.at(2) * Vector3d(-0.02, 0.005, 0.0);
  const auto along_z = contactForceFromTorques(c, q, 1, p, Vector3d::UnitZ(), tau);
  EXPECT_FALSE(along_z.well_posed);
  EXPECT_FALSE(along_z.explanation.empty());
  EXPECT_DOUBLE_EQ(along_z.force_n, 0.0);
  const Vector3d p1 = frames.at(1) * Vector3d(-0.03, 0.0, 0.0);
  const auto radial = contactForceFromTorques(c, q, 0, p1, p1 - frames.at(0).translation(), tau);
  EXPECT_FALSE(radial.well_posed);
  EXPECT_EQ(radial.joints_used, 1);
  // A perpendicular push on the same point is observable: f = tau_1 / |p1|.
  const Vector3d perp = Vector3d::UnitZ().cross(p1).normalized();
  const auto good = contactForceFromTorques(c, q, 0, p1, perp, tau);
  ASSERT_TRUE(good.well_posed);
  EXPECT_NEAR(good.force_n, tau[0] / p1.norm(), 1e-12);
}

TEST(ContactForce, RejectsBadArguments) {
  Chain c;
  c.name = "one";
  c.rows.emplace_back();
  c.joint_names.push_back("J");
  c.links.emplace_back();
  const Eigen::VectorXd q = Eigen::VectorXd::Zero(1);
  EXPECT_THROW(contactForceFromTorques(c, q, 1, Vector3d::Zero(), Vector3d::UnitX(), q),
               std::invalid_argument);
  EXPECT_THROW(contactForceFromTorques(c, q, 0, Vector3d::Zero(), Vector3d::UnitX(),
                                       Eigen::VectorXd::Zero(2)),
               std::invalid_argument);
  EXPECT_FALSE(contactForceFromTorques(c, q, 0, Vector3d::Zero(), Vector3d::Zero(), q).well_posed);
}
