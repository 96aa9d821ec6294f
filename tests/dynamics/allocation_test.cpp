// SPDX-License-Identifier: GPL-3.0-or-later
// The kinematics and dynamics the simulation step runs (forward kinematics into a state's
// frames, Lagrange-Euler into its workspace, the contact Jacobian's entries) must not touch the
// heap once their buffers hold the chain, for a chain of any length. This file interposes
// glibc's malloc for the test program with a counting wrapper (Eigen allocates with malloc,
// operator new ends in malloc too). Sanitizers that replace malloc themselves (ASan, TSan, MSan)
// must keep theirs, so there the counter is left out and the test is skipped. (The functions
// that return joint-space vectors by value, e.g. inverseDynamicsNewtonEuler, allocate them:
// the step does not call them.)
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>

#include "handsim/contact/contact_jacobian.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "test_chains.hpp"

#include "../support/count_malloc.hpp"

using handsim::test::g_allocations;

using namespace handsim;
using namespace handsim::dynamics;
using namespace handsim::dynamics::test;

namespace {

// Allocations of ten rounds of the step's kinematics and dynamics on `chains` (in turn, so the
// buffers go from a short chain to a long one and back), after one warm-up round.
long stepPathAllocations(const std::vector<kinematics::Chain>& chains, double& sink) {
  std::vector<Eigen::VectorXd> q, qd;
  for (const auto& c : chains) {
    q.push_back(Eigen::VectorXd::LinSpaced(c.dof(), 0.1, 0.9));
    qd.push_back(Eigen::VectorXd::LinSpaced(c.dof(), -1.0, 2.0));
  }
  const Eigen::Vector3d g(0.0, 0.0, -9.81);
  std::vector<kinematics::ChainFrames> frames(chains.size());
  std::vector<DynamicsTerms> terms(chains.size());
  std::vector<Eigen::VectorXd> external(chains.size());
  LagrangeEulerScratch scratch;  // one for all chains, as in the step's workspace
  kinematics::Jacobian jac;
  long before = 0;
  for (int round = 0; round < 11; ++round) {
    if (round == 1) before = g_allocations.load();
    for (std::size_t i = 0; i < chains.size(); ++i) {
      const kinematics::Chain& c = chains[i];
      kinematics::forwardKinematics(c, q[i], frames[i]);
      lagrangeEuler(c, frames[i], qd[i], g, terms[i], scratch);
      external[i].setZero(c.dof());
      const int last = static_cast<int>(c.rows.size()) - 1;
      contact::visitLinkPointJacobianTranspose(
          c, frames[i], last, frames[i].tip().translation(), g,
          [&external, i](int j, double v) { external[i][j] += v; });
      contact::visitLinkAngularJacobianTranspose(
          c, frames[i], last, g, [&external, i](int j, double v) { external[i][j] += v; });
      sink += terms[i].D(0, 0) + terms[i].H[0] + terms[i].C[0] + external[i][0] +
              contact::linkPointVelocity(c, frames[i], last, Eigen::Vector3d::Zero(), qd[i]).x();
    }
  }
  return g_allocations.load() - before;
}

}  // namespace

TEST(DynamicsHotPath, DoesNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  // A BarrettHand finger and chains of 13 and 40 rows (an arm with a hand on it, and more).
  std::mt19937 rng(5);
  std::vector<kinematics::Chain> chains = {barrettFinger(false), randomChain(rng, 8)};
  for (const int rows : {13, 40}) {
    kinematics::Chain c;
    do {
      c = randomChain(rng, rows);
    } while (static_cast<int>(c.rows.size()) < rows);
    chains.push_back(c);
  }
  chains.push_back(barrettFinger(false));
  double sink = 0.0;
  EXPECT_EQ(stepPathAllocations(chains, sink), 0);
  EXPECT_TRUE(std::isfinite(sink));
  // The counter itself works: a dynamic-size Eigen vector allocates.
  const long after = g_allocations.load();
  const Eigen::VectorXd heap = Eigen::VectorXd::Ones(5) * sink;
  EXPECT_GT(g_allocations.load(), after);
  EXPECT_EQ(heap.size(), 5);
}
