// SPDX-License-Identifier: GPL-3.0-or-later
// No simulation step allocates on the heap once its scratch has grown to the largest step seen
// (StepWorkspace, collision::ContactScratch): free motion, the seed-000 cube grasp with two links
// in contact and a broken clutch, and the KTHand's tendons under seed 002's controller. This
// file interposes glibc's malloc for the test program with a counting wrapper, as
// tests/dynamics/allocation_test.cpp does (tests/support/count_malloc.hpp); sanitizers that
// own malloc skip it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

#include "../support/box_objects.hpp"
#include "../support/count_malloc.hpp"

using handsim::test::g_allocations;

using namespace handsim;
using namespace handsim::sim;

namespace {

// Steps `warm` seconds, then counts the allocations of `steps` further steps.
long allocationsAfterWarmUp(const Scenario& sc, double warm, int steps, std::size_t* contacts) {
  RunPlan plan = sc.plan;
  plan.duration = 0.0;  // no end and no recording: the step alone
  plan.record_every = std::numeric_limits<int>::max();
  Run run(compileScenario(sc), plan);
  while (run.state().time < warm) run.step();
  const long before = g_allocations.load();
  std::size_t seen = 0;
  for (int i = 0; i < steps; ++i) {
    run.step();
    seen += run.state().contacts.size();
  }
  if (contacts) *contacts = seen;
  return g_allocations.load() - before;
}

Scenario shipped(const char* name) {
  return loadScenario(hand::assetDirectory() + "/scenarios/" + name);
}

}  // namespace

TEST(StepAllocation, FreeMotionDoesNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  EXPECT_EQ(allocationsAfterWarmUp(shipped("barrett_close_free.json"), 0.01, 1000, nullptr), 0);
}

TEST(StepAllocation, ContactStepsDoNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  // After the break (1.82 s) the outer link closes onto the cube: both links touch it.
  std::size_t contacts = 0;
  EXPECT_EQ(allocationsAfterWarmUp(shipped("barrett_breakaway_cube.json"), 2.6, 400, &contacts), 0);
  EXPECT_GE(contacts, 2u * 400u);  // the counted steps did have contacts
}

TEST(StepAllocation, TendonsAndControllerDoNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  // Held at 10 N from about 2 s on. While the fingers close, each new largest set of contacts
  // grows the scratch once (35 allocations between 1.5 s and 2 s); steps after that reuse it.
  std::size_t contacts = 0;
  EXPECT_EQ(allocationsAfterWarmUp(shipped("kthand_cylinder_grasp.json"), 2.5, 500, &contacts), 0);
  EXPECT_GT(contacts, 0u);
}

