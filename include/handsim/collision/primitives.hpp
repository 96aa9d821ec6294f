// SPDX-License-Identifier: GPL-3.0-or-later
// Tessellated primitive shapes for tests, benchmarks and default objects.
#pragma once

#include <Eigen/Core>

#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::collision {

/// Closed UV sphere centred at the origin: `stacks` (>= 2) bands of latitude, `slices` (>= 3)
/// of longitude, 2 * slices * (stacks - 1) triangles, outward counter-clockwise, normals set.
/// Throws std::invalid_argument for a radius <= 0 or too few stacks/slices.
geometry::TriangleMesh makeUvSphere(double radius_m, int stacks, int slices);

/// Closed axis-aligned box centred at the origin with edge lengths `size_m` [m], each face cut
/// into `subdivisions` x `subdivisions` squares (12 * subdivisions^2 triangles); vertices are
/// shared between faces, so the mesh is watertight. Throws std::invalid_argument for a
/// non-positive size or subdivisions < 1.
geometry::TriangleMesh makeBox(const Eigen::Vector3d& size_m, int subdivisions = 1);

}  // namespace handsim::collision
