// SPDX-License-Identifier: GPL-3.0-or-later
// The VRML97 geometric primitives (ISO/IEC 14772-1 clauses 6.4 Box, 6.42 Sphere, 6.17
// Cylinder, 6.11 Cone): centred at the origin, axis along +y, closed unless parts are left out.
#pragma once

#include <Eigen/Core>

#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::geometry {

/// Box of edge lengths `size` [m]: 8 shared vertices, 12 triangles, watertight.
TriangleMesh makeBox(const Eigen::Vector3d& size);

/// UV sphere of `radius` [m] with `segments` around y and segments/2 bands (poles shared).
TriangleMesh makeSphere(double radius, int segments);

/// Cylinder of `radius` and `height` [m] along y; parts may be left out.
TriangleMesh makeCylinder(double radius, double height, int segments, bool bottom = true,
                          bool side = true, bool top = true);

/// Cone of `bottom_radius` and `height` [m], apex at +height/2; parts may be left out.
TriangleMesh makeCone(double bottom_radius, double height, int segments, bool bottom = true,
                      bool side = true);

}  // namespace handsim::geometry
