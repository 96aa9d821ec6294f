// SPDX-License-Identifier: GPL-3.0-or-later
// Inverse kinematics through the transmission, checked against forward kinematics and against
// brute-force scans over the actuators written here.
#include "handsim/hand/transmission_ik.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

using namespace handsim;
using namespace handsim::hand;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;

class BarrettTransmissionIk : public ::testing::Test {
 protected:
  HandModel m = loadHand("barrett");
  std::mt19937 rng{20240611};

  /// Random actuator positions inside each range, `margin` (a fraction of the range) away
  /// from its ends.
  std::vector<double> randomActuators(double margin = 0.0) {
    std::vector<double> a;
    for (const Actuator& act : m.actuators) {
      const double span = act.upper - act.lower;
      std::uniform_real_distribution<double> u(act.lower + margin * span,
                                               act.upper - margin * span);
      a.push_back(u(rng));
    }
    return a;
  }

  /// Fingertip of finger f in the palm frame [m] at actuator positions a.
  Eigen::Vector3d tip(int f, const std::vector<double>& a,
                      const std::vector<ClutchState>& clutches = {}) const {
    const auto& chain = m.fingers[static_cast<std::size_t>(f)];
    return chain.base * kinematics::fingertipPosition(
                            chain, jointPositions(m, a, clutches)[static_cast<std::size_t>(f)]);
  }
};

/// Sum of squared joint residuals of one actuator at position x (the least-squares objective).
double residual(const HandModel& m, int actuator, double x,
                const std::vector<kinematics::JointVector>& q) {
  double sum = 0.0;
  for (const JointDrive& d : m.actuators[static_cast<std::size_t>(actuator)].drives) {
    const double r = d.ratio * x - q[static_cast<std::size_t>(d.joint.finger)](d.joint.joint);
    sum += r * r;
  }
  return sum;
}
}  // namespace

