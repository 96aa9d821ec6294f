// SPDX-License-Identifier: GPL-3.0-or-later
// Exact intersection A ∩ B of two closed triangle meshes: its volume, its centroid (the
// application point c of seed 004, Sect. II-B) and its boundary split into the pieces of A's
// triangles inside B and of B's triangles inside A, with seed 004's direction s_d (eq. 3).
//
// Method (docs/collision.md, "Overlap volume"): candidate triangle pairs from the two k-DOP
// trees (`allContacts`); every triangle of A that meets B's surface is cut along the lines of
// its intersection segments (and along the edges of B's triangles lying in its plane) into
// convex pieces whose interiors do not meet B's surface; each piece (and every triangle of A
// meeting no triangle of B but lying in B's bounding box) is classified inside / outside B by
// ray parity through B's tree (re-cast along another direction on any near-degenerate hit);
// the same for B against A; volume and centroid by the divergence theorem over the kept pieces.
#pragma once

#include <Eigen/Geometry>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "handsim/collision/contact_scratch.hpp"
#include "handsim/collision/kdop_tree.hpp"
#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::collision {

/// Edge topology of a triangle mesh after welding vertices with identical coordinates.
struct MeshClosure {
  bool closed = false;                   ///< every edge shared by exactly two triangles that
                                         ///< traverse it in opposite directions
  std::size_t boundary_edges = 0;        ///< edges used by one triangle (holes)
  std::size_t non_manifold_edges = 0;    ///< edges used by three or more triangles
  std::size_t inconsistent_edges = 0;    ///< edges two triangles traverse in the same direction
  std::size_t degenerate_triangles = 0;  ///< triangles with a repeated (welded) vertex, ignored
  /// One line for a warning: "closed" or what is wrong (counts of each kind of edge).
  std::string describe() const;
};

/// Checks once (when a body is built) whether `mesh` bounds a solid, welding vertices whose
/// coordinates are equal so that meshes with per-face vertices (VRML, STL) are judged by their
/// shape. `computeOverlap` is exact only when both meshes are closed.
MeshClosure checkMeshClosure(const geometry::TriangleMesh& mesh);

/// One convex piece of the overlap's boundary: part of one triangle of A lying inside B (or on
/// B's surface with the same orientation), or part of one triangle of B lying inside A.
struct OverlapPiece {
  int triangle = -1;               ///< triangle index in its own mesh
  double area = 0.0;               ///< [m^2]
  Eigen::Vector3d centre_world;    ///< area centroid [m]
  Eigen::Vector3d normal_world;    ///< unit outward normal of its mesh, which is the
                                   ///< outward normal of A ∩ B there
  std::uint32_t first_vertex = 0;  ///< into OverlapResult::vertices_world
  std::uint32_t vertex_count = 0;  ///< convex polygon, counter-clockwise seen from outside
};

/// Work done by one `computeOverlap` call (counts).
struct OverlapStats {
  std::uint64_t triangle_pairs = 0;   ///< intersecting triangle pairs from the trees
  std::uint64_t pieces = 0;           ///< convex pieces classified (kept or not)
  std::uint64_t ray_casts = 0;        ///< point-in-mesh queries by ray parity
  std::uint64_t recasts = 0;          ///< rays re-cast after a near-degenerate hit
  std::uint64_t winding_queries = 0;  ///< generalised winding numbers (open meshes, or every
                                      ///< ray degenerate)
};

/// Result of `computeOverlap`, every geometric quantity in the world frame.
struct OverlapResult {
  double volume = 0.0;                                       ///< vol(A ∩ B) [m^3], >= 0
  Eigen::Vector3d centroid_world = Eigen::Vector3d::Zero();  ///< c: centroid of A ∩ B [m];
                                                             ///< zero when volume == 0
  /// Seed 004 eq. 3 with outward normals: s_d = sum_A w_i n_i - sum_B w_i n_i, w_i =
  /// area_i |centre_i - c| / 3 [m^3]. It points from A into B: the force on B is along +s_d,
  /// the force on A along -s_d (docs/collision.md explains the sign and the paper's typo).
  Eigen::Vector3d direction_world = Eigen::Vector3d::Zero();
  double area_a = 0.0;                 ///< total area of the pieces of A (sub-mesh A) [m^2]
  double area_b = 0.0;                 ///< total area of the pieces of B (sub-mesh B) [m^2]
  std::vector<OverlapPiece> pieces_a;  ///< sub-mesh A: A's surface inside B
  std::vector<OverlapPiece> pieces_b;  ///< sub-mesh B: B's surface inside A
  std::vector<Eigen::Vector3d> vertices_world;  ///< polygon vertices of every piece [m]
  bool exact = true;  ///< false when a mesh was declared open (winding-number fallback)
  OverlapStats stats;
};

