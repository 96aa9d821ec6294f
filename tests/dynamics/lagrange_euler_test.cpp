// SPDX-License-Identifier: GPL-3.0-or-later
// Lagrange-Euler checked against: recursive Newton-Euler, a literal O(n^4) transcription of
// Fu, Gonzalez & Lee's sums (section 3.2), finite differences of the energies, and the planar
// two-link arm worked by hand.
#include "handsim/dynamics/lagrange_euler.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "handsim/dynamics/energy.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "handsim/dynamics/pseudo_inertia.hpp"
#include "test_chains.hpp"

using namespace handsim;
using namespace handsim::dynamics;
using namespace handsim::dynamics::test;

namespace {

/// The chains every property below is checked on: both Barrett fingers and random chains.
std::vector<kinematics::Chain> testChains() {
  std::vector<kinematics::Chain> chains = {barrettFinger(false), barrettFinger(true)};
  std::mt19937 rng(2024);
  for (int i = 0; i < 60; ++i) chains.push_back(randomChain(rng));
  return chains;
}

/// Fu et al.'s derivative matrix Q for a joint type.
Eigen::Matrix4d qMatrix(kinematics::JointType type) {
  Eigen::Matrix4d q = Eigen::Matrix4d::Zero();
  if (type == kinematics::JointType::Revolute) {
    q(0, 1) = -1.0;
    q(1, 0) = 1.0;
  } else {
    q(2, 3) = 1.0;
  }
  return q;
}

/// The product A_1 ... A_j with Q inserted before A_row_a and before A_row_b (-1: none): Fu et
/// al.'s U_ji = dT_j/dq_i and U_jik = d^2 T_j / dq_i dq_k by their definition.
Eigen::Matrix4d uMatrix(const kinematics::Chain& chain, const Eigen::VectorXd& q_rows, int j,
                        int row_a, int row_b) {
  Eigen::Matrix4d t = Eigen::Matrix4d::Identity();
  for (int r = 0; r <= j; ++r) {
    const auto& row = chain.rows[static_cast<std::size_t>(r)];
    if (r == row_a) t = t * qMatrix(row.type);
    if (r == row_b) t = t * qMatrix(row.type);
    t = t * kinematics::dhTransform(row, q_rows[r]).matrix();
  }
  return t;
}

/// D, H, C by the textbook sums, one term at a time (O(n^4)); shares only the DH transform and
/// the pseudo-inertia (tested against point masses in inertia_test.cpp) with the library.
DynamicsTerms textbookLagrangeEuler(const kinematics::Chain& chain, const Eigen::VectorXd& q,
                                    const Eigen::VectorXd& qd, const Eigen::Vector3d& g) {
  const int n = static_cast<int>(chain.rows.size());
  const int dof = chain.dof();
  Eigen::VectorXd q_rows = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < dof; ++i) q_rows[chain.rowOfJoint(i)] = q[i];
  const Eigen::Vector4d g4(g.x(), g.y(), g.z(), 0.0);
  DynamicsTerms out;
  out.D.setZero(dof, dof);
  out.H.setZero(dof);
  out.C.setZero(dof);
  for (int i = 0; i < dof; ++i) {
    const int ri = chain.rowOfJoint(i);
    for (int j = ri; j < n; ++j) {
      const kinematics::LinkInertia& link = chain.links[static_cast<std::size_t>(j)];
      const Eigen::Matrix4d pj = pseudoInertia(link);
      const Eigen::Matrix4d uji = uMatrix(chain, q_rows, j, ri, -1);
      const Eigen::Vector4d rj(link.com.x(), link.com.y(), link.com.z(), 1.0);
      out.C[i] -= link.mass * g4.dot(uji * rj);
      for (int k = 0; k < dof; ++k) {
        const int rk = chain.rowOfJoint(k);
        if (rk > j) continue;
        out.D(i, k) += (uMatrix(chain, q_rows, j, rk, -1) * pj * uji.transpose()).trace();
        for (int m = 0; m < dof; ++m) {
          const int rm = chain.rowOfJoint(m);
          if (rm > j) continue;
          const double hikm = (uMatrix(chain, q_rows, j, rk, rm) * pj * uji.transpose()).trace();
          out.H[i] += hikm * qd[k] * qd[m];
        }
      }
    }
  }
  return out;
}

