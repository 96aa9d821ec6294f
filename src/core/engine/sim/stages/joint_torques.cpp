// SPDX-License-Identifier: GPL-3.0-or-later
// The torques the drives applied over the step (the inverse dynamics of the step's joint
// accelerations, with the sustained contact forces as external forces on their links): what the
// recorder plots as joint torque.
#include "handsim/contact/contact_jacobian.hpp"
#include "handsim/sim/step.hpp"
#include "stages.hpp"

namespace handsim::sim {

using stages::idx;

void computeJointTorques(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  StepWorkspace& w = s.work;
  const double dt = model.options.dt;
  const auto na = idx(hand.actuators.size());
  const bool impact = w.velocity_impact.head(na) != w.velocity_old.head(na);
  // The sustained contact forces count as external forces on their links. The torque is what the
  // drive applies over the step: an impact (an impulse of the contact and the stops, recorded in
  // columns of its own) is left out, with the velocity jump it made.
  for (const Contact& c : s.contacts) {
    if (c.force <= 0.0) continue;
    const auto f = static_cast<std::size_t>(c.finger);
    const Eigen::Isometry3d to_base = fingerBaseWorld(model, s, c.finger).inverse();
    kinematics::JointVector& external = w.external[f];
    const auto add = [&external](int j, double g) { external[j] += g; };
    contact::visitLinkPointJacobianTranspose(hand.fingers[f], s.link_frames[f], c.row,
                                             to_base * c.point_world,
                                             to_base.linear() * c.forceOnLinkWorld(), add);
    // The torsional moment the object applies to the link (-spin_moment n).
    if (c.spin_moment != 0.0)
      contact::visitLinkAngularJacobianTranspose(
          hand.fingers[f], s.link_frames[f], c.row,
          to_base.linear() * (-c.spin_moment * c.normal_world), add);
  }
  // Link-link contacts load both links (the palm takes its share through the prescribed motion).
  for (const Contact& c : s.link_contacts) {
    if (c.force <= 0.0) continue;
    auto load = [&](int finger, int row, const Eigen::Vector3d& force_world) {
      const auto f = static_cast<std::size_t>(finger);
      const Eigen::Isometry3d to_base = fingerBaseWorld(model, s, finger).inverse();
      kinematics::JointVector& external = w.external[f];
      contact::visitLinkPointJacobianTranspose(
          hand.fingers[f], s.link_frames[f], row, to_base * c.point_world,
          to_base.linear() * force_world, [&external](int j, double g) { external[j] += g; });
    };
    load(c.finger, c.row, c.forceOnLinkWorld());
    if (c.other_finger >= 0) load(c.other_finger, c.other_row, c.forceOnObjectWorld());
  }
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    kinematics::JointVector& qdd_drive = w.qdd_drive[f];
    qdd_drive.resize(static_cast<Eigen::Index>(w.drives[f].size()));
    for (std::size_t j = 0; j < w.drives[f].size(); ++j) {
      const auto& e = w.drives[f][j];
      const auto a = static_cast<Eigen::Index>(e.actuator);
      s.qdd[f][idx(j)] = e.ratio * w.acceleration[a];
      qdd_drive[idx(j)] =
          impact ? e.ratio * ((w.velocity[a] - w.velocity_impact[a]) / dt) : s.qdd[f][idx(j)];
    }
    const auto& terms = w.terms[f];
    s.tau[f].noalias() = terms.D * qdd_drive;
    s.tau[f] += terms.H + terms.C - w.external[f];
  }
}

}  // namespace handsim::sim
