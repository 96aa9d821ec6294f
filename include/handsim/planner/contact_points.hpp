// SPDX-License-Identifier: GPL-3.0-or-later
// Preset contact points of a hand (docs/planner.md, "Contact points"): where on each link the
// planner's contact energy expects the object, with the direction the link pushes there.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "handsim/sim/model.hpp"

namespace handsim::planner {

/// A point on a hand body and its outward normal, in the body's frame: the palm frame when
/// `finger` is -1, else the frame {row + 1} of that finger's link.
struct HandContactPoint {
  int finger = -1;
  int row = -1;
  Eigen::Vector3d point_body = Eigen::Vector3d::Zero();    ///< [m]
  Eigen::Vector3d normal_body = Eigen::Vector3d::UnitZ();  ///< unit, out of the body
};

/// One contact point per link that moves when the hand closes, and one on the palm, from the
/// meshes' palmar faces: the triangles whose outward normal lies within 60 degrees of the way
/// their centroid moves as the closing actuators advance from mid-range (for the palm, within
/// 45 degrees of HandModel::approach_palm). The point is the area-weighted centroid of those
/// faces pushed out along their mean normal to the outermost of them. Links without palmar
/// faces (or without a mesh) get none. Deterministic.
std::vector<HandContactPoint> palmarContactPoints(const sim::Model& model);

}  // namespace handsim::planner
