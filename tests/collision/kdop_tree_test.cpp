// SPDX-License-Identifier: GPL-3.0-or-later
// The k-DOP hierarchy must be conservative: on many random poses it finds exactly the triangle
// pairs that a brute-force loop over all pairs finds (same exact test, same vertex mapping).
#include "handsim/collision/kdop_tree.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <random>
#include <set>
#include <utility>

#include "handsim/collision/primitives.hpp"
#include "handsim/collision/tree_collision.hpp"

using namespace handsim::collision;
using Eigen::Vector3d;
using handsim::geometry::TriangleMesh;

namespace {

std::set<std::pair<int, int>> bruteForce(const TriangleMesh& a, const TriangleMesh& b,
                                         const Eigen::Isometry3d& b_in_a) {
  std::vector<Vector3d> moved;
  for (const auto& v : b.vertices) moved.push_back(b_in_a * v);
  std::set<std::pair<int, int>> out;
  for (std::size_t i = 0; i < a.triangles.size(); ++i) {
    const auto& ta = a.triangles[i];
    for (std::size_t j = 0; j < b.triangles.size(); ++j) {
      const auto& tb = b.triangles[j];
      if (intersectTriangles(
              a.vertices[static_cast<std::size_t>(ta[0])],
              a.vertices[static_cast<std::size_t>(ta[1])],
              a.vertices[static_cast<std::size_t>(ta[2])], moved[static_cast<std::size_t>(tb[0])],
              moved[static_cast<std::size_t>(tb[1])], moved[static_cast<std::size_t>(tb[2])])
              .intersects())
        out.emplace(static_cast<int>(i), static_cast<int>(j));
    }
  }
  return out;
}

TriangleMesh randomSoup(std::mt19937& rng, int count, double size) {
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  std::uniform_real_distribution<double> e(-size, size);
  TriangleMesh m;
  for (int t = 0; t < count; ++t) {
    const Vector3d c(u(rng), u(rng), u(rng));
    for (int k = 0; k < 3; ++k) m.vertices.push_back(c + Vector3d(e(rng), e(rng), e(rng)));
    m.triangles.push_back({3 * t, 3 * t + 1, 3 * t + 2});
  }
  m.updateNormals();
  return m;
}

Eigen::Isometry3d randomPose(std::mt19937& rng, double reach) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(-reach, reach);
  Eigen::Isometry3d p = Eigen::Isometry3d::Identity();
  p.linear() = Eigen::Quaterniond(g(rng), g(rng), g(rng), g(rng)).normalized().toRotationMatrix();
  p.translation() = Vector3d(u(rng), u(rng), u(rng));
  return p;
}

void expectSameAsBruteForce(const TriangleMesh& a, const TriangleMesh& b,
                            const Eigen::Isometry3d& pose, int k, int leaf, int* colliding,
                            int k_b = 0) {
  const KdopTree ta(a, {k, leaf});
  const KdopTree tb(b, {k_b == 0 ? k : k_b, leaf});
  const auto expected = bruteForce(a, b, pose);
  CollisionStats stats;
  const auto found = allContacts(ta, tb, pose, &stats);
  std::set<std::pair<int, int>> got;
  for (const auto& c : found) got.emplace(c.triangle_a, c.triangle_b);
  ASSERT_EQ(got.size(), found.size()) << "a pair was reported twice";
  ASSERT_EQ(got, expected) << "k = " << k << "\npose:\n" << pose.matrix();
  ASSERT_EQ(anyContact(ta, tb, pose), !expected.empty());
  if (!expected.empty()) ++*colliding;
  // Pruning must actually happen for non-trivial meshes.
  ASSERT_LT(stats.triangle_tests, a.triangles.size() * b.triangles.size());
}

}  // namespace

TEST(Primitives, SphereAndBoxAreClosedAndOutward) {
  const TriangleMesh s = makeUvSphere(0.5, 12, 16);
  EXPECT_EQ(s.triangles.size(), 2u * 16u * 11u);
  EXPECT_TRUE(handsim::geometry::isWatertight(s));
  EXPECT_GT(handsim::geometry::signedVolume(s), 0.9 * 4.0 / 3.0 * 3.14159 * 0.125);
  const TriangleMesh b = makeBox(Vector3d(0.07, 0.02, 0.015), 3);
  EXPECT_EQ(b.triangles.size(), 12u * 9u);
  EXPECT_TRUE(handsim::geometry::isWatertight(b));
  EXPECT_NEAR(handsim::geometry::signedVolume(b), 0.07 * 0.02 * 0.015, 1e-15);
}

TEST(KdopTree, RejectsUnsupportedK) {
  const TriangleMesh b = makeBox(Vector3d(1, 1, 1));
  EXPECT_THROW(KdopTree(b, {16, 2}), std::invalid_argument);
  EXPECT_THROW(KdopTree(b, {18, 0}), std::invalid_argument);
}