double maxAbs(const Eigen::Ref<const Eigen::MatrixXd>& m) {
  return m.cwiseAbs().maxCoeff();
}

}  // namespace

TEST(LagrangeEuler, MatchesTextbookSums) {
  std::mt19937 rng(11);
  for (const auto& chain : testChains()) {
    const int n = chain.dof();
    const Eigen::VectorXd q = randomVector(rng, n, kPi), qd = randomVector(rng, n, 3.0);
    const Eigen::Vector3d g = randomGravity(rng);
    const DynamicsTerms fast = lagrangeEuler(chain, q, qd, g);
    const DynamicsTerms ref = textbookLagrangeEuler(chain, q, qd, g);
    EXPECT_LT(maxAbs(fast.D - ref.D), 1e-12 * std::max(1.0, maxAbs(ref.D))) << chain.rows.size();
    EXPECT_LT(relativeError(fast.H, ref.H), 1e-10);
    EXPECT_LT(relativeError(fast.C, ref.C), 1e-10);
  }
}

TEST(LagrangeEuler, InverseDynamicsMatchesNewtonEuler) {
  std::mt19937 rng(12);
  double worst = 0.0;
  for (const auto& chain : testChains()) {
    for (int trial = 0; trial < 20; ++trial) {
      const int n = chain.dof();
      const Eigen::VectorXd q = randomVector(rng, n, kPi), qd = randomVector(rng, n, 5.0),
                            qdd = randomVector(rng, n, 20.0);
      const Eigen::Vector3d g = randomGravity(rng);
      const kinematics::JointVector rnea = inverseDynamicsNewtonEuler(chain, q, qd, qdd, g);
      const kinematics::JointVector le = inverseDynamicsLagrangeEuler(chain, q, qd, qdd, g);
      const DynamicsTerms t = lagrangeEuler(chain, q, qd, g);
      const kinematics::JointVector from_terms = t.D * qdd + t.H + t.C;
      worst = std::max({worst, relativeError(le, rnea), relativeError(from_terms, rnea)});
      ASSERT_LT(relativeError(le, rnea), 1e-10) << "chain rows " << chain.rows.size();
      ASSERT_LT(relativeError(from_terms, rnea), 1e-10) << "chain rows " << chain.rows.size();
    }
  }
  RecordProperty("worst_relative_error", std::to_string(worst));
}

TEST(LagrangeEuler, TermsAreNewtonEulerSplitByInput) {
  std::mt19937 rng(13);
  for (const auto& chain : testChains()) {
    const int n = chain.dof();
    const Eigen::VectorXd q = randomVector(rng, n, kPi), qd = randomVector(rng, n, 5.0);
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
    const Eigen::Vector3d g = randomGravity(rng);
    const DynamicsTerms t = lagrangeEuler(chain, q, qd, g);
    // H = RNEA(q, qd, 0, g = 0); C = RNEA(q, 0, 0, g); column k of D = RNEA(q, 0, e_k, 0).
    EXPECT_LT(
        relativeError(t.H, inverseDynamicsNewtonEuler(chain, q, qd, zero, Eigen::Vector3d::Zero())),
        1e-10);
    EXPECT_LT(relativeError(t.C, inverseDynamicsNewtonEuler(chain, q, zero, zero, g)), 1e-10);
    for (int k = 0; k < n; ++k) {
      const Eigen::VectorXd e = Eigen::VectorXd::Unit(n, k);
      EXPECT_LT(relativeError(t.D.col(k), inverseDynamicsNewtonEuler(chain, q, zero, e,
                                                                     Eigen::Vector3d::Zero())),
                1e-10);
    }
  }
}

