// SPDX-License-Identifier: GPL-3.0-or-later
// The frontier cache (temporal coherence of allContacts): along random motions (small steps,
// steps near the motion margin, rotations, and big jumps) the cached query returns the same
// triangle pairs, in the same order, with the same intersection geometry bit for bit, as the
// plain descent at the same pose (itself checked against brute force in contact_scratch_test);
// it does replay (it is not a descent in disguise), and a move beyond the margin refreshes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "handsim/collision/contact_scratch.hpp"
#include "handsim/collision/kdop_tree.hpp"
#include "handsim/collision/tree_collision.hpp"

#include "narrow_phase_scenes.hpp"

using namespace handsim;
using namespace handsim::collision;

namespace {

bool sameBits(const Eigen::Vector3d& x, const Eigen::Vector3d& y) {
  return std::memcmp(x.data(), y.data(), 3 * sizeof(double)) == 0;
}

// Every field of the two lists equal, doubles compared bit for bit.
::testing::AssertionResult sameContacts(const std::vector<TrianglePairContact>& got,
                                        const std::vector<TrianglePairContact>& want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure() << got.size() << " pairs, descent " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const TrianglePairContact& g = got[i];
    const TrianglePairContact& w = want[i];
    bool same = g.triangle_a == w.triangle_a && g.triangle_b == w.triangle_b &&
                g.intersection.kind == w.intersection.kind &&
                g.intersection.polygon_size == w.intersection.polygon_size &&
                sameBits(g.intersection.p0, w.intersection.p0) &&
                sameBits(g.intersection.p1, w.intersection.p1);
    for (int v = 0; same && v < w.intersection.polygon_size; ++v)
      same = sameBits(g.intersection.polygon[static_cast<std::size_t>(v)],
                      w.intersection.polygon[static_cast<std::size_t>(v)]);
    if (!same)
      return ::testing::AssertionFailure()
             << "pair " << i << ": (" << g.triangle_a << ", " << g.triangle_b << ") vs descent ("
             << w.triangle_a << ", " << w.triangle_b << ")";
  }
  return ::testing::AssertionSuccess();
}

// A starting pose of the scene with at least one intersecting pair.
Eigen::Isometry3d touchingPose(const test::Scene& scene, const KdopTree& a, const KdopTree& b,
                               std::mt19937& rng) {
  for (int i = 0; i < 10000; ++i) {
    const Eigen::Isometry3d p = test::randomPose(scene, rng);
    if (!allContacts(a, b, p).empty()) return p;
  }
  ADD_FAILURE() << scene.name << ": no touching pose found";
  return Eigen::Isometry3d::Identity();
}

// A small rigid motion: rotation of up to `angle` about a random axis through a random point
// near the origin, and a translation of up to `shift` [m].
Eigen::Isometry3d smallMotion(double shift, double angle, std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const Eigen::Vector3d axis = Eigen::Vector3d(g(rng), g(rng), g(rng)).normalized();
  const Eigen::Vector3d dir = Eigen::Vector3d(g(rng), g(rng), g(rng)).normalized();
  const Eigen::Vector3d pivot(0.01 * g(rng), 0.01 * g(rng), 0.01 * g(rng));
  Eigen::Isometry3d m = Eigen::Isometry3d::Identity();
  m.translate(pivot + shift * u(rng) * dir);
  m.rotate(Eigen::AngleAxisd(angle * (2.0 * u(rng) - 1.0), axis));
  m.translate(-pivot);
  return m;
}

struct WalkCounts {
  long steps = 0, touching = 0, replays = 0, refreshes = 0;
};

