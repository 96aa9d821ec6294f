// SPDX-License-Identifier: GPL-3.0-or-later
// The staged step and the run loop on the BarrettHand: determinism, one model under many
// states, tracking and coupling, the step's joint torques against an independent Newton-Euler,
// energy with the servo off, gravity in the world frame, external loads and the clutch.
#include "handsim/sim/step.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "handsim/dynamics/energy.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/sim/recorder.hpp"
#include "handsim/sim/run.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;

std::shared_ptr<const hand::HandModel> barrett() {
  static const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  return hand;
}

std::shared_ptr<const Model> model(Options options = {}) {
  return compileModel(barrett(), {}, options);
}

// Finger 3's motor closes from 0 to 17500 counts along a trapezoid that starts at 0.1 s.
RunPlan closingFinger3(double duration = 3.0) {
  RunPlan plan;
  plan.duration = duration;
  plan.trajectories.resize(4);
  plan.trajectories[2].append(TrapezoidalProfile(0.0, 17500.0, 10000.0, 20000.0, 0.1));
  return plan;
}

double totalEnergy(const Model& m, const SimState& s) {
  const hand::HandModel& hand = m.hand();
  double e = 0.0;
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const auto& chain = hand.fingers[f];
    const Eigen::Vector3d gb =
        fingerBaseWorld(m, s, static_cast<int>(f)).linear().transpose() * m.options.gravity_world;
    e += dynamics::kineticEnergy(chain, s.q[f], s.qd[f]) +
         dynamics::potentialEnergy(chain, s.q[f], gb);
  }
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    const double rho = hand.actuators[a].drives.front().ratio;
    e += 0.5 * hand.actuators[a].servo.rotor_inertia * std::pow(rho * s.actuator_velocity[a], 2);
  }
  return e;
}

// A load on finger 1's inner link exercises the load and clutch paths.
void probe(sim::Run& run) {
  const Eigen::Isometry3d base = fingerBaseWorld(run.model(), run.state(), 0);
  run.state().loads = {{0, 1, base * Eigen::Vector3d(0.05, 0.0, 0.0),
                        base.linear() * Eigen::Vector3d(0.0, 0.0, -1.0)}};
}

}  // namespace

TEST(Step, RunsAreBitIdentical) {
  std::string csv[2];
  for (auto& out : csv) {
    sim::Run run(model(), closingFinger3());
    while (!run.finished()) {
      probe(run);
      run.step();
    }
    out = run.recorder().toCsv();
  }
  EXPECT_GT(csv[0].size(), 100000u);
  EXPECT_EQ(csv[0], csv[1]);
}

// MuJoCo's split: the model is shared and never written, so two states stepped in any
// interleaving, or on two threads, give what each gives alone.
TEST(Step, OneModelServesManyStates) {
  const auto m = model();
  sim::Run alone(m, closingFinger3(1.5));
  alone.runToEnd();
  sim::Run a(m, closingFinger3(1.5));
  RunPlan other = closingFinger3(1.5);
  other.palm_pose_world.linear() =
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  sim::Run b(m, other);
  while (!a.finished()) {
    a.step();
    b.step();
  }
  EXPECT_EQ(a.recorder().toCsv(), alone.recorder().toCsv());
  sim::Run c(m, closingFinger3(1.5));
  sim::Run d(m, other);
  std::thread tc([&] { c.runToEnd(); });
  std::thread td([&] { d.runToEnd(); });
  tc.join();
  td.join();
  EXPECT_EQ(c.recorder().toCsv(), alone.recorder().toCsv());
  EXPECT_EQ(d.recorder().toCsv(), b.recorder().toCsv());
  // The other palm orientation turns gravity: the runs must differ.
  EXPECT_NE(b.recorder().toCsv(), alone.recorder().toCsv());
}

