// SPDX-License-Identifier: GPL-3.0-or-later
// The fixed-step simulator (docs/simulation.md). Stages follow the physics: references,
// transmission (seed 000 eq. 1-4, 10), loads and clutches (eq. 9), Lagrange-Euler dynamics
// (eq. 8) reflected to the actuators, servo, integration, limits.
#include "handsim/sim/simulator.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::sim {

namespace {

constexpr std::size_t kKeptWarnings = 20;

void warn(SimState& s, const std::string& what) {
  ++s.warning_count;
  if (s.warnings.size() < kKeptWarnings)
    s.warnings.push_back("t = " + std::to_string(s.time) + " s: " + what);
}

}  // namespace

Simulator::Simulator(const hand::HandModel& hand, SimOptions options)
    : hand_(hand), options_(options), trajectories_(hand.actuators.size()) {
  if (!(options_.dt > 0.0) || !std::isfinite(options_.dt))
    throw std::invalid_argument("time step must be positive and finite");
  if (!options_.gravity.allFinite()) throw std::invalid_argument("gravity must be finite");
}

SimState Simulator::initialState(const std::vector<double>& actuator_positions) const {
  const std::size_t na = hand_.actuators.size();
  if (!actuator_positions.empty() && actuator_positions.size() != na)
    throw std::invalid_argument("initial actuator positions: expected " + std::to_string(na) +
                                " values, got " + std::to_string(actuator_positions.size()));
  for (double v : actuator_positions)
    if (!std::isfinite(v)) throw std::invalid_argument("initial actuator position is not finite");
  SimState s;
  s.actuator_position = hand::clampActuators(
      hand_, actuator_positions.empty() ? std::vector<double>(na, 0.0) : actuator_positions);
  s.actuator_velocity.assign(na, 0.0);
  s.actuator_acceleration.assign(na, 0.0);
  s.actuator_command = s.actuator_position;
  s.actuator_reference = s.actuator_position;
  s.actuator_effort.assign(na, 0.0);
  s.clutches.assign(hand_.clutches.size(), {});
  s.inner_load_torque.assign(hand_.clutches.size(), 0.0);
  for (const auto& f : hand_.fingers) {
    s.q.emplace_back(kinematics::JointVector::Zero(f.dof()));
    s.qd.emplace_back(kinematics::JointVector::Zero(f.dof()));
    s.qdd.emplace_back(kinematics::JointVector::Zero(f.dof()));
    s.tau.emplace_back(kinematics::JointVector::Zero(f.dof()));
  }
  syncJoints(s);
  return s;
}

void Simulator::setTrajectory(int actuator, ActuatorTrajectory trajectory) {
  if (actuator < 0 || actuator >= static_cast<int>(trajectories_.size()))
    throw std::invalid_argument("no actuator with index " + std::to_string(actuator));
  trajectories_[static_cast<std::size_t>(actuator)] = std::move(trajectory);
}

void Simulator::setObjects(std::vector<WorldObject> objects) {
  if (!contacts_) contacts_ = std::make_shared<ContactModel>(hand_);
  contacts_->setObjects(std::move(objects));
}

void Simulator::syncJoints(SimState& s) const {
  const auto drives = hand::effectiveDrives(hand_, s.clutches);
  for (std::size_t f = 0; f < drives.size(); ++f) {
    for (std::size_t j = 0; j < drives[f].size(); ++j) {
      const auto& e = drives[f][j];
      const auto a = static_cast<std::size_t>(e.actuator);
      const auto jj = static_cast<Eigen::Index>(j);
      s.q[f][jj] = e.ratio * s.actuator_position[a] + e.offset;
      s.qd[f][jj] = e.ratio * s.actuator_velocity[a];
    }
  }
}

