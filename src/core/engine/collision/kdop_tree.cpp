// SPDX-License-Identifier: GPL-3.0-or-later
// Top-down k-DOP hierarchy construction (Klosowski et al., IEEE TVCG 4(1), 1998, section 4:
// splitting by the median along the longest axis keeps the tree balanced, depth <= log2 n + 1).
#include "handsim/collision/kdop_tree.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace handsim::collision {
namespace {

// The normal slab of the triangles in slots [begin, end) (vertices 3 per slot).
KdopTree::NormalSlab computeNormalSlab(const std::vector<Eigen::Vector3d>& v, int begin, int end,
                                       const Eigen::Vector3d* dirs, int h) {
  KdopTree::NormalSlab out;
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  double area2 = 0.0;
  for (int s = begin; s < end; ++s) {
    const auto i = 3 * static_cast<std::size_t>(s);
    const Eigen::Vector3d raw = (v[i + 1] - v[i]).cross(v[i + 2] - v[i]);
    sum += raw;
    area2 += raw.norm();
  }
  // A normal cone wider than about 70 degrees makes the slab no thinner than the k-DOP.
  if (!(sum.norm() > 0.35 * area2) || !(area2 > 0.0)) return out;
  out.normal = sum.normalized();
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (auto i = 3 * static_cast<std::size_t>(begin); i < 3 * static_cast<std::size_t>(end); ++i) {
    const double p = out.normal.dot(v[i]);
    lo = std::min(lo, p);
    hi = std::max(hi, p);
  }
  out.centre = 0.5 * (lo + hi);
  out.half_width = std::nextafter(std::max(hi - out.centre, out.centre - lo),
                                  std::numeric_limits<double>::infinity());
  // Complete the basis with the two slab directions most perpendicular to the normal (largest
  // |det|), which keeps the weights, and so the bounds, small.
  double best = 0.0;
  for (int i = 0; i < h; ++i)
    for (int j = i + 1; j < h; ++j) {
      const double det =
          std::abs(out.normal.dot(dirs[i].cross(dirs[j]))) / (dirs[i].norm() * dirs[j].norm());
      if (det > best) {
        best = det;
        out.axes = {i, j};
      }
    }
  Eigen::Matrix3d basis;
  basis << out.normal, dirs[out.axes[0]], dirs[out.axes[1]];
  out.to_weights = basis.inverse();
  out.valid = true;
  return out;
}

struct Builder {
  int h = 0;  // slab directions
  int leaf_size = 2;
  std::vector<double> tri_min, tri_max;  // triangles x h
  std::vector<Eigen::Vector3d> centroid;
  std::vector<int> order;
  std::vector<KdopTree::Node>* nodes = nullptr;
  std::vector<double>* slabs = nullptr;
  std::vector<std::pair<int, int>> range;  // per node: slots [begin, end)

  // Builds the subtree over order[begin, end) and returns its node index.
  int build(int begin, int end) {
    const int index = static_cast<int>(nodes->size());
    nodes->emplace_back();
    range.emplace_back(begin, end);
    const std::size_t base = slabs->size();
    slabs->resize(base + 2 * static_cast<std::size_t>(h));
    double* lo = slabs->data() + base;
    double* hi = lo + h;
    std::fill(lo, lo + h, std::numeric_limits<double>::infinity());
    std::fill(hi, hi + h, -std::numeric_limits<double>::infinity());
    Eigen::Vector3d cmin = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
    Eigen::Vector3d cmax = -cmin;
    for (int i = begin; i < end; ++i) {
      const auto t = static_cast<std::size_t>(order[static_cast<std::size_t>(i)]);
      for (int j = 0; j < h; ++j) {
        lo[j] =
            std::min(lo[j], tri_min[t * static_cast<std::size_t>(h) + static_cast<std::size_t>(j)]);
        hi[j] =
            std::max(hi[j], tri_max[t * static_cast<std::size_t>(h) + static_cast<std::size_t>(j)]);
      }
      cmin = cmin.cwiseMin(centroid[t]);
      cmax = cmax.cwiseMax(centroid[t]);
    }
    // Store centre and half-width: the traversal compares intervals as |centre difference|
    // against the sum of half-widths. Rounding the half-width up keeps the slab enclosing.
    for (int j = 0; j < h; ++j) {
      const double mid = 0.5 * (lo[j] + hi[j]);
      const double half = std::max(hi[j] - mid, mid - lo[j]);
      lo[j] = mid;
      hi[j] = std::nextafter(half, std::numeric_limits<double>::infinity());
    }
    if (end - begin <= leaf_size) {
      (*nodes)[static_cast<std::size_t>(index)] = {begin, end - begin};
      return index;
    }
    int axis = 0;
    (cmax - cmin).maxCoeff(&axis);
    const int mid = begin + (end - begin) / 2;
    std::nth_element(order.begin() + begin, order.begin() + mid, order.begin() + end,
                     [&](int a, int b) {
                       return centroid[static_cast<std::size_t>(a)][axis] <
                              centroid[static_cast<std::size_t>(b)][axis];
                     });
    build(begin, mid);
    const int right = build(mid, end);
    (*nodes)[static_cast<std::size_t>(index)] = {right, 0};
    return index;
  }
};

}  // namespace