/// How `computeOverlap` treats its meshes. Pass the `closed` flags of `checkMeshClosure`,
/// computed once per mesh.
struct OverlapOptions {
  bool a_closed = true;     ///< false: inside-A is the generalised winding number >= 1/2
  bool b_closed = true;     ///< false: inside-B likewise
  bool keep_pieces = true;  ///< false: skip pieces_a/pieces_b/vertices_world (volume,
                            ///< centroid, direction and areas are still computed)
};

namespace detail {

/// A triangle of the other mesh met by the triangle being cut (in A's frame).
struct OverlapCutter {
  Eigen::Vector3d v[3];    ///< its vertices [m]
  Eigen::Vector3d normal;  ///< its unit normal (zero when degenerate)
  Eigen::Vector3d p0, p1;  ///< the intersection segment [m]
  bool coplanar = false;   ///< the two triangles overlap in one plane
};

}  // namespace detail

/// Reusable buffers of `computeOverlap` (one per thread). Buffers are cleared, never freed, so
/// once the queries have been as large as they will get, further queries do not allocate.
struct OverlapScratch {
  ContactScratch contacts;                      ///< narrow-phase traversal and triangle pairs
  std::vector<std::uint32_t> order;             ///< pair indices sorted by triangle
  std::vector<std::uint32_t> stamp_a, stamp_b;  ///< per triangle: query id if it meets the
                                                ///< other surface
  std::uint32_t query = 0;
  std::vector<Eigen::Vector3d> poly;  ///< piece polygons being cut (vertex pool)
  std::vector<Eigen::Vector3d> poly_next;
  std::vector<std::uint32_t> piece_range;  ///< (first, count) pairs into poly
  std::vector<std::uint32_t> piece_range_next;
  std::vector<detail::OverlapCutter> cutters;  ///< triangles met by the one being cut
  std::vector<std::uint32_t> node_stack;       ///< ray casts through a tree
  std::vector<std::uint32_t> box_stack;        ///< the walk over triangles near the other mesh
  std::vector<double> dist;                    ///< signed distances of a piece's vertices
  std::vector<int> side;                       ///< their sides (-1, 0, 1)
};

/// Computes A ∩ B. Mesh A is `a` (its tree, in A's frame) placed in the world by `a_to_world`
/// (x_world = a_to_world * x_A), B likewise. Exact to rounding when both meshes are closed,
/// including one mesh inside the other and faces lying in one plane, with the rule of regularised
/// set intersection: where a face of A and a face of B coincide with the same orientation the
/// shared part bounds A ∩ B once (it is counted as a piece of A); with opposite orientations it
/// bounds nothing (the solids only touch there). `result`'s vectors keep their capacity.
void computeOverlap(const KdopTree& a, const Eigen::Isometry3d& a_to_world, const KdopTree& b,
                    const Eigen::Isometry3d& b_to_world, OverlapScratch& scratch,
                    OverlapResult& result, const OverlapOptions& options = {});

/// Convenience overload allocating its scratch and result.
OverlapResult computeOverlap(const KdopTree& a, const Eigen::Isometry3d& a_to_world,
                             const KdopTree& b, const Eigen::Isometry3d& b_to_world,
                             const OverlapOptions& options = {});

/// Inside test for a point of the tree's frame: ray parity through the tree (up to eight
/// directions, re-cast when a ray grazes an edge, a vertex or a face's plane), falling back to
/// the generalised winding number (>= 1/2) when every ray is degenerate or `closed` is false.
/// A point on the surface may go either way. `stats` (optional) counts the work.
bool pointInsideMesh(const KdopTree& tree, const Eigen::Vector3d& point, bool closed,
                     std::vector<std::uint32_t>& node_stack, OverlapStats* stats = nullptr);

/// Generalised winding number of a point with respect to the tree's triangles (Jacobson,
/// Kavan, Sorkine-Hornung, "Robust Inside-Outside Segmentation using Generalized Winding
/// Numbers", SIGGRAPH 2013): 1 inside a closed outward mesh, 0 outside.
double windingNumber(const KdopTree& tree, const Eigen::Vector3d& point);

}  // namespace handsim::collision
