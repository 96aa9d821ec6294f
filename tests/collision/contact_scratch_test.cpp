// SPDX-License-Identifier: GPL-3.0-or-later
// The scratch-based narrow phase against references written here: every triangle pair by brute
// force (same exact test, same vertex mapping), and patches by chaining every two contacts
// directly (O(n^2), no grid). One scratch serves every query, so stale buffers and patches left
// from earlier queries must not leak into later results; the allocating overloads, which start
// from a fresh scratch, must agree with it bit for bit.
#include "handsim/collision/contact_scratch.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "narrow_phase_scenes.hpp"

using namespace handsim::collision;
using Eigen::Vector3d;
using handsim::collision::test::narrowPhaseScenes;
using handsim::collision::test::Scene;
using handsim::geometry::TriangleMesh;

namespace {

using PairKey = std::pair<int, int>;

std::map<PairKey, TriangleIntersection> bruteForcePairs(const TriangleMesh& a,
                                                        const TriangleMesh& b,
                                                        const Eigen::Isometry3d& b_in_a) {
  std::vector<Vector3d> moved;
  for (const auto& v : b.vertices) moved.push_back(b_in_a * v);
  auto va = [&](const std::array<int, 3>& t, int c) -> const Vector3d& {
    return a.vertices[static_cast<std::size_t>(t[static_cast<std::size_t>(c)])];
  };
  auto vb = [&](const std::array<int, 3>& t, int c) -> const Vector3d& {
    return moved[static_cast<std::size_t>(t[static_cast<std::size_t>(c)])];
  };
  std::map<PairKey, TriangleIntersection> out;
  for (std::size_t i = 0; i < a.triangles.size(); ++i)
    for (std::size_t j = 0; j < b.triangles.size(); ++j) {
      const auto& ta = a.triangles[i];
      const auto& tb = b.triangles[j];
      const TriangleIntersection hit =
          intersectTriangles(va(ta, 0), va(ta, 1), va(ta, 2), vb(tb, 0), vb(tb, 1), vb(tb, 2));
      if (hit.intersects()) out.emplace(PairKey(static_cast<int>(i), static_cast<int>(j)), hit);
    }
  return out;
}

bool sameIntersection(const TriangleIntersection& x, const TriangleIntersection& y) {
  if (x.kind != y.kind || x.p0 != y.p0 || x.p1 != y.p1 || x.polygon_size != y.polygon_size)
    return false;
  for (std::size_t k = 0; k < static_cast<std::size_t>(x.polygon_size); ++k)
    if (x.polygon[k] != y.polygon[k]) return false;
  return true;
}

std::vector<Vector3d> chainPoints(const TriangleIntersection& x) {
  if (x.kind == TriangleContactKind::Coplanar && x.polygon_size > 0)
    return {x.polygon.begin(), x.polygon.begin() + x.polygon_size};
  return {x.p0, x.p1};
}

Vector3d rawNormal(const TriangleMesh& m, int t) {
  const auto& tri = m.triangles[static_cast<std::size_t>(t)];
  const Vector3d& a = m.vertices[static_cast<std::size_t>(tri[0])];
  return (m.vertices[static_cast<std::size_t>(tri[1])] - a)
      .cross(m.vertices[static_cast<std::size_t>(tri[2])] - a);
}

// The documented patch definition, computed the plain way: contacts are connected when any point
// of one lies within the tolerance of any point of the other; each connected set (ordered by its
// smallest contact) gets its point, triangles and object area as contact_patch.hpp describes.
std::vector<ContactPatch> referencePatches(const TriangleMesh& object,
                                           const std::vector<TrianglePairContact>& contacts,
                                           double tol) {
  const std::size_t n = contacts.size();
  std::vector<std::vector<Vector3d>> points;
  for (const auto& c : contacts) points.push_back(chainPoints(c.intersection));
  std::vector<int> label(n, -1);
  std::vector<ContactPatch> patches;
  for (std::size_t seed = 0; seed < n; ++seed) {
    if (label[seed] >= 0) continue;
    const int id = static_cast<int>(patches.size());
    label[seed] = id;
    std::vector<std::size_t> todo{seed};
    while (!todo.empty()) {
      const std::size_t i = todo.back();
      todo.pop_back();
      for (std::size_t j = 0; j < n; ++j) {
        if (label[j] >= 0) continue;
        bool near = false;
        for (const Vector3d& p : points[i])
          for (const Vector3d& q : points[j]) near = near || (p - q).norm() <= tol;
        if (near) {
          label[j] = id;
          todo.push_back(j);
        }
      }
    }
    patches.emplace_back();
  }
  std::vector<std::set<int>> link_set(patches.size()), object_set(patches.size());
  for (std::size_t i = 0; i < n; ++i) {
    ContactPatch& p = patches[static_cast<std::size_t>(label[i])];
    p.contacts.push_back(static_cast<int>(i));
    link_set[static_cast<std::size_t>(label[i])].insert(contacts[i].triangle_a);
    object_set[static_cast<std::size_t>(label[i])].insert(contacts[i].triangle_b);
    for (const Vector3d& q : points[i]) p.bounds.extend(q);
  }
  for (std::size_t k = 0; k < patches.size(); ++k) {
    ContactPatch& p = patches[k];
    p.link_triangles.assign(link_set[k].begin(), link_set[k].end());
    p.object_triangles.assign(object_set[k].begin(), object_set[k].end());
    p.point = 0.5 * (p.bounds.min + p.bounds.max);
    double area2 = 0.0;
    for (int t : p.object_triangles) area2 += rawNormal(object, t).norm();
    p.object_area_m2 = 0.5 * area2;
  }
  return patches;
}

bool close(const Vector3d& x, const Vector3d& y) {
  return (x - y).norm() <= 1e-15 * std::max(x.norm(), y.norm());
}
bool close(double x, double y) {
  return std::abs(x - y) <= 1e-15 * std::max(std::abs(x), std::abs(y));
}

// Bit-for-bit equality of two patches.
void expectIdentical(const ContactPatch& x, const ContactPatch& y) {
  EXPECT_EQ(x.point, y.point);
  EXPECT_EQ(x.normal, y.normal);
  EXPECT_EQ(x.depth_m, y.depth_m);
  EXPECT_EQ(x.object_area_m2, y.object_area_m2);
  EXPECT_EQ(x.bounds.min, y.bounds.min);
  EXPECT_EQ(x.bounds.max, y.bounds.max);
  EXPECT_EQ(x.contacts, y.contacts);
  EXPECT_EQ(x.link_triangles, y.link_triangles);
  EXPECT_EQ(x.object_triangles, y.object_triangles);
}

}  // namespace

