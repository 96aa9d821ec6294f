// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>

namespace handsim::contact {

/// One point contact, world frame, between two bodies named by their ids in the model's body
/// table (sim::BodyTable, sim/body_table.hpp): `body_a` pushes, `body_b` is pushed. The pairs:
///  - a hand link pushes an object (seed 000 sec. IV);
///  - the ground, the palm or another object pushes an object;
///  - a link pushes a link of another finger, or the palm.
/// Which finger, row or object a body is, and whether it is the ground, the table says
/// (`model.bodies[c.body_a].finger`, `.kind`, ...). All contacts of a step are in one list,
/// SimState::contacts.
///
/// Normal convention, the same everywhere in handsim (grasp::GraspContact too): `normal_world`
/// points from A INTO the pushed body B, along the force A applies to it. B pushes A with
/// -force * normal_world.
struct Contact {
  /// The two bodies by their ids in the model's body table: `body_a` pushes, `body_b` is pushed
  /// (the normal points from A into B); -1 in a contact not yet assigned to bodies.
  int body_a = -1;
  int body_b = -1;
  Eigen::Vector3d point_world = Eigen::Vector3d::Zero();     ///< patch centre [m]
  Eigen::Vector3d normal_world = -Eigen::Vector3d::UnitZ();  ///< unit, from A into B
  double depth = 0.0;                                        ///< penetration estimate [m] (>= 0)
  double force = 0.0;  ///< sustained normal force A applies to B [N] (>= 0)
  /// The impact of this step as a force: the impulse that stopped A's approach, over dt
  /// [N] (>= 0). Not felt by the clutch (seed 000: it sees the sustained load).
  double impact_force = 0.0;
  /// Sustained friction force A applies to B [N], world frame, tangent to the contact (zero for
  /// a link on a fixed object, frictionless as in seed 000, and for link-link contacts).
  Eigen::Vector3d friction_world = Eigen::Vector3d::Zero();
  /// The friction impulse of the impact over dt [N], world frame.
  Eigen::Vector3d impact_friction_world = Eigen::Vector3d::Zero();
  /// Sustained torsional friction moment A applies to B about normal_world [N m] (the moment is
  /// spin_moment * normal_world; A gets the opposite): at most
  /// mu_spin * force in size (sim::ContactOptions::torsional; 0 where it is off).
  double spin_moment = 0.0;
  /// The torsional impulse of the impact over dt [N m].
  double impact_spin_moment = 0.0;

  /// Force A applies to B (the link to the object), normal and friction [N], world frame.
  Eigen::Vector3d forceOnObjectWorld() const { return force * normal_world + friction_world; }
  /// Force B applies to A (the object to the link) [N], world frame.
  Eigen::Vector3d forceOnLinkWorld() const { return -forceOnObjectWorld(); }
  /// Sustained and impact force together on A (the link) [N], world frame: what the link's
  /// dynamics felt during the step.
  Eigen::Vector3d totalForceOnLinkWorld() const {
    return -(force + impact_force) * normal_world - friction_world - impact_friction_world;
  }
};

}  // namespace handsim::contact
