// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "handsim/geometry/loaded_model.hpp"

namespace handsim::sim {

/// A rigid object in the scene, fixed in the palm frame during a run.
struct WorldObject {
  std::string name;             ///< shown to the user (file stem by default)
  std::string source;           ///< file it was loaded from (may be empty)
  geometry::LoadedModel model;  ///< shapes in the object's own frame [m], with colours
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();  ///< object frame -> palm frame
};

/// One point contact between a hand link and an object (seed 000 sec. IV), palm frame.
struct Contact {
  int finger = -1;
  int row = -1;     ///< the link rigid with frame {row + 1} of that finger
  int object = -1;  ///< index into the world's objects
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    ///< patch centre [m]
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< unit, out of the object
  double depth = 0.0;                                 ///< penetration estimate [m]
  double force = 0.0;  ///< normal force the link exerts on the object [N]
};

}  // namespace handsim::sim
