// SPDX-License-Identifier: GPL-3.0-or-later
// Distance from a point to an object's surface: what the planner's energies measure
// (docs/planner.md, "Energies"). A bounding-box tree over the object's triangles, built once.
#pragma once

#include <Eigen/Geometry>
#include <array>
#include <vector>

#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::planner {

/// Axis-aligned box tree over a mesh's triangles (object frame), for nearest-point queries.
struct SurfaceTree {
  struct Node {
    Eigen::Vector3d min, max;   ///< box [m]
    int first = 0, count = 0;   ///< leaf: triangles order[first, first + count)
    int left = -1, right = -1;  ///< children (inner nodes), -1 for a leaf
  };
  geometry::TriangleMesh mesh;  ///< object frame [m], with normals
  std::vector<Node> nodes;      ///< nodes[0] is the root
  std::vector<int> order;       ///< triangle indices, grouped by leaf
  bool empty() const { return nodes.empty(); }
};

/// Builds the tree (median splits along the longest axis, leaves of at most 4 triangles).
SurfaceTree buildSurfaceTree(geometry::TriangleMesh mesh);

/// The point of the surface nearest to `p`.
struct SurfacePoint {
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    ///< on the surface [m]
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< outward normal of its triangle
  /// |p - point| [m], negative when p is inside the object (the nearest triangle's side;
  /// among triangles equally near, the one p lies most squarely above or below).
  double distance = 0.0;
  int triangle = -1;  ///< -1 for an empty tree
};

SurfacePoint closestSurfacePoint(const SurfaceTree& tree, const Eigen::Vector3d& p);

/// The point of triangle (a, b, c) nearest to p (regions of the vertices, edges and face).
Eigen::Vector3d closestPointOnTriangle(const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                                       const Eigen::Vector3d& b, const Eigen::Vector3d& c);

}  // namespace handsim::planner
