// SPDX-License-Identifier: GPL-3.0-or-later
// Bounding-volume hierarchy of k-DOPs over one triangle mesh (Klosowski et al., IEEE TVCG 4(1),
// 1998), built once top-down and stored flat (depth-first node array) for cache efficiency.
#pragma once

#include <Eigen/Geometry>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "handsim/collision/kdop.hpp"
#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::collision {

/// How to build a `KdopTree`.
struct KdopTreeOptions {
  int k = 18;                  ///< 14, 18 or 26 slabs (k/2 directions, see kdopDirections)
  int max_leaf_triangles = 8;  ///< a node with at most this many triangles is a leaf (1..16)
};

/// A k-DOP hierarchy over a mesh, in the mesh's own frame. Immutable once built; it keeps its own
/// copy of the triangles' vertices in leaf order, so the mesh may change or die afterwards.
class KdopTree {
 public:
  /// One node of the depth-first array: the left child of an internal node i is i + 1.
  struct Node {
    std::int32_t first = 0;  ///< leaf: first leaf slot; internal: index of the right child
    std::int32_t count = 0;  ///< leaf: number of triangles (> 0); internal: 0
    bool isLeaf() const { return count > 0; }
  };

  /// A node's extra slab along its own mean surface normal, so that a gently curved patch is
  /// bounded as tightly as a thin plate whatever its orientation. `to_weights` expresses any
  /// direction c as c = w0 normal + w1 d[axes[0]] + w2 d[axes[1]] (w = to_weights * c), which
  /// bounds the node along c from this slab and two of its k-DOP slabs.
  struct NormalSlab {
    Eigen::Vector3d normal = Eigen::Vector3d::Zero();  ///< unit, area-weighted mean normal
    double centre = 0.0;                               ///< of normal . x over the vertices [m]
    double half_width = 0.0;                           ///< rounded up [m]
    std::array<int, 2> axes{};                         ///< k-DOP directions of the basis
    Eigen::Matrix3d to_weights = Eigen::Matrix3d::Zero();
    bool valid = false;  ///< false when the node's normals spread too widely to help
  };

  KdopTree() = default;
  /// Builds the hierarchy: per node, split at the median centroid along the longest axis of the
  /// centroids' bounding box. Throws std::invalid_argument for an unsupported k or leaf size, or
  /// a triangle index outside the vertex array.
  explicit KdopTree(const geometry::TriangleMesh& mesh, const KdopTreeOptions& options = {});

  int k() const { return k_; }
  /// Number of slab directions (k / 2).
  int axisCount() const { return k_ / 2; }
  std::size_t nodeCount() const { return nodes_.size(); }
  std::size_t triangleCount() const { return triangle_of_slot_.size(); }
  bool empty() const { return nodes_.empty(); }
  const Node& node(std::size_t i) const { return nodes_[i]; }
  /// Slab centres of node i, one per direction (axisCount() values) [m times |direction|].
  const double* slabCentre(std::size_t i) const {
    return &slabs_[i * static_cast<std::size_t>(k_)];
  }
  /// Slab half-widths of node i (axisCount() values): centre +- half-width encloses every
  /// projection of the node's vertices up to one rounding, which the query margin covers.
  const double* slabHalfWidth(std::size_t i) const { return slabCentre(i) + k_ / 2; }
  /// Normal slab of node i.
  const NormalSlab& normalSlab(std::size_t i) const { return normal_slabs_[i]; }
  /// The three vertices of the triangle in leaf slot s [m].
  const Eigen::Vector3d* slotVertices(std::size_t s) const { return &vertices_[3 * s]; }
  /// Index in the source mesh of the triangle in leaf slot s.
  int slotTriangle(std::size_t s) const { return triangle_of_slot_[s]; }
  /// Leaf slot of mesh triangle t (0 <= t < the source mesh's triangle count), -1 for a
  /// triangle the tree does not hold.
  int triangleSlot(std::size_t t) const { return slot_of_triangle_[t]; }
  /// Root bounding-box diagonal plus largest absolute coordinate [m]; sets the query margin.
  double scale() const { return scale_; }
  /// Heap memory held by the tree [bytes].
  std::size_t memoryBytes() const;
  /// Identity of the built hierarchy: distinct for every tree built in the process (a copy
  /// shares its source's, as it holds the same hierarchy). Keys the frontier cache.
  std::uint64_t id() const { return id_; }

 private:
  int k_ = 18;
  std::vector<Node> nodes_;
  std::vector<double> slabs_;              // nodes x k: k/2 centres then k/2 half-widths
  std::vector<NormalSlab> normal_slabs_;   // one per node
  std::vector<Eigen::Vector3d> vertices_;  // 3 per leaf slot
  std::vector<int> triangle_of_slot_;
  std::vector<int> slot_of_triangle_;
  double scale_ = 0.0;
  std::uint64_t id_ = 0;
};

}  // namespace handsim::collision