// Walks B around A: mostly small motions (well below, and of the order of, the margin), now
// and then a big jump back to a random touching pose. Every step compares the cached query with
// the plain descent.
WalkCounts walk(const test::Scene& scene, double margin, int steps, unsigned seed, int k) {
  KdopTreeOptions options;
  options.k = k;
  const KdopTree a(scene.link, options), b(scene.object, options);
  std::mt19937 rng(seed);
  FrontierCache cache;
  cache.margin_m = margin;
  ContactScratch cached_scratch, plain_scratch;
  std::vector<TrianglePairContact> got, want;
  Eigen::Isometry3d pose = touchingPose(scene, a, b, rng);
  const Eigen::Isometry3d home = pose;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  WalkCounts n;
  for (int i = 0; i < steps; ++i) {
    const double r = u(rng);
    if (r < 0.02) {
      pose = touchingPose(scene, a, b, rng);  // big jump
    } else if (r < 0.5) {
      pose = pose * smallMotion(0.05 * margin, 0.02 * margin / 0.03, rng);
    } else if (r < 0.9) {
      pose = pose * smallMotion(0.6 * margin, 0.5 * margin / 0.03, rng);
    } else if (r < 0.95) {
      pose = pose * smallMotion(3.0 * margin, 3.0 * margin / 0.03, rng);
    } else {
      // Just under the margin along a corner diagonal of A's frame, where the k-DOP slabs'
      // projections move the most (sqrt 3 per metre): the record's widening is tightest here.
      Eigen::Vector3d d(u(rng) < 0.5 ? -1.0 : 1.0, u(rng) < 0.5 ? -1.0 : 1.0,
                        u(rng) < 0.5 ? -1.0 : 1.0);
      pose.pretranslate((0.9 + 0.099 * u(rng)) * margin * d.normalized());
    }
    // Drift back towards the touching pose now and then so that most steps touch.
    if (i % 50 == 49) pose = home;
    CollisionStats stats;
    allContacts(a, b, pose, cache, cached_scratch, got, &stats);
    allContacts(a, b, pose, plain_scratch, want);
    EXPECT_TRUE(sameContacts(got, want)) << scene.name << " step " << i;
    ++n.steps;
    n.touching += want.empty() ? 0 : 1;
    n.replays += static_cast<long>(stats.frontier_replays);
    n.refreshes += static_cast<long>(stats.frontier_refreshes);
  }
  return n;
}

}  // namespace

TEST(FrontierCache, RandomMotionsGiveTheDescentsContactsBitForBit) {
  unsigned seed = 11;
  for (const test::Scene& scene : test::narrowPhaseScenes())
    for (const double margin : {1e-4, 5e-4, 2e-3}) {
      const int k = margin < 2e-4 ? 14 : margin < 1e-3 ? 18 : 26;  // each k-DOP kind once
      const WalkCounts n = walk(scene, margin, 600, seed++, k);
      EXPECT_EQ(n.replays + n.refreshes, n.steps);
      // The walk did exercise both paths, mostly while touching.
      EXPECT_GT(n.replays, n.steps / 4) << scene.name << " margin " << margin;
      EXPECT_GT(n.refreshes, 10) << scene.name << " margin " << margin;
      EXPECT_GT(n.touching, n.steps / 3) << scene.name << " margin " << margin;
    }
}

TEST(FrontierCache, ABigJumpRefreshesAndASmallMoveReplays) {
  const test::Scene scene = test::narrowPhaseScenes()[2];  // link against ball
  const KdopTree a(scene.link), b(scene.object);
  std::mt19937 rng(5);
  const Eigen::Isometry3d p0 = touchingPose(scene, a, b, rng);
  FrontierCache cache;
  cache.margin_m = 1e-3;
  ContactScratch scratch;
  std::vector<TrianglePairContact> out;
  auto query = [&](const Eigen::Isometry3d& p) {
    CollisionStats st;
    allContacts(a, b, p, cache, scratch, out, &st);
    EXPECT_EQ(st.frontier_replays + st.frontier_refreshes, 1u);
    EXPECT_TRUE(sameContacts(out, allContacts(a, b, p)));
    return st;
  };
  EXPECT_EQ(query(p0).frontier_refreshes, 1u);  // first meeting
  Eigen::Isometry3d p1 = p0;
  p1.translation() += Eigen::Vector3d(0.0004, 0.0, 0.0);  // 0.4 mm: within the 1 mm margin
  EXPECT_EQ(query(p1).frontier_replays, 1u);
  // A rotation of 0.02 rad moves the ball's surface (40 mm radius about its centre, its frame's
  // origin) by 0.8 mm plus the 0.4 mm shift: beyond the margin, though the shift alone is not.
  Eigen::Isometry3d p2 = p1;
  p2.linear() = p1.linear() * Eigen::AngleAxisd(0.02, Eigen::Vector3d::UnitZ()).matrix();
  const CollisionStats s2 = query(p2);
  EXPECT_EQ(s2.frontier_refreshes, 1u);
  // A jump of 20 mm refreshes, and the record is then the new pose's.
  Eigen::Isometry3d p3 = p2;
  p3.translation() += Eigen::Vector3d(0.0, 0.02, 0.0);
  EXPECT_EQ(query(p3).frontier_refreshes, 1u);
  EXPECT_EQ(query(p3).frontier_replays, 1u);
  // Back to the start: refreshes again (the record moved with the jump).
  EXPECT_EQ(query(p0).frontier_refreshes, 1u);
}