void Simulator::step(SimState& s) const {
  const std::size_t na = hand_.actuators.size();
  const std::size_t nf = hand_.fingers.size();
  const double dt = options_.dt;
  const double t_next = s.time + dt;

  // References at the end of the step (the servo tracks where the motor should be).
  for (std::size_t a = 0; a < na; ++a)
    s.actuator_reference[a] = trajectories_[a].position(t_next, s.actuator_command[a]);

  // Loads and clutches: eq. 9 on the inner link, then the state machine.
  std::vector<kinematics::ChainFrames> frames(nf);
  for (std::size_t f = 0; f < nf; ++f)
    frames[f] = kinematics::forwardKinematics(hand_.fingers[f], s.q[f]);
  bool clutch_changed = false;
  for (std::size_t c = 0; c < hand_.clutches.size(); ++c) {
    const auto& cm = hand_.clutches[c];
    const auto inner_row =
        hand_.fingers[static_cast<std::size_t>(cm.inner.finger)].rowOfJoint(cm.inner.joint);
    const auto fi = static_cast<std::size_t>(cm.inner.finger);
    const Eigen::Isometry3d to_base = hand_.fingers[fi].base.inverse();
    double load = 0.0;
    for (const auto& l : s.loads)
      if (l.finger == cm.inner.finger && l.row == inner_row)
        load += hand::innerLoadTorque(hand_, cm, frames[fi], l.point, l.force);
    // Contact forces of the previous step (seed 000 eq. 9 with the constraint's force).
    for (const auto& ct : s.contacts)
      if (ct.finger == cm.inner.finger && ct.row == inner_row && ct.force > 0.0)
        load += hand::innerLoadTorque(hand_, cm, frames[fi], to_base * ct.point,
                                      to_base.linear() * (ct.force * ct.normal));
    s.inner_load_torque[c] = load;
    const auto a = static_cast<std::size_t>(cm.actuator);
    // A finger stopped by an object does not move, but its motor still drives it closed: judge
    // the direction by the velocity, or by the servo's push when the finger stands still.
    const double rho = hand_.actuators[a].drives.front().ratio;
    const double drive = std::abs(s.actuator_velocity[a]) > 1e-9 ? s.actuator_velocity[a]
                                                                 : rho * s.actuator_effort[a];
    const auto ev =
        hand::updateClutch(hand_, cm, s.clutches[c], s.actuator_position[a], drive, load);
    if (ev == hand::ClutchEvent::BrokeAway) {
      warn(s, "clutch of " + hand_.actuators[a].name + " broke away at " +
                  std::to_string(s.actuator_position[a]) + " " + hand_.actuators[a].unit);
      clutch_changed = true;
    } else if (ev == hand::ClutchEvent::Reengaged) {
      clutch_changed = true;
    }
  }
  if (clutch_changed) syncJoints(s);
  const auto drives = hand::effectiveDrives(hand_, s.clutches);

  // Dynamics per finger, reflected to actuator space: M = R^T D R + J, b = R^T (H + C - ext).
  Eigen::MatrixXd m =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(na), static_cast<Eigen::Index>(na));
  Eigen::VectorXd b = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(na));
  std::vector<dynamics::DynamicsTerms> terms(nf);
  std::vector<kinematics::JointVector> ext(nf);
  for (std::size_t f = 0; f < nf; ++f) {
    const auto& chain = hand_.fingers[f];
    const Eigen::Vector3d g_base = chain.base.linear().transpose() * options_.gravity;
    terms[f] = dynamics::lagrangeEuler(chain, s.q[f], s.qd[f], g_base);
    ext[f] = kinematics::JointVector::Zero(chain.dof());
    for (const auto& l : s.loads) {
      if (l.finger != static_cast<int>(f)) continue;
      const Eigen::Vector3d local = frames[f].at(l.row + 1).inverse() * l.point;
      ext[f] += (kinematics::geometricJacobian(chain, frames[f], l.row + 1, local)
                     .topRows<3>()
                     .transpose() *
                 l.force);
    }
    const int n = chain.dof();
    for (int i = 0; i < n; ++i) {
      const auto& ei = drives[f][static_cast<std::size_t>(i)];
      if (ei.ratio == 0.0) continue;
      const auto ai = static_cast<Eigen::Index>(ei.actuator);
      b[ai] += ei.ratio * (terms[f].H[i] + terms[f].C[i] - ext[f][i]);
      for (int k = 0; k < n; ++k) {
        const auto& ek = drives[f][static_cast<std::size_t>(k)];
        if (ek.ratio == 0.0) continue;
        m(ai, static_cast<Eigen::Index>(ek.actuator)) += ei.ratio * terms[f].D(i, k) * ek.ratio;
      }
    }
  }

  // Servo (PD at the primary joint, see ServoGains) and rotor inertia.
  Eigen::VectorXd force(static_cast<Eigen::Index>(na));
  for (std::size_t a = 0; a < na; ++a) {
    const auto& act = hand_.actuators[a];
    const double rho = act.drives.front().ratio;
    const double err = rho * (s.actuator_reference[a] - s.actuator_position[a]);
    const double derr = rho * (trajectories_[a].velocity(t_next) - s.actuator_velocity[a]);
    double effort = act.servo.kp * err + act.servo.kd * derr;
    effort = std::clamp(effort, -act.servo.torque_limit, act.servo.torque_limit);
    s.actuator_effort[a] = effort;
    force[static_cast<Eigen::Index>(a)] = rho * effort - b[static_cast<Eigen::Index>(a)];
    m(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(a)) +=
        rho * rho * act.servo.rotor_inertia;
  }
  const Eigen::LDLT<Eigen::MatrixXd> mass(m);
  Eigen::VectorXd acc = mass.solve(force);
  if (!acc.allFinite()) {
    warn(s,
         "actuator-space inertia is singular or the state is not finite; accelerations set to 0");
    acc.setZero();
  }

  // Contacts found at the start of the step constrain the new velocities: no link point in
  // contact may move further into its object (seed 000 sec. V). Projected Gauss-Seidel on the
  // normal impulses in actuator space; the impulse over dt is the contact's normal force.
  std::vector<Contact> contacts = contacts_ ? contacts_->findContacts(s.q) : std::vector<Contact>();
  Eigen::VectorXd v_old(static_cast<Eigen::Index>(na));
  for (std::size_t a = 0; a < na; ++a) v_old[static_cast<Eigen::Index>(a)] = s.actuator_velocity[a];
  Eigen::VectorXd v = v_old + acc * dt;
  if (!contacts.empty()) {
    const auto nc = static_cast<Eigen::Index>(contacts.size());
    Eigen::MatrixXd rows = Eigen::MatrixXd::Zero(nc, static_cast<Eigen::Index>(na));
    Eigen::VectorXd bias(nc);
    for (Eigen::Index i = 0; i < nc; ++i) {
      const Contact& c = contacts[static_cast<std::size_t>(i)];
      const auto f = static_cast<std::size_t>(c.finger);
      const auto& chain = hand_.fingers[f];
      const Eigen::Vector3d p = chain.base.inverse() * c.point;
      const Eigen::Vector3d n = chain.base.linear().transpose() * c.normal;
      const Eigen::Vector3d local = frames[f].at(c.row + 1).inverse() * p;
      const auto jac = kinematics::geometricJacobian(chain, frames[f], c.row + 1, local);
      const kinematics::JointVector g = jac.topRows<3>().transpose() * n;
      for (int j = 0; j < chain.dof(); ++j) {
        const auto& e = drives[f][static_cast<std::size_t>(j)];
        rows(i, static_cast<Eigen::Index>(e.actuator)) += g[j] * e.ratio;
      }
      bias[i] = options_.contact_stiffness * std::max(0.0, c.depth - options_.contact_slop) / dt;
    }
    const Eigen::MatrixXd minv_rows = mass.solve(rows.transpose());  // na x nc
    const Eigen::MatrixXd w = rows * minv_rows;
    const double w_floor = 1e-12 * (1.0 + w.diagonal().cwiseAbs().maxCoeff());
    // Projected Gauss-Seidel: the smallest non-negative normal impulses that leave every
    // contact's normal velocity at or above its bias.
    auto project = [&](Eigen::VectorXd& vel) {
      Eigen::VectorXd lambda = Eigen::VectorXd::Zero(nc);
      for (int sweep = 0; sweep < 50; ++sweep) {
        for (Eigen::Index i = 0; i < nc; ++i) {
          if (!(w(i, i) > w_floor)) continue;  // the contact constrains no actuator
          const double next = std::max(0.0, lambda[i] - (rows.row(i).dot(vel) - bias[i]) / w(i, i));
          vel += minv_rows.col(i) * (next - lambda[i]);
          lambda[i] = next;
        }
      }
      return lambda;
    };
    // First the impact: the velocity the links bring into their contacts is removed (an
    // impulse, not a force the clutch feels). Then the step's accelerations are constrained;
    // that impulse over dt is the sustained normal force the link exerts.
    Eigen::VectorXd v_impact = v_old;
    project(v_impact);
    v = v_impact + acc * dt;
    const Eigen::VectorXd lambda = project(v);
    for (Eigen::Index i = 0; i < nc; ++i)
      contacts[static_cast<std::size_t>(i)].force = lambda[i] / dt;
    acc = (v - v_old) / dt;
  }
  s.contacts = std::move(contacts);

  // Semi-implicit Euler, then the actuator range and the driven joints' limits.
  for (std::size_t a = 0; a < na; ++a) {
    const auto ai = static_cast<Eigen::Index>(a);
    double lo = hand_.actuators[a].lower, hi = hand_.actuators[a].upper;
    for (std::size_t f = 0; f < nf; ++f) {
      const auto& chain = hand_.fingers[f];
      for (int j = 0; j < chain.dof(); ++j) {
        const auto& e = drives[f][static_cast<std::size_t>(j)];
        if (e.actuator != static_cast<int>(a) || e.ratio == 0.0) continue;
        const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
        double l = (row.lower - e.offset) / e.ratio, h = (row.upper - e.offset) / e.ratio;
        if (l > h) std::swap(l, h);
        lo = std::max(lo, l);
        hi = std::min(hi, h);
      }
    }
    double vel = v[ai];
    double p = s.actuator_position[a] + vel * dt;
    if (p < lo || p > hi) {
      p = std::clamp(p, lo, hi);
      vel = 0.0;
      acc[ai] = (vel - s.actuator_velocity[a]) / dt;
    }
    if (!std::isfinite(p) || !std::isfinite(vel)) {
      warn(s, hand_.actuators[a].name + ": state became non-finite; held in place");
      p = s.actuator_position[a];
      vel = 0.0;
      acc[ai] = 0.0;
    }
    s.actuator_position[a] = p;
    s.actuator_velocity[a] = vel;
    s.actuator_acceleration[a] = acc[ai];
  }

  // Joint accelerations and the torques the drive applied (inverse dynamics of the step), the
  // contact forces counted as external forces on their links.
  for (const Contact& c : s.contacts) {
    if (c.force <= 0.0) continue;
    const auto f = static_cast<std::size_t>(c.finger);
    const auto& chain = hand_.fingers[f];
    const Eigen::Vector3d p = chain.base.inverse() * c.point;
    const Eigen::Vector3d local = frames[f].at(c.row + 1).inverse() * p;
    ext[f] +=
        kinematics::geometricJacobian(chain, frames[f], c.row + 1, local).topRows<3>().transpose() *
        (chain.base.linear().transpose() * (c.force * c.normal));
  }
  for (std::size_t f = 0; f < nf; ++f) {
    const auto& chain = hand_.fingers[f];
    for (int j = 0; j < chain.dof(); ++j) {
      const auto& e = drives[f][static_cast<std::size_t>(j)];
      s.qdd[f][j] = e.ratio * acc[static_cast<Eigen::Index>(e.actuator)];
    }
    s.tau[f] = terms[f].D * s.qdd[f] + terms[f].H + terms[f].C - ext[f];
  }
  s.time = t_next;
  ++s.step;
  syncJoints(s);
}

}  // namespace handsim::sim