TEST(LagrangeEuler, InertiaMatrixIsSymmetricPositiveDefinite) {
  std::mt19937 rng(14);
  for (const auto& chain : testChains()) {
    for (int trial = 0; trial < 10; ++trial) {
      const int n = chain.dof();
      const Eigen::VectorXd q = randomVector(rng, n, kPi);
      const kinematics::JointMatrix d =
          lagrangeEuler(chain, q, Eigen::VectorXd::Zero(n), Eigen::Vector3d::Zero()).D;
      ASSERT_EQ(d.rows(), n);
      ASSERT_EQ(d.cols(), n);
      EXPECT_EQ(maxAbs(d - d.transpose()), 0.0);
      const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig{Eigen::MatrixXd(d)};
      EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0) << eig.eigenvalues().transpose();
    }
  }
}

// K = 1/2 qd^T D qd, with K from link velocities (energy.cpp), not from D.
TEST(LagrangeEuler, InertiaMatrixGivesKineticEnergy) {
  std::mt19937 rng(15);
  for (const auto& chain : testChains()) {
    const int n = chain.dof();
    const Eigen::VectorXd q = randomVector(rng, n, kPi), qd = randomVector(rng, n, 5.0);
    const kinematics::JointMatrix d = lagrangeEuler(chain, q, qd, Eigen::Vector3d::Zero()).D;
    const double k = kineticEnergy(chain, q, qd);
    EXPECT_NEAR(0.5 * qd.dot(d * qd), k, 1e-12 * std::max(1.0, k));
  }
}

// Christoffel form: H = Ddot qd - 1/2 d/dq (qd^T D qd), derivatives by central differences.
TEST(LagrangeEuler, CoriolisMatchesChristoffelFiniteDifferences) {
  std::mt19937 rng(16);
  const double h = 1e-6;
  for (const auto& chain : testChains()) {
    const int n = chain.dof();
    const Eigen::VectorXd q = randomVector(rng, n, kPi), qd = randomVector(rng, n, 3.0);
    const Eigen::Vector3d g0 = Eigen::Vector3d::Zero();
    const auto mass = [&](const Eigen::VectorXd& x) {
      return Eigen::MatrixXd(lagrangeEuler(chain, x, qd, g0).D);
    };
    const Eigen::MatrixXd d_dot = (mass(q + h * qd) - mass(q - h * qd)) / (2.0 * h);
    Eigen::VectorXd grad(n);
    for (int i = 0; i < n; ++i) {
      const Eigen::VectorXd e = h * Eigen::VectorXd::Unit(n, i);
      grad[i] = (qd.dot(mass(q + e) * qd) - qd.dot(mass(q - e) * qd)) / (2.0 * h);
    }
    const Eigen::VectorXd expected = d_dot * qd - 0.5 * grad;
    const kinematics::JointVector got = lagrangeEuler(chain, q, qd, g0).H;
    EXPECT_LT((got - expected).norm(), 1e-6 * std::max(1e-3, expected.norm()));
  }
}

// C = dP/dq with P = -sum m g^T p_com (energy.cpp), by central differences.
TEST(LagrangeEuler, GravityIsGradientOfPotentialEnergy) {
  std::mt19937 rng(17);
  const double h = 1e-6;
  for (const auto& chain : testChains()) {
    const int n = chain.dof();
    const Eigen::VectorXd q = randomVector(rng, n, kPi);
    const Eigen::Vector3d g = randomGravity(rng);
    Eigen::VectorXd grad(n);
    for (int i = 0; i < n; ++i) {
      const Eigen::VectorXd e = h * Eigen::VectorXd::Unit(n, i);
      grad[i] = (potentialEnergy(chain, q + e, g) - potentialEnergy(chain, q - e, g)) / (2.0 * h);
    }
    const kinematics::JointVector c = lagrangeEuler(chain, q, Eigen::VectorXd::Zero(n), g).C;
    EXPECT_LT((c - grad).norm(), 1e-7 * std::max(1.0, grad.norm()));
  }
}