TEST(Step, FingerTracksTrapezoidalReferenceAndCouplingHolds) {
  sim::Run run(model(), closingFinger3());
  double worst = 0.0;
  while (!run.finished()) {
    run.step();
    const SimState& s = run.state();
    worst = std::max(worst, std::abs(s.actuator_reference[2] - s.actuator_position[2]));
    // Eq. 3-4 hold exactly at every step while the clutch is engaged.
    ASSERT_NEAR(s.q[2][0], s.actuator_position[2] / 125.0 * kDeg, 1e-12);
    ASSERT_NEAR(s.q[2][1], s.actuator_position[2] / 375.0 * kDeg, 1e-12);
  }
  // Servo lag stays below 2 deg at the inner joint (250 counts) during the motion and the
  // finger ends where it was sent, within the gravity sag of a P servo (< 0.5 deg).
  const SimState& s = run.state();
  EXPECT_LT(worst, 250.0);
  EXPECT_NEAR(s.actuator_position[2], 17500.0, 0.5 * 125.0);
  EXPECT_NEAR(s.q[2][0], 140.0 * kDeg, 0.5 * kDeg);
  EXPECT_EQ(s.warning_count, 0);
}

// The torques the step reports are those an independent recursive Newton-Euler needs for the
// step's joint accelerations, with gravity turned from the world into each finger's base
// (palm tilted) and the probe's force as an external load: tau = RNEA(q, qd, qdd) - J^T f.
TEST(Step, JointTorquesMatchNewtonEuler) {
  RunPlan plan = closingFinger3(1.2);
  plan.palm_pose_world.linear() =
      Eigen::AngleAxisd(0.9, Eigen::Vector3d(0.3, -1.0, 0.2).normalized()).toRotationMatrix();
  plan.palm_pose_world.translation() = Eigen::Vector3d(0.1, -0.2, 0.3);
  sim::Run run(model(), plan);
  int checked = 0;
  while (!run.finished()) {
    // q and qd at the start of the step, which the dynamics use.
    const std::vector<kinematics::JointVector> q0 = run.state().q, qd0 = run.state().qd;
    probe(run);
    run.step();
    const SimState& s = run.state();
    const Model& m = run.model();
    for (std::size_t f = 0; f < 3; ++f) {
      const auto& chain = m.hand().fingers[f];
      const Eigen::Isometry3d base = fingerBaseWorld(m, s, static_cast<int>(f));
      const Eigen::Vector3d g = base.linear().transpose() * m.options.gravity_world;
      kinematics::JointVector expected =
          dynamics::inverseDynamicsNewtonEuler(chain, q0[f], qd0[f], s.qdd[f], g);
      if (f == 0) {
        // The probe: 1 N along -z of finger 1's base at (0.05, 0, 0) on its inner link, a
        // torque -J_v^T f worked from the frames of q0 by finite differences of the point.
        const auto frames = kinematics::forwardKinematics(chain, q0[f]);
        const Eigen::Vector3d local = frames.at(2).inverse() * Eigen::Vector3d(0.05, 0.0, 0.0);
        for (int j = 0; j < chain.dof(); ++j) {
          kinematics::JointVector qh = q0[f];
          qh[j] += 1e-7;
          const Eigen::Vector3d moved = kinematics::forwardKinematics(chain, qh).at(2) * local;
          const Eigen::Vector3d dp = (moved - Eigen::Vector3d(0.05, 0.0, 0.0)) / 1e-7;
          expected[j] -= dp.dot(Eigen::Vector3d(0.0, 0.0, -1.0));
        }
      }
      for (int j = 0; j < chain.dof(); ++j)
        ASSERT_NEAR(s.tau[f][j], expected[j], 1e-6) << "finger " << f << " joint " << j;
      ++checked;
    }
  }
  EXPECT_GT(checked, 3000);
}

