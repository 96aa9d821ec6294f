// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/hand/transmission.hpp"

#include <gtest/gtest.h>

#include "handsim/hand/hand_loader.hpp"

using namespace handsim;
using namespace handsim::hand;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;

class Barrett : public ::testing::Test {
 protected:
  HandModel m = loadHand("barrett");
};
}  // namespace

// Seed 000 eq. 1-4, in degrees: theta11 = -2/35 qM4, theta21 = 2/35 qM4, thetak2 = qMk/125,
// thetak3 = qMk/375.
TEST_F(Barrett, CountsToAnglesFollowEquations1To4) {
  const std::vector<double> counts = {17500, 8000, 1234, 3150};
  const auto q = jointPositions(m, counts);
  EXPECT_NEAR(q[0][0], -2.0 / 35.0 * 3150 * kDeg, 1e-12);
  EXPECT_NEAR(q[1][0], 2.0 / 35.0 * 3150 * kDeg, 1e-12);
  EXPECT_NEAR(q[0][1], 140.0 * kDeg, 1e-12);  // full close: 140 deg at the inner joint
  EXPECT_NEAR(q[0][2], 17500.0 / 375.0 * kDeg, 1e-12);
  EXPECT_NEAR(q[1][1], 8000.0 / 125.0 * kDeg, 1e-12);
  EXPECT_NEAR(q[2][0], 1234.0 / 125.0 * kDeg, 1e-12);
  EXPECT_NEAR(q[2][1], 1234.0 / 375.0 * kDeg, 1e-12);
  EXPECT_TRUE(jointLimitViolations(m, q).empty());
}

TEST_F(Barrett, OutOfRangeCountsAreClampedAndReported) {
  std::vector<std::string> messages;
  const auto c = clampActuators(m, {20000, -5, 100, 3150}, &messages);
  EXPECT_EQ(c[0], 17500);
  EXPECT_EQ(c[1], 0);
  EXPECT_EQ(c[2], 100);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_NE(messages[0].find("M1: 20000 counts is above the range [0 counts, 17500 counts]"),
            std::string::npos)
      << messages[0];
  EXPECT_NE(messages[1].find("below"), std::string::npos);
}

// Eq. 9 must equal the generalized force J^T f of the inner joint (an independent route).
TEST_F(Barrett, Equation9EqualsJacobianTransposeForce) {
  const auto& chain = m.fingers[0];
  Eigen::Vector3d q(-0.3, 0.7, 0.4);
  const auto frames = kinematics::forwardKinematics(chain, q);
  // A point on the inner link (rigid with frame {2}), given in that frame.
  const Eigen::Vector3d local(-0.03, 0.004, 0.002);
  const Eigen::Vector3d p = frames.at(2) * local;
  const Eigen::Vector3d f(1.5, -2.0, 0.7);
  const auto jac = kinematics::geometricJacobian(chain, frames, 2, local);
  const Eigen::VectorXd tau = jac.topRows<3>().transpose() * f;
  EXPECT_NEAR(torqueAboutJoint(chain, frames, 1, p, f), tau[1], 1e-14);
  EXPECT_NEAR(torqueAboutJoint(chain, frames, 0, p, f), tau[0], 1e-14);
  // A pure moment about the joint axis adds its component.
  const Eigen::Vector3d n(0.0, 0.0, 0.25);
  EXPECT_NEAR(
      torqueAboutJoint(chain, frames, 1, p, f, n) - torqueAboutJoint(chain, frames, 1, p, f),
      frames.at(1).linear().col(2).dot(n), 1e-15);
}

