// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/hand/transmission.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "handsim/formats/hand_loader.hpp"

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

// The shared helpers of the step, checked against what they stand for. R^T D R is the
// actuator-space inertia because the kinetic energy 1/2 qd^T D qd with qd = R ad equals
// 1/2 ad^T M ad for every ad; R^T g is the generalised force of g because the power g . qd equals
// (R^T g) . ad. Worked on the BarrettHand's F3 drives (one actuator, two joints at 1/125 and
// 1/375 deg per count) and on F1 with the spread (two actuators).
TEST_F(Barrett, ReflectedInertiaAndForcesKeepEnergyAndPower) {
  const auto drives = effectiveDrives(m, {});
  const auto na = static_cast<Eigen::Index>(m.actuators.size());
  std::srand(7);
  for (std::size_t f = 0; f < m.fingers.size(); ++f) {
    const auto n = static_cast<Eigen::Index>(drives[f].size());
    const Eigen::MatrixXd a = Eigen::MatrixXd::Random(n, n);
    const kinematics::JointMatrix d = a * a.transpose() + Eigen::MatrixXd::Identity(n, n);
    Eigen::MatrixXd mass = Eigen::MatrixXd::Zero(na, na);
    addActuatorInertia(drives[f], d, mass);
    const Eigen::VectorXd ad = Eigen::VectorXd::Random(na);
    kinematics::JointVector qd(n);
    for (Eigen::Index j = 0; j < n; ++j)
      qd[j] = drives[f][static_cast<std::size_t>(j)].ratio *
              ad[drives[f][static_cast<std::size_t>(j)].actuator];
    const double joint_energy = 0.5 * qd.dot(d * qd);
    EXPECT_NEAR(0.5 * ad.dot(mass * ad), joint_energy, 1e-12 * (1.0 + joint_energy)) << f;
    const kinematics::JointVector g = kinematics::JointVector::Random(n);
    Eigen::VectorXd reflected = Eigen::VectorXd::Zero(na);
    addThroughDrives(drives[f], g, reflected);
    EXPECT_NEAR(reflected.dot(ad), g.dot(qd), 1e-12) << f;
  }
}

// The narrowed range is exactly the set of actuator values that keep the joint within its limits,
// for either sign of the ratio (brute force over a grid of actuator values).
TEST(Transmission, NarrowedRangeIsWhereTheJointStaysWithinItsLimits) {
  const double joint_lower = -0.4, joint_upper = 1.1;
  for (const double ratio : {0.02, -0.02, 3.0, -0.5}) {
    for (const double offset : {0.0, 0.3, -0.7}) {
      double lower = -100.0, upper = 100.0;
      narrowByJointLimits(joint_lower, joint_upper, ratio, offset, lower, upper);
      for (int i = 0; i <= 20000; ++i) {
        const double a = -100.0 + 0.01 * i;
        const double q = ratio * a + offset;
        const bool inside = q >= joint_lower - 1e-12 && q <= joint_upper + 1e-12;
        const bool in_range = a >= lower - 1e-9 && a <= upper + 1e-9;
        if (inside != in_range && std::abs(a - lower) > 0.011 && std::abs(a - upper) > 0.011)
          ADD_FAILURE() << "ratio " << ratio << " offset " << offset << " a " << a << " q " << q
                        << " range [" << lower << ", " << upper << "]";
      }
    }
  }
  // A locked joint (ratio 0) narrows nothing.
  double lower = -1.0, upper = 1.0;
  narrowByJointLimits(joint_lower, joint_upper, 0.0, 5.0, lower, upper);
  EXPECT_EQ(lower, -1.0);
  EXPECT_EQ(upper, 1.0);
}
