// SPDX-License-Identifier: GPL-3.0-or-later
// General-placement rows (the URDF joint form): a DH chain rewritten as placement rows gives
// the same frames, Jacobians and dynamics; random placement chains are checked against finite
// differences, the energy and the independent Newton-Euler code.
#include <gtest/gtest.h>

#include <random>

#include "handsim/dynamics/energy.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "test_chains.hpp"

namespace handsim::dynamics {
namespace {

using kinematics::Chain;
using kinematics::DhRow;
using kinematics::JointType;
using kinematics::LinkInertia;

/// The link described in coordinates x' = f * x.
LinkInertia moveLink(const LinkInertia& l, const Eigen::Isometry3d& f) {
  const Eigen::Matrix3d one = Eigen::Matrix3d::Identity();
  const Eigen::Matrix3d ic =
      l.inertia - l.mass * (l.com.squaredNorm() * one - l.com * l.com.transpose());
  LinkInertia out;
  out.mass = l.mass;
  out.com = f * l.com;
  out.inertia = f.linear() * ic * f.linear().transpose() +
                l.mass * (out.com.squaredNorm() * one - out.com * out.com.transpose());
  return out;
}

/// A DH row is M(q) F with M the motion about/along z and F = dhTransform(row, 0). The same
/// chain in placement rows: row r = placement F_{r-1} (identity for r = 0), motion about z, and
/// a final fixed row F_{n-1}. Frame {r+1} of the new chain is DH frame {r+1} times F_r^-1; the
/// last one is the DH tip.
Chain toPlacementRows(const Chain& c, std::vector<Eigen::Isometry3d>& f) {
  Chain out;
  out.name = c.name;
  out.base = c.base;
  Eigen::Isometry3d prev = Eigen::Isometry3d::Identity();
  f.clear();
  for (std::size_t r = 0; r < c.rows.size(); ++r) {
    const DhRow& row = c.rows[r];
    out.rows.push_back(
        kinematics::placementRow(prev, Eigen::Vector3d::UnitZ(), row.type, row.lower, row.upper));
    out.joint_names.push_back(c.joint_names[r]);
    prev = kinematics::dhTransform(row, 0.0);
    f.push_back(prev);
    out.links.push_back(moveLink(c.links[r], prev));
  }
  out.rows.push_back(kinematics::placementRow(prev, Eigen::Vector3d::UnitZ(), JointType::Fixed));
  out.joint_names.push_back("tip");
  out.links.emplace_back();
  return out;
}

void expectSameChainNumbers(const Chain& dh, std::mt19937& rng) {
  std::vector<Eigen::Isometry3d> f;
  const Chain pl = toPlacementRows(dh, f);
  ASSERT_EQ(pl.dof(), dh.dof());
  const int n = dh.dof();
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::VectorXd q = test::randomVector(rng, n, 2.0);
    const Eigen::VectorXd qd = test::randomVector(rng, n, 3.0);
    const Eigen::VectorXd qdd = test::randomVector(rng, n, 5.0);
    const Eigen::Vector3d g = test::randomGravity(rng);
    const auto fd = kinematics::forwardKinematics(dh, q);
    const auto fp = kinematics::forwardKinematics(pl, q);
    const int rows = static_cast<int>(dh.rows.size());
    for (int r = 0; r < rows; ++r) {
      const Eigen::Matrix4d want = fd.at(r + 1).matrix();
      const Eigen::Matrix4d got = (fp.at(r + 1) * f[static_cast<std::size_t>(r)]).matrix();
      EXPECT_LT((got - want).cwiseAbs().maxCoeff(), 1e-12) << dh.name << " frame " << r + 1;
      // Jacobian of a point rigid with link r.
      const Eigen::Vector3d p = test::randomVector(rng, 3, 0.1);
      const auto jd = kinematics::geometricJacobian(dh, fd, r + 1, p);
      const auto jp = kinematics::geometricJacobian(pl, fp, r + 1, f[static_cast<std::size_t>(r)] * p);
      EXPECT_LT((jd - jp).cwiseAbs().maxCoeff(), 1e-12) << dh.name << " link " << r;
    }
    EXPECT_LT((fd.tip().matrix() - fp.tip().matrix()).cwiseAbs().maxCoeff(), 1e-12);
    const DynamicsTerms td = lagrangeEuler(dh, q, qd, g);
    const DynamicsTerms tp = lagrangeEuler(pl, q, qd, g);
    EXPECT_LT((td.D - tp.D).cwiseAbs().maxCoeff(), 1e-12) << dh.name;
    EXPECT_LT((td.H - tp.H).cwiseAbs().maxCoeff(), 1e-12) << dh.name;
    EXPECT_LT((td.C - tp.C).cwiseAbs().maxCoeff(), 1e-12) << dh.name;
    EXPECT_LT((inverseDynamicsNewtonEuler(dh, q, qd, qdd, g) -
               inverseDynamicsNewtonEuler(pl, q, qd, qdd, g))
                  .cwiseAbs()
                  .maxCoeff(),
              1e-12)
        << dh.name;
    EXPECT_NEAR(kineticEnergy(dh, q, qd), kineticEnergy(pl, q, qd), 1e-12);
    EXPECT_NEAR(potentialEnergy(dh, q, g), potentialEnergy(pl, q, g), 1e-12);
  }
}

TEST(PlacementRows, ShippedHandsRewrittenGiveIdenticalNumbers) {
  std::mt19937 rng(11);
  for (const std::string& id : hand::builtinHandIds()) {
    const hand::HandModel h = hand::loadHand(id);
    for (const Chain& c : h.fingers) {
      expectSameChainNumbers(c, rng);
    }
  }
}

TEST(PlacementRows, RandomDhChainsRewrittenGiveIdenticalNumbers) {
  std::mt19937 rng(12);
  for (int i = 0; i < 200; ++i) expectSameChainNumbers(test::randomChain(rng, 7), rng);
}

/// A random chain of placement rows: random placements, random unit axes, mixed types.
Chain randomPlacementChain(std::mt19937& rng) {
  std::uniform_int_distribution<int> nrows(1, 12), kind(0, 9);
  std::normal_distribution<double> gauss;
  Chain c;
  c.name = "placement";
  const int n = nrows(rng);
  for (int i = 0; i < n; ++i) {
    Eigen::Isometry3d p = Eigen::Isometry3d::Identity();
    p.linear() = Eigen::Quaterniond(gauss(rng), gauss(rng), gauss(rng), gauss(rng))
                     .normalized()
                     .toRotationMatrix();
    p.translation() = 0.05 * Eigen::Vector3d(gauss(rng), gauss(rng), gauss(rng));
    const int k = kind(rng);
    const JointType type =
        k < 6 ? JointType::Revolute : (k < 8 ? JointType::Prismatic : JointType::Fixed);
    c.rows.push_back(kinematics::placementRow(
        p, Eigen::Vector3d(gauss(rng), gauss(rng), gauss(rng)), type, -1.0, 1.0));
    c.joint_names.push_back("J" + std::to_string(i));
    c.links.push_back(test::randomLink(rng));
  }
  if (c.dof() == 0) c.rows[0].type = JointType::Revolute;
  return c;
}

TEST(PlacementRows, JacobianMatchesFiniteDifferencesOfForwardKinematics) {
  std::mt19937 rng(13);
  for (int i = 0; i < 100; ++i) {
    const Chain c = randomPlacementChain(rng);
    const Eigen::VectorXd q = test::randomVector(rng, c.dof(), 2.0);
    const auto frames = kinematics::forwardKinematics(c, q);
    for (int fi = 1; fi < frames.count; ++fi) {
      const Eigen::Vector3d p = test::randomVector(rng, 3, 0.1);
      const auto jac = kinematics::geometricJacobian(c, frames, fi, p);
      const double h = 1e-6;
      for (int j = 0; j < c.dof(); ++j) {
        Eigen::VectorXd qp = q, qm = q;
        qp[j] += h;
        qm[j] -= h;
        const auto tp = kinematics::forwardKinematics(c, qp).at(fi);
        const auto tm = kinematics::forwardKinematics(c, qm).at(fi);
        const Eigen::Vector3d v = (tp * p - tm * p) / (2 * h);
        // Angular velocity from dR/dq R^T (skew).
        const Eigen::Matrix3d w = (tp.linear() - tm.linear()) / (2 * h) *
                                  frames.at(fi).linear().transpose();
        const Eigen::Vector3d wv(w(2, 1), w(0, 2), w(1, 0));
        EXPECT_LT((jac.col(j).head<3>() - v).norm(), 1e-8);
        EXPECT_LT((jac.col(j).tail<3>() - wv).norm(), 1e-8);
      }
    }
  }
}

TEST(PlacementRows, LagrangeEulerAgreesWithNewtonEulerAndTheEnergy) {
  std::mt19937 rng(14);
  for (int i = 0; i < 300; ++i) {
    const Chain c = randomPlacementChain(rng);
    const int n = c.dof();
    const Eigen::VectorXd q = test::randomVector(rng, n, 2.0);
    const Eigen::VectorXd qd = test::randomVector(rng, n, 3.0);
    const Eigen::VectorXd qdd = test::randomVector(rng, n, 5.0);
    const Eigen::Vector3d g = test::randomGravity(rng);
    const auto le = inverseDynamicsLagrangeEuler(c, q, qd, qdd, g);
    const auto ne = inverseDynamicsNewtonEuler(c, q, qd, qdd, g);
    EXPECT_LT(test::relativeError(le, ne), 1e-10) << i;
    const DynamicsTerms t = lagrangeEuler(c, q, qd, g);
    // Kinetic energy 1/2 qd^T D qd from the link velocities.
    EXPECT_NEAR(0.5 * qd.dot(t.D * qd), kineticEnergy(c, q, qd), 1e-10);
    // Gravity torques are the gradient of the potential energy.
    for (int j = 0; j < n; ++j) {
      Eigen::VectorXd qp = q, qm = q;
      const double h = 1e-6;
      qp[j] += h;
      qm[j] -= h;
      const double grad = (potentialEnergy(c, qp, g) - potentialEnergy(c, qm, g)) / (2 * h);
      EXPECT_NEAR(t.C[j], grad, 1e-7);
    }
  }
}

}  // namespace
}  // namespace handsim::dynamics
