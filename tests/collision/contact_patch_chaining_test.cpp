// SPDX-License-Identifier: GPL-3.0-or-later
// buildContactPatches' chaining (points sorted by grid cell, neighbouring runs walked by
// cursors) against a brute-force chaining written here: every two contacts with points within
// the join tolerance join, components by repeated relabelling, ordered by smallest member.
// Random poses of the narrow-phase scenes, with the default tolerance and with coarse ones that
// join across many cells.
#include <gtest/gtest.h>

#include <random>

#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/contact_scratch.hpp"
#include "handsim/collision/kdop_tree.hpp"

#include "narrow_phase_scenes.hpp"

using namespace handsim;
using namespace handsim::collision;

namespace {

std::vector<Eigen::Vector3d> pointsOf(const TriangleIntersection& x) {
  if (x.kind == TriangleContactKind::Coplanar && x.polygon_size > 0)
    return {x.polygon.begin(), x.polygon.begin() + x.polygon_size};
  return {x.p0, x.p1};
}

// Components of "some point of i within tol of some point of j", as lists of contact indices,
// ordered by their smallest member.
std::vector<std::vector<int>> bruteComponents(const std::vector<TrianglePairContact>& c,
                                              double tol) {
  const std::size_t n = c.size();
  std::vector<int> label(n);
  for (std::size_t i = 0; i < n; ++i) label[i] = static_cast<int>(i);
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) {
        if (label[i] == label[j]) continue;
        bool near = false;
        for (const auto& p : pointsOf(c[i].intersection))
          for (const auto& q : pointsOf(c[j].intersection)) near = near || (p - q).norm() <= tol;
        if (!near) continue;
        const int to = std::min(label[i], label[j]), from = std::max(label[i], label[j]);
        for (int& l : label)
          if (l == from) l = to;
        changed = true;
      }
  }
  std::vector<std::vector<int>> out;
  std::vector<int> slot(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const auto root = static_cast<std::size_t>(label[i]);
    if (slot[root] < 0) {
      slot[root] = static_cast<int>(out.size());
      out.emplace_back();
    }
    out[static_cast<std::size_t>(slot[root])].push_back(static_cast<int>(i));
  }
  return out;
}

// Segments (one triangle pair each, on a one-triangle mesh) with end points around the given
// centres, chained at `tol` and compared with brute force; returns the number of patches.
std::size_t chainAndCompare(const std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>>& ends,
                            double tol, ContactScratch& scratch, int trial) {
  geometry::TriangleMesh tri;
  tri.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  tri.triangles = {{0, 1, 2}};
  std::vector<TrianglePairContact> pairs(ends.size());
  for (std::size_t i = 0; i < ends.size(); ++i) {
    TrianglePairContact& c = pairs[i];
    c.triangle_a = c.triangle_b = 0;
    c.intersection.kind = TriangleContactKind::Segment;
    c.intersection.p0 = ends[i].first;
    c.intersection.p1 = ends[i].second;
  }
  ContactPatchOptions opt;
  opt.join_tolerance_m = tol;
  const std::size_t count =
      buildContactPatches(tri, tri, Eigen::Isometry3d::Identity(), pairs, scratch, opt);
  const auto want = bruteComponents(pairs, tol);
  EXPECT_EQ(count, want.size()) << "trial " << trial;
  if (count != want.size()) return count;
  for (std::size_t p = 0; p < count; ++p)
    EXPECT_EQ(scratch.patches[p].contacts, want[p]) << "trial " << trial << " patch " << p;
  return count;
}

}  // namespace

TEST(ContactPatchChaining, MatchesBruteForceChainingOnRandomPoses) {
  std::mt19937 rng(21);
  ContactScratch scratch;
  long compared = 0, multi = 0;
  for (const test::Scene& scene : test::narrowPhaseScenes()) {
    const KdopTree a(scene.link), b(scene.object);
    for (int k = 0; k < 150; ++k) {
      const Eigen::Isometry3d pose = test::randomPose(scene, rng);
      const std::vector<TrianglePairContact> pairs = allContacts(a, b, pose);
      if (pairs.size() < 2) continue;
      for (const double tol : {1e-7, 1e-4, 2e-3}) {
        ContactPatchOptions opt;
        opt.join_tolerance_m = tol;
        const std::size_t count =
            buildContactPatches(scene.link, scene.object, pose, pairs, scratch, opt);
        const auto want = bruteComponents(pairs, tol);
        ASSERT_EQ(count, want.size()) << scene.name << " pose " << k << " tol " << tol;
        for (std::size_t p = 0; p < count; ++p)
          EXPECT_EQ(scratch.patches[p].contacts, want[p]) << scene.name << " patch " << p;
        ++compared;
        multi += count > 1 && count < pairs.size() ? 1 : 0;
      }
    }
  }
  EXPECT_GT(compared, 100);
  EXPECT_GT(multi, 10);  // neither all joined nor none: the chaining decided something
}

TEST(ContactPatchChaining, MatchesBruteForceChainingOfScatteredSegments) {
  // Segments with end points scattered over a few join tolerances in every direction, so that
  // joins cross cell boundaries along every neighbouring run (and negative coordinates).
  std::mt19937 rng(8);
  ContactScratch scratch;
  long multi = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const double tol = 1e-3;
    const double spread = (1.0 + trial % 6) * tol;
    std::uniform_real_distribution<double> u(-spread, spread);
    std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>> ends(
        static_cast<std::size_t>(5 + trial % 40));
    for (auto& e : ends) {
      e.first = Eigen::Vector3d(u(rng), u(rng), u(rng));
      e.second = Eigen::Vector3d(u(rng), u(rng), u(rng));
    }
    const std::size_t count = chainAndCompare(ends, tol, scratch, trial);
    multi += count > 1 && count < ends.size() ? 1 : 0;
  }
  EXPECT_GT(multi, 50);
}

TEST(ContactPatchChaining, MatchesBruteForceChainingOfFarApartClusters) {
  // Clusters of segments scattered over a few tolerances, centred up to 2.0e6 and 3.0e6 join
  // tolerances apart along every axis: cells spanning fewer than 2^21 - 3 per axis are chained
  // through packed keys (the far cluster's fields then lie near their upper end), wider spreads
  // through the cells themselves.
  std::mt19937 rng(17);
  ContactScratch scratch;
  const double tol = 1e-3;
  long multi = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const double far = (trial % 2 == 0 ? 2.0e6 : 3.0e6) * tol;
    const Eigen::Vector3d centres[3] = {
        Eigen::Vector3d::Zero(), Eigen::Vector3d(far, -far, far),
        Eigen::Vector3d(trial % 3 == 0 ? -far : 0.0, 0.5 * far, -0.25 * far)};
    std::uniform_real_distribution<double> u(-3 * tol, 3 * tol);
    std::vector<std::pair<Eigen::Vector3d, Eigen::Vector3d>> ends(
        static_cast<std::size_t>(6 + trial % 30));
    for (std::size_t i = 0; i < ends.size(); ++i) {
      const Eigen::Vector3d& centre = centres[(i * 7 + static_cast<std::size_t>(trial)) % 3];
      ends[i].first = centre + Eigen::Vector3d(u(rng), u(rng), u(rng));
      ends[i].second = centre + Eigen::Vector3d(u(rng), u(rng), u(rng));
    }
    const std::size_t count = chainAndCompare(ends, tol, scratch, trial);
    multi += count > 3 && count < ends.size() ? 1 : 0;
  }
  EXPECT_GT(multi, 50);
}
