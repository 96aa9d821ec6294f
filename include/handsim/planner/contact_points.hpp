// SPDX-License-Identifier: GPL-3.0-or-later
// Preset contact points of a hand (docs/planner.md, "Contact points"): where on each link the
// planner's contact energy expects the object, with the direction the link pushes there.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "handsim/sim/model.hpp"

namespace handsim::planner {

/// A point on a hand body and its outward normal, in the body's frame (the hand file's own,
/// HandModel::contact_points, or generated).
using HandContactPoint = hand::PresetContactPoint;

/// One contact point per link that moves when the hand closes, and one on the palm, from the
/// meshes' palmar faces: the triangles whose outward normal lies within 60 degrees of the way
/// their centroid moves as the closing actuators advance from mid-range (for the palm, within
/// 45 degrees of HandModel::approach_palm). The point is the area-weighted centroid of those
/// faces pushed out along their mean normal to the outermost of them. Links without palmar
/// faces (or without a mesh) get none. Deterministic.
std::vector<HandContactPoint> palmarContactPoints(const sim::Model& model);

}  // namespace handsim::planner