TEST(FrontierCache, RecordsAreKeptPerTreePairAndADisabledCacheDescends) {
  const std::vector<test::Scene> scenes = test::narrowPhaseScenes();
  const KdopTree a(scenes[0].link), b(scenes[0].object), c(scenes[1].object);
  EXPECT_NE(a.id(), b.id());
  const KdopTree b_copy = b;
  EXPECT_EQ(b_copy.id(), b.id());  // the same hierarchy
  std::mt19937 rng(3);
  const Eigen::Isometry3d pb = touchingPose(scenes[0], a, b, rng);
  FrontierCache cache;
  ContactScratch scratch;
  std::vector<TrianglePairContact> out;
  CollisionStats st;
  allContacts(a, b, pb, cache, scratch, out, &st);
  allContacts(a, c, pb, cache, scratch, out, &st);  // another pair: its own record
  EXPECT_EQ(cache.records.size(), 2u);
  EXPECT_EQ(st.frontier_refreshes, 2u);
  EXPECT_TRUE(sameContacts(out, allContacts(a, c, pb)));
  allContacts(a, b, pb, cache, scratch, out, &st);
  EXPECT_EQ(st.frontier_replays, 1u);
  EXPECT_TRUE(sameContacts(out, allContacts(a, b, pb)));
  cache.invalidate();
  allContacts(a, b, pb, cache, scratch, out, &st);
  EXPECT_EQ(st.frontier_refreshes, 3u);
  cache.margin_m = -1.0;
  CollisionStats plain;
  allContacts(a, b, pb, cache, scratch, out, &plain);
  EXPECT_EQ(plain.frontier_replays + plain.frontier_refreshes, 0u);
  EXPECT_GT(plain.node_tests, 0u);
  EXPECT_TRUE(sameContacts(out, allContacts(a, b, pb)));
}

TEST(FrontierCache, QueryNumbersRestartWithoutStaleLeaves) {
  // The replay tags each leaf's prepared triangles with the query's number (32 bits). Query 1
  // prepares the leaves at p0; numbering is then pushed to its last value by a query that
  // touches nothing, and the next query, which restarts at 1, must not take query 1's leaves
  // (moved by p0) for its own at p1.
  const test::Scene scene = test::narrowPhaseScenes()[2];  // link against ball
  const KdopTree a(scene.link), b(scene.object);
  std::mt19937 rng(9);
  const Eigen::Isometry3d p0 = touchingPose(scene, a, b, rng);
  Eigen::Isometry3d far = p0, p1 = p0;
  far.translation() += Eigen::Vector3d(1.0, 0.0, 0.0);
  p1.translation() += Eigen::Vector3d(0.0001, 0.00005, 0.0);
  FrontierCache cache;
  ContactScratch scratch;
  std::vector<TrianglePairContact> out;
  allContacts(a, b, p0, cache, scratch, out);
  ASSERT_FALSE(out.empty());
  scratch.query_number = 0xfffffffeu;
  allContacts(a, b, far, cache, scratch, out);
  EXPECT_TRUE(out.empty());
  allContacts(a, b, p1, cache, scratch, out);
  EXPECT_EQ(scratch.query_number, 1u);
  EXPECT_TRUE(sameContacts(out, allContacts(a, b, p1)));
  ASSERT_FALSE(out.empty());
}
