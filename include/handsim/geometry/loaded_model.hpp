// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <map>
#include <string>
#include <vector>

#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::geometry {

/// One shape of a loaded file: its triangles in world coordinates [m] and its colour.
struct MeshShape {
  TriangleMesh mesh;  ///< world coordinates after every enclosing transform [m]
  Eigen::Vector3f diffuse_color = Eigen::Vector3f::Ones();  ///< linear RGB in [0, 1]
  std::string name;  ///< DEF name of the shape or of its nearest named ancestor; may be empty
};

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
};

}  // namespace handsim::geometry
