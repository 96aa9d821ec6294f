// SPDX-License-Identifier: GPL-3.0-or-later
// Workspace sampling checked against joint values rebuilt from the grid index, link-length
// bounds, the BarrettHand finger plane, and a brute-force reach computed here with complex
// numbers (independent of the DH code) -- including seed 003's min-reach claim.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/workspace.hpp"

using namespace handsim::kinematics;

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kDeg = kPi / 180.0;

const handsim::hand::HandModel& dexterous3() {
  static const auto h = handsim::hand::loadHand("dexterous3");
  return h;
}
const handsim::hand::HandModel& barrett() {
  static const auto h = handsim::hand::loadHand("barrett");
  return h;
}

// Planar finger J1-J3 of dexterous3 F1 (rows 2-4) in its own frame.
Chain planarFinger() {
  const Chain& f1 = dexterous3().fingers[0];
  return distalChain(f1, 2, Eigen::VectorXd::Zero(f1.dof()));
}

// Tip distance from the first axis of a planar 3R finger, by complex numbers.
double planarReach(double l1, double l2, double l3, double t2, double t3) {
  return std::abs(l1 + l2 * std::polar(1.0, t2) + l3 * std::polar(1.0, t2 + t3));
}

Chain makePlanar(double l1, double l2, double l3, double lo2, double hi2, double lo3, double hi3) {
  Chain c;
  c.name = "P";
  for (int i = 0; i < 3; ++i) {
    DhRow r;
    r.a = i == 0 ? l1 : (i == 1 ? l2 : l3);
    r.lower = i == 0 ? -kPi : (i == 1 ? lo2 : lo3);
    r.upper = i == 0 ? kPi : (i == 1 ? hi2 : hi3);
    c.rows.push_back(r);
    c.joint_names.push_back("J" + std::to_string(i + 1));
    c.links.emplace_back();
  }
  return c;
}
}  // namespace

TEST(Workspace, GridPointsAreForwardKinematicsOfTheirIndexedJointValues) {
  const Chain& f2 = dexterous3().fingers[1];  // wrist, base, J1, J2, J3: all movable
  ASSERT_EQ(f2.dof(), 5);
  WorkspaceOptions o;
  o.samples_per_joint = 3;
  const auto points = sampleWorkspace(f2, o);
  ASSERT_EQ(points.size(), 243u);  // 3^5
  for (std::size_t i = 0; i < points.size(); ++i) {
    // Rebuild the joint values from the index: base-3 digits, joint 0 most significant.
    Eigen::VectorXd q(5);
    std::size_t rest = i;
    for (int j = 4; j >= 0; --j) {
      const auto& row = f2.rows[static_cast<std::size_t>(f2.rowOfJoint(j))];
      const double k = static_cast<double>(rest % 3);
      rest /= 3;
      q[j] = row.lower + (row.upper - row.lower) * k / 2.0;
    }
    EXPECT_LT((points[i] - fingertipPosition(f2, q)).norm(), 1e-14) << "sample " << i;
  }
}

TEST(Workspace, HeldJointsAndBudget) {
  const Chain& f1 = dexterous3().fingers[0];  // wrist, J1, J2, J3
  WorkspaceOptions o;
  o.samples_per_joint = 4;
  o.held = {{0, 0.25}};
  const auto qs = workspaceJointSamples(f1, o);
  ASSERT_EQ(qs.size(), 64u);
  for (const auto& q : qs) EXPECT_EQ(q[0], 0.25);
  o.held = {{0, 4.0}};  // wrist limit is pi
  EXPECT_THROW(workspaceJointSamples(f1, o), std::invalid_argument);
  o.held = {{7, 0.0}};
  EXPECT_THROW(workspaceJointSamples(f1, o), std::invalid_argument);
  o.held.clear();
  o.max_points = 255;  // 4^4 = 256
  EXPECT_THROW(workspaceJointSamples(f1, o), std::invalid_argument);
  o.max_points = 256;
  EXPECT_EQ(workspaceJointSamples(f1, o).size(), 256u);
  o.samples_per_joint = 1;
  EXPECT_THROW(workspaceJointSamples(f1, o), std::invalid_argument);
}

