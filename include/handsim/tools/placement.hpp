// SPDX-License-Identifier: GPL-3.0-or-later
// Where a newly imported object goes: in front of the palm along the hand's approach direction,
// clear of the hand and of the other objects, within the fingers' reach (docs/gui.md,
// "Importing objects").
#pragma once

#include <Eigen/Geometry>
#include <optional>

#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

/// Options of placeObjectInReach.
struct PlacementOptions {
  /// Height of a ground plane in the world [m] (normal +z), or none. With a ground the object
  /// never sinks into it; when the approach is within 45 degrees of horizontal the object rests
  /// on it.
  std::optional<double> ground_z;
  /// Gap kept between the object and the hand along the approach direction [m].
  double clearance = 0.005;
  /// Step of the outward search [m].
  double step = 0.0025;
  /// The search gives up this far beyond its start [m].
  double max_travel = 2.0;
};

/// Result of placeObjectInReach.
struct Placement {
  Eigen::Isometry3d pose_world = Eigen::Isometry3d::Identity();  ///< object frame -> world
  /// Distance of the object's bounding-box centre along the approach from the point of the
  /// approach line level with the palm origin [m].
  double distance_m = 0.0;
  /// False when no clear place was found within max_travel (the pose is then the last tried).
  bool clear = false;
};

/// The object's orientation is kept aligned with the world (a bottle modelled upright stays
/// upright); its bounding-box centre goes on the approach line (HandModel::approach_palm through
/// HandModel::approach_origin_palm, turned into the world by the state's palm pose), starting
/// where the palm's collision mesh ends plus half the object's width, and moves out in `step`s
/// until neither the object nor the object shifted back by `clearance` touches the palm, any link
/// (at the state's link frames) or any of the model's objects (at the state's poses). Touching
/// means a shared surface point or one body lying wholly inside the other (a closed mesh around a
/// link's centre). `object` need not be in the model.
Placement placeObjectInReach(const Model& model, const SimState& state, const ObjectModel& object,
                             const PlacementOptions& options = {});

/// True when `body` placed at `pose_world` touches the hand (palm or a link with a collision
/// mesh) in `state`, or encloses one of them, or lies inside one of them.
bool bodyTouchesHand(const Model& model, const SimState& state, const CollisionBody& body,
                     const Eigen::Isometry3d& pose_world);

/// True when point `p` (the mesh's frame) lies inside the closed mesh: the parity of the
/// crossings of a ray from `p` with the triangles (for an open mesh, a best guess).
bool pointInsideMesh(const geometry::TriangleMesh& mesh, const Eigen::Vector3d& p);

}  // namespace handsim::sim