TEST(StepAllocation, AFreeObjectOnTheGroundDoesNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  // The shipped drop: the cube lands by 0.3 s; at rest it touches the ground at its four
  // bottom corners, each with a normal and two friction rows.
  Scenario sc = shipped("free_cube_drop.json");
  RunPlan plan = sc.plan;
  plan.duration = 0.0;
  plan.record_every = std::numeric_limits<int>::max();
  sim::Run run(compileScenario(sc), plan);
  while (run.state().time < 0.5) run.step();
  const long before = g_allocations.load();
  std::size_t seen = 0;
  for (int i = 0; i < 500; ++i) {
    run.step();
    seen += run.state().object_contacts.size();
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_GE(seen, 4u * 500u);
}

TEST(StepAllocation, RestingPairsReusedAndRefreshedDoNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  // Resting-pair reuse (sim/resting_pairs.hpp): the gripper's pads hold the cube (their
  // contacts answered from memory), and the BarrettHand lifting the cube (pairs that move are
  // queried afresh and re-anchored, slots freed and taken again).
  // The lift from 5 s: the palm has stopped (it moves from 2 s to about 3.2 s, when the
  // growing contact sets still grow the scratch, with or without reuse).
  for (const auto& [name, warm] :
       {std::pair("gripper2p_hold_cube.json", 2.2), std::pair("barrett_lift_cube.json", 5.0)}) {
    SCOPED_TRACE(name);
    Scenario sc = shipped(name);
    RunPlan plan = sc.plan;
    plan.duration = 0.0;
    plan.record_every = std::numeric_limits<int>::max();
    sim::Run run(compileScenario(sc), plan);
    while (run.state().time < warm) run.step();
    const long before = g_allocations.load();
    const std::uint64_t reuses = run.state().work.resting_reuses;
    const std::uint64_t queries = run.state().work.pair_queries;
    std::size_t seen = 0;
    for (int i = 0; i < 500; ++i) {
      run.step();
      seen += run.state().contacts.size();
    }
    EXPECT_EQ(g_allocations.load() - before, 0);
    EXPECT_GE(seen, 500u);
    EXPECT_GT(run.state().work.resting_reuses, reuses);
    if (std::string(name) == "barrett_lift_cube.json") {  // and some queried afresh
      EXPECT_GT(run.state().work.pair_queries - queries, run.state().work.resting_reuses - reuses);
    }
  }
}

namespace {

// All three BarrettHand fingers closed onto each other (from 2.3 s), and beside the hand a
// free 10 cm box resting on a fixed table box (four corner contacts with friction); with
// `hulls`, every body collides as its convex hull. Allocations of 300 steps after 2.5 s, and
// the link-link and object contacts they saw.
long closedHandAndTableAllocations(bool hulls, std::size_t& links, std::size_t& objects) {
  Scenario sc = shipped("barrett_grasp_close.json");
  sc.objects = {test::boxObject("table", {1.0, 1.0, 0.1}, false, 1000.0),
                test::boxObject("box", {0.1, 0.1, 0.1}, true, 1000.0)};
  sc.plan.object_pose_world = {test::at({5.0, 0.0, -0.05}), test::at({5.0, 0.0, 0.05 - 1e-4})};
  if (hulls) {
    hand::HandModel h = *sc.hand;
    h.palm_collision = collision::CollisionShape::Hull;
    for (auto& row : h.link_collision) row.assign(row.size(), collision::CollisionShape::Hull);
    sc.hand = std::make_shared<const hand::HandModel>(std::move(h));
    for (ObjectModel& o : sc.objects)
      o.geometry = withCollisionShape(*o.geometry, collision::CollisionShape::Hull, 18);
  }
  sc.options.gravity_world = Eigen::Vector3d(0.0, 0.0, -9.81);
  RunPlan plan = sc.plan;
  plan.duration = 0.0;
  plan.record_every = std::numeric_limits<int>::max();
  sim::Run run(compileScenario(sc), plan);
  while (run.state().time < 2.5) run.step();
  const long before = g_allocations.load();
  links = objects = 0;
  for (int i = 0; i < 300; ++i) {
    run.step();
    links += run.state().link_contacts.size();
    objects += run.state().object_contacts.size();
  }
  return g_allocations.load() - before;
}

}  // namespace

TEST(StepAllocation, ABoxOnATableBoxAndFingersTouchingDoNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  // Exact meshes, then every body a hull (the convex narrow phase for finger-finger and
  // box-table contacts).
  for (const bool hulls : {false, true}) {
    SCOPED_TRACE(hulls ? "hulls" : "meshes");
    std::size_t links = 0, objects = 0;
    EXPECT_EQ(closedHandAndTableAllocations(hulls, links, objects), 0);
    EXPECT_GE(links, 300u);
    EXPECT_GE(objects, 4u * 300u);
  }
}

TEST(StepAllocation, FastObjectsStoppedByContinuousCollisionDoNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  // Eight 1 cm cubes thrown at 5 m/s at a fixed 2 mm plate from staggered heights, without
  // gravity: one arrives every few steps, each stopped by the continuous collision stage
  // (docs/free-objects.md, "Continuous collision"). A first run warms the buffers (every
  // arrival brings more contacts than any step before), the same run again is counted.
  std::vector<ObjectModel> objects;
  std::vector<Eigen::Isometry3d> start;
  std::vector<Twist> moving;
  objects.push_back(test::boxObject("plate", {0.2, 0.2, 0.002}, false, 1000.0));
  start.push_back(Eigen::Isometry3d::Identity());
  moving.push_back(Twist::Zero());
  for (int i = 0; i < 8; ++i) {
    const double x = -0.07 + 0.02 * i;
    objects.push_back(test::boxObject("cube", {0.01, 0.01, 0.01}, true, 1000.0));
    start.push_back(test::at({x, 0.0, 0.0065 + 0.012 * i}));
    moving.push_back(test::twist({0.0, 0.0, -5.0}));
  }
  Options opt;
  opt.gravity_world.setZero();
  auto model = compileModel(std::make_shared<const hand::HandModel>(hand::loadHand("gripper2p")),
                            objects, opt);
  Eigen::Isometry3d palm = Eigen::Isometry3d::Identity();
  palm.translation() = Eigen::Vector3d(5.0, 5.0, 5.0);
  SimState s = makeState(*model, {}, palm, start, moving);
  const std::vector<Eigen::Isometry3d> poses = s.object_pose_world;
  const std::vector<Twist> twists = s.object_twist_world;
  for (int i = 0; i < 40; ++i) step(*model, s);
  std::copy(poses.begin(), poses.end(), s.object_pose_world.begin());
  std::copy(twists.begin(), twists.end(), s.object_twist_world.begin());
  const std::int64_t warm = s.continuous_collisions;
  const long before = g_allocations.load();
  for (int i = 0; i < 40; ++i) step(*model, s);
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_EQ(s.continuous_collisions - warm, 8);
}

// A chain of 13 revolute joints (an arm with a wrist and a finger: longer than the hands) of
// 4 cm boxes, the first joint 1 cm above a fixed table: the links sag onto it under gravity and
// the servos, and every step then has link-table contacts through the 13-joint Jacobian.
TEST(StepAllocation, AThirteenJointChainOnATableDoesNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  std::string urdf = "<robot name=\"long\"><link name=\"root\"/>";
  for (int i = 1; i <= 13; ++i) {
    const std::string l = "l" + std::to_string(i),
                      parent = i == 1 ? "root" : "l" + std::to_string(i - 1);
    urdf +=
        "<link name=\"" + l +
        "\"><inertial><origin xyz=\"0.02 0 0\"/><mass value=\"0.05\"/><inertia ixx=\"1e-5\" "
        "ixy=\"0\" ixz=\"0\" iyy=\"1e-5\" iyz=\"0\" izz=\"1e-5\"/></inertial><collision><origin "
        "xyz=\"0.02 0 0\"/><geometry><box size=\"0.04 0.02 0.02\"/></geometry></collision></link>"
        "<joint name=\"j" +
        std::to_string(i) + "\" type=\"revolute\"><parent link=\"" + parent + "\"/><child link=\"" +
        l + "\"/><origin xyz=\"" + (i == 1 ? "0" : "0.04") +
        " 0 0\"/><axis xyz=\"0 1 0\"/><limit lower=\"-0.6\" upper=\"0.6\" effort=\"0.05\" "
        "velocity=\"2\"/></joint>";
  }
  urdf += "</robot>";
  auto hand = std::make_shared<const hand::HandModel>(hand::parseUrdfHand(urdf, "long.urdf"));
  ASSERT_EQ(hand->fingers.size(), 1u);
  ASSERT_EQ(hand->fingers.front().dof(), 13);
  Options opt;
  auto model = compileModel(hand, {test::boxObject("table", {1.0, 1.0, 0.1}, false, 1000.0)}, opt);
  Eigen::Isometry3d palm = Eigen::Isometry3d::Identity();
  palm.translation() = Eigen::Vector3d(-0.2, 0.0, 0.011);
  SimState s = makeState(*model, {}, palm, {test::at({0.0, 0.0, -0.05})});
  for (int i = 0; i < 300; ++i) step(*model, s);
  const long before = g_allocations.load();
  std::size_t contacts = 0;
  for (int i = 0; i < 300; ++i) {
    step(*model, s);
    contacts += s.contacts.size();
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_GT(contacts, 300u);  // the counted steps touched the table
}

// The counter sees allocations (so a zero above means something).
TEST(StepAllocation, TheCounterCounts) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here";
#endif
  const long before = g_allocations.load();
  void* p = std::malloc(64);
  EXPECT_EQ(g_allocations.load() - before, 1);
  std::free(p);
}

// Analytic spheres (docs/collision.md, "Analytic spheres"): anthro20 closing on the fixed
// shipped sphere (link-sphere contacts, from 1.2 s), and beside the hand three free balls of
// the same file, one on the ground, one on a fixed table box (sphere against a hull) and one
// balanced on a fixed ball (sphere against sphere), each resting on its one contact point.
TEST(StepAllocation, AnalyticSpheresDoNotAllocate) {
#ifndef HANDSIM_COUNT_MALLOC
  GTEST_SKIP() << "malloc cannot be counted here (not glibc, or a sanitizer owns malloc)";
#endif
  Scenario sc = shipped("anthro20_grasp_sphere.json");
  const std::string ball_file = hand::assetDirectory() + "/objects/sphere.wrl";
  const auto ball = [&](const char* name, const Eigen::Vector3d& at, bool free) {
    ObjectModel o = loadObject(ball_file, {}, name);
    o.fixed = !free;
    sc.plan.object_pose_world.push_back(test::at(at));
    sc.plan.object_twist_world.push_back(Twist::Zero());
    return o;
  };
  sc.objects.push_back(ball("on_ground", {5.0, 0.0, 0.03 - 1e-5}, true));
  sc.objects.push_back(test::boxObject("table", {0.2, 0.2, 0.1}, false, 1000.0));
  sc.plan.object_pose_world.push_back(test::at({5.5, 0.0, 0.05}));
  sc.plan.object_twist_world.push_back(Twist::Zero());
  sc.objects.push_back(ball("on_table", {5.5, 0.0, 0.13 - 1e-5}, true));
  sc.objects.push_back(ball("fixed_ball", {6.0, 0.0, 0.03}, false));
  sc.objects.push_back(ball("on_ball", {6.0, 0.0, 0.09 - 1e-5}, true));
  sc.options.ground.enabled = true;
  ASSERT_TRUE(sc.objects.front().geometry->collision.sphere.has_value());
  RunPlan plan = sc.plan;
  plan.duration = 0.0;
  plan.record_every = std::numeric_limits<int>::max();
  sim::Run run(compileScenario(sc), plan);
  while (run.state().time < 1.4) run.step();
  const long before = g_allocations.load();
  std::size_t links = 0, objects = 0;
  for (int i = 0; i < 300; ++i) {
    run.step();
    links += run.state().contacts.size();
    objects += run.state().object_contacts.size();
  }
  EXPECT_EQ(g_allocations.load() - before, 0);
  EXPECT_GE(links, 300u);
  EXPECT_GE(objects, 3u * 300u);
}