TEST(KdopTree, NodesBoundTheirTriangles) {
  std::mt19937 rng(3);
  int valid_normal_slabs = 0;
  for (const TriangleMesh& m : {randomSoup(rng, 300, 0.02), makeUvSphere(0.05, 12, 16)})
    for (int k : {14, 18, 26}) {
      const KdopTree t(m, {k, 3});
      for (std::size_t n = 0; n < t.nodeCount(); ++n) valid_normal_slabs += t.normalSlab(n).valid;
      const Vector3d* dirs = kdopDirections(k);
      // Walk every node: each triangle below it projects inside its slabs.
      for (std::size_t n = 0; n < t.nodeCount(); ++n) {
        std::vector<std::size_t> todo{n};
        while (!todo.empty()) {
          const std::size_t c = todo.back();
          todo.pop_back();
          const auto& node = t.node(c);
          if (!node.isLeaf()) {
            todo.push_back(c + 1);
            todo.push_back(static_cast<std::size_t>(node.first));
            continue;
          }
          const KdopTree::NormalSlab& ns = t.normalSlab(n);
          for (int s = node.first; s < node.first + node.count; ++s)
            for (int v = 0; v < 3; ++v) {
              const Vector3d& x = t.slotVertices(static_cast<std::size_t>(s))[v];
              if (ns.valid) {
                ASSERT_LE(std::abs(ns.normal.dot(x) - ns.centre), ns.half_width + 1e-15);
                // The basis really expresses directions: c = w0 n + w1 d_i + w2 d_j.
                const Vector3d dir(0.3, -0.5, 0.8);
                const Vector3d w = ns.to_weights * dir;
                ASSERT_LT(
                    (w[0] * ns.normal + w[1] * dirs[ns.axes[0]] + w[2] * dirs[ns.axes[1]] - dir)
                        .norm(),
                    1e-12);
              }
              for (int j = 0; j < k / 2; ++j) {
                const double p = dirs[j].dot(t.slotVertices(static_cast<std::size_t>(s))[v]);
                const double mid = t.slabCentre(n)[j];
                ASSERT_LE(std::abs(p - mid),
                          t.slabHalfWidth(n)[j] + 1e-15 * (std::abs(p) + std::abs(mid)));
              }
            }
        }
      }
    }
  EXPECT_GT(valid_normal_slabs, 300);
}

TEST(KdopTree, SpheresMatchBruteForceOnRandomPoses) {
  std::mt19937 rng(11);
  const TriangleMesh a = makeUvSphere(0.05, 10, 14);
  const TriangleMesh b = makeUvSphere(0.04, 9, 12);
  int colliding = 0;
  for (int trial = 0; trial < 60; ++trial)
    for (int k : {14, 18, 26})
      expectSameAsBruteForce(a, b, randomPose(rng, 0.1), k, 1 + trial % 4, &colliding);
  EXPECT_GT(colliding, 30);
}

TEST(KdopTree, BoxesAndSpheresMatchBruteForceOnRandomPoses) {
  std::mt19937 rng(12);
  const TriangleMesh box = makeBox(Vector3d(0.07, 0.02, 0.015), 4);
  const TriangleMesh sphere = makeUvSphere(0.03, 12, 16);
  int colliding = 0;
  for (int trial = 0; trial < 60; ++trial)
    for (int k : {14, 18, 26}) {
      expectSameAsBruteForce(box, sphere, randomPose(rng, 0.06), k, 2, &colliding);
      expectSameAsBruteForce(sphere, box, randomPose(rng, 0.06), k, 2, &colliding);
    }
  EXPECT_GT(colliding, 60);
}

TEST(KdopTree, RandomSoupsMatchBruteForceOnRandomPoses) {
  std::mt19937 rng(13);
  int colliding = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const TriangleMesh a = randomSoup(rng, 150, 0.02);
    const TriangleMesh b = randomSoup(rng, 120, 0.03);
    for (int k : {14, 18, 26})
      expectSameAsBruteForce(a, b, randomPose(rng, 0.08), k, 1 + trial % 3, &colliding);
  }
  EXPECT_GT(colliding, 30);
}

TEST(KdopTree, TouchingAndCoplanarPosesAreFound) {
  // Two unit boxes: face to face (coplanar contact), edge on face, vertex on face; each exactly
  // touching, where a non-conservative margin would lose the pairs.
  const TriangleMesh box = makeBox(Vector3d(1, 1, 1), 2);
  int colliding = 0;
  Eigen::Isometry3d face = Eigen::Isometry3d::Identity();
  face.translation() = Vector3d(0.3, 0.2, 1.0);
  Eigen::Isometry3d edge = Eigen::Isometry3d::Identity();
  edge.linear() = Eigen::AngleAxisd(0.25 * 3.14159265358979323846, Vector3d::UnitX()).matrix();
  edge.translation() = Vector3d(0.1, 0.0, 0.5 + std::sqrt(0.5));
  for (int k : {14, 18, 26}) {
    expectSameAsBruteForce(box, box, face, k, 1, &colliding);
    expectSameAsBruteForce(box, box, edge, k, 2, &colliding);
  }
  EXPECT_EQ(colliding, 6);
}

TEST(KdopTree, TreesWithDifferentKMatchBruteForce) {
  // Each tree bounds the other through bases of its own directions, so k may differ.
  std::mt19937 rng(14);
  const TriangleMesh a = makeUvSphere(0.05, 10, 14);
  const TriangleMesh b = makeBox(Vector3d(0.07, 0.02, 0.015), 4);
  int colliding = 0;
  for (int trial = 0; trial < 40; ++trial) {
    expectSameAsBruteForce(a, b, randomPose(rng, 0.07), 14, 2, &colliding, 26);
    expectSameAsBruteForce(a, b, randomPose(rng, 0.07), 26, 3, &colliding, 18);
    expectSameAsBruteForce(b, a, randomPose(rng, 0.07), 18, 1, &colliding, 14);
  }
  EXPECT_GT(colliding, 20);
}
