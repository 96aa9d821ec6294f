// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <osg/Geometry>
#include <osg/Group>
#include <osg/LOD>
#include <osg/Material>
#include <osg/MatrixTransform>
#include <osg/ref_ptr>
#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::app {

/// What the viewport draws besides the hand and the objects.
struct DisplayOptions {
  bool contacts = true;  ///< contact points with normals scaled by force
  bool frames = false;   ///< DH frames of every link
  bool bounds = false;   ///< root k-DOPs of links and objects (debug)
  bool wireframe = false;
  bool transparent = false;  ///< hand drawn see-through
  bool grid = true;
  /// Draw large meshes (over 20k triangles) in full however small they are on screen; off,
  /// they switch to coarser versions whose cells stay under about two pixels.
  bool full_detail = false;
  /// Draw the hand's collision meshes (what the contact stage collides) in place of its drawn
  /// meshes: translucent with their triangle edges. Matters for URDF hands and hand files
  /// with a "visual_mesh", whose drawn and collision geometry differ.
  bool collision = false;
};

/// The OpenSceneGraph scene of a hand and its objects. Built once per hand (and per object
/// list); every snapshot only rewrites transforms, colours and the contact arrows.
class SceneGraph {
 public:
  SceneGraph();
  osg::Group* root() const { return root_.get(); }

  /// Rebuilds the hand's nodes from the model's link and palm geometry (loaded once by the
  /// model), links without a mesh as capsules along the DH link (the a offset along x and the
  /// d offset along z).
  void setHand(const sim::Model& model);
  /// Rebuilds the object nodes from the model's object meshes and colours; update() places them
  /// (the objects hold no poses).
  void setObjects(const std::vector<sim::ObjectModel>& objects);
  /// Poses palm, links and objects from a state (its palm and object poses in the world and its
  /// link frames); colours inner links by clutch state; draws the contacts. A hand on an arm
  /// (docs/arm.md): the arm's links from its base `arm_base_world` and the state's arm joints.
  void update(const sim::Model& model, const sim::SimState& state,
              const Eigen::Isometry3d& arm_base_world = Eigen::Isometry3d::Identity());
  /// Index of the object whose geometry contains `node` on its path, or -1.
  int objectIndexOf(const osg::NodePath& path) const;
  /// Finger whose link geometry contains `node` on its path, or -1.
  int fingerIndexOf(const osg::NodePath& path) const;
  /// A drag target in the world [m]: a sphere at `target` (green when `reached`, red when
  /// not) and a line to it from `from` (the fingertip, or an object's grabbed point). Nothing:
  /// hidden.
  void setDragTarget(const std::optional<Eigen::Vector3d>& target, const Eigen::Vector3d& from,
                     bool reached);
  /// The drag target's node when shown, else nullptr (tests).
  const osg::Node* dragTargetNode() const;
  /// Number of contact arrows drawn by the last update.
  int drawnContactCount() const { return drawn_contacts_; }
  /// True when the last update coloured link `row` of `finger` as a broken-away clutch.
  bool showsBrokenClutch(int finger, int row) const;
  /// The bounding-volume wireframe of object `index` (its root 18-DOP), or nullptr.
  const osg::Node* objectBoundsNode(int index) const {
    return index >= 0 && static_cast<std::size_t>(index) < object_bounds_.size()
               ? object_bounds_[static_cast<std::size_t>(index)].get()
               : nullptr;
  }
  /// The node under which the hand hangs (palm frame), for tests that count what is drawn.
  const osg::Group* handNode() const { return hand_group_.get(); }
  /// The node under which the arm's links hang (world frame), for tests.
  const osg::Group* armNode() const { return arm_group_.get(); }
  /// The world pose the last update gave arm frame `k` (0: the arm's base), for tests.
  Eigen::Isometry3d armFramePose(int k) const;
  /// The node under which the contact arrows hang (tests count its drawables).
  osg::Group* contactNode() const { return contact_group_.get(); }
  /// The node under which objects hang (for picking).
  osg::Node* objectNode() const { return object_group_.get(); }
  void setOptions(const DisplayOptions& options);
  /// Draws `points` (palm frame [m]) as a point cloud, the finger workspace; an empty list
  /// removes it.
  void setWorkspace(const std::vector<Eigen::Vector3d>& points);
  /// The workspace cloud, or nullptr when none is shown.
  const osg::Geometry* workspaceCloud() const { return workspace_.get(); }
  /// Bounding sphere of the hand and the objects (not the grid), for framing the camera.
  osg::BoundingSphere contentBound() const;
  const DisplayOptions& options() const { return options_; }

