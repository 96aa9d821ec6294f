// SPDX-License-Identifier: GPL-3.0-or-later
// Forward dynamics checked against Newton-Euler, against chains whose locked rows are rebuilt
// as fixed DH rows, and by energy conservation of the unforced motion.
#include "handsim/dynamics/forward_dynamics.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <stdexcept>
#include <vector>

#include "handsim/dynamics/energy.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "test_chains.hpp"

using namespace handsim;
using namespace handsim::dynamics;
using namespace handsim::dynamics::test;

namespace {

/// The chain with movable joint j frozen at q[j]: its DH row becomes a Fixed row whose
/// theta (revolute) or d (prismatic) absorbs the joint value. An independent model of the
/// locked joint: no masks, no reduced matrices.
kinematics::Chain freezeJoint(const kinematics::Chain& chain, int j, double qj) {
  kinematics::Chain out = chain;
  kinematics::DhRow& row = out.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
  (row.type == kinematics::JointType::Revolute ? row.theta : row.d) += qj;
  row.type = kinematics::JointType::Fixed;
  return out;
}

/// v without the entries whose bit is set in mask.
Eigen::VectorXd dropMasked(const Eigen::VectorXd& v, std::uint32_t mask) {
  std::vector<double> kept;
  for (int i = 0; i < v.size(); ++i)
    if (((mask >> i) & 1U) == 0) kept.push_back(v[i]);
  return Eigen::Map<const Eigen::VectorXd>(kept.data(), static_cast<Eigen::Index>(kept.size()));
}

struct State {
  Eigen::VectorXd q, qd;
};

/// One classical Runge-Kutta step of qdd = forwardDynamics(q, qd, 0).
State rk4Step(const kinematics::Chain& chain, const State& s, double dt, const Eigen::Vector3d& g,
              std::uint32_t mask) {
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(s.q.size());
  const auto acc = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& qd) {
    return Eigen::VectorXd(forwardDynamics(chain, q, qd, zero, g, mask));
  };
  const Eigen::VectorXd k1q = s.qd, k1v = acc(s.q, s.qd);
  const Eigen::VectorXd k2q = s.qd + 0.5 * dt * k1v, k2v = acc(s.q + 0.5 * dt * k1q, k2q);
  const Eigen::VectorXd k3q = s.qd + 0.5 * dt * k2v, k3v = acc(s.q + 0.5 * dt * k2q, k3q);
  const Eigen::VectorXd k4q = s.qd + dt * k3v, k4v = acc(s.q + dt * k3q, k4q);
  return {s.q + dt / 6.0 * (k1q + 2.0 * k2q + 2.0 * k3q + k4q),
          s.qd + dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)};
}

/// Largest |E(t) - E(0)| over an unforced RK4 run, relative to the largest kinetic energy seen.
double energyDrift(const kinematics::Chain& chain, State s, double dt, double duration,
                   const Eigen::Vector3d& g, std::uint32_t mask = 0) {
  const auto total = [&](const State& x) {
    return kineticEnergy(chain, x.q, x.qd) + potentialEnergy(chain, x.q, g);
  };
  const double e0 = total(s);
  double worst = 0.0, k_max = 0.0;
  const int steps = static_cast<int>(std::lround(duration / dt));
  for (int i = 0; i < steps; ++i) {
    s = rk4Step(chain, s, dt, g, mask);
    worst = std::max(worst, std::abs(total(s) - e0));
    k_max = std::max(k_max, kineticEnergy(chain, s.q, s.qd));
  }
  return worst / k_max;
}

}  // namespace

TEST(ForwardDynamics, InvertsNewtonEuler) {
  std::mt19937 rng(21);
  std::vector<kinematics::Chain> chains = {barrettFinger(false), barrettFinger(true)};
  for (int i = 0; i < 60; ++i) chains.push_back(randomChain(rng));
  for (const auto& chain : chains) {
    const int n = chain.dof();
    const Eigen::VectorXd q = randomVector(rng, n, kPi), qd = randomVector(rng, n, 5.0),
                          qdd = randomVector(rng, n, 20.0);
    const Eigen::Vector3d g = randomGravity(rng);
    const kinematics::JointVector tau = inverseDynamicsNewtonEuler(chain, q, qd, qdd, g);
    EXPECT_LT(relativeError(forwardDynamics(chain, q, qd, tau, g), qdd), 1e-9);
  }
}

