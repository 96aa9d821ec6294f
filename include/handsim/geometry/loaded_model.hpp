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

/// A solid box: what a file's box primitive (VRML `Box`, URDF `<box>`) is, kept next to its
/// tessellation (docs/collision.md, "Analytic boxes and cylinders").
struct Box {
  /// The box's frame in the shape's coordinates: its centre and its axes (a rotation) [m].
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  Eigen::Vector3d half_extent = Eigen::Vector3d::Zero();  ///< along the box's axes [m], > 0
};

/// A solid circular cylinder: what a file's cylinder primitive (VRML `Cylinder` with all its
/// parts, URDF `<cylinder>`) is, kept next to its tessellation.
struct Cylinder {
  /// The cylinder's frame in the shape's coordinates: its centre, its axis the frame's z [m].
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  double radius = 0.0;       ///< [m], > 0
  double half_length = 0.0;  ///< half the height along the axis [m], > 0
};

/// One shape of a loaded file: its triangles in world coordinates [m] and its colour.
struct MeshShape {
  TriangleMesh mesh;  ///< world coordinates after every enclosing transform [m]
  Eigen::Vector3f diffuse_color = Eigen::Vector3f::Ones();  ///< linear RGB in [0, 1]
  std::string name;  ///< DEF name of the shape or of its nearest named ancestor; may be empty
  /// The exact ball `mesh` tessellates, in the same coordinates, when the file gave a sphere
  /// primitive and every transform since kept it a ball; else nothing.
  std::optional<Sphere> sphere;
  /// Likewise the exact box or cylinder `mesh` tessellates (a box's mesh is exact; a
  /// cylinder's is an inscribed prism).
  std::optional<Box> box;
  std::optional<Cylinder> cylinder;
};

/// Applies `t` to the shape's mesh (TriangleMesh::transform) and to its sphere: a similarity
/// (rotation, translation, uniform scale, a reflection allowed) keeps the sphere, with the centre
/// moved and the radius scaled; any other map (a non-uniform scale, a shear) drops it, the mesh
/// then being an ellipsoid. A box stays a box under any map that keeps its axes orthogonal (a
/// similarity, or a scale along its own axes: the half extents scale per axis); a cylinder under
/// one that also keeps its cross-section a circle (equal scale across the axis). Else the
/// primitive is dropped and the mesh collides as a mesh.
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
  /// The box of the only shape, when there is exactly one shape and it is a box.
  std::optional<Box> onlyBox() const;
  /// The cylinder of the only shape, when there is exactly one shape and it is a cylinder.
  std::optional<Cylinder> onlyCylinder() const;
};

}  // namespace handsim::geometry
