// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>

namespace handsim::contact {

/// One point contact between a hand link and an object (seed 000 sec. IV), or between a free
/// object and the ground plane (finger -1, `other` -1: the ground plays the link), in the world
/// frame.
///
/// Normal convention, the same everywhere in handsim (grasp::GraspContact too): `normal_world`
/// points INTO the object, along the force the link applies to it. The object pushes the link
/// with -force * normal_world.
struct Contact {
  int finger = -1;  ///< index into HandModel::fingers
  int row = -1;     ///< the link rigid with frame {row + 1} of that finger
  int object = -1;  ///< index into Model::objects
  /// For an object contact (finger -1): the other body, -1 the ground plane.
  int other = -1;
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
