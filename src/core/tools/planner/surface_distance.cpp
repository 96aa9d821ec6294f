// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/planner/surface_distance.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace handsim::planner {
namespace {

Eigen::Vector3d centroid(const geometry::TriangleMesh& m, int t) {
  const auto& tri = m.triangles[static_cast<std::size_t>(t)];
  return (m.vertices[static_cast<std::size_t>(tri[0])] +
          m.vertices[static_cast<std::size_t>(tri[1])] +
          m.vertices[static_cast<std::size_t>(tri[2])]) /
         3.0;
}

int build(SurfaceTree& tree, int first, int count) {
  SurfaceTree::Node node;
  node.min = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
  node.max = -node.min;
  for (int i = first; i < first + count; ++i)
    for (int v :
         tree.mesh.triangles[static_cast<std::size_t>(tree.order[static_cast<std::size_t>(i)])]) {
      node.min = node.min.cwiseMin(tree.mesh.vertices[static_cast<std::size_t>(v)]);
      node.max = node.max.cwiseMax(tree.mesh.vertices[static_cast<std::size_t>(v)]);
    }
  const int index = static_cast<int>(tree.nodes.size());
  tree.nodes.push_back(node);
  if (count <= 4) {
    tree.nodes[static_cast<std::size_t>(index)].first = first;
    tree.nodes[static_cast<std::size_t>(index)].count = count;
    return index;
  }
  int axis = 0;
  (node.max - node.min).maxCoeff(&axis);
  const int half = count / 2;
  auto begin = tree.order.begin() + first;
  std::nth_element(begin, begin + half, begin + count, [&](int a, int b) {
    const double ca = centroid(tree.mesh, a)[axis], cb = centroid(tree.mesh, b)[axis];
    return ca < cb || (ca == cb && a < b);
  });
  const int left = build(tree, first, half);
  const int right = build(tree, first + half, count - half);
  tree.nodes[static_cast<std::size_t>(index)].left = left;
  tree.nodes[static_cast<std::size_t>(index)].right = right;
  return index;
}

double boxDistanceSquared(const SurfaceTree::Node& n, const Eigen::Vector3d& p) {
  const Eigen::Vector3d d = (n.min - p).cwiseMax(p - n.max).cwiseMax(0.0);
  return d.squaredNorm();
}

}  // namespace

SurfaceTree buildSurfaceTree(geometry::TriangleMesh mesh) {
  SurfaceTree tree;
  tree.mesh = std::move(mesh);
  tree.mesh.updateNormals();
  for (std::size_t t = 0; t < tree.mesh.triangles.size(); ++t)
    if (tree.mesh.normals[t].squaredNorm() > 0.0) tree.order.push_back(static_cast<int>(t));
  if (!tree.order.empty()) build(tree, 0, static_cast<int>(tree.order.size()));
  return tree;
}

Eigen::Vector3d closestPointOnTriangle(const Eigen::Vector3d& p, const Eigen::Vector3d& a,
                                       const Eigen::Vector3d& b, const Eigen::Vector3d& c) {
  // Barycentric regions: which vertex, edge or the face the projection of p falls in.
  const Eigen::Vector3d ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0.0 && d2 <= 0.0) return a;
  const Eigen::Vector3d bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0.0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return a + ab * (d1 / (d1 - d3));
  const Eigen::Vector3d cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0.0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return a + ac * (d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0)
    return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

SurfacePoint closestSurfacePoint(const SurfaceTree& tree, const Eigen::Vector3d& p) {
  SurfacePoint best;
  if (tree.empty()) return best;
  double best_d2 = std::numeric_limits<double>::infinity();
  double best_square = -1.0;  // |(p - q) . n| / |p - q| of the best: ties go to the squarest
  int stack[128];
  int top = 0;
  stack[top++] = 0;
  const auto& m = tree.mesh;
  while (top > 0) {
    const SurfaceTree::Node& n = tree.nodes[static_cast<std::size_t>(stack[--top])];
    if (boxDistanceSquared(n, p) > best_d2 * (1.0 + 1e-12)) continue;
    if (n.left < 0) {
      for (int i = n.first; i < n.first + n.count; ++i) {
        const int t = tree.order[static_cast<std::size_t>(i)];
        const auto& tri = m.triangles[static_cast<std::size_t>(t)];
        const Eigen::Vector3d q =
            closestPointOnTriangle(p, m.vertices[static_cast<std::size_t>(tri[0])],
                                   m.vertices[static_cast<std::size_t>(tri[1])],
                                   m.vertices[static_cast<std::size_t>(tri[2])]);
        const double d2 = (p - q).squaredNorm();
        const Eigen::Vector3d& normal = m.normals[static_cast<std::size_t>(t)];
        const double len = std::sqrt(d2);
        const double square = len > 0.0 ? std::abs((p - q).dot(normal)) / len : 1.0;
        const double tol = 1e-12 * std::max(best_d2, 1e-30);
        if (d2 < best_d2 - tol || (std::abs(d2 - best_d2) <= tol && square > best_square)) {
          best_d2 = d2;
          best_square = square;
          best.point = q;
          best.normal = normal;
          best.triangle = t;
          best.distance = (p - q).dot(normal) < 0.0 ? -len : len;
        }
      }
      continue;
    }
    // Nearer child last, so it is searched first.
    const double dl = boxDistanceSquared(tree.nodes[static_cast<std::size_t>(n.left)], p);
    const double dr = boxDistanceSquared(tree.nodes[static_cast<std::size_t>(n.right)], p);
    if (top + 2 > 128) continue;  // depth is log2(triangles / 4): far below 64
    if (dl < dr) {
      stack[top++] = n.right;
      stack[top++] = n.left;
    } else {
      stack[top++] = n.left;
      stack[top++] = n.right;
    }
  }
  return best;
}

}  // namespace handsim::planner