// Drive finger 3 closed while injecting a contact force on the inner link that grows with the
// motor position, as a blocked link would see; check the state machine against eq. 10.
TEST_F(Barrett, ClutchBreaksAwayAndReengagesPerSeed000) {
  const ClutchModel& clutch = m.clutches[2];
  ASSERT_EQ(clutch.inner.finger, 2);
  const auto& chain = m.fingers[2];
  std::vector<ClutchState> states(3);
  const double v = 2000.0;  // counts/s, closing
  double break_at = -1.0;
  for (double counts = 0; counts <= 12000; counts += 10) {
    const auto q = jointPositions(m, {0, 0, counts, 0}, states);
    const auto frames = kinematics::forwardKinematics(chain, q[2]);
    // Contact 40 mm along the inner link, pushing against the closing direction: the
    // opposite of the point's velocity under d(theta32) > 0.
    const Eigen::Vector3d local(-0.03, 0.0, 0.0);
    const Eigen::Vector3d p = frames.at(2) * local;
    const Eigen::Vector3d push =
        -kinematics::geometricJacobian(chain, frames, 2, local).block<3, 1>(0, 0).normalized();
    const double magnitude = counts < 6000 ? 0.0 : (counts - 6000) * 0.01;  // N
    const double load = innerLoadTorque(m, clutch, frames, p, magnitude * push);
    const double lever = (p - frames.at(1).translation()).norm();
    EXPECT_NEAR(load, magnitude * lever, 1e-9);  // force normal to the lever arm
    const ClutchEvent ev = updateClutch(m, clutch, states[2], counts, v, load);
    if (ev == ClutchEvent::BrokeAway) {
      break_at = counts;
      EXPECT_GT(load, 1.26);
      EXPECT_LE((counts - 10 - 6000) * 0.01 * lever, 1.26 + 1e-12);  // not one step earlier
    }
  }
  ASSERT_GT(break_at, 0.0);
  EXPECT_TRUE(states[2].broken);
  EXPECT_EQ(states[2].break_position, break_at);
  // After the break: theta32 frozen at qMb/125, theta33 = 4/375 qM - 3/375 qMb (eq. 10).
  for (double counts : {break_at, break_at + 100, 17500.0}) {
    const auto q = jointPositions(m, {0, 0, counts, 0}, states);
    EXPECT_NEAR(q[2][0], break_at / 125.0 * kDeg, 1e-12);
    EXPECT_NEAR(q[2][1], (4.0 / 375.0 * counts - 3.0 / 375.0 * break_at) * kDeg, 1e-12);
  }
  // Continuous at the break.
  const auto engaged = jointPositions(m, {0, 0, break_at, 0});
  const auto broken = jointPositions(m, {0, 0, break_at, 0}, states);
  EXPECT_NEAR((engaged[2] - broken[2]).norm(), 0.0, 1e-12);
  // Closing further with any load does nothing new; opening above the break keeps it broken.
  EXPECT_EQ(updateClutch(m, clutch, states[2], 15000, v, 10.0), ClutchEvent::None);
  EXPECT_EQ(updateClutch(m, clutch, states[2], break_at + 50, -v, 0.0), ClutchEvent::None);
  EXPECT_TRUE(states[2].broken);
  // Opening back through the break position re-engages; eq. 3-4 hold again.
  EXPECT_EQ(updateClutch(m, clutch, states[2], break_at - 5, -v, 0.0), ClutchEvent::Reengaged);
  const auto q = jointPositions(m, {0, 0, 1000, 0}, states);
  EXPECT_NEAR(q[2][0], 1000 / 125.0 * kDeg, 1e-12);
  EXPECT_NEAR(q[2][1], 1000 / 375.0 * kDeg, 1e-12);
}

TEST_F(Barrett, ClutchDoesNotBreakWhileOpeningOrBelowThreshold) {
  const ClutchModel& clutch = m.clutches[0];
  ClutchState s;
  EXPECT_EQ(updateClutch(m, clutch, s, 5000, -100.0, 5.0), ClutchEvent::None);  // opening
  EXPECT_EQ(updateClutch(m, clutch, s, 5000, 0.0, 5.0), ClutchEvent::None);     // at rest
  EXPECT_EQ(updateClutch(m, clutch, s, 5000, 100.0, 1.25), ClutchEvent::None);  // below
  EXPECT_FALSE(s.broken);
  EXPECT_EQ(updateClutch(m, clutch, s, 5000, 100.0, 1.27), ClutchEvent::BrokeAway);
}