// With the servo off (kp = kd = 0) the actuator-space equation must conserve the total
// energy of links and rotors, gravity included. Semi-implicit Euler leaves a first-order
// error: it must be small and halve with the step, which a modelling error (a missing or
// wrong Coriolis or gravity term in the reflection) would not do.
TEST(Step, EnergyIsConservedWithServoOff) {
  auto hand = std::make_shared<hand::HandModel>(hand::loadHand("barrett"));
  for (auto& a : hand->actuators) a.servo.kp = a.servo.kd = 0.0;
  double drift[2] = {0.0, 0.0};
  double kinetic0 = 0.0;
  for (int k = 0; k < 2; ++k) {
    Options opt;
    opt.dt = k == 0 ? 1e-4 : 5e-5;
    opt.gravity_world = Eigen::Vector3d(0.0, 3.0, -9.81);
    const auto m = compileModel(hand, {}, opt);
    SimState s = makeState(*m, {8000, 9000, 7000, 1500});
    const double rest = totalEnergy(*m, s);
    s.actuator_velocity = {1500.0, -1200.0, 1000.0, 300.0};
    forwardPosition(*m, s);
    const double e0 = totalEnergy(*m, s);
    kinetic0 = e0 - rest;
    while (s.time < 0.5) {
      step(*m, s);
      ASSERT_EQ(s.warning_count, 0) << s.warnings.front();
      drift[k] = std::max(drift[k], std::abs(totalEnergy(*m, s) - e0));
    }
  }
  EXPECT_GT(kinetic0, 0.0);
  EXPECT_LT(drift[0], 0.015 * kinetic0);
  EXPECT_LT(drift[1], 0.6 * drift[0]);
}

// Gravity lives in the world: turning the palm by R under gravity g is the same physics as
// an upright palm under R^T g. Turning the palm upside down makes a free finger sag the
// other way.
TEST(Step, GravityTurnsWithThePalm) {
  const Eigen::Matrix3d r =
      Eigen::AngleAxisd(2.1, Eigen::Vector3d(0.2, 0.9, -0.4).normalized()).toRotationMatrix();
  RunPlan turned = closingFinger3(1.0);
  turned.palm_pose_world.linear() = r;
  turned.palm_pose_world.translation() = Eigen::Vector3d(0.3, 0.0, -1.0);
  Options tilted;
  tilted.gravity_world = r.transpose() * Eigen::Vector3d(0.0, 0.0, -9.81);
  sim::Run a(model(), turned);
  sim::Run b(model(tilted), closingFinger3(1.0));
  a.runToEnd();
  b.runToEnd();
  for (std::size_t f = 0; f < 3; ++f)
    for (int j = 0; j < a.state().q[f].size(); ++j) {
      EXPECT_NEAR(a.state().q[f][j], b.state().q[f][j], 1e-12);
      EXPECT_NEAR(a.state().tau[f][j], b.state().tau[f][j], 1e-9);
    }

  // Finger 1 held by its servo at 8000 counts sags along gravity: compare the steady servo
  // errors of an upright and an upside-down palm; they have opposite signs.
  double error[2];
  for (int k = 0; k < 2; ++k) {
    RunPlan hold;
    hold.duration = 1.0;
    hold.initial = {8000.0, 0.0, 0.0, 0.0};
    if (k == 1)
      hold.palm_pose_world.linear() =
          Eigen::AngleAxisd(M_PI, Eigen::Vector3d::UnitX()).toRotationMatrix();
    sim::Run run(model(), hold);
    run.runToEnd();
    error[k] = run.state().actuator_position[0] - 8000.0;
  }
  EXPECT_GT(std::abs(error[0]), 1e-3);
  EXPECT_LT(error[0] * error[1], 0.0);
}