TEST(Workspace, RandomSamplingIsSeededAndInsideTheLimits) {
  const Chain& f2 = dexterous3().fingers[1];
  WorkspaceOptions o;
  o.sampling = WorkspaceSampling::Random;
  o.random_samples = 2000;
  o.seed = 42;
  const auto a = workspaceJointSamples(f2, o);
  const auto b = workspaceJointSamples(f2, o);
  o.seed = 43;
  const auto c = workspaceJointSamples(f2, o);
  ASSERT_EQ(a.size(), 2000u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  const auto points = sampleWorkspace(f2, {WorkspaceSampling::Random, 10, 2000, 42, 2000000, {}});
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (int j = 0; j < f2.dof(); ++j) {
      const auto& row = f2.rows[static_cast<std::size_t>(f2.rowOfJoint(j))];
      EXPECT_GE(a[i][j], row.lower);
      EXPECT_LE(a[i][j], row.upper);
    }
    EXPECT_LT((points[i] - fingertipPosition(f2, a[i])).norm(), 1e-14);
  }
  o.random_samples = 3000000;
  EXPECT_THROW(workspaceJointSamples(f2, o), std::invalid_argument);
  o.random_samples = 0;
  EXPECT_THROW(workspaceJointSamples(f2, o), std::invalid_argument);
}

TEST(Workspace, MaxReachIsBoundedByLinkLengthsAndReachedWhenStretched) {
  const Chain planar = planarFinger();
  ASSERT_EQ(planar.dof(), 3);
  const double sum = 0.06 + 0.04 + 0.03;  // seed 003: l1 + l2 + l3 = 130 mm
  // Joint limits 0-90 deg include the stretched pose (all joints 0).
  WorkspaceOptions grid;
  grid.samples_per_joint = 25;
  const auto g = summarizeWorkspace(sampleWorkspace(planar, grid));
  EXPECT_LE(g.max_reach, sum + 1e-12);
  EXPECT_NEAR(g.max_reach, sum, 1e-12);
  WorkspaceOptions rnd;
  rnd.sampling = WorkspaceSampling::Random;
  rnd.random_samples = 20000;
  const auto r = summarizeWorkspace(sampleWorkspace(planar, rnd));
  EXPECT_LE(r.max_reach, sum + 1e-12);
  EXPECT_GT(r.max_reach, sum - 1e-3);
  // The whole dexterous3 finger adds the 30 mm base link (l0) between {k0} and J1.
  for (const auto& f : dexterous3().fingers) {
    grid.samples_per_joint = 5;
    const auto s = summarizeWorkspace(sampleWorkspace(f, grid));
    EXPECT_LE(s.max_reach, 0.03 + sum + (f.name == "F1" ? 0.0 : 0.02) + 1e-12) << f.name;
  }
  // BarrettHand F1: a1 + a2 + a3 = 50 + 70 + 56 mm bounds the reach; J3's 50 deg offset keeps
  // the finger from stretching, so the bound is not reached.
  grid.samples_per_joint = 15;
  const auto b = summarizeWorkspace(sampleWorkspace(barrett().fingers[0], grid));
  EXPECT_LE(b.max_reach, 0.176);
  EXPECT_LT(b.max_reach, 0.176 - 1e-3);
}

TEST(Workspace, BarrettF3StaysInItsFingerPlane) {
  const Chain& f3 = barrett().fingers[2];
  ASSERT_EQ(f3.dof(), 2);  // no spread joint
  WorkspaceOptions o;
  o.samples_per_joint = 30;
  const auto points = sampleWorkspace(f3, o);
  // Row 0 is fixed (theta 0, alpha 90 deg): the flexion axes are parallel to y of {k0}, so the
  // finger moves in the x-z plane of {k0}.
  double spread = 0.0;
  for (const auto& p : points) spread = std::max(spread, std::abs(p.y()));
  EXPECT_LT(spread, 1e-15);
  const auto s = summarizeWorkspace(points);
  EXPECT_GT(s.max.x() - s.min.x(), 0.05);
  EXPECT_GT(s.max.z() - s.min.z(), 0.05);
}

