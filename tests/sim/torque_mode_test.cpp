// SPDX-License-Identifier: GPL-3.0-or-later
// Actuators in torque mode (SimState::actuator_mode): a single revolute joint without gravity
// under a constant torque accelerates at tau / I, with I worked here from the link's mass
// properties and the rotor inertia; the torque is clamped to the servo's limit, the reference
// is ignored, and switching back to position mode brings the servo back.
#include <gtest/gtest.h>

#include <cmath>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

// One finger, one revolute joint about z_0, link 0.1 m long along x_1 (DH a = 0.1, alpha 0),
// a rod of 0.2 kg with its centre of mass 0.05 m from the axis and inertia 4e-4 kg m^2 about
// its centre along z; the joint's actuator (unit rad, ratio 1) has a 0.002 kg m^2 rotor.
//   I = I_zz,com + m r^2 + J_rotor = 4e-4 + 0.2 * 0.05^2 + 0.002 = 0.0029 kg m^2.
constexpr double kInertia = 4e-4 + 0.2 * 0.05 * 0.05 + 0.002;

std::shared_ptr<const Model> oneJoint() {
  const std::string text = R"({"format": "handsim-hand", "version": 1, "id": "one",
    "fingers": [{"name": "F", "joints": [
      {"name": "J1", "a_m": 0.1, "limits_deg": [-170, 170],
       "inertial": {"mass_kg": 0.2, "com_m": [-0.05, 0, 0],
                    "inertia_kgm2": [1e-5, 0, 0, 4e-4, 0, 4e-4]}}]}],
    "actuators": [{"name": "M", "unit": "rad", "range": [-2.9, 2.9],
                   "drives": [{"joint": "F.J1", "ratio": 1}],
                   "servo": {"kp_Nm_per_rad": 5, "kd_Nms_per_rad": 0.45, "torque_limit_Nm": 1.5,
                             "rotor_inertia_kgm2": 0.002}}]})";
  Options o;
  o.gravity_world = Eigen::Vector3d::Zero();
  o.dt = 1e-3;
  return compileModel(
      std::make_shared<const hand::HandModel>(hand::parseHandFile(text, "one.json")), {}, o);
}

}  // namespace

TEST(TorqueMode, ConstantTorqueAcceleratesAtTauOverInertia) {
  const auto model = oneJoint();
  SimState s = makeState(*model);
  ASSERT_EQ(s.actuator_mode.size(), 1u);
  s.actuator_mode[0] = ActuatorMode::Torque;
  const double tau = 0.4;  // [N m], below the 1.5 N m limit
  s.actuator_torque[0] = tau;
  s.actuator_reference[0] = 1.0;  // a position servo would pull towards it; torque mode must not
  const int n = 200;
  for (int i = 0; i < n; ++i) step(*model, s);
  const double a = tau / kInertia, dt = model->options.dt;
  EXPECT_NEAR(s.qdd[0][0], a, 1e-9 * a);
  EXPECT_NEAR(s.actuator_effort[0], tau, 1e-15);
  // Semi-implicit Euler under a constant acceleration: qd_n = n dt a exactly and
  // q_n = dt^2 a n (n + 1) / 2.
  EXPECT_NEAR(s.qd[0][0], n * dt * a, 1e-9 * n * dt * a);
  EXPECT_NEAR(s.q[0][0], dt * dt * a * n * (n + 1) / 2.0, 1e-9);
}

TEST(TorqueMode, TorqueIsClampedToTheServoLimitAndPositionModeResumes) {
  const auto model = oneJoint();
  SimState s = makeState(*model);
  s.actuator_mode[0] = ActuatorMode::Torque;
  s.actuator_torque[0] = -10.0;  // clamped to -1.5 N m
  step(*model, s);
  EXPECT_NEAR(s.qdd[0][0], -1.5 / kInertia, 1e-9 / kInertia);
  EXPECT_EQ(s.actuator_effort[0], -1.5);
  // Back to the position servo: it pulls towards the reference (0, where it started).
  s.actuator_mode[0] = ActuatorMode::Position;
  s.actuator_reference[0] = 0.0;
  s.actuator_reference_velocity[0] = 0.0;
  step(*model, s);
  EXPECT_GT(s.actuator_effort[0], 0.0);  // q < 0 and moving down: the PD pushes up
}

TEST(TorqueMode, RunKeepsTheModeAndIgnoresCommands) {
  const auto model = oneJoint();
  RunPlan plan;
  plan.duration = 0.05;
  sim::Run run(model, plan);
  run.state().actuator_mode[0] = ActuatorMode::Torque;
  run.state().actuator_torque[0] = 0.2;
  run.state().actuator_command[0] = -2.0;  // the servo's set point, unused in torque mode
  run.runToEnd();
  const double t = run.state().time;
  // No contacts, no gravity: the run's steps are the closed form's.
  EXPECT_NEAR(run.state().qd[0][0], 0.2 / kInertia * t, 1e-9);
  EXPECT_GT(run.state().q[0][0], 0.0);
}