 private:
  void rebuildContacts(const sim::SimState& state);
  void setArm(const hand::ArmModel& arm);
  void applyTransparency();

  DisplayOptions options_;
  int drawn_contacts_ = 0;
  osg::ref_ptr<osg::Group> root_;
  osg::ref_ptr<osg::MatrixTransform> palm_;  ///< palm frame in the world
  osg::ref_ptr<osg::Group> hand_group_;
  osg::ref_ptr<osg::Group> object_group_;
  osg::ref_ptr<osg::Group> arm_group_;  ///< the arm's links, in the world
  /// Per arm chain frame (0 the base), its transform in the world; frames without geometry too.
  std::vector<osg::ref_ptr<osg::MatrixTransform>> arm_links_;
  std::vector<osg::ref_ptr<osg::Node>> arm_axes_;
  osg::ref_ptr<osg::Material> arm_material_;
  kinematics::ChainFrames arm_frames_;  ///< scratch of update()
  osg::ref_ptr<osg::Group> contact_group_;
  osg::ref_ptr<osg::Node> grid_;
  osg::ref_ptr<osg::Geode> workspace_geode_;
  osg::ref_ptr<osg::Geometry> workspace_;
  osg::ref_ptr<osg::Material> link_material_;
  osg::ref_ptr<osg::Material> broken_material_;
  osg::ref_ptr<osg::Material> palm_material_;
  /// Materials of drawn-only hand meshes with their own colours (made see-through with the rest).
  std::vector<osg::ref_ptr<osg::Material>> hand_materials_;
  /// [finger][row] transform of the link rigid with frame {row + 1}, in the palm frame.
  std::vector<std::vector<osg::ref_ptr<osg::MatrixTransform>>> links_;
  std::vector<std::vector<osg::ref_ptr<osg::Node>>> link_frames_;
  std::vector<std::vector<osg::ref_ptr<osg::Node>>> link_bounds_;
  /// Bodies with a collision mesh: their drawn node and their collision node (one shown at a
  /// time, by DisplayOptions::collision).
  std::vector<std::pair<osg::ref_ptr<osg::Node>, osg::ref_ptr<osg::Node>>> collision_swaps_;
  osg::ref_ptr<osg::Material> collision_material_;
  std::vector<osg::ref_ptr<osg::MatrixTransform>> objects_;
  std::vector<osg::ref_ptr<osg::Node>> object_bounds_;
  /// Level-of-detail nodes of large objects with their default pixel ranges.
  std::vector<std::pair<osg::ref_ptr<osg::LOD>, std::vector<std::pair<float, float>>>> lods_;
  /// Every contact arrow (a dot at the point, a shaft and a cone) in one geometry in the
  /// world, rewritten by each update: one draw call however many contacts there are (a
  /// transform and three shapes per arrow cost a software rasteriser's driver about 10 us
  /// each, milliseconds per frame in a grasp).
  osg::ref_ptr<osg::Geometry> arrows_;
  osg::ref_ptr<osg::Group> drag_group_;  ///< the drag target: sphere and line
  osg::ref_ptr<osg::MatrixTransform> drag_sphere_;
  osg::ref_ptr<osg::Geometry> drag_line_;
  osg::ref_ptr<osg::Material> reached_material_, missed_material_;
};

}  // namespace handsim::app
