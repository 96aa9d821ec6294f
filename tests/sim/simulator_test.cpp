// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/simulator.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "handsim/dynamics/energy.hpp"
#include "handsim/hand/hand_loader.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/sim/recorder.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;

class BarrettSim : public ::testing::Test {
 protected:
  hand::HandModel hand = hand::loadHand("barrett");

  Simulator closingFinger3(SimOptions opt = {}) {
    Simulator sim(hand, opt);
    ActuatorTrajectory traj;
    traj.append(TrapezoidalProfile(0.0, 17500.0, 10000.0, 20000.0, 0.1));
    sim.setTrajectory(2, traj);
    return sim;
  }
};

double totalEnergy(const hand::HandModel& hand, const SimState& s, const Eigen::Vector3d& g) {
  double e = 0.0;
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const auto& chain = hand.fingers[f];
    const Eigen::Vector3d gb = chain.base.linear().transpose() * g;
    e += dynamics::kineticEnergy(chain, s.q[f], s.qd[f]) +
         dynamics::potentialEnergy(chain, s.q[f], gb);
  }
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    const double rho = hand.actuators[a].drives.front().ratio;
    e += 0.5 * hand.actuators[a].servo.rotor_inertia * std::pow(rho * s.actuator_velocity[a], 2);
  }
  return e;
}
}  // namespace

TEST_F(BarrettSim, RunsAreBitIdentical) {
  std::string csv[2];
  for (auto& out : csv) {
    Simulator sim = closingFinger3();
    SimState s = sim.initialState();
    Recorder rec(hand);
    for (int i = 0; i < 3000; ++i) {
      // An external load on finger 1's inner link exercises the clutch path too.
      s.loads = {{0, 1, Eigen::Vector3d(0.05, 0.0, 0.0), Eigen::Vector3d(0.0, 0.0, -1.0)}};
      sim.step(s);
      rec.record(s);
    }
    out = rec.toCsv();
  }
  EXPECT_FALSE(csv[0].empty());
  EXPECT_EQ(csv[0], csv[1]);
}

TEST_F(BarrettSim, FingerTracksTrapezoidalReferenceAndCouplingHolds) {
  Simulator sim = closingFinger3();
  SimState s = sim.initialState();
  double worst = 0.0;
  while (s.time < 3.0) {
    sim.step(s);
    worst = std::max(worst, std::abs(s.actuator_reference[2] - s.actuator_position[2]));
    // Eq. 3-4 hold exactly at every step while the clutch is engaged.
    ASSERT_NEAR(s.q[2][0], s.actuator_position[2] / 125.0 * kDeg, 1e-12);
    ASSERT_NEAR(s.q[2][1], s.actuator_position[2] / 375.0 * kDeg, 1e-12);
  }
  // Servo lag stays below 2 deg at the inner joint (250 counts) during the motion and the
  // finger ends where it was sent, within the gravity sag of a P servo (< 0.5 deg).
  EXPECT_LT(worst, 250.0);
  EXPECT_NEAR(s.actuator_position[2], 17500.0, 0.5 * 125.0);
  EXPECT_NEAR(s.q[2][0], 140.0 * kDeg, 0.5 * kDeg);
  EXPECT_EQ(s.warning_count, 0);
}

// Virtual work: the servo's generalized force equals the joint torques mapped back through
// the transmission plus the rotor's inertia, sum_j r_j tau_j + rho^2 J a'' = rho * effort.
TEST_F(BarrettSim, JointTorquesBalanceServoEffort) {
  Simulator sim = closingFinger3();
  SimState s = sim.initialState();
  for (int i = 0; i < 1500; ++i) {
    sim.step(s);
    // At the end stops the stop's reaction joins the balance; check only inside the range.
    if (s.actuator_position[2] < 1e-6 || s.actuator_position[2] > 17500.0 - 1e-6) continue;
    const auto& act = hand.actuators[2];
    const double rho = act.drives.front().ratio;
    const double lhs = act.drives[0].ratio * s.tau[2][0] + act.drives[1].ratio * s.tau[2][1] +
                       rho * rho * act.servo.rotor_inertia * s.actuator_acceleration[2];
    ASSERT_NEAR(lhs, rho * s.actuator_effort[2], 1e-12);
  }
}

