// SPDX-License-Identifier: GPL-3.0-or-later
// The dynamics functions run every simulation step, so they must not touch the heap. This file
// interposes glibc's malloc for the test program with a counting wrapper (Eigen allocates with
// malloc, operator new ends in malloc too). Sanitizers that replace malloc themselves (ASan,
// TSan, MSan) must keep theirs, so there the counter is left out and the test is skipped.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>

#include "handsim/dynamics/energy.hpp"
#include "handsim/dynamics/forward_dynamics.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "test_chains.hpp"

#include "../support/count_malloc.hpp"

using handsim::test::g_allocations;

using namespace handsim;
using namespace handsim::dynamics;
using namespace handsim::dynamics::test;

TEST(DynamicsHotPath, DoesNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  const kinematics::Chain f1 = barrettFinger(false);
  const Eigen::VectorXd q = Eigen::Vector3d(0.3, 0.9, 0.4), qd = Eigen::Vector3d(0.5, -1.2, 2.0),
                        qdd = Eigen::Vector3d(1.0, 2.0, -3.0),
                        tau = Eigen::Vector3d(0.1, 0.0, 0.02);
  const Eigen::Vector3d g(0.0, 0.0, -9.81);
  const long before = g_allocations.load();
  double sink = 0.0;
  for (int i = 0; i < 10; ++i) {
    sink += lagrangeEuler(f1, q, qd, g).D(0, 0);
    sink += inverseDynamicsLagrangeEuler(f1, q, qd, qdd, g)[0];
    sink += inverseDynamicsNewtonEuler(f1, q, qd, qdd, g)[0];
    sink += forwardDynamics(f1, q, qd, tau, g)[0];
    sink += forwardDynamics(f1, q, qd, tau, g, 2U)[0];
    sink += kineticEnergy(f1, q, qd) + potentialEnergy(f1, q, g);
  }
  const long after = g_allocations.load();
  EXPECT_EQ(after - before, 0);
  EXPECT_TRUE(std::isfinite(sink));
  // The counter itself works: a dynamic-size Eigen vector allocates.
  const Eigen::VectorXd heap = q + qd;
  EXPECT_GT(g_allocations.load(), after);
  EXPECT_EQ(heap.size(), 3);
}
