// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Geometry>
#include <array>
#include <limits>
#include <optional>
#include <vector>

namespace handsim::geometry {

/// An indexed triangle mesh in metres. Triangles are counter-clockwise seen from outside, so
/// (v1 - v0) x (v2 - v0) points outward.
struct TriangleMesh {
  std::vector<Eigen::Vector3d> vertices;       ///< [m]
  std::vector<std::array<int, 3>> triangles;   ///< vertex indices
  std::vector<Eigen::Vector3d> normals;        ///< unit outward normal per triangle (see
                                               ///< updateNormals); zero for a degenerate one

  std::size_t triangleCount() const { return triangles.size(); }
  /// Recomputes `normals` from the vertices.
  void updateNormals();
  /// Appends `other` (its vertices re-indexed).
  void append(const TriangleMesh& other);
  /// Applies a rigid transform (or any affine map) to every vertex and refreshes normals.
  void transform(const Eigen::Affine3d& t);
};

/// Axis-aligned bounding box.
struct Aabb {
  Eigen::Vector3d min = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
  Eigen::Vector3d max = Eigen::Vector3d::Constant(-std::numeric_limits<double>::infinity());
  bool empty() const { return (min.array() > max.array()).any(); }
  void extend(const Eigen::Vector3d& p) {
    min = min.cwiseMin(p);
    max = max.cwiseMax(p);
  }
};

/// Area of triangle t [m^2].
double triangleArea(const TriangleMesh& mesh, std::size_t t);
/// Total surface area [m^2].
double surfaceArea(const TriangleMesh& mesh);
/// Enclosed volume by the divergence theorem [m^3]; meaningful only when watertight.
double signedVolume(const TriangleMesh& mesh);
/// Volume when the mesh is watertight, otherwise nothing.
std::optional<double> closedVolume(const TriangleMesh& mesh);
/// True when every edge is shared by exactly two triangles that traverse it in opposite
/// directions (closed, consistently oriented 2-manifold).
bool isWatertight(const TriangleMesh& mesh);
/// Bounding box of the vertices used by triangles.
Aabb boundingBox(const TriangleMesh& mesh);

}  // namespace handsim::geometry
