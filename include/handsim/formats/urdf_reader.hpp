// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <optional>
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

/// Deepest nesting of XML elements a URDF may have (a URDF needs fewer than 10 levels; robot,
/// link, visual, geometry, mesh is 5). Checked by a linear scan of the text before liburdfdom
/// parses it: its XML parser recurses once per level, and 40,000 nested elements would
/// exhaust the stack.
inline constexpr int kMaxUrdfDepth = 64;

/// Most movable joints a URDF hand may have (a hand on a 7-joint arm has about 30). Bounds the
/// model's size (actuators, chains, recorder columns) before it is built.
inline constexpr int kMaxUrdfMovableJoints = 512;

/// Most rows all chains of a URDF hand may have together: each chain runs from the root to a
/// leaf, so joints several leaves share (an arm, a wrist) count once per chain. Chains have
/// any length; this bounds the model a branching tree can make (5 fingers of 4 joints on a
/// 7-joint arm with a 2-joint wrist: 65 rows).
inline constexpr std::size_t kMaxUrdfChainRows = 4096;

/// Most triangles all of a URDF hand's shapes (visual and collision, meshes and tessellated
/// primitives) may have together; a mesh used by several links counts each time. Real hands
/// have well under a million.
inline constexpr std::size_t kMaxUrdfTriangles = std::size_t{4} << 20;

/// Largest extent of one shape after its scale [m]; primitive sizes must lie in (0, this].
inline constexpr double kMaxUrdfShapeSizeM = 100.0;

/// Longest mesh file name (URI) read [bytes].
inline constexpr std::size_t kMaxUrdfMeshNameBytes = 4096;

struct UrdfOptions {
  /// Folders searched for package://NAME/... before $HANDSIM_PACKAGE_PATH (colon-separated)
  /// and the URDF's own folder and its parents: DIR/NAME/..., or DIR/... when DIR is named NAME.
  std::vector<std::string> package_path;
  /// Load the meshes and primitives (false: kinematics and dynamics only).
  bool load_geometry = true;
  /// Most triangles of all shapes together (a smaller budget for tests and tools).
  std::size_t max_triangles = kMaxUrdfTriangles;
  /// The sidecar's text, read instead of the file "<stem>.handsim.json" beside the URDF (for
  /// tools and the sidecar fuzz target); messages name that file.
  std::optional<std::string> sidecar_text;
  /// The link that is the palm (docs/arm.md): the joints from the root link to it become
  /// HandModel::arm, the palm's subtree the hand. Empty: the sidecar's "palm_link", else the
  /// root link is the palm (no arm).
  std::string palm_link;
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

/// Reads only the arm of a URDF: the joints from its root link to `flange_link` (links off
/// that path must hang from it by fixed joints; a movable joint off it is refused).
/// Throws io::InputError naming the file, line and element.
ArmModel loadUrdfArm(const std::string& path, const std::string& flange_link,
                     const UrdfOptions& options = {});

/// Mounts `hand` on `arm`: the hand's palm frame sits at `flange_to_palm` in the arm's last
/// frame (a fixed row added to the arm's chain). Replaces any arm the hand had.
void mountOnArm(HandModel& hand, ArmModel arm, const Eigen::Isometry3d& flange_to_palm);

/// Folders added to every URDF load's package search path (the CLI's --package-path), before
/// $HANDSIM_PACKAGE_PATH.
void setDefaultPackagePath(const std::vector<std::string>& folders);
std::vector<std::string> defaultPackagePath();

/// True when the path names a URDF file (extension .urdf, any case).
bool isUrdfPath(const std::string& path);

}  // namespace handsim::hand
