// SPDX-License-Identifier: GPL-3.0-or-later
// The actuator-space dynamics of the hand (docs/dynamics.md): the worm-geared drives are not
// back-drivable, so every joint follows its actuator through the transmission (q = R a + q0, R
// from the clutch states, seed 000 eq. 1-4 and 10) and the equations of motion are written in
// actuator coordinates:
//   (R^T D R + J_rotor) a'' = tau_servo + tau_tendon - R^T (H + C - tau_ext),
// with D, H, C by Lagrange-Euler (seed 000 eq. 8); tendon-pulled joints are their own passive
// actuators.
#include <algorithm>
#include <cmath>

#include "handsim/contact/contact_jacobian.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/sim/step.hpp"
#include "stages.hpp"

namespace handsim::sim {

using stages::idx;

void computeActuation(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    const auto& act = hand.actuators[a];
    if (a < s.actuator_mode.size() && s.actuator_mode[a] == ActuatorMode::Torque) {
      s.actuator_effort[a] =
          std::clamp(s.actuator_torque[a], -act.servo.torque_limit, act.servo.torque_limit);
      continue;
    }
    const double rho = act.drives.front().ratio;
    const double err = rho * (s.actuator_reference[a] - s.actuator_position[a]);
    const double derr = rho * (s.actuator_reference_velocity[a] - s.actuator_velocity[a]);
    const double effort = act.servo.kp * err + act.servo.kd * derr;
    s.actuator_effort[a] = std::clamp(effort, -act.servo.torque_limit, act.servo.torque_limit);
  }
  // Tendons (seed 002): the motor sits at its reference; the elastic tendon cannot push,
  // T = k max(0, retraction - sum r_j q_j).
  for (std::size_t t = 0; t < hand.tendons.size(); ++t) {
    const auto& tendon = hand.tendons[t];
    s.tendon_position[t] = std::clamp(s.tendon_position[t], tendon.lower, tendon.upper);
    double excursion = 0.0;
    for (const auto& tj : tendon.joints)
      excursion +=
          tj.pulley_radius * s.q[static_cast<std::size_t>(tj.joint.finger)][tj.joint.joint];
    s.tendon_tension[t] = tendon.stiffness * std::max(0.0, s.tendon_position[t] - excursion);
  }
}

void computeDynamics(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  const std::size_t na = hand.actuators.size();
  const std::size_t nf = hand.fingers.size();
  StepWorkspace& w = s.work;
  hand::effectiveDrives(hand, s.clutches, w.drives);
  const auto& drives = w.drives;

  // Per finger, reflected to actuator space: M = R^T D R + J, b = R^T (H + C - ext).
  w.mass.setZero();
  w.bias.setZero();
  for (std::size_t f = 0; f < nf; ++f) {
    const auto& chain = hand.fingers[f];
    const Eigen::Isometry3d base = fingerBaseWorld(model, s, static_cast<int>(f));
    // A palm carried with acceleration: in the finger base's frame gravity becomes g - a_base,
    // a_base = a_palm + alpha x r + omega x (omega x r) for the base at r from the palm origin
    // (the base's rotation rate itself is not fed to the joint dynamics; docs/free-objects.md).
    const Eigen::Vector3d r = base.translation() - s.palm_pose_world.translation();
    const Eigen::Vector3d omega = s.palm_twist_world.tail<3>();
    const Eigen::Vector3d a_base = s.palm_acceleration_world.head<3>() +
                                   s.palm_acceleration_world.tail<3>().cross(r) +
                                   omega.cross(omega.cross(r));
    const Eigen::Vector3d g_base =
        base.linear().transpose() * (model.options.gravity_world - a_base);
    dynamics::lagrangeEuler(chain, s.link_frames[f], s.qd[f], g_base, w.terms[f], w.lagrange_euler);
    kinematics::JointVector& external = w.external[f];
    external.setZero(chain.dof());
    if (!s.loads.empty()) {
      const Eigen::Isometry3d to_base = base.inverse();
      for (const LinkLoad& l : s.loads)
        if (l.finger == static_cast<int>(f))
          contact::visitLinkPointJacobianTranspose(
              chain, s.link_frames[f], l.row, to_base * l.point_world,
              to_base.linear() * l.force_world, [&external](int j, double g) { external[j] += g; });
    }
    const auto& terms = w.terms[f];
    hand::addThroughDrives(drives[f], terms.H + terms.C - w.external[f], w.bias);
    hand::addActuatorInertia(drives[f], terms.D, w.mass);
  }

  // Servo (PD at the primary joint, see ServoGains) and rotor inertia.
  for (std::size_t a = 0; a < na; ++a) {
    const auto& act = hand.actuators[a];
    const double rho = act.drives.front().ratio;
    w.force[idx(a)] = rho * s.actuator_effort[a] - w.bias[idx(a)];
    w.mass(idx(a), idx(a)) += rho * rho * act.servo.rotor_inertia;
  }
  // Each pulled joint feels r_j T against its return spring and damping; pulled joints are
  // their own passive actuators (ratio 1).
  for (std::size_t t = 0; t < hand.tendons.size(); ++t) {
    const auto& tendon = hand.tendons[t];
    const double tension = s.tendon_tension[t];
    for (const auto& tj : tendon.joints) {
      const auto f = static_cast<std::size_t>(tj.joint.finger);
      const double q = s.q[f][tj.joint.joint], qd = s.qd[f][tj.joint.joint];
      const auto a = static_cast<Eigen::Index>(hand.driverOf(tj.joint).first);
      w.force[a] += tj.pulley_radius * tension - tj.spring * (q - tj.rest) - tj.damping * qd;
    }
  }
  w.mass_ldlt.compute(w.mass);
  w.acceleration.head(idx(na)) = w.mass_ldlt.solve(w.force);
  if (!w.acceleration.head(idx(na)).allFinite()) {
    addWarning(s,
               "actuator-space inertia is singular or the state is not finite; accelerations set "
               "to 0");
    w.acceleration.head(idx(na)).setZero();
  }
  stages::computeObjectDynamics(model, s);

  // Each actuator's range, narrowed by the limits of the joints it moves.
  for (std::size_t a = 0; a < na; ++a) {
    w.lower[idx(a)] = hand.actuators[a].lower;
    w.upper[idx(a)] = hand.actuators[a].upper;
  }
  for (std::size_t f = 0; f < nf; ++f) {
    const auto& chain = hand.fingers[f];
    // Movable rows in order are the joints 0, 1, ...
    int j = -1;
    for (const kinematics::DhRow& row : chain.rows) {
      if (row.type == kinematics::JointType::Fixed) continue;
      const auto& e = drives[f][static_cast<std::size_t>(++j)];
      const auto a = static_cast<Eigen::Index>(e.actuator);
      hand::narrowByJointLimits(row.lower, row.upper, e.ratio, e.offset, w.lower[a], w.upper[a]);
    }
  }
}

}  // namespace handsim::sim