// Power balance along a trajectory: dK/dt = qd^T (tau - C) for any applied tau, since
// qd^T (H - 1/2 Ddot qd) = 0. K from link velocities, d/dt by central differences along a
// motion through (q, qd, qdd), tau = Newton-Euler's torque for that motion, C from
// Lagrange-Euler.
TEST(LagrangeEuler, PowerBalance) {
  std::mt19937 rng(18);
  const double h = 1e-6;
  for (const auto& chain : testChains()) {
    const int n = chain.dof();
    const Eigen::VectorXd q = randomVector(rng, n, kPi), qd = randomVector(rng, n, 3.0),
                          qdd = randomVector(rng, n, 10.0);
    const Eigen::Vector3d g = randomGravity(rng);
    const kinematics::JointVector tau = inverseDynamicsNewtonEuler(chain, q, qd, qdd, g);
    const kinematics::JointVector c = lagrangeEuler(chain, q, qd, g).C;
    // Second-order Taylor path through (q, qd, qdd).
    const auto kinetic = [&](double t) {
      return kineticEnergy(chain, q + t * qd + 0.5 * t * t * qdd, qd + t * qdd);
    };
    const double k_dot = (kinetic(h) - kinetic(-h)) / (2.0 * h);
    const double power = qd.dot(Eigen::VectorXd(tau - c));
    EXPECT_NEAR(k_dot, power, 1e-6 * std::max(1.0, std::abs(power)));
  }
}

// Planar two-link arm with point masses at the link ends (a = l1, l2, alpha = 0), worked by
// hand: D11 = m1 l1^2 + m2 (l1^2 + l2^2 + 2 l1 l2 c2), D12 = m2 (l2^2 + l1 l2 c2),
// D22 = m2 l2^2, h1 = -m2 l1 l2 s2 (2 qd1 qd2 + qd2^2), h2 = m2 l1 l2 s2 qd1^2,
// c1 = (m1 + m2) g l1 c1 + m2 g l2 c12, c2 = m2 g l2 c12 with gravity -g along y0.
TEST(LagrangeEuler, PlanarTwoLinkArmByHand) {
  const double l1 = 0.3, l2 = 0.2, m1 = 1.5, m2 = 0.7, g = 9.81;
  kinematics::Chain c;
  c.name = "planar";
  for (double l : {l1, l2}) {
    kinematics::DhRow r;
    r.a = l;
    c.rows.push_back(r);
    c.joint_names.push_back("J");
  }
  c.links.resize(2);
  c.links[0].mass = m1;
  c.links[1].mass = m2;
  const Eigen::Vector2d q(0.4, -1.1), qd(1.3, -0.7);
  const double c1 = std::cos(q[0]), c2 = std::cos(q[1]), s2 = std::sin(q[1]);
  const double c12 = std::cos(q[0] + q[1]);
  Eigen::Matrix2d d;
  d(0, 0) = m1 * l1 * l1 + m2 * (l1 * l1 + l2 * l2 + 2 * l1 * l2 * c2);
  d(0, 1) = d(1, 0) = m2 * (l2 * l2 + l1 * l2 * c2);
  d(1, 1) = m2 * l2 * l2;
  const Eigen::Vector2d hv(-m2 * l1 * l2 * s2 * (2 * qd[0] * qd[1] + qd[1] * qd[1]),
                           m2 * l1 * l2 * s2 * qd[0] * qd[0]);
  const Eigen::Vector2d cv((m1 + m2) * g * l1 * c1 + m2 * g * l2 * c12, m2 * g * l2 * c12);
  const DynamicsTerms t = lagrangeEuler(c, q, qd, Eigen::Vector3d(0, -g, 0));
  EXPECT_LT(maxAbs(t.D - d), 1e-14);
  EXPECT_LT((t.H - hv).norm(), 1e-14);
  EXPECT_LT((t.C - cv).norm(), 1e-13);
}

