// SPDX-License-Identifier: GPL-3.0-or-later
// The convex hull of a mesh as a polytope (docs/collision.md, "Convex hulls"): vertices, faces
// as convex polygons with outward planes (coplanar facets merged), the adjacency a support
// query climbs, and a triangulation that the exact k-DOP pipeline can collide.
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <vector>

#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::collision {

/// One face of a hull: a convex polygon and its plane `normal . x = offset`.
struct ConvexFace {
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();  ///< unit, outward
  double offset = 0.0;                               ///< [m]; inside: normal . x <= offset
  int first = 0;  ///< first of its vertices in ConvexHull::face_vertices
  int count = 0;  ///< number of vertices (>= 3), counter-clockwise seen from outside
};

/// A convex polytope in its body's frame [m].
struct ConvexHull {
  std::vector<Eigen::Vector3d> vertices;  ///< the hull's vertices (a subset of the input points)
  std::vector<ConvexFace> faces;
  std::vector<int> face_vertices;  ///< every face's vertex indices, face after face
  /// Vertex adjacency (compressed rows): the neighbours of vertex v along the hull's edges are
  /// `neighbours[neighbour_first[v] .. neighbour_first[v + 1])`.
  std::vector<int> neighbour_first, neighbours;
  /// Faces around each vertex (compressed rows, like `neighbours`).
  std::vector<int> vertex_face_first, vertex_faces;
  /// The faces fanned into triangles (outward, counter-clockwise), on `vertices`, with normals:
  /// the hull as a closed triangle mesh.
  geometry::TriangleMesh triangles;
  Eigen::Vector3d interior = Eigen::Vector3d::Zero();  ///< mean of the vertices (inside) [m]
  double radius = 0.0;  ///< largest distance of a vertex from `interior` [m]
  /// A hash of the vertex coordinates: orders the two hulls of a query independently of the
  /// order they are passed in (convex_contact.hpp).
  std::uint64_t fingerprint = 0;
  /// Starting points of `support`: a cube map of directions, kStartCells x kStartCells cells on
  /// each face of the cube around the origin (+x, -x, +y, -y, +z, -z), each holding the vertex
  /// farthest along its cell's centre direction. A direction's cell lies within about 20 deg of
  /// it, so the climb from there takes a step or two on a finely tessellated curved hull.
  static constexpr int kStartCells = 4;
  std::array<int, 6 * kStartCells * kStartCells> start_map{};

  bool empty() const { return faces.empty(); }
  /// The index of a vertex with the largest `d . x` (hill climbing along the edges from
  /// vertex `start`; every local maximum of a linear function on a polytope is global).
  int support(const Eigen::Vector3d& d, int start = 0) const;
  /// A good start for `support(d, ...)`: the vertex of `d`'s cell in `start_map`.
  int supportStart(const Eigen::Vector3d& d) const {
    return start_map[static_cast<std::size_t>(startCell(d))];
  }
  /// The index into `start_map` of the cell that direction `d` (non-zero) falls in.
  static int startCell(const Eigen::Vector3d& d) {
    Eigen::Index axis = 0;
    const double major = d.cwiseAbs().maxCoeff(&axis);
    if (!(major > 0.0)) return 0;  // zero or NaN: any start will do
    const auto cell = [major](double x) {
      const int c = static_cast<int>((x / major + 1.0) * (0.5 * kStartCells));
      return c < 0 ? 0 : (c >= kStartCells ? kStartCells - 1 : c);
    };
    const int face = 2 * static_cast<int>(axis) + (d[axis] < 0.0 ? 1 : 0);
    return (face * kStartCells + cell(d[(axis + 1) % 3])) * kStartCells + cell(d[(axis + 2) % 3]);
  }
};

/// The convex hull of `points` (qhull, Barber, Dobkin, Huhdanpaa, ACM TOMS 22(4), 1996), facets
/// that are coplanar within qhull's rounding merged into polygons. Throws std::invalid_argument
/// (with qhull's message) for fewer than four points or points that span no volume.
ConvexHull buildConvexHull(const std::vector<Eigen::Vector3d>& points);

/// The convex hull of the vertices of `mesh` that its triangles use.
ConvexHull buildConvexHull(const geometry::TriangleMesh& mesh);

/// True when `mesh` is the boundary of `hull` (its convex hull): every non-degenerate triangle's
/// plane supports the hull (no hull vertex beyond it by more than 1e-9 of the hull's radius)
/// and the mesh encloses the hull's volume (to 1e-9 relative), so it is closed and convex.
bool isBoundaryOfHull(const geometry::TriangleMesh& mesh, const ConvexHull& hull);

}  // namespace handsim::collision