namespace {
std::atomic<std::uint64_t> g_next_tree_id{1};
}  // namespace

KdopTree::KdopTree(const geometry::TriangleMesh& mesh, const KdopTreeOptions& options)
    : k_(options.k), id_(g_next_tree_id.fetch_add(1, std::memory_order_relaxed)) {
  const Eigen::Vector3d* dirs = kdopDirections(options.k);
  if (options.max_leaf_triangles < 1 || options.max_leaf_triangles > 16)
    throw std::invalid_argument("max_leaf_triangles must be in 1..16, got " +
                                std::to_string(options.max_leaf_triangles));
  const std::size_t n = mesh.triangles.size();
  if (n == 0) return;
  Builder b;
  b.h = k_ / 2;
  b.leaf_size = options.max_leaf_triangles;
  const auto h = static_cast<std::size_t>(b.h);
  b.tri_min.resize(n * h);
  b.tri_max.resize(n * h);
  b.centroid.resize(n);
  b.order.resize(n);
  const auto nv = static_cast<int>(mesh.vertices.size());
  geometry::Aabb box;
  for (std::size_t t = 0; t < n; ++t) {
    const auto& tri = mesh.triangles[t];
    for (int c : tri)
      if (c < 0 || c >= nv)
        throw std::invalid_argument("triangle " + std::to_string(t) + " uses vertex " +
                                    std::to_string(c) + " but the mesh has " + std::to_string(nv) +
                                    " vertices");
    const Eigen::Vector3d& p0 = mesh.vertices[static_cast<std::size_t>(tri[0])];
    const Eigen::Vector3d& p1 = mesh.vertices[static_cast<std::size_t>(tri[1])];
    const Eigen::Vector3d& p2 = mesh.vertices[static_cast<std::size_t>(tri[2])];
    for (std::size_t j = 0; j < h; ++j) {
      const double d0 = dirs[j].dot(p0), d1 = dirs[j].dot(p1), d2 = dirs[j].dot(p2);
      b.tri_min[t * h + j] = std::min({d0, d1, d2});
      b.tri_max[t * h + j] = std::max({d0, d1, d2});
    }
    b.centroid[t] = (p0 + p1 + p2) / 3.0;
    b.order[t] = static_cast<int>(t);
    box.extend(p0);
    box.extend(p1);
    box.extend(p2);
  }
  nodes_.reserve(2 * n);
  slabs_.reserve(2 * n * 2 * h);
  b.nodes = &nodes_;
  b.slabs = &slabs_;
  b.build(0, static_cast<int>(n));
  nodes_.shrink_to_fit();
  slabs_.shrink_to_fit();

  vertices_.resize(3 * n);
  triangle_of_slot_.resize(n);
  slot_of_triangle_.assign(mesh.triangles.size(), -1);
  for (std::size_t s = 0; s < n; ++s) {
    const auto t = static_cast<std::size_t>(b.order[s]);
    triangle_of_slot_[s] = b.order[s];
    slot_of_triangle_[t] = static_cast<int>(s);
    for (std::size_t c = 0; c < 3; ++c)
      vertices_[3 * s + c] = mesh.vertices[static_cast<std::size_t>(mesh.triangles[t][c])];
  }
  normal_slabs_.resize(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    normal_slabs_[i] = computeNormalSlab(vertices_, b.range[i].first, b.range[i].second, dirs, b.h);
  scale_ = (box.max - box.min).norm() +
           std::max(box.min.cwiseAbs().maxCoeff(), box.max.cwiseAbs().maxCoeff());
}

std::size_t KdopTree::memoryBytes() const {
  return nodes_.capacity() * sizeof(Node) + slabs_.capacity() * sizeof(double) +
         vertices_.capacity() * sizeof(Eigen::Vector3d) +
         normal_slabs_.capacity() * sizeof(NormalSlab) +
         triangle_of_slot_.capacity() * sizeof(int) + slot_of_triangle_.capacity() * sizeof(int);
}

}  // namespace handsim::collision