TEST(Step, InjectedLoadBreaksTheClutchAtTauBreak) {
  sim::Run run(model(), closingFinger3());
  double break_counts = -1.0;
  double magnitude = 0.0;
  while (!run.finished()) {
    // A force on finger 3's inner link, 20 mm inside frame {2}, against the closing motion,
    // growing after t = 0.6 s at 50 N/s; given in the world frame.
    SimState& s = run.state();
    const auto& chain = run.model().hand().fingers[2];
    const auto& frames = s.link_frames[2];
    const Eigen::Vector3d local(-0.02, 0.0, 0.0);
    const Eigen::Isometry3d base = fingerBaseWorld(run.model(), s, 2);
    const Eigen::Vector3d against =
        -kinematics::geometricJacobian(chain, frames, 2, local).block<3, 1>(0, 0).normalized();
    magnitude = std::max(0.0, s.time - 0.6) * 50.0;
    s.loads = {{2, 1, base * (frames.at(2) * local), base.linear() * (magnitude * against)}};
    const bool before = s.clutches[2].broken;
    run.step();
    if (!before && s.clutches[2].broken) {
      break_counts = s.clutches[2].break_position;
      EXPECT_GT(s.inner_load_torque[2], 1.26);
      EXPECT_LT(s.inner_load_torque[2], 1.26 + 50.0 * 0.05 * 1e-3 * 2);  // within one step
    }
  }
  ASSERT_GT(break_counts, 0.0);
  const Recorder& rec = run.recorder();
  const auto q32 = rec.series("F3.J2.angle");
  const auto q33 = rec.series("F3.J3.angle");
  const auto counts = rec.series("M3.position");
  const auto clutch = rec.series("F3.clutch");
  for (std::size_t r = 0; r < q32.size(); ++r) {
    if (clutch[r] < 0.5) continue;
    EXPECT_NEAR(q32[r], break_counts / 125.0 * kDeg, 1e-12);
    EXPECT_NEAR(q33[r], (4.0 / 375.0 * counts[r] - 3.0 / 375.0 * break_counts) * kDeg, 1e-12);
  }
  // The inner link's recorded external force is the probe's magnitude, whatever the frames.
  EXPECT_NEAR(rec.series("F3.J2.contact_force").back(), magnitude, 1e-9);
  EXPECT_GT(magnitude, 100.0);
}

TEST(Step, CsvHasNamedColumnsAndRoundTrips) {
  sim::Run run(model(), closingFinger3(0.01));
  run.runToEnd();
  const Recorder& rec = run.recorder();
  const std::string csv = rec.toCsv();
  const std::string header = csv.substr(0, csv.find('\n'));
  for (const char* col : {"time", "F3.J2.torque", "F3.J3.angle", "F1.J1.velocity", "M3.position",
                          "F3.clutch", "F3.J2.contact_force"})
    EXPECT_NE(header.find(col), std::string::npos) << col;
  EXPECT_EQ(rec.rowCount(), 11u);
  // Last row's time reads back exactly.
  const std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
  EXPECT_EQ(std::stod(last.substr(0, last.find(','))), run.state().time);
  const std::string path = ::testing::TempDir() + "/handsim_rec.csv";
  rec.writeCsv(path);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::fseek(f, 0, SEEK_END);
  EXPECT_EQ(static_cast<std::size_t>(std::ftell(f)), csv.size());
  std::fclose(f);
  EXPECT_THROW(rec.series("F9.J9.angle"), std::invalid_argument);
}

TEST(Step, RecordEveryKeepsFirstAndLastRows) {
  RunPlan plan = closingFinger3(0.0105);
  plan.record_every = 4;
  sim::Run run(model(), plan);
  run.runToEnd();
  // 11 steps (llround(10.5)): rows at steps 0, 4, 8 and the last, 11.
  EXPECT_EQ(run.totalSteps(), 11);
  const auto t = run.recorder().series("time");
  ASSERT_EQ(t.size(), 4u);
  EXPECT_NEAR(t.back(), 11 * 1e-3, 1e-15);
}

TEST(Step, BadInputsAreRejected) {
  Options bad;
  bad.dt = 0.0;
  EXPECT_THROW(model(bad), std::invalid_argument);
  bad = {};
  bad.gravity_world.x() = NAN;
  EXPECT_THROW(model(bad), std::invalid_argument);
  bad = {};
  bad.contact.kdop_k = 12;
  EXPECT_THROW(model(bad), std::invalid_argument);
  const auto m = model();
  EXPECT_THROW(makeState(*m, {1.0, 2.0}), std::invalid_argument);
  EXPECT_THROW(makeState(*m, {NAN, 0, 0, 0}), std::invalid_argument);
  RunPlan plan;
  plan.trajectories.resize(7);
  EXPECT_THROW(sim::Run(m, plan), std::invalid_argument);
  plan = {};
  plan.record_every = 0;
  EXPECT_THROW(sim::Run(m, plan), std::invalid_argument);
  plan = {};
  sim::Run endless(m, plan);
  EXPECT_THROW(endless.runToEnd(), std::logic_error);
  EXPECT_THROW(endless.setModel(compileModel(
                   std::make_shared<const hand::HandModel>(hand::loadHand("barrett")), {})),
               std::invalid_argument);
}