TEST_F(BarrettTransmissionIk, RealisableJointValuesRoundTripExactly) {
  for (int trial = 0; trial < 50; ++trial) {
    const std::vector<double> a = randomActuators();
    const auto q = jointPositions(m, a);
    const std::vector<double> back = actuatorsForJoints(m, q, std::vector<double>(4, 0.0), {});
    ASSERT_EQ(back.size(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(back[i], a[i], 1e-9) << "actuator " << i;
    const auto q2 = jointPositions(m, back);
    for (std::size_t f = 0; f < q.size(); ++f) EXPECT_LT((q2[f] - q[f]).norm(), 1e-13);
  }
}

TEST_F(BarrettTransmissionIk, RoundTripHoldsWithABrokenClutch) {
  // M1's clutch broken at 6000 counts: F1.J2 is locked, F1.J3 follows the rest of the motion.
  std::vector<ClutchState> clutches(m.clutches.size());
  clutches[0].broken = true;
  clutches[0].break_position = 6000.0;
  const std::vector<double> a = {9000.0, 2000.0, 12000.0, 1000.0};
  const auto q = jointPositions(m, a, clutches);
  EXPECT_NEAR(q[0][1], 6000.0 / 125.0 * kDeg, 1e-12);
  const std::vector<double> back = actuatorsForJoints(m, q, std::vector<double>(4, 0.0), clutches);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(back[i], a[i], 1e-9);
}

TEST_F(BarrettTransmissionIk, UnrealisableJointValuesGiveTheLeastSquaresActuator) {
  for (int trial = 0; trial < 20; ++trial) {
    // Inner and outer joints drawn independently (the 3:1 coupling cannot take them), and
    // every fifth trial far beyond the range so that the clamp decides.
    std::uniform_real_distribution<double> angle(0.0, trial % 5 == 0 ? 400.0 : 140.0);
    std::vector<kinematics::JointVector> q;
    for (const auto& chain : m.fingers) {
      kinematics::JointVector v(chain.dof());
      for (int j = 0; j < chain.dof(); ++j)
        v(j) = angle(rng) * kDeg * (j == 0 && chain.dof() == 3 ? 0.2 : 1.0);
      q.push_back(v);
    }
    q[0](0) = -q[0](0);  // F1.J1 turns the other way
    const std::vector<double> a = actuatorsForJoints(m, q, std::vector<double>(4, 0.0), {});
    for (int k = 0; k < static_cast<int>(m.actuators.size()); ++k) {
      const Actuator& act = m.actuators[static_cast<std::size_t>(k)];
      // Brute force: a fine grid over the range, then a finer one around its best point.
      double best = act.lower;
      double step = (act.upper - act.lower) / 20000.0;
      for (int pass = 0; pass < 2; ++pass) {
        const double from = pass == 0 ? act.lower : std::max(act.lower, best - step);
        const double to = pass == 0 ? act.upper : std::min(act.upper, best + step);
        const double h = pass == 0 ? step : (to - from) / 20000.0;
        for (double x = from; x <= to + 0.5 * h; x += h) {
          const double xc = std::min(x, to);
          if (residual(m, k, xc, q) < residual(m, k, best, q)) best = xc;
        }
        step = h;
      }
      const double at = a[static_cast<std::size_t>(k)];
      EXPECT_LE(residual(m, k, at, q), residual(m, k, best, q) * (1.0 + 1e-12)) << act.name;
      EXPECT_NEAR(at, best, 2.0 * step) << act.name;
      EXPECT_GE(at, act.lower);
      EXPECT_LE(at, act.upper);
    }
  }
}

TEST_F(BarrettTransmissionIk, FingertipIkReachesForwardKinematicsTargets) {
  for (int trial = 0; trial < 60; ++trial) {
    const int f = trial % 3;
    const std::vector<double> truth = randomActuators(0.02);
    const Eigen::Vector3d target = tip(f, truth);
    const std::vector<double> now = randomActuators(0.02);
    const std::vector<double> a = fingertipActuators(m, f, target, now, {});
    EXPECT_LT((tip(f, a) - target).norm(), 1e-6) << "finger " << f << " trial " << trial;
    // Only the actuators that drive the finger move.
    for (std::size_t k = 0; k < a.size(); ++k) {
      bool drives = false;
      for (const JointDrive& d : m.actuators[k].drives) drives = drives || d.joint.finger == f;
      if (!drives) {
        EXPECT_EQ(a[k], now[k]);
      }
    }
  }
}

TEST_F(BarrettTransmissionIk, UnreachableThroughTheCouplingThrowsTheMissOfADenseScan) {
  // Finger 3 has one motor (M3) for two joints: its tip moves on a curve. A point its joints
  // reach (inner 30 deg, outer 100 deg) lies off that curve.
  const int f3 = m.fingerIndex("F3");
  const auto& chain = m.fingers[static_cast<std::size_t>(f3)];
  kinematics::JointVector q(2);
  q << 30.0 * kDeg, 100.0 * kDeg;
  const Eigen::Vector3d target = chain.base * kinematics::fingertipPosition(chain, q);
  const std::vector<double> now = {3000.0, 3000.0, 3000.0, 500.0};
  const int m3 = m.actuatorIndex("M3");
  double scan_miss = std::numeric_limits<double>::infinity();
  std::vector<double> a = now;
  for (int i = 0; i <= 1000000; ++i) {
    a[static_cast<std::size_t>(m3)] = 17500.0 * i / 1000000.0;
    scan_miss = std::min(scan_miss, (tip(f3, a) - target).norm());
  }
  ASSERT_GT(scan_miss, 10.0 * kTransmissionIkAcceptDistance);
  try {
    fingertipActuators(m, f3, target, now, {});
    FAIL() << "no exception";
  } catch (const kinematics::UnreachableTarget& e) {
    EXPECT_NEAR(e.miss(), scan_miss, 1e-7);
    EXPECT_NE(std::string(e.what()).find("mm"), std::string::npos) << e.what();
    // The closest joint values are the ones at that miss.
    EXPECT_NEAR((chain.base * kinematics::fingertipPosition(chain, e.closest()) - target).norm(),
                e.miss(), 1e-12);
  }
}

TEST_F(BarrettTransmissionIk, FarTargetThrowsTheJointSpaceMiss) {
  EXPECT_THROW(fingertipActuators(m, 0, Eigen::Vector3d(0.5, 0.5, 0.5), randomActuators(), {}),
               kinematics::UnreachableTarget);
}

TEST_F(BarrettTransmissionIk, BadArgumentsAreNamed) {
  const std::vector<double> now(4, 0.0);
  EXPECT_THROW(fingertipActuators(m, 3, Eigen::Vector3d(0.0, 0.0, 0.1), now, {}),
               std::invalid_argument);
  EXPECT_THROW(fingertipActuators(m, 0, Eigen::Vector3d(NAN, 0.0, 0.1), now, {}),
               std::invalid_argument);
  EXPECT_THROW(fingertipActuators(m, 0, Eigen::Vector3d(0.0, 0.0, 0.1), {0.0}, {}),
               std::invalid_argument);
  EXPECT_THROW(actuatorsForJoints(m, {}, now, {}), std::invalid_argument);
}

TEST(TransmissionIk, PlanarFingerReachesTheTipAngleAndRejectsOffPlaneTargets) {
  const HandModel m = loadHand("dexterous3");
  int planar = -1;
  for (std::size_t f = 0; f < m.fingers.size() && planar < 0; ++f)
    if (kinematics::isPlanarThreeLinkFinger(m.fingers[f])) planar = static_cast<int>(f);
  ASSERT_GE(planar, 0);
  const auto& chain = m.fingers[static_cast<std::size_t>(planar)];
  std::vector<double> now(m.actuators.size(), 0.0);
  now = clampActuators(m, now);
  // A target made by moving the planar joints, its tip angle read back from the frames.
  auto q = jointPositions(m, now);
  kinematics::JointVector qt = q[static_cast<std::size_t>(planar)];
  const Eigen::Index n = qt.size();
  qt(n - 3) = 20.0 * kDeg;
  qt(n - 2) = 30.0 * kDeg;
  qt(n - 1) = 25.0 * kDeg;
  const auto frames = kinematics::forwardKinematics(chain, qt);
  const int plane = static_cast<int>(chain.rows.size()) - 3;
  const Eigen::Matrix3d R = frames.at(plane).linear().transpose() * frames.tip().linear();
  FingertipIkOptions options;
  options.phi = std::atan2(R(1, 0), R(0, 0));
  const Eigen::Vector3d target = chain.base * frames.tip().translation();
  const std::vector<double> a = fingertipActuators(m, planar, target, now, {}, options);
  const auto qa = jointPositions(m, a)[static_cast<std::size_t>(planar)];
  EXPECT_LT((chain.base * kinematics::fingertipPosition(chain, qa) - target).norm(), 1e-9);
  const auto fa = kinematics::forwardKinematics(chain, qa);
  const Eigen::Matrix3d Ra = fa.at(plane).linear().transpose() * fa.tip().linear();
  EXPECT_NEAR(std::atan2(Ra(1, 0), Ra(0, 0)), *options.phi, 1e-9);
  // 5 mm along the plane's normal.
  const Eigen::Vector3d normal = chain.base.linear() * frames.at(plane).linear().col(2);
  try {
    fingertipActuators(m, planar, target + 0.005 * normal, now, {}, options);
    FAIL() << "no exception";
  } catch (const kinematics::UnreachableTarget& e) {
    EXPECT_NEAR(e.miss(), 0.005, 1e-9);
  }
}

// hand::FingerPoint (issue 22, item 3): on a URDF finger with a tip link beyond its last joint
// frame (wrist_hand's index_tip) the default point is the tip link's origin as the link tree
// places it (HandModel::linkPoses, an independent path), and fingertipActuators places that
// point; the last joint frame is placed when asked for by name.
TEST(FingerPoint, TipLinkByDefaultLastFrameByName) {
  const HandModel h = loadHand(HANDSIM_SOURCE_DIR "/assets/hands/urdf/wrist_hand.urdf");
  int f = -1;
  for (std::size_t k = 0; k < h.fingers.size(); ++k)
    if (h.fingers[k].name == "index_distal") f = static_cast<int>(k);
  ASSERT_GE(f, 0);
  const std::vector<ClutchState> clutches(h.clutches.size());
  const std::vector<double> goal = {0.2, -0.1, 0.1, 0.5, 0.4, 0.3, 0.3, 0.2, 0.01};
  ASSERT_EQ(goal.size(), h.actuators.size());
  const auto q = jointPositions(h, goal, clutches);
  Eigen::Vector3d tip_link = Eigen::Vector3d::Constant(std::nan(""));
  for (const auto& [name, pose] : h.linkPoses(q))
    if (name == "index_tip") tip_link = pose.translation();
  ASSERT_TRUE(tip_link.allFinite());
  const auto fi = static_cast<std::size_t>(f);
  const Eigen::Vector3d last =
      h.fingers[fi].base * kinematics::forwardKinematics(h.fingers[fi], q[fi]).tip().translation();
  ASSERT_GT((tip_link - last).norm(), 1e-3);

  EXPECT_LT((fingerPointPosition(h, f, q[fi], FingerPoint::Tip) - tip_link).norm(), 1e-15);
  EXPECT_LT((fingerPointPosition(h, f, q[fi], FingerPoint::LastFrame) - last).norm(), 1e-15);
  EXPECT_EQ(fingerPointChain(h, f, FingerPoint::Tip).dof(), h.fingers[fi].dof());
  EXPECT_EQ(fingerPointChain(h, f, FingerPoint::LastFrame).rows.size(), h.fingers[fi].rows.size());
  EXPECT_EQ(fingerPointFromName("last_frame"), FingerPoint::LastFrame);
  EXPECT_STREQ(fingerPointName(FingerPoint::Tip), "tip");
  EXPECT_THROW(fingerPointFromName("nail", "--point"), std::invalid_argument);

  const std::vector<double> start = {0.0, 0.0, 0.0, 0.3, 0.3, 0.3, 0.3, 0.2, 0.01};
  for (const FingerPoint p : {FingerPoint::Tip, FingerPoint::LastFrame}) {
    const Eigen::Vector3d target = p == FingerPoint::Tip ? tip_link : last;
    FingertipIkOptions o;
    o.point = p;
    const auto a = fingertipActuators(h, f, target, start, clutches, o);
    const auto qa = jointPositions(h, a, clutches);
    EXPECT_LT((fingerPointPosition(h, f, qa[fi], p) - target).norm(), kTransmissionIkAcceptDistance)
        << fingerPointName(p);
  }
  // The default is the tip.
  const auto a = fingertipActuators(h, f, tip_link, start, clutches);
  const auto qa = jointPositions(h, a, clutches);
  EXPECT_LT((fingerPointPosition(h, f, qa[fi], FingerPoint::Tip) - tip_link).norm(),
            kTransmissionIkAcceptDistance);
}
