// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::geometry {

/// A solid ball: what a file's sphere primitive (VRML `Sphere`, URDF `<sphere>`) is, kept next
/// to its tessellation so that contacts can use the closed form (docs/collision.md, "Analytic
/// spheres").
struct Sphere {
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();  ///< [m]
  double radius = 0.0;                               ///< [m], > 0
};

/// One shape of a loaded file: its triangles in world coordinates [m] and its colour.
struct MeshShape {
  TriangleMesh mesh;  ///< world coordinates after every enclosing transform [m]
  Eigen::Vector3f diffuse_color = Eigen::Vector3f::Ones();  ///< linear RGB in [0, 1]
  std::string name;  ///< DEF name of the shape or of its nearest named ancestor; may be empty
  /// The exact ball `mesh` tessellates, in the same coordinates, when the file gave a sphere
  /// primitive and every transform since kept it a ball; else nothing.
  std::optional<Sphere> sphere;
};

/// Applies `t` to the shape's mesh (TriangleMesh::transform) and to its sphere: a similarity
/// (rotation, translation, uniform scale, a reflection allowed) keeps the sphere, with the centre
/// moved and the radius scaled; any other map (a non-uniform scale, a shear) drops it, the mesh
/// then being an ellipsoid.
void transformShape(MeshShape& shape, const Eigen::Affine3d& t);

/// What a mesh loader returns: the shapes plus everything it had to skip or repair.
struct LoadedModel {
  std::vector<MeshShape> shapes;
  /// Non-fatal problems, each prefixed with "file:line:column: " where known.
  std::vector<std::string> warnings;
  /// Faces dropped because they had fewer than three distinct vertices or no area.
  int dropped_degenerate_faces = 0;
  /// Nodes read but not turned into triangles (lines, points, text, sensors, lights...),
  /// counted per node type.
  std::map<std::string, int> ignored_nodes;

  /// All shapes in one mesh (vertices are not shared between shapes).
  TriangleMesh merged() const;
  /// Total number of triangles over all shapes.
  std::size_t triangleCount() const;
  /// The sphere of the only shape, when there is exactly one shape and it is a sphere.
  std::optional<Sphere> onlySphere() const;
};

}  // namespace handsim::geometry
