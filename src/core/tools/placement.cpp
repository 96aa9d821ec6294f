// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/tools/placement.hpp"

#include <algorithm>
#include <cmath>

#include "handsim/collision/tree_collision.hpp"
#include "handsim/sim/step.hpp"

namespace handsim::sim {
namespace {

// Whether two collision bodies share a point: a surface crossing, or one wholly inside the
// other (then any vertex of the inner one lies inside the outer one).
bool bodiesTouch(const CollisionBody& a, const Eigen::Isometry3d& pose_a, const CollisionBody& b,
                 const Eigen::Isometry3d& pose_b) {
  if (a.empty() || b.empty()) return false;
  if ((pose_a * a.centre - pose_b * b.centre).norm() > a.radius + b.radius) return false;
  const Eigen::Isometry3d b_in_a = pose_a.inverse() * pose_b;
  if (collision::anyContact(a.tree, b.tree, b_in_a)) return true;
  auto inside = [](const CollisionBody& outer, const Eigen::Vector3d& p) {
    return (p - outer.centre).norm() <= outer.radius && pointInsideMesh(outer.mesh, p);
  };
  if (inside(a, b_in_a * b.mesh.vertices.front())) return true;
  return inside(b, b_in_a.inverse() * a.mesh.vertices.front());
}

bool touchesAnything(const Model& model, const SimState& state, const CollisionBody& body,
                     const Eigen::Isometry3d& pose_world) {
  if (bodyTouchesHand(model, state, body, pose_world)) return true;
  for (std::size_t o = 0; o < model.objects.size() && o < state.object_pose_world.size(); ++o)
    if (bodiesTouch(model.objects[o].geometry->collision, state.object_pose_world[o], body,
                    pose_world))
      return true;
  return false;
}

}  // namespace

bool pointInsideMesh(const geometry::TriangleMesh& mesh, const Eigen::Vector3d& p) {
  // A direction unlikely to graze edges of axis-aligned or regular meshes.
  const Eigen::Vector3d dir = Eigen::Vector3d(0.5773, 0.6180, 0.5331).normalized();
  int crossings = 0;
  for (const auto& t : mesh.triangles) {
    const Eigen::Vector3d& v0 = mesh.vertices[static_cast<std::size_t>(t[0])];
    const Eigen::Vector3d e1 = mesh.vertices[static_cast<std::size_t>(t[1])] - v0;
    const Eigen::Vector3d e2 = mesh.vertices[static_cast<std::size_t>(t[2])] - v0;
    // Moeller-Trumbore: p + s dir = v0 + u e1 + v e2 with s > 0, u, v >= 0, u + v <= 1.
    const Eigen::Vector3d h = dir.cross(e2);
    const double det = e1.dot(h);
    if (std::abs(det) < 1e-300) continue;
    const double inv = 1.0 / det;
    const Eigen::Vector3d w = p - v0;
    const double u = w.dot(h) * inv;
    if (u < 0.0 || u > 1.0) continue;
    const Eigen::Vector3d q = w.cross(e1);
    const double v = dir.dot(q) * inv;
    if (v < 0.0 || u + v > 1.0) continue;
    if (e2.dot(q) * inv > 0.0) ++crossings;
  }
  return (crossings % 2) == 1;
}

bool bodyTouchesHand(const Model& model, const SimState& state, const CollisionBody& body,
                     const Eigen::Isometry3d& pose_world) {
  const HandGeometry& g = *model.hand_geometry;
  if (bodiesTouch(g.palm.collision, state.palm_pose_world, body, pose_world)) return true;
  for (std::size_t f = 0; f < g.links.size(); ++f)
    for (std::size_t r = 0; r < g.links[f].size(); ++r)
      if (bodiesTouch(g.links[f][r].collision,
                      linkPoseWorld(model, state, static_cast<int>(f), static_cast<int>(r)), body,
                      pose_world))
        return true;
  return false;
}

Placement placeObjectInReach(const Model& model, const SimState& state, const ObjectModel& object,
                             const PlacementOptions& options) {
  const CollisionBody& body = object.geometry->collision;
  const Eigen::Vector3d approach_world =
      (state.palm_pose_world.linear() * model.hand().approach_palm).normalized();
  // The approach line through the hand file's origin point, moved back to the palm's plane
  // (the wrist's level along the approach): the search then starts at the palm's surface.
  const Eigen::Vector3d a_palm = model.hand().approach_palm.normalized();
  const Eigen::Vector3d o_palm = model.hand().approach_origin_palm;
  const Eigen::Vector3d palm_origin =
      state.palm_pose_world * (o_palm - o_palm.dot(a_palm) * a_palm);

  // Object frame kept parallel to the world: its box is the mesh's bounding box.
  geometry::Aabb box;
  for (const Eigen::Vector3d& v : body.mesh.vertices) box.extend(v);
  if (box.empty()) box.extend(Eigen::Vector3d::Zero());
  const Eigen::Vector3d centre = 0.5 * (box.min + box.max);
  const Eigen::Vector3d half = 0.5 * (box.max - box.min);
  // Half the box's width along the approach (its support in that direction).
  const double half_along = approach_world.cwiseAbs().dot(half);

  // Start where the palm's collision mesh ends along the approach.
  double palm_extent = 0.0;
  const CollisionBody& palm = model.hand_geometry->palm.collision;
  for (const Eigen::Vector3d& v : palm.mesh.vertices)
    palm_extent = std::max(palm_extent, v.dot(a_palm));
  const double start = palm_extent + half_along;

  const bool horizontal = std::abs(approach_world.z()) < std::sqrt(0.5);
  Placement result;
  const double step = options.step > 0.0 ? options.step : 0.0025;
  const int steps = static_cast<int>(std::ceil(std::max(options.max_travel, 0.0) / step));
  for (int i = 0; i <= steps; ++i) {
    const double s = start + step * i;
    Eigen::Vector3d target = palm_origin + s * approach_world;
    if (options.ground_z) {
      const double resting = *options.ground_z + half.z();
      target.z() = horizontal ? resting : std::max(target.z(), resting);
    }
    Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
    pose.translation() = target - centre;
    result.pose_world = pose;
    result.distance_m = (target - palm_origin).dot(approach_world);
    Eigen::Isometry3d back = pose;
    back.translation() -= options.clearance * approach_world;
    if (!touchesAnything(model, state, body, pose) && !touchesAnything(model, state, body, back)) {
      result.clear = true;
      return result;
    }
  }
  return result;
}

}  // namespace handsim::sim