TEST(ContactScratch, MatchesBruteForceAndTheAllocatingOverloadsOnRandomPoses) {
  const std::vector<Scene> scenes = narrowPhaseScenes();
  std::mt19937 rng(2024);
  ContactScratch scratch;  // shared by every scene and pose
  const ContactPatchOptions options;
  int colliding = 0, multi_patch = 0, coplanar = 0;
  for (int round = 0; round < 60; ++round)
    for (const Scene& s : scenes) {
      SCOPED_TRACE(s.name + ", round " + std::to_string(round));
      const KdopTree tl(s.link), to(s.object);
      const Eigen::Isometry3d pose = test::randomPose(s, rng);

      allContacts(tl, to, pose, scratch, scratch.pairs);
      const std::vector<TrianglePairContact>& pairs = scratch.pairs;
      const auto expected = bruteForcePairs(s.link, s.object, pose);
      ASSERT_EQ(pairs.size(), expected.size());
      std::set<PairKey> seen;
      for (const auto& c : pairs) {
        ASSERT_TRUE(seen.emplace(c.triangle_a, c.triangle_b).second) << "pair reported twice";
        const auto it = expected.find({c.triangle_a, c.triangle_b});
        ASSERT_NE(it, expected.end()) << c.triangle_a << ", " << c.triangle_b;
        ASSERT_TRUE(sameIntersection(c.intersection, it->second));
        coplanar += c.intersection.kind == TriangleContactKind::Coplanar;
      }
      const auto fresh_pairs = allContacts(tl, to, pose);
      ASSERT_EQ(fresh_pairs.size(), pairs.size());
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        ASSERT_EQ(fresh_pairs[i].triangle_a, pairs[i].triangle_a);
        ASSERT_EQ(fresh_pairs[i].triangle_b, pairs[i].triangle_b);
        ASSERT_TRUE(sameIntersection(fresh_pairs[i].intersection, pairs[i].intersection));
      }

      const std::size_t count =
          buildContactPatches(s.link, s.object, pose, scratch.pairs, scratch, options);
      ASSERT_LE(count, scratch.patches.size());
      const auto reference = referencePatches(s.object, pairs, options.join_tolerance_m);
      ASSERT_EQ(count, reference.size());
      for (std::size_t k = 0; k < count; ++k) {
        const ContactPatch& p = scratch.patches[k];
        const ContactPatch& r = reference[k];
        EXPECT_EQ(p.contacts, r.contacts);
        EXPECT_EQ(p.link_triangles, r.link_triangles);
        EXPECT_EQ(p.object_triangles, r.object_triangles);
        EXPECT_EQ(p.bounds.min, r.bounds.min);
        EXPECT_EQ(p.bounds.max, r.bounds.max);
        EXPECT_TRUE(close(p.point, r.point));
        EXPECT_TRUE(close(p.object_area_m2, r.object_area_m2));
        // Normal and depth (checked against closed forms and A/B symmetry in
        // contact_patch_test.cpp): a unit vector or zero, a depth >= 0.
        EXPECT_TRUE(p.normal.isZero(0.0) || std::abs(p.normal.norm() - 1.0) < 1e-12);
        EXPECT_GE(p.depth_m, 0.0);
      }
      const auto fresh = buildContactPatches(s.link, s.object, pose, fresh_pairs, options);
      ASSERT_EQ(fresh.size(), count);
      for (std::size_t k = 0; k < count; ++k) expectIdentical(scratch.patches[k], fresh[k]);

      colliding += !pairs.empty();
      multi_patch += count > 1;
    }
  // The poses exercise what they should: many overlaps, some split into several patches, and
  // coplanar contacts (chained through their polygons).
  EXPECT_GT(colliding, 150);
  EXPECT_GT(multi_patch, 3);
  EXPECT_GT(coplanar, 100);
}

TEST(ContactScratch, NoContactsGiveNoPatchesAfterEarlierOnes) {
  const Scene s = narrowPhaseScenes()[1];
  const KdopTree tl(s.link), to(s.object);
  ContactScratch scratch;
  allContacts(tl, to, Eigen::Isometry3d::Identity(), scratch, scratch.pairs);
  ASSERT_FALSE(scratch.pairs.empty());
  ASSERT_GT(
      buildContactPatches(s.link, s.object, Eigen::Isometry3d::Identity(), scratch.pairs, scratch),
      0u);
  const Eigen::Isometry3d far(Eigen::Translation3d(1.0, 0.0, 0.0));
  allContacts(tl, to, far, scratch, scratch.pairs);
  EXPECT_TRUE(scratch.pairs.empty());
  EXPECT_EQ(buildContactPatches(s.link, s.object, far, scratch.pairs, scratch), 0u);
  ContactPatchOptions bad;
  bad.join_tolerance_m = 0.0;
  EXPECT_THROW(buildContactPatches(s.link, s.object, far, scratch.pairs, scratch, bad),
               std::invalid_argument);
}