// The BarrettHand cases: spread locked (finger 1 becomes finger 3 at that spread angle) and the
// breakaway clutch (inner joint 2 locked while joint 3 keeps moving).
TEST(ForwardDynamics, LockedBarrettJointEqualsFixedRow) {
  const kinematics::Chain f1 = barrettFinger(false);
  const Eigen::Vector3d g(0.0, 0.0, -9.81);
  const Eigen::Vector3d q(0.3, 0.9, 0.4), qd(0.5, -1.2, 2.0), tau(0.05, -0.1, 0.02);
  for (int j : {0, 1, 2}) {
    const std::uint32_t mask = 1U << j;
    const kinematics::JointVector locked = forwardDynamics(f1, q, qd, tau, g, mask);
    const kinematics::Chain frozen = freezeJoint(f1, j, q[j]);
    const kinematics::JointVector reduced = forwardDynamics(
        frozen, dropMasked(q, mask), dropMasked(qd, mask), dropMasked(tau, mask), g);
    EXPECT_EQ(locked[j], 0.0);
    EXPECT_LT(relativeError(dropMasked(locked, mask), reduced), 1e-12) << "joint " << j;
  }
  // Finger 3 built from the table (first row fixed at theta = 0) is finger 1 with q1 locked at 0.
  const Eigen::Vector3d q0(0.0, 0.9, 0.4), qd0(0.0, -1.2, 2.0);
  const kinematics::JointVector f3 =
      forwardDynamics(barrettFinger(true), q0.tail<2>(), qd0.tail<2>(), tau.tail<2>(), g);
  const kinematics::JointVector f1_locked = forwardDynamics(f1, q0, qd0, tau, g, 1U);
  EXPECT_LT(relativeError(f1_locked.tail(2), f3), 1e-12);
}

TEST(ForwardDynamics, LockedJointsEqualFixedRowsOnRandomChains) {
  std::mt19937 rng(22);
  int checked = 0;
  for (int i = 0; i < 200; ++i) {
    const kinematics::Chain chain = randomChain(rng);
    const int n = chain.dof();
    if (n < 2) continue;
    std::uniform_int_distribution<std::uint32_t> masks(1U, (1U << n) - 2U);
    const std::uint32_t mask = masks(rng);
    const Eigen::VectorXd q = randomVector(rng, n, kPi), qd = randomVector(rng, n, 5.0),
                          tau = randomVector(rng, n, 1.0);
    const Eigen::Vector3d g = randomGravity(rng);
    kinematics::Chain frozen = chain;
    // Freeze from the last joint backwards so earlier joint indices stay valid.
    for (int j = n - 1; j >= 0; --j)
      if ((mask >> j) & 1U) frozen = freezeJoint(frozen, j, q[j]);
    // The locked joints' velocities are ignored: pass garbage there.
    Eigen::VectorXd qd_garbage = qd;
    for (int j = 0; j < n; ++j)
      if ((mask >> j) & 1U) qd_garbage[j] = 100.0;
    const kinematics::JointVector locked = forwardDynamics(chain, q, qd_garbage, tau, g, mask);
    const kinematics::JointVector reduced = forwardDynamics(
        frozen, dropMasked(q, mask), dropMasked(qd, mask), dropMasked(tau, mask), g);
    for (int j = 0; j < n; ++j) {
      if ((mask >> j) & 1U) {
        EXPECT_EQ(locked[j], 0.0);
      }
    }
    EXPECT_LT(relativeError(dropMasked(locked, mask), reduced), 1e-9);
    ++checked;
  }
  EXPECT_GT(checked, 50);
  std::cout << "[ locked  ] " << checked << " random chains checked\n";
}

TEST(ForwardDynamics, AllJointsLockedGivesZero) {
  const kinematics::Chain f1 = barrettFinger(false);
  const Eigen::Vector3d q(0.3, 0.9, 0.4), qd(0.5, -1.2, 2.0), tau(0.05, -0.1, 0.02);
  EXPECT_EQ(forwardDynamics(f1, q, qd, tau, Eigen::Vector3d(0, 0, -9.81), 7U).norm(), 0.0);
}

