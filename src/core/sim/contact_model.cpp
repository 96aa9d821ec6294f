// SPDX-License-Identifier: GPL-3.0-or-later
// The contact stage's geometry (seed 000 sec. IV): k-DOP trees of link and object meshes built
// once; each query runs the tree-against-tree traversal per link-object pair and reduces the
// intersection to patches and point contacts.
#include "handsim/sim/contact_model.hpp"

#include <stdexcept>

#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/geometry/mesh_loader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::sim {

ContactModel::Body ContactModel::makeBody(geometry::TriangleMesh mesh, int k) {
  Body b;
  if (mesh.normals.size() != mesh.triangles.size()) mesh.updateNormals();
  b.mesh = std::move(mesh);
  if (b.mesh.triangles.empty()) return b;
  const geometry::Aabb box = geometry::boundingBox(b.mesh);
  b.centre = 0.5 * (box.min + box.max);
  for (const auto& t : b.mesh.triangles)
    for (int i : t)
      b.radius =
          std::max(b.radius, (b.mesh.vertices[static_cast<std::size_t>(i)] - b.centre).norm());
  collision::KdopTreeOptions opt;
  opt.k = k;
  b.tree = collision::KdopTree(b.mesh, opt);
  return b;
}

ContactModel::ContactModel(const hand::HandModel& hand, int k) : hand_(hand), k_(k) {
  if (!hand.palm_mesh.empty()) palm_ = makeBody(geometry::loadMesh(hand.palm_mesh).merged(), k);
  links_.resize(hand.fingers.size());
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    for (std::size_t r = 0; r < hand.fingers[f].rows.size(); ++r) {
      const std::string path = f < hand.link_meshes.size() && r < hand.link_meshes[f].size()
                                   ? hand.link_meshes[f][r]
                                   : std::string();
      links_[f].push_back(
          makeBody(path.empty() ? geometry::TriangleMesh() : geometry::loadMesh(path).merged(), k));
    }
  }
}

void ContactModel::setObjects(std::vector<WorldObject> objects) {
  std::vector<Body> bodies;
  for (const auto& o : objects) bodies.push_back(makeBody(o.model.merged(), k_));
  objects_ = std::move(objects);
  object_bodies_ = std::move(bodies);
}

const geometry::TriangleMesh& ContactModel::linkMesh(int f, int r) const {
  return links_.at(static_cast<std::size_t>(f)).at(static_cast<std::size_t>(r)).mesh;
}

std::vector<Contact> ContactModel::findContacts(
    const std::vector<kinematics::JointVector>& q) const {
  std::vector<Contact> out;
  if (objects_.empty()) return out;
  for (std::size_t f = 0; f < links_.size(); ++f) {
    const auto& chain = hand_.fingers[f];
    const auto frames = kinematics::forwardKinematics(chain, q[f]);
    for (std::size_t r = 0; r < links_[f].size(); ++r) {
      const Body& link = links_[f][r];
      if (link.tree.empty()) continue;
      const Eigen::Isometry3d link_pose = chain.base * frames.at(static_cast<int>(r) + 1);
      for (std::size_t o = 0; o < object_bodies_.size(); ++o) {
        const Body& obj = object_bodies_[o];
        if (obj.tree.empty()) continue;
        // Bounding spheres first: most pairs are far apart.
        const Eigen::Vector3d lc = link_pose * link.centre;
        const Eigen::Vector3d oc = objects_[o].pose * obj.centre;
        if ((lc - oc).norm() > link.radius + obj.radius) continue;
        const Eigen::Isometry3d obj_in_link = link_pose.inverse() * objects_[o].pose;
        const auto pairs = collision::allContacts(link.tree, obj.tree, obj_in_link);
        if (pairs.empty()) continue;
        for (const auto& patch :
             collision::buildContactPatches(link.mesh, obj.mesh, obj_in_link, pairs)) {
          if (patch.normal.squaredNorm() == 0.0) continue;
          Contact c;
          c.finger = static_cast<int>(f);
          c.row = static_cast<int>(r);
          c.object = static_cast<int>(o);
          c.point = link_pose * patch.point;
          c.normal = link_pose.linear() * patch.normal;
          c.depth = patch.depth_m;
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

bool ContactModel::handTouchesObjects(const std::vector<kinematics::JointVector>& q) const {
  auto touches = [&](const Body& body, const Eigen::Isometry3d& pose) {
    if (body.tree.empty()) return false;
    for (std::size_t o = 0; o < object_bodies_.size(); ++o) {
      const Body& obj = object_bodies_[o];
      if (obj.tree.empty()) continue;
      if ((pose * body.centre - objects_[o].pose * obj.centre).norm() > body.radius + obj.radius)
        continue;
      if (collision::anyContact(body.tree, obj.tree, pose.inverse() * objects_[o].pose))
        return true;
    }
    return false;
  };
  if (touches(palm_, Eigen::Isometry3d::Identity())) return true;
  for (std::size_t f = 0; f < links_.size(); ++f) {
    const auto& chain = hand_.fingers[f];
    const auto frames = kinematics::forwardKinematics(chain, q[f]);
    for (std::size_t r = 0; r < links_[f].size(); ++r)
      if (touches(links_[f][r], chain.base * frames.at(static_cast<int>(r) + 1))) return true;
  }
  return false;
}

}  // namespace handsim::sim