// Virtual work on the seed-000 run (contacts, the clutch breaking, the stops): what the
// transmission delivers to the joints plus the rotor's inertia equals the servo's effort plus
// the stops' reaction, sum_j r_j tau_j + rho^2 J a'' = rho (effort + limit_reaction), with r_j
// the drive ratios of the row's clutch state (seed 000 eq. 3-4 engaged, eq. 10 broken), on
// every row without an impact. An impact row records the impact on its own (impact_force) and
// keeps the drive's torque: before, the cube's first touch read -0.35 N m on F3.J2 while the
// servo applied -0.012 N m.
TEST(Step, VirtualWorkBalancesAndImpactsHaveColumnsOfTheirOwn) {
  const auto sc = loadScenario(hand::assetDirectory() + "/scenarios/barrett_breakaway_cube.json");
  const auto run = runScenario(sc);
  const Recorder& rec = run->recorder();
  const hand::HandModel& hand = *sc.hand;
  const auto& m3 = hand.actuators[2];
  const double rho = m3.drives.front().ratio;  // rad per count at F3.J2
  const double r2 = m3.drives[0].ratio, r3 = m3.drives[1].ratio;
  const auto tau2 = rec.series("F3.J2.torque"), tau3 = rec.series("F3.J3.torque");
  const auto effort = rec.series("M3.effort"), reaction = rec.series("M3.limit_reaction");
  const auto clutch = rec.series("F3.clutch");
  const auto impact2 = rec.series("F3.J2.impact_force"), impact3 = rec.series("F3.J3.impact_force");
  const auto pos = rec.series("M3.position");
  const auto t = rec.series("time");
  double worst = 0.0;
  int impacts = 0, checked = 0;
  // An impact row keeps its impact out of the torque columns, so the balance is checked on the
  // rows without one. "Without one" means below rounding: the converged (warm-started) solve
  // leaves impacts of about 1e-16 N on resting contacts, which act on the joints by at most
  // 1e-12 N x 0.1 m (the finger's reach) = 1e-13 N m, against the 1e-9 N m (times rho) checked.
  constexpr double kRoundingImpact = 1e-12;  // [N]
  for (std::size_t i = 2; i < t.size(); ++i) {
    if (impact2[i] > kRoundingImpact || impact3[i] > kRoundingImpact ||
        impact2[i - 1] > kRoundingImpact || impact3[i - 1] > kRoundingImpact) {
      ++impacts;
      continue;
    }
    // a'' of the step that ended at row i, from the recorded positions (semi-implicit Euler:
    // a_i - 2 a_{i-1} + a_{i-2} = a''_i dt^2).
    const double dt = t[i] - t[i - 1];
    const double add = (pos[i] - 2.0 * pos[i - 1] + pos[i - 2]) / (dt * dt);
    const bool broken = clutch[i] > 0.5;
    const double lhs = (broken ? 0.0 : r2 * tau2[i]) + (broken ? r2 + r3 : r3) * tau3[i] +
                       rho * rho * m3.servo.rotor_inertia * add;
    const double rhs = rho * (effort[i] + reaction[i]);
    worst = std::max(worst, std::abs(lhs - rhs));
    ++checked;
  }
  EXPECT_LT(worst, 1e-9 * rho);  // N m at the primary joint, times rho
  EXPECT_GT(checked, 2700);
  // The cube's first touch is an impact of hundreds of newtons, recorded on its own; the drive's
  // torque on joint 32 there stays what the servo gives (no dip below zero while it closes).
  const auto first = static_cast<std::size_t>(
      std::max_element(impact2.begin(), impact2.end()) - impact2.begin());
  EXPECT_GT(impact2[first], 100.0);
  EXPECT_GT(impacts, 0);
  EXPECT_NEAR(tau2[first], tau2[first - 1], 0.05);
  const auto lowest = *std::min_element(tau2.begin() + 1600, tau2.begin() + 1800);
  EXPECT_GT(lowest, -0.05);
}