TEST(Workspace, Seed003MinReachIsLargerThanTheSeedFormulaWithinTheJointLimits) {
  const double l1 = 0.06, l2 = 0.04, l3 = 0.03;
  // Seed 003: "min reach = max(0, l1 - l2 - l3)" = max(0, -10 mm) = 0.
  const double seed_min = std::max(0.0, l1 - l2 - l3);
  EXPECT_EQ(seed_min, 0.0);
  // Brute force over theta2, theta3 in [0, 90] deg (theta1 only rotates the point).
  double brute_min = 1.0, brute_max = 0.0;
  for (int i = 0; i <= 180; ++i) {
    for (int k = 0; k <= 180; ++k) {
      const double r = planarReach(l1, l2, l3, i * 0.5 * kDeg, k * 0.5 * kDeg);
      brute_min = std::min(brute_min, r);
      brute_max = std::max(brute_max, r);
    }
  }
  // Hand-worked: at theta2 = theta3 = 90 deg, r^2 = l1^2 + l2^2 + l3^2 + 2 l1 l3 cos 180
  // = 3600 + 1600 + 900 - 3600 = 2500 mm^2, r = 50 mm.
  EXPECT_NEAR(brute_min, 0.05, 1e-15);
  EXPECT_NEAR(brute_max, 0.13, 1e-15);
  EXPECT_GT(brute_min, seed_min + 0.049);

  const PlanarReach exact = planarWorkspaceBounds(planarFinger());
  EXPECT_NEAR(exact.min_reach, brute_min, 1e-15);
  EXPECT_NEAR(exact.max_reach, brute_max, 1e-15);
  WorkspaceOptions o;
  o.samples_per_joint = 19;
  const auto s = summarizeWorkspace(sampleWorkspace(planarFinger(), o));
  EXPECT_NEAR(s.min_reach, 0.05, 1e-15);

  // Without joint limits the seed's formula holds for these lengths: the tip reaches the
  // first axis (60, 40, 30 mm close a triangle).
  const PlanarReach free = planarWorkspaceBounds(makePlanar(l1, l2, l3, -kPi, kPi, -kPi, kPi));
  EXPECT_NEAR(free.min_reach, 0.0, 1e-15);
  EXPECT_NEAR(free.max_reach, l1 + l2 + l3, 1e-15);
}

TEST(Workspace, PlanarBoundsMatchBruteForceForRandomFingers) {
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> len(0.01, 0.08), ang(-kPi, kPi);
  for (int t = 0; t < 30; ++t) {
    const double l1 = len(gen), l2 = len(gen), l3 = len(gen);
    double lo2 = ang(gen), hi2 = ang(gen), lo3 = ang(gen), hi3 = ang(gen);
    if (lo2 > hi2) std::swap(lo2, hi2);
    if (lo3 > hi3) std::swap(lo3, hi3);
    const PlanarReach exact = planarWorkspaceBounds(makePlanar(l1, l2, l3, lo2, hi2, lo3, hi3));
    const int n = 600;
    double bmin = 1.0, bmax = 0.0;
    for (int i = 0; i <= n; ++i) {
      for (int k = 0; k <= n; ++k) {
        const double r =
            planarReach(l1, l2, l3, lo2 + (hi2 - lo2) * i / n, lo3 + (hi3 - lo3) * k / n);
        bmin = std::min(bmin, r);
        bmax = std::max(bmax, r);
      }
    }
    // No sample beats the exact range; the grid (at most 0.6 deg apart) comes close to it.
    EXPECT_LE(exact.min_reach, bmin + 1e-14) << "case " << t;
    EXPECT_GE(exact.max_reach, bmax - 1e-14) << "case " << t;
    EXPECT_LT(bmin - exact.min_reach, 2e-3) << "case " << t;
    EXPECT_LT(exact.max_reach - bmax, 2e-4) << "case " << t;
  }
}

TEST(Workspace, SummaryAndDistalChainChecks) {
  EXPECT_THROW(summarizeWorkspace({}), std::invalid_argument);
  const auto s = summarizeWorkspace({Eigen::Vector3d(1, 2, 3), Eigen::Vector3d(-1, 0, 5)},
                                    Eigen::Vector3d(0, 0, 3));
  EXPECT_EQ(s.min, Eigen::Vector3d(-1, 0, 3));
  EXPECT_EQ(s.max, Eigen::Vector3d(1, 2, 5));
  EXPECT_DOUBLE_EQ(s.min_reach, std::sqrt(5.0));
  EXPECT_DOUBLE_EQ(s.max_reach, std::sqrt(5.0));
  const Chain& f1 = dexterous3().fingers[0];
  EXPECT_THROW(distalChain(f1, 5, Eigen::VectorXd::Zero(4)), std::invalid_argument);
  EXPECT_THROW(planarWorkspaceBounds(barrett().fingers[0]), std::invalid_argument);
  // The distal chain's tip, mapped through its base, is the original finger's tip in the palm.
  Eigen::VectorXd q(4);
  q << 0.3, 0.2, 0.4, 0.5;
  const Chain d = distalChain(f1, 2, q);
  const Eigen::Vector3d palm_tip = f1.base * fingertipPosition(f1, q);
  EXPECT_LT((d.base * fingertipPosition(d, q.tail(3)) - palm_tip).norm(), 1e-15);
}
