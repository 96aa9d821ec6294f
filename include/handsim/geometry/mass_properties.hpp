// SPDX-License-Identifier: GPL-3.0-or-later
// Mass, centre of mass and inertia tensor of a uniform solid bounded by a closed triangle mesh
// (divergence theorem over signed tetrahedra; docs/mass-properties.md).
#pragma once

#include <Eigen/Core>

#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::geometry {

/// Mass properties of a uniform solid. Every vector and tensor is in the mesh frame.
struct MassProperties {
  double mass_kg = 0.0;    ///< mass [kg], > 0
  double volume_m3 = 0.0;  ///< enclosed volume [m^3], > 0 (after any flip, see below)
  Eigen::Vector3d centre_of_mass = Eigen::Vector3d::Zero();  ///< [m] (3), mesh frame
  /// Inertia tensor about the centre of mass, axes parallel to the mesh frame [kg m^2] (3x3),
  /// I = integral(((r^T r) 1 - r r^T) dm) with r measured from the centre of mass; symmetric.
  Eigen::Matrix3d inertia_com = Eigen::Matrix3d::Zero();
  /// True when the mesh was wound inwards (negative signed volume) and was treated as if its
  /// triangles were reversed; a caller should warn, since the file's faces point inside.
  bool winding_flipped = false;
};

/// Mass properties of the uniform solid of density `density_kg_m3` [kg/m^3] bounded by `mesh`,
/// exact (up to rounding) for a closed, consistently oriented mesh: the volume integrals of
/// 1, r and r r^T are sums over the signed tetrahedra that each triangle forms with a reference
/// point (Tonon 2004). A mesh wound inwards is flipped and flagged (`winding_flipped`).
///
/// The mesh must be closed: an open or non-manifold mesh gives meaningless numbers without
/// any error here, so a caller that cannot trust its input must run checkClosed first and warn
/// the user when it reports `closed == false`.
///
/// Throws std::invalid_argument when the density is not finite and positive, a vertex is NaN
/// or infinite (the message names the vertex index), a triangle index is out of range (names
/// the triangle), the mesh has no triangles, or its volume is zero within rounding.
MassProperties massProperties(const TriangleMesh& mesh, double density_kg_m3);

/// The same with the uniform density chosen so that the solid weighs `mass_kg` [kg]
/// (density = mass / volume). Throws std::invalid_argument like massProperties, and when
/// `mass_kg` is not finite and positive.
MassProperties massPropertiesForMass(const TriangleMesh& mesh, double mass_kg);

/// Whether a mesh bounds a solid, edge by edge, after welding vertices closer than the
/// tolerance (VRML and STL files often repeat a vertex per face, and LoadedModel::merged does
/// not share vertices between shapes).
struct ClosednessReport {
  /// True when the mesh has triangles and every (welded) edge is used by exactly two
  /// triangles in opposite directions: the three counts below are all zero.
  bool closed = false;
  int boundary_edges = 0;                 ///< edges used by exactly one triangle
  int non_manifold_edges = 0;             ///< edges used by three or more triangles
  int inconsistently_oriented_edges = 0;  ///< edges used twice in the same direction
  /// Triangles left out of the edge count because welding made two of their corners one
  /// vertex (zero-area slivers; they add nothing to the volume).
  int collapsed_triangles = 0;
  int welded_vertices = 0;  ///< distinct vertices after welding
};

/// Edge-based closedness check. Vertices within `weld_tolerance_m` [m] of each other (in every
/// coordinate, greedily in index order) become one vertex; edges are keyed by the welded
/// indices. Open meshes give meaningless mass properties: callers of massProperties must warn
/// when `closed` is false. Throws std::invalid_argument on a non-finite vertex, an index out of
/// range or a negative tolerance.
ClosednessReport checkClosed(const TriangleMesh& mesh, double weld_tolerance_m = 1e-9);

}  // namespace handsim::geometry