// With the servo off (kp = kd = 0) the actuator-space equation must conserve the total
// energy of links and rotors, gravity included. Semi-implicit Euler leaves a first-order
// error: it must be small and halve with the step, which a modelling error (a missing or
// wrong Coriolis or gravity term in the reflection) would not do.
TEST_F(BarrettSim, EnergyIsConservedWithServoOff) {
  for (auto& a : hand.actuators) a.servo.kp = a.servo.kd = 0.0;
  double drift[2] = {0.0, 0.0};
  double kinetic0 = 0.0;
  for (int k = 0; k < 2; ++k) {
    SimOptions opt;
    opt.dt = k == 0 ? 1e-4 : 5e-5;
    opt.gravity = Eigen::Vector3d(0.0, 3.0, -9.81);
    Simulator sim(hand, opt);
    SimState s = sim.initialState({8000, 9000, 7000, 1500});
    s.actuator_velocity = {1500.0, -1200.0, 1000.0, 300.0};
    sim.syncJoints(s);
    const double e0 = totalEnergy(hand, s, opt.gravity);
    kinetic0 = e0 - totalEnergy(hand, sim.initialState({8000, 9000, 7000, 1500}), opt.gravity);
    while (s.time < 0.5) {
      sim.step(s);
      ASSERT_EQ(s.warning_count, 0) << s.warnings.front();
      drift[k] = std::max(drift[k], std::abs(totalEnergy(hand, s, opt.gravity) - e0));
    }
  }
  EXPECT_GT(kinetic0, 0.0);
  EXPECT_LT(drift[0], 0.015 * kinetic0);
  EXPECT_LT(drift[1], 0.6 * drift[0]);
}

TEST_F(BarrettSim, InjectedLoadBreaksTheClutchAtTauBreak) {
  Simulator sim = closingFinger3();
  SimState s = sim.initialState();
  Recorder rec(hand);
  double break_counts = -1.0;
  while (s.time < 3.0) {
    // A force on finger 3's inner link, 50 mm from its knuckle, against the closing motion,
    // growing after t = 0.6 s at 50 N/s.
    const auto frames = kinematics::forwardKinematics(hand.fingers[2], s.q[2]);
    const Eigen::Vector3d local(-0.02, 0.0, 0.0);
    const Eigen::Vector3d point = frames.at(2) * local;
    const Eigen::Vector3d against =
        -kinematics::geometricJacobian(hand.fingers[2], frames, 2, local)
             .block<3, 1>(0, 0)
             .normalized();
    const double magnitude = std::max(0.0, s.time - 0.6) * 50.0;
    s.loads = {{2, 1, point, magnitude * against}};
    const bool before = s.clutches[2].broken;
    sim.step(s);
    rec.record(s);
    if (!before && s.clutches[2].broken) {
      break_counts = s.clutches[2].break_position;
      EXPECT_GT(s.inner_load_torque[2], 1.26);
      EXPECT_LT(s.inner_load_torque[2], 1.26 + 50.0 * 0.05 * 1e-3 * 2);  // within one step
    }
  }
  ASSERT_GT(break_counts, 0.0);
  const auto q32 = rec.series("F3.J2.angle");
  const auto q33 = rec.series("F3.J3.angle");
  const auto counts = rec.series("M3.position");
  const auto clutch = rec.series("F3.clutch");
  for (std::size_t r = 0; r < q32.size(); ++r) {
    if (clutch[r] < 0.5) continue;
    EXPECT_NEAR(q32[r], break_counts / 125.0 * kDeg, 1e-12);
    EXPECT_NEAR(q33[r], (4.0 / 375.0 * counts[r] - 3.0 / 375.0 * break_counts) * kDeg, 1e-12);
  }
  EXPECT_EQ(rec.columnIndex("F3.J2.torque") > 0, true);
}

TEST_F(BarrettSim, CsvHasNamedColumnsAndRoundTrips) {
  Simulator sim = closingFinger3();
  SimState s = sim.initialState();
  Recorder rec(hand);
  for (int i = 0; i < 10; ++i) {
    sim.step(s);
    rec.record(s);
  }
  const std::string csv = rec.toCsv();
  const std::string header = csv.substr(0, csv.find('\n'));
  for (const char* col : {"time", "F3.J2.torque", "F3.J3.angle", "F1.J1.velocity", "M3.position",
                          "F3.clutch", "F3.J2.contact_force"})
    EXPECT_NE(header.find(col), std::string::npos) << col;
  // Last row's time reads back exactly.
  const std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
  EXPECT_EQ(std::stod(last.substr(0, last.find(','))), s.time);
  const std::string path = ::testing::TempDir() + "/handsim_rec.csv";
  rec.writeCsv(path);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::fseek(f, 0, SEEK_END);
  EXPECT_EQ(static_cast<std::size_t>(std::ftell(f)), csv.size());
  std::fclose(f);
  EXPECT_THROW(rec.series("F9.J9.angle"), std::invalid_argument);
}

TEST_F(BarrettSim, BadInputsAreRejected) {
  EXPECT_THROW(Simulator(hand, SimOptions{0.0, Eigen::Vector3d::Zero()}), std::invalid_argument);
  Simulator sim(hand);
  EXPECT_THROW(sim.initialState({1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(sim.initialState({NAN, 0, 0, 0}), std::invalid_argument);
  EXPECT_THROW(sim.setTrajectory(7, {}), std::invalid_argument);
}
