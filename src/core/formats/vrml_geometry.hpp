// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to handsim_core: the VRML97 geometry nodes built from explicit vertex data
// (IndexedFaceSet 6.23, Extrusion 6.18, ElevationGrid 6.15), in the node's local frame [m].
#pragma once

#include <Eigen/Geometry>
#include <vector>

#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::geometry::vrml {

struct FaceSetResult {
  TriangleMesh mesh;
  int degenerate_faces = 0;
};

/// Faces of `coord_index` (-1 separated; the last face may omit it) over `points`. Indices
/// must already be checked to lie in range. `ccw = false` flips every face.
FaceSetResult buildIndexedFaceSet(const std::vector<Eigen::Vector3d>& points,
                                  const std::vector<int>& coord_index, bool ccw, bool convex,
                                  int max_ear_clipping);

struct ExtrusionInput {
  std::vector<Eigen::Vector2d> cross_section;
  std::vector<Eigen::Vector3d> spine;
  std::vector<Eigen::Vector2d> scale;          ///< one, or one per spine point
  std::vector<Eigen::AngleAxisd> orientation;  ///< one, or one per spine point
  bool begin_cap = true;
  bool end_cap = true;
  bool ccw = true;
  bool convex = true;
};

/// Sweeps the cross-section along the spine using the spine-aligned cross-section planes
/// (SCP) of ISO/IEC 14772-1 clause 6.18.
FaceSetResult buildExtrusion(const ExtrusionInput& in, int max_ear_clipping);

/// Vertices (i * x_spacing, height[i + j * x_dim], j * z_spacing), two triangles per cell.
TriangleMesh buildElevationGrid(int x_dim, int z_dim, double x_spacing, double z_spacing,
                                const std::vector<double>& height, bool ccw);

}  // namespace handsim::geometry::vrml