TEST(ForwardDynamics, RejectsBadArguments) {
  const kinematics::Chain f3 = barrettFinger(true);
  const Eigen::VectorXd ok = Eigen::VectorXd::Zero(2), bad = Eigen::VectorXd::Zero(3);
  const Eigen::Vector3d g(0, 0, -9.81);
  EXPECT_THROW(forwardDynamics(f3, bad, ok, ok, g), std::invalid_argument);
  EXPECT_THROW(forwardDynamics(f3, ok, bad, ok, g), std::invalid_argument);
  EXPECT_THROW(forwardDynamics(f3, ok, ok, bad, g), std::invalid_argument);
  EXPECT_THROW(forwardDynamics(f3, ok, ok, ok, g, 4U), std::invalid_argument);
  EXPECT_NO_THROW(forwardDynamics(f3, ok, ok, ok, g, 3U));
}

// Unforced, undamped motion conserves K + P. RK4 with dt = 0.1 ms over 5 s of the Barrett finger
// swinging under gravity (energy computed from link velocities, not from D). The measured drift
// is printed for docs/dynamics.md (9e-11 free, 6e-14 with joint 2 locked); the bound is ~10x
// above it.
TEST(ForwardDynamics, ConservesEnergyBarrett) {
  const Eigen::Vector3d g(0.0, 0.0, -9.81);
  const kinematics::Chain f1 = barrettFinger(false);
  const State s0{Eigen::Vector3d(0.3, 0.9, 0.4), Eigen::Vector3d(2.0, -3.0, 4.0)};
  const double drift = energyDrift(f1, s0, 1e-4, 5.0, g);
  std::cout << "[ energy  ] Barrett F1, RK4 dt 1e-4 s, 5 s: max |dE| / max K = " << drift << "\n";
  EXPECT_LT(drift, 1e-9);
  // The breakaway state: joint 2 locked (so at rest), joints 1 and 3 free.
  State s_locked = s0;
  s_locked.qd[1] = 0.0;
  const double drift_locked = energyDrift(f1, s_locked, 1e-4, 5.0, g, 2U);
  std::cout << "[ energy  ] Barrett F1, joint 2 locked, same run: " << drift_locked << "\n";
  EXPECT_LT(drift_locked, 1e-9);
}

// What is left of the drift is the integrator's: halving dt divides it by about 2^4 = 16 (RK4).
// A modelling error (e.g. an H that is not the Christoffel term of D) would leave a drift that
// does not vanish with dt.
TEST(ForwardDynamics, EnergyErrorShrinksAtFourthOrder) {
  const Eigen::Vector3d g(0.0, 0.0, -9.81);
  const kinematics::Chain f1 = barrettFinger(false);
  const State s0{Eigen::Vector3d(0.3, 0.9, 0.4), Eigen::Vector3d(2.0, -3.0, 4.0)};
  const double coarse = energyDrift(f1, s0, 1e-3, 5.0, g);
  const double fine = energyDrift(f1, s0, 5e-4, 5.0, g);
  std::cout << "[ energy  ] Barrett F1, 5 s: dt 1e-3 -> " << coarse << ", dt 5e-4 -> " << fine
            << " (ratio " << coarse / fine << ")\n";
  EXPECT_GT(coarse / fine, 10.0);
}

// Same on random chains with prismatic and fixed rows (8 chains, 2 s each).
TEST(ForwardDynamics, ConservesEnergyRandomChains) {
  std::mt19937 rng(23);
  double worst = 0.0;
  for (int i = 0; i < 8; ++i) {
    const kinematics::Chain chain = randomChain(rng, 5);
    const int n = chain.dof();
    const State s0{randomVector(rng, n, kPi), randomVector(rng, n, 2.0)};
    worst = std::max(worst, energyDrift(chain, s0, 1e-4, 2.0, randomGravity(rng)));
  }
  std::cout << "[ energy  ] random chains, RK4 dt 1e-4 s, 2 s: worst max |dE| / max K = " << worst
            << "\n";
  EXPECT_LT(worst, 1e-8);  // measured 4.2e-10
}