// Worked by hand: a body of mass m on a vertical slide (one prismatic row, z0 up) needs
// C = m g to hold it and has D = m, H = 0, whatever the slide position; a revolute joint about
// the vertical base axis z0 (the Barrett spread joint with gravity along -z0) carries no gravity
// torque in any posture.
TEST(LagrangeEuler, VerticalSlideAndVerticalAxisByHand) {
  kinematics::Chain slide;
  slide.name = "slide";
  kinematics::DhRow row;
  row.type = kinematics::JointType::Prismatic;
  row.a = 0.02;
  slide.rows.push_back(row);
  slide.joint_names.push_back("S");
  std::mt19937 rng(19);
  slide.links.push_back(randomLink(rng));
  const double m = slide.links[0].mass;
  const Eigen::Vector3d g(0.0, 0.0, -9.81);
  const Eigen::VectorXd q = Eigen::VectorXd::Constant(1, 0.3),
                        qd = Eigen::VectorXd::Constant(1, 2.0);
  const DynamicsTerms t = lagrangeEuler(slide, q, qd, g);
  EXPECT_NEAR(t.D(0, 0), m, 1e-15);
  EXPECT_NEAR(t.H[0], 0.0, 1e-15);
  EXPECT_NEAR(t.C[0], m * 9.81, 1e-14);

  const kinematics::Chain f1 = barrettFinger(false);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::VectorXd qf = randomVector(rng, 3, kPi);
    EXPECT_NEAR(lagrangeEuler(f1, qf, Eigen::VectorXd::Zero(3), g).C[0], 0.0, 1e-15);
  }
}

TEST(LagrangeEuler, RejectsWrongSizes) {
  const kinematics::Chain f1 = barrettFinger(false);
  const Eigen::VectorXd ok = Eigen::VectorXd::Zero(3), bad = Eigen::VectorXd::Zero(2);
  const Eigen::Vector3d g(0, 0, -9.81);
  EXPECT_THROW(lagrangeEuler(f1, bad, ok, g), std::invalid_argument);
  EXPECT_THROW(lagrangeEuler(f1, ok, bad, g), std::invalid_argument);
  EXPECT_THROW(inverseDynamicsLagrangeEuler(f1, ok, ok, bad, g), std::invalid_argument);
  EXPECT_THROW(inverseDynamicsNewtonEuler(f1, ok, bad, ok, g), std::invalid_argument);
  EXPECT_THROW(kineticEnergy(f1, ok, bad), std::invalid_argument);
  EXPECT_THROW(potentialEnergy(f1, bad, g), std::invalid_argument);
  try {
    inverseDynamicsNewtonEuler(f1, ok, ok, bad, g);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("qdd"), std::string::npos) << e.what();
  }
}

TEST(LagrangeEuler, RejectsMalformedChains) {
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(3);
  const Eigen::Vector3d g(0, 0, -9.81);
  kinematics::Chain missing_link = barrettFinger(false);
  missing_link.links.pop_back();
  EXPECT_THROW(lagrangeEuler(missing_link, zero, zero, g), std::invalid_argument);
  EXPECT_THROW(inverseDynamicsNewtonEuler(missing_link, zero, zero, zero, g),
               std::invalid_argument);
  EXPECT_THROW(kineticEnergy(missing_link, zero, zero), std::invalid_argument);

  // Chains have no fixed length: 40 rows (37 fixed ones with mass after the finger) are
  // accepted, and the two independent inverse dynamics agree on them.
  kinematics::Chain long_chain = barrettFinger(false);
  while (long_chain.rows.size() < 40) {
    long_chain.rows.push_back(long_chain.rows.back());
    long_chain.rows.back().type = kinematics::JointType::Fixed;
    long_chain.links.push_back(long_chain.links.back());
    long_chain.joint_names.push_back("extra");
  }
  const Eigen::VectorXd q = Eigen::Vector3d(0.3, 0.9, 0.4), qd = Eigen::Vector3d(0.5, -1.2, 2.0),
                        qdd = Eigen::Vector3d(1.0, 2.0, -3.0);
  const Eigen::VectorXd le = inverseDynamicsLagrangeEuler(long_chain, q, qd, qdd, g);
  const Eigen::VectorXd ne = inverseDynamicsNewtonEuler(long_chain, q, qd, qdd, g);
  EXPECT_LT((le - ne).norm(), 1e-9 * (1.0 + ne.norm()))
      << le.transpose() << " / " << ne.transpose();
  EXPECT_GT(ne.norm(), 0.0);
}
