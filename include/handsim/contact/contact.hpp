// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>

namespace handsim::contact {

/// `Contact::other` of an object contact with the ground plane.
inline constexpr int kGround = -1;
/// `Contact::other` of an object contact with the palm.
inline constexpr int kPalm = -2;

/// One point contact, world frame, between two bodies: the one that pushes (the "link" side)
/// and the one pushed (the "object" side):
///  - a hand link and an object (seed 000 sec. IV; SimState::contacts): `finger`, `row` push
///    `object`;
///  - an object and something that is not a link (SimState::object_contacts, finger -1):
///    `other` pushes `object`; `other` is kGround (the ground plane), kPalm (the palm) or the
///    index of another object;
///  - two links (SimState::link_contacts, object -1): `finger`, `row` push `other_finger`,
///    `other_row`; `other_finger` -1 is the palm.
///
/// Normal convention, the same everywhere in handsim (grasp::GraspContact too): `normal_world`
/// points INTO the pushed body (the object), along the force the pushing side (the link) applies
/// to it. The object pushes the link with -force * normal_world.
struct Contact {
  int finger = -1;  ///< index into HandModel::fingers
  int row = -1;     ///< the link rigid with frame {row + 1} of that finger
  int object = -1;  ///< index into Model::objects
  /// For an object contact (finger -1): the body pushing `object`: kGround, kPalm, or another
  /// object's index.
  int other = kGround;
  /// For a link-link contact (object -1): the finger of the pushed link, -1 the palm.
  int other_finger = -1;
  /// For a link-link contact: the row of the pushed link (frame {other_row + 1}); -1 the palm.
  int other_row = -1;
  /// The two bodies by their ids in the model's body table (sim::BodyTable): `body_a` pushes,
  /// `body_b` is pushed (the normal points from A into B). Written by the contact stage of both
  /// models with the fields above; -1 in a contact made outside a step.
  int body_a = -1;
  int body_b = -1;
  Eigen::Vector3d point_world = Eigen::Vector3d::Zero();     ///< patch centre [m]
  Eigen::Vector3d normal_world = -Eigen::Vector3d::UnitZ();  ///< unit, into the object
  double depth = 0.0;                                        ///< penetration estimate [m] (>= 0)
  double force = 0.0;  ///< sustained normal force the link applies to the object [N] (>= 0)
  /// The impact of this step as a force: the impulse that stopped the link's approach, over dt
  /// [N] (>= 0). Not felt by the clutch (seed 000: it sees the sustained load).
  double impact_force = 0.0;
  /// Sustained friction force the link applies to the object [N], world frame, tangent to the
  /// contact (zero for contacts on fixed objects, which are frictionless as in seed 000).
  Eigen::Vector3d friction_world = Eigen::Vector3d::Zero();
  /// The friction impulse of the impact over dt [N], world frame.
  Eigen::Vector3d impact_friction_world = Eigen::Vector3d::Zero();
  /// Sustained torsional friction moment the link applies to the object about normal_world
  /// [N m] (the moment is spin_moment * normal_world; the object gets the opposite): at most
  /// mu_spin * force in size (sim::ContactOptions::torsional; 0 where it is off).
  double spin_moment = 0.0;
  /// The torsional impulse of the impact over dt [N m].
  double impact_spin_moment = 0.0;

  /// Force the link applies to the object, normal and friction [N], world frame.
  Eigen::Vector3d forceOnObjectWorld() const { return force * normal_world + friction_world; }
  /// Force the object applies to the link [N], world frame.
  Eigen::Vector3d forceOnLinkWorld() const { return -forceOnObjectWorld(); }
  /// Sustained and impact force together on the link [N], world frame: what the link's
  /// dynamics felt during the step.
  Eigen::Vector3d totalForceOnLinkWorld() const {
    return -(force + impact_force) * normal_world - friction_world - impact_friction_world;
  }
};

}  // namespace handsim::contact
