// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <vector>

#include "handsim/collision/kdop_tree.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/types.hpp"
#include "handsim/sim/world.hpp"

namespace handsim::sim {

/// The geometry the contact stage works on: the hand's link meshes and the objects, each with
/// its k-DOP tree, built once (seed 000 sec. IV: meshes are computed only once).
class ContactModel {
 public:
  /// Loads the hand's link meshes (HandModel::link_meshes; links without one take no part)
  /// and builds their trees. Throws io::InputError naming a mesh file that fails to load.
  explicit ContactModel(const hand::HandModel& hand, int k = 18);

  /// Replaces the objects (their meshes are in the object frame, placed by WorldObject::pose).
  void setObjects(std::vector<WorldObject> objects);
  const std::vector<WorldObject>& objects() const { return objects_; }

  /// Link mesh of finger f, row r, in the link frame {r + 1} (empty when the link has none).
  const geometry::TriangleMesh& linkMesh(int f, int r) const;

  /// Every link-object contact at joint positions q (per finger): intersection patches reduced
  /// to point contacts, in the palm frame, normals out of the object; force left at 0.
  std::vector<Contact> findContacts(const std::vector<kinematics::JointVector>& q) const;

  /// True when any link or the palm (HandModel::palm_mesh) intersects any object at joint
  /// positions q; stops at the first intersecting triangle pair.
  bool handTouchesObjects(const std::vector<kinematics::JointVector>& q) const;

 private:
  struct Body {
    geometry::TriangleMesh mesh;
    collision::KdopTree tree;
    Eigen::Vector3d centre = Eigen::Vector3d::Zero();  ///< bounding-sphere centre, own frame
    double radius = 0.0;                               ///< bounding-sphere radius [m]
  };
  static Body makeBody(geometry::TriangleMesh mesh, int k);

  const hand::HandModel& hand_;
  int k_;
  std::vector<std::vector<Body>> links_;  ///< [finger][row]
  Body palm_;                             ///< in the palm frame
  std::vector<WorldObject> objects_;
  std::vector<Body> object_bodies_;
};

}  // namespace handsim::sim
