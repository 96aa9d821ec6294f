// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

using namespace handsim;
using namespace handsim::kinematics;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;

JointVector randomWithinLimits(const Chain& c, std::mt19937& rng) {
  JointVector q(c.dof());
  for (int j = 0; j < c.dof(); ++j) {
    const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
    q[j] = std::uniform_real_distribution<double>(row.lower, row.upper)(rng);
  }
  return q;
}

// Independent check of a miss distance: the nearest fingertip over a dense grid of joint
// values within the limits.
double bruteForceNearest(const Chain& c, const Eigen::Vector3d& target, int per_joint) {
  const int n = c.dof();
  int total = 1;
  for (int j = 0; j < n; ++j) total *= per_joint;
  double best = 1e9;
  JointVector q(n);
  for (int s = 0; s < total; ++s) {
    int code = s;
    for (int j = 0; j < n; ++j) {
      const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
      q[j] = row.lower + (row.upper - row.lower) * (code % per_joint) / (per_joint - 1.0);
      code /= per_joint;
    }
    best = std::min(best, (fingertipPosition(c, q) - target).norm());
  }
  return best;
}

class Hands : public ::testing::Test {
 protected:
  hand::HandModel barrett = hand::loadHand("barrett");
  hand::HandModel dex = hand::loadHand("dexterous3");
  hand::HandModel anthro = hand::loadHand("anthro20");
};
}  // namespace

TEST_F(Hands, BarrettClosedFormRoundTrips) {
  std::mt19937 rng(11);
  for (const auto& finger : barrett.fingers) {
    ASSERT_TRUE(isBarrettFinger(finger));
    for (int trial = 0; trial < 2000; ++trial) {
      const JointVector q = randomWithinLimits(finger, rng);
      const Eigen::Vector3d p = fingertipPosition(finger, q);
      const JointVector sol = barrettFingerIk(finger, p, q);
      ASSERT_LT((fingertipPosition(finger, sol) - p).norm(), 1e-9) << finger.name;
      // The solution nearest the generating q is that q (away from elbow singularities).
      ASSERT_LT((sol - q).norm(), 1e-6) << finger.name << " q=" << q.transpose();
    }
  }
}

TEST_F(Hands, BarrettBoundaryTargetsAtJointLimits) {
  const Chain& f1 = barrett.fingers[0];
  for (const Eigen::Vector3d& qd : {Eigen::Vector3d(0, 0, 0), Eigen::Vector3d(-180, 140, 140),
                                    Eigen::Vector3d(-90, 0, 140), Eigen::Vector3d(0, 140, 0)}) {
    const Eigen::Vector3d q = qd * kDeg;
    const Eigen::Vector3d p = fingertipPosition(f1, q);
    const JointVector sol = barrettFingerIk(f1, p, q);
    EXPECT_LT((fingertipPosition(f1, sol) - p).norm(), 1e-9) << qd.transpose();
  }
}

TEST_F(Hands, BarrettOutOfPlaneTargetForFinger3ReportsTheMiss) {
  const Chain& f3 = barrett.fingers[2];
  const Eigen::Vector2d q(60 * kDeg, 30 * kDeg);
  const auto frames = forwardKinematics(f3, q);
  // Move the tip 5 mm along the flexion axis (normal to the finger plane).
  const Eigen::Vector3d p = frames.tip().translation() + 0.005 * frames.at(1).linear().col(2);
  try {
    barrettFingerIk(f3, p, q);
    FAIL();
  } catch (const UnreachableTarget& e) {
    EXPECT_NEAR(e.miss(), 0.005, 1e-7) << e.what();
    EXPECT_NE(std::string(e.what()).find("outside the finger's plane"), std::string::npos);
  }
}

TEST_F(Hands, BarrettBeyondReachMissAgreesWithBruteForce) {
  const Chain& f2 = barrett.fingers[1];
  const Eigen::Vector3d p(0.30, 0.05, 0.10);
  try {
    barrettFingerIk(f2, p, Eigen::Vector3d::Zero());
    FAIL();
  } catch (const UnreachableTarget& e) {
    const double brute = bruteForceNearest(f2, p, 61);
    EXPECT_LE(e.miss(), brute + 1e-9);  // never worse than a dense search
    EXPECT_GE(e.miss(), brute - 2e-3);  // and close to it (grid spacing 3 deg)
    EXPECT_NE(std::string(e.what()).find("beyond the reach"), std::string::npos) << e.what();
    EXPECT_NEAR((fingertipPosition(f2, e.closest()) - p).norm(), e.miss(), 1e-12);
  }
}

