// SPDX-License-Identifier: GPL-3.0-or-later
// The narrow phase runs for every overlapping link-object pair every simulation step, so once
// its scratch is warm it must not touch the heap. This file interposes glibc's malloc for the
// test program with a counting wrapper (operator new ends in malloc too), as
// tests/dynamics/allocation_test.cpp does. Sanitizers that replace malloc themselves (ASan,
// TSan, MSan) must keep theirs, so there the counter is left out and the test is skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#include "handsim/collision/contact_scratch.hpp"
#include "handsim/collision/convex_contact.hpp"
#include "handsim/collision/primitives.hpp"
#include "narrow_phase_scenes.hpp"

#include "../support/count_malloc.hpp"
#include "../support/random_pose.hpp"

using handsim::test::g_allocations;

using namespace handsim::collision;
using handsim::collision::test::Scene;

namespace {

// One query of the simulator's narrow phase: pairs, then patches; returns the patch count.
std::size_t query(const Scene& s, const KdopTree& tl, const KdopTree& to,
                  const Eigen::Isometry3d& pose, ContactScratch& scratch) {
  allContacts(tl, to, pose, scratch, scratch.pairs);
  return buildContactPatches(s.link, s.object, pose, scratch.pairs, scratch);
}

}  // namespace

TEST(ContactScratch, WarmQueriesDoNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  // The finger-link-like box against a ball and two boxes, sharing one scratch as the
  // simulator's pairs do.
  const std::vector<Scene> all = test::narrowPhaseScenes();
  const std::vector<Scene> scenes{all[2], all[1]};
  std::vector<KdopTree> trees;
  for (const Scene& s : scenes) {
    trees.emplace_back(s.link);
    trees.emplace_back(s.object);
  }
  struct Query {
    std::size_t scene;
    Eigen::Isometry3d pose;
    std::vector<std::size_t> patch_sizes;  // contacts per patch, in patch order
  };
  std::vector<Query> queries;
  std::mt19937 rng(77);
  while (queries.size() < 200) {
    const std::size_t si = queries.size() % scenes.size();
    const Scene& s = scenes[si];
    const Eigen::Isometry3d pose = test::randomPose(s, rng);
    const auto patches = buildContactPatches(s.link, s.object, pose,
                                             allContacts(trees[2 * si], trees[2 * si + 1], pose));
    if (patches.empty()) continue;  // only overlapping poses
    Query q{si, pose, {}};
    for (const ContactPatch& p : patches) q.patch_sizes.push_back(p.contacts.size());
    queries.push_back(q);
  }

  // Warm-up with the largest queries: buffers grow to the largest contact count and patch count,
  // and each reused patch slot to the largest patch it will hold.
  std::vector<std::size_t> warm;
  auto contactCount = [&](std::size_t i) {
    const auto& v = queries[i].patch_sizes;
    return std::accumulate(v.begin(), v.end(), std::size_t{0});
  };
  std::vector<std::size_t> order(queries.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  warm.push_back(*std::max_element(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return contactCount(x) < contactCount(y);
  }));
  for (std::size_t slot = 0;; ++slot) {
    auto sizeIn = [&](std::size_t i) {
      const auto& v = queries[i].patch_sizes;
      return slot < v.size() ? v[slot] : std::size_t{0};
    };
    const std::size_t best =
        *std::max_element(order.begin(), order.end(),
                          [&](std::size_t x, std::size_t y) { return sizeIn(x) < sizeIn(y); });
    if (sizeIn(best) == 0) break;
    warm.push_back(best);
  }
  ContactScratch scratch;
  for (std::size_t i : warm) {
    const Query& q = queries[i];
    query(scenes[q.scene], trees[2 * q.scene], trees[2 * q.scene + 1], q.pose, scratch);
  }
  EXPECT_LE(warm.size(), 8u) << "a few warm-up queries";

  const long before = g_allocations.load();
  std::size_t patches = 0, multi_patch = 0;
  for (const Query& q : queries) {
    const std::size_t count =
        query(scenes[q.scene], trees[2 * q.scene], trees[2 * q.scene + 1], q.pose, scratch);
    patches += count;
    multi_patch += count > 1;
  }
  const long after = g_allocations.load();
  EXPECT_EQ(after - before, 0);
  EXPECT_GE(patches, queries.size());
  // The counter itself works, and the allocating overloads do allocate.
  const Query& q = queries.front();
  const auto pairs = allContacts(trees[2 * q.scene], trees[2 * q.scene + 1], q.pose);
  EXPECT_GT(g_allocations.load(), after);
  EXPECT_FALSE(pairs.empty());
  std::printf("%zu queries, %zu patches, %zu with several patches, %zu warm-up queries\n",
              queries.size(), patches, multi_patch, warm.size());
}

TEST(ConvexScratch, WarmQueriesDoNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  const ConvexHull box = buildConvexHull(makeBox(Eigen::Vector3d(0.04, 0.03, 0.02)));
  const ConvexHull ball = buildConvexHull(makeUvSphere(0.02, 12, 24));
  std::mt19937 rng(5);
  std::vector<std::pair<Eigen::Isometry3d, Eigen::Isometry3d>> poses(300);
  for (auto& p : poses)
    for (Eigen::Isometry3d* x : {&p.first, &p.second})
      *x = handsim::test::randomRigidPose(rng, 0.02);
  ConvexScratch scratch;
  ConvexManifold m;
  int hits = 0;
  for (const auto& p : poses) hits += convexContact(box, p.first, ball, p.second, scratch, m);
  ASSERT_GT(hits, 100);
  const long before = g_allocations.load();
  for (const auto& p : poses) convexContact(box, p.first, ball, p.second, scratch, m);
  EXPECT_EQ(g_allocations.load() - before, 0);
}
