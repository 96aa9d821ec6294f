// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "handsim/collision/collision_shape.hpp"
#include "handsim/hand/hand_model.hpp"

namespace handsim::hand {

/// Options of the URDF reader.
/// What a URDF hand's bodies collide as unless its sidecar says otherwise: the convex hulls of
/// their collision meshes (docs/collision.md, "A default for URDF hands": measured on the
/// corpus Allegro and LEAP hands).
inline constexpr collision::CollisionShape kUrdfDefaultCollision = collision::CollisionShape::Hull;

struct UrdfOptions {
  /// Folders searched for package://NAME/... before $HANDSIM_PACKAGE_PATH (colon-separated)
  /// and the URDF's own folder and its parents: DIR/NAME/..., or DIR/... when DIR is named NAME.
  std::vector<std::string> package_path;
  /// Load the meshes and primitives (false: kinematics and dynamics only).
  bool load_geometry = true;
};

/// Reads a hand from a URDF file with liburdfdom (docs/hand-format.md, "URDF hands"): the tree
/// of links and joints (kept in HandModel::tree) becomes one chain per leaf body, joints shared
/// by several chains (a wrist) copied into each and driven by one actuator, links joined by
/// fixed joints merged into one body, mimic joints coupled to their master's actuator. Every
/// non-mimic movable joint gets a position-servo actuator named after it. A sidecar
/// "<stem>.handsim.json" next to the file may add named poses and grasp actuators. Throws
/// io::InputError naming the file, line and element (e.g. "hand.urdf:42: joint 'j3': ...").
HandModel loadUrdfHand(const std::string& path, const UrdfOptions& options = {});

/// The same from URDF text; `file_name` names it in messages and anchors relative mesh paths
/// and the sidecar.
HandModel parseUrdfHand(const std::string& text, const std::string& file_name,
                        const UrdfOptions& options = {});

/// Folders added to every URDF load's package search path (the CLI's --package-path), before
/// $HANDSIM_PACKAGE_PATH.
void setDefaultPackagePath(const std::vector<std::string>& folders);
std::vector<std::string> defaultPackagePath();

/// True when the path names a URDF file (extension .urdf, any case).
bool isUrdfPath(const std::string& path);

}  // namespace handsim::hand