TEST_F(Hands, PlanarClosedFormRoundTrips) {
  std::mt19937 rng(5);
  for (const auto& finger : dex.fingers) {
    ASSERT_TRUE(isPlanarThreeLinkFinger(finger));
    const std::size_t n = finger.rows.size();
    for (int trial = 0; trial < 2000; ++trial) {
      const JointVector q = randomWithinLimits(finger, rng);
      const auto frames = forwardKinematics(finger, q);
      const Eigen::Isometry3d plane = frames.at(static_cast<int>(n) - 3);
      const Eigen::Isometry3d tip = plane.inverse() * frames.tip();
      const double phi = std::atan2(tip.linear()(1, 0), tip.linear()(0, 0));
      const JointVector sol =
          planarFingerIk(finger, tip.translation().x(), tip.translation().y(), phi, q);
      const auto sf = forwardKinematics(finger, sol);
      ASSERT_LT((sf.tip().translation() - frames.tip().translation()).norm(), 1e-9);
      ASSERT_LT((sf.tip().linear() - frames.tip().linear()).norm(), 1e-9);
    }
  }
}

TEST_F(Hands, PlanarSingularStretchedFinger) {
  // All three joints at 0: fully stretched, the two-link elbow is singular (one solution).
  const Chain& f1 = dex.fingers[0];
  const JointVector q = JointVector::Zero(f1.dof());
  const JointVector sol = planarFingerIk(f1, 0.13, 0.0, 0.0, q);
  EXPECT_LT((sol - q).norm(), 1e-6);
  EXPECT_LT((fingertipPosition(f1, sol) - fingertipPosition(f1, q)).norm(), 1e-9);
}

// Seed 003's worked example (x = 100 mm, y = 50 mm, phi3 = 90 deg) cannot be reached: the
// wrist point (100, 20) mm is farther than l1 + l2 = 100 mm from the base. The seed's C = 1.5
// is an arithmetic slip (the formula gives C = 105), and its printed answer
// (18.43, 34.70, 36.87 deg) puts the tip elsewhere.
TEST_F(Hands, Seed003WorkedExampleIsUnreachable) {
  const Chain& f1 = dex.fingers[0];
  const JointVector q0 = JointVector::Zero(f1.dof());
  try {
    planarFingerIk(f1, 0.100, 0.050, 90 * kDeg, q0);
    FAIL();
  } catch (const UnreachableTarget& e) {
    EXPECT_NEAR(e.miss(), std::hypot(0.100, 0.020) - 0.100, 1e-12) << e.what();
  }
  const double r = std::hypot(100.0, 50.0), alpha = std::atan2(50.0, 100.0);
  const double c =
      (r * r + 40 * 40 + 30 * 30 - 60 * 60 - 2 * r * 30 * std::cos(alpha - 90 * kDeg)) / (2 * 40);
  EXPECT_NEAR(c, 105.0, 0.05);
  const double t1 = 18.43 * kDeg, t2 = 34.70 * kDeg, t3 = 36.87 * kDeg;
  const double x = 60 * std::cos(t1) + 40 * std::cos(t1 + t2) + 30 * std::cos(t1 + t2 + t3);
  const double y = 60 * std::sin(t1) + 40 * std::sin(t1 + t2) + 30 * std::sin(t1 + t2 + t3);
  EXPECT_GT(std::hypot(x - 100.0, y - 50.0), 10.0);  // mm: the printed angles miss the target
}

TEST_F(Hands, NumericalIkRoundTripsOnAnthroFingers) {
  std::mt19937 rng(9);
  for (const auto& finger : anthro.fingers) {
    for (int trial = 0; trial < 200; ++trial) {
      const JointVector q = randomWithinLimits(finger, rng);
      const Eigen::Vector3d p = fingertipPosition(finger, q);
      JointVector start = q;
      for (int j = 0; j < start.size(); ++j) start[j] += 0.2;  // not at the answer
      const JointVector sol = inverseKinematicsNumerical(finger, p, start);
      ASSERT_LT((fingertipPosition(finger, sol) - p).norm(), 1e-9) << finger.name;
      for (int j = 0; j < finger.dof(); ++j) {
        const auto& row = finger.rows[static_cast<std::size_t>(finger.rowOfJoint(j))];
        ASSERT_GE(sol[j], row.lower);
        ASSERT_LE(sol[j], row.upper);
      }
    }
  }
}

TEST_F(Hands, NumericalIkReportsUnreachable) {
  const Chain& index = anthro.fingers[1];
  const Eigen::Vector3d far(0.5, 0.0, 0.0);
  try {
    inverseKinematicsNumerical(index, far, JointVector::Zero(index.dof()));
    FAIL();
  } catch (const UnreachableTarget& e) {
    // The finger's total length bounds the reach from the MCP frame origin.
    const double reach = 0.004 + 0.045 + 0.025 + 0.020;
    EXPECT_NEAR(e.miss(), 0.5 - reach, 1e-6) << e.what();
  }
}
