// SPDX-License-Identifier: GPL-3.0-or-later
// Resting-pair reuse (sim/resting_pairs.hpp, issue 19 item 5). Checked against the narrow phase
// itself at the moved pose: reused contacts stay within the documented bound of a fresh query
// (points within the displacement bound, depths within twice it, normals turned at most by the
// rotation), a pair moved beyond the tolerance (by translation, by rotation, or in small steps
// that add up from the anchor) is queried afresh bit for bit, and the bound holds every point
// of the moved body. In the step: the hold test and a cube on a table stay within a bound of
// the runs without reuse, a copied state continues bit for bit like its original (the memory is
// state), and a reset run repeats a fresh run bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "../support/box_objects.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/resting_pairs.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

Eigen::Isometry3d turned(const Eigen::Vector3d& axis, double angle, const Eigen::Vector3d& p) {
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  t.linear() = Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
  t.translation() = p;
  return t;
}

// A 5 cm cube (A) sunk 10 um into a 60 x 60 x 5 cm table box (B), slightly yawed.
struct Resting {
  CollisionBody cube = makeCollisionBody(geometry::makeBox({0.05, 0.05, 0.05}), 18);
  CollisionBody table = makeCollisionBody(geometry::makeBox({0.6, 0.6, 0.05}), 18);
  Eigen::Isometry3d cube_pose = turned({0, 0, 1}, 0.3, {0.01, 0.02, 0.025 - 1e-5});
  Eigen::Isometry3d table_pose = turned({0, 0, 1}, 0.0, {0.0, 0.0, -0.025});
};

bool sameBits(const std::vector<BodyPairContact>& x, const std::vector<BodyPairContact>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t k = 0; k < x.size(); ++k)
    if (std::memcmp(x[k].point_world.data(), y[k].point_world.data(), 3 * sizeof(double)) != 0 ||
        std::memcmp(x[k].normal_world.data(), y[k].normal_world.data(), 3 * sizeof(double)) !=
            0 ||
        x[k].depth != y[k].depth)
      return false;
  return true;
}

// Anchors the pair at the scene's poses, then queries it with the table moved by `motion`
// (applied in the cube's frame, so it is B's motion relative to A) with reuse (`reused`) and
// without (`fresh`). Returns the displacement bound of the motion.
double queryMoved(const Resting& r, PatchPoints points, const Eigen::Isometry3d& motion,
                  double tolerance, std::vector<BodyPairContact>& reused,
                  std::vector<BodyPairContact>& fresh, StepWorkspace& work) {
  RestingPairs memory;
  memory.beginStep();
  queryRestingPair(r.cube, r.cube_pose, 7, r.table, r.table_pose, 3, points, tolerance, memory,
                   work, reused);
  EXPECT_FALSE(reused.empty()) << "the cube rests on the table";
  const Eigen::Isometry3d b_in_a = r.cube_pose.inverse() * r.table_pose;
  const Eigen::Isometry3d moved = r.cube_pose * motion * b_in_a;
  memory.beginStep();
  queryRestingPair(r.cube, r.cube_pose, 7, r.table, moved, 3, points, tolerance, memory, work,
                   reused);
  queryBodyPair(r.cube, r.cube_pose, r.table, moved, points, work, fresh);
  return relativeDisplacementBound(b_in_a, motion * b_in_a, r.table);
}

}  // namespace

TEST(RestingPairs, TheDisplacementBoundHoldsEveryPointOfTheMovedBody) {
  const Resting r;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const geometry::TriangleMesh box = geometry::makeBox({0.6, 0.6, 0.05});
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Isometry3d before =
        turned({u(rng), u(rng), u(rng)}, 3.0 * u(rng), {u(rng), u(rng), u(rng)});
    const Eigen::Isometry3d now =
        turned({u(rng), u(rng), u(rng)}, 1e-3 * u(rng), 1e-3 * Eigen::Vector3d(u(rng), u(rng), u(rng))) *
        before;
    const double bound = relativeDisplacementBound(before, now, r.table);
    for (const Eigen::Vector3d& v : box.vertices)
      ASSERT_LE((now * v - before * v).norm(), bound * (1 + 1e-12) + 1e-15) << trial;
  }
}

TEST(RestingPairs, ReusedContactsStayWithinTheBoundOfTheMovedGeometry) {
  // The closed form at the moved pose: the table's top face is a plane; the cube's bottom
  // corners lie between depths lo and hi below it, and every contact of the pair (fresh or
  // reused) has its normal along the plane's and a depth in that range, the reused ones within
  // twice the displacement bound. (The points themselves are not compared with a fresh query's:
  // the patch corners of two parallel faces are ties that a 1e-8 m motion may break the other
  // way, for fresh queries as much as between a reused and a fresh one.)
  const Resting r;
  StepWorkspace work;
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const double tolerance = 1e-7;
  for (PatchPoints points : {PatchPoints::Manifold, PatchPoints::Corners, PatchPoints::Centre})
    for (int trial = 0; trial < 50; ++trial) {
      // About half the tolerance: a turn about a random axis and a shift.
      const Eigen::Isometry3d motion = turned({u(rng), u(rng), u(rng)}, 1e-7 * u(rng),
                                              2e-8 * Eigen::Vector3d(u(rng), u(rng), u(rng)));
      std::vector<BodyPairContact> reused, fresh;
      const double bound = queryMoved(r, points, motion, tolerance, reused, fresh, work);
      ASSERT_LE(bound, tolerance);
      ASSERT_FALSE(fresh.empty());
      const Eigen::Isometry3d b_in_a = r.cube_pose.inverse() * r.table_pose;
      const Eigen::Isometry3d table = r.cube_pose * motion * b_in_a;  // moved, world
      const Eigen::Vector3d up = table.linear().col(2);
      const double top = up.dot(table * Eigen::Vector3d(0, 0, 0.025));
      double lo = 1.0, hi = -1.0;
      for (double x : {-0.025, 0.025})
        for (double y : {-0.025, 0.025}) {
          const double depth = top - up.dot(r.cube_pose * Eigen::Vector3d(x, y, -0.025));
          lo = std::min(lo, depth);
          hi = std::max(hi, depth);
        }
      const double turn = (motion.linear() - Eigen::Matrix3d::Identity()).norm();
      for (const BodyPairContact& c : fresh) {
        EXPECT_LE((c.normal_world + up).norm(), 1e-9) << "fresh, trial " << trial;
        EXPECT_GE(c.depth, lo - 1e-12) << "fresh, trial " << trial;
        EXPECT_LE(c.depth, hi + 1e-12) << "fresh, trial " << trial;
      }
      for (const BodyPairContact& c : reused) {
        EXPECT_LE((c.normal_world + up).norm(), turn + 1e-9) << "reused, trial " << trial;
        EXPECT_GE(c.depth, lo - 2.0 * bound - 1e-12) << "reused, trial " << trial;
        EXPECT_LE(c.depth, hi + 2.0 * bound + 1e-12) << "reused, trial " << trial;
      }
    }
}

TEST(RestingPairs, APairMovedBeyondTheToleranceIsQueriedAfresh) {
  const Resting r;
  StepWorkspace work;
  const double tolerance = 1e-7;
  std::vector<BodyPairContact> reused, fresh;
  // A shift alone, then a turn alone (about B's own origin: B's origin does not move).
  for (const Eigen::Isometry3d& motion :
       {turned({0, 0, 1}, 0.0, {0.0, 2e-7, 0.0}), turned({1, 1, 0}, 1e-6, {0, 0, 0})}) {
    const Eigen::Isometry3d b_in_a = r.cube_pose.inverse() * r.table_pose;
    const Eigen::Isometry3d relative = b_in_a * motion * b_in_a.inverse();  // about B's origin
    const double bound = queryMoved(r, PatchPoints::Manifold, relative, tolerance, reused, fresh,
                                    work);
    ASSERT_GT(bound, tolerance);
    EXPECT_TRUE(sameBits(reused, fresh));
  }
  // Steps each within the tolerance that add up beyond it: measured from the anchor, not from
  // the last step.
  RestingPairs memory;
  memory.beginStep();
  queryRestingPair(r.cube, r.cube_pose, 7, r.table, r.table_pose, 3, PatchPoints::Manifold,
                   tolerance, memory, work, reused);
  Eigen::Isometry3d table = r.table_pose;
  bool refreshed = false;
  for (int k = 1; k <= 4 && !refreshed; ++k) {
    table.translation().x() += 0.4 * tolerance;
    const std::uint64_t before = work.resting_reuses;
    memory.beginStep();
    queryRestingPair(r.cube, r.cube_pose, 7, r.table, table, 3, PatchPoints::Manifold, tolerance,
                     memory, work, reused);
    queryBodyPair(r.cube, r.cube_pose, r.table, table, PatchPoints::Manifold, work, fresh);
    if (k <= 2) {
      EXPECT_EQ(work.resting_reuses, before + 1) << "step " << k << " is within the tolerance";
    } else {
      EXPECT_EQ(work.resting_reuses, before) << "step " << k;
      EXPECT_TRUE(sameBits(reused, fresh)) << "step " << k;
      refreshed = true;
    }
  }
  EXPECT_TRUE(refreshed);
}

namespace {

Scenario hold(double tolerance) {
  Scenario sc = loadScenario(hand::assetDirectory() + "/scenarios/gripper2p_hold_cube.json");
  sc.options.contact.constraint()->resting_tolerance = tolerance;
  sc.plan.duration = 0.0;
  sc.plan.record_every = std::numeric_limits<int>::max();
  return sc;
}

bool sameState(const SimState& a, const SimState& b) {
  if (a.actuator_position != b.actuator_position || a.actuator_velocity != b.actuator_velocity)
    return false;
  for (std::size_t o = 0; o < a.object_pose_world.size(); ++o)
    if (!(a.object_pose_world[o].matrix() == b.object_pose_world[o].matrix()) ||
        !(a.object_twist_world[o] == b.object_twist_world[o]))
      return false;
  if (a.contacts.size() != b.contacts.size()) return false;
  for (std::size_t k = 0; k < a.contacts.size(); ++k)
    if (a.contacts[k].force != b.contacts[k].force || a.contacts[k].depth != b.contacts[k].depth)
      return false;
  return true;
}

}  // namespace

TEST(RestingPairs, TheHoldStaysWithinABoundOfTheRunWithoutReuse) {
  const Scenario with = hold(1e-9), without = hold(0.0);
  sim::Run a(compileScenario(with), with.plan), b(compileScenario(without), without.plan);
  double worst = 0.0;
  while (a.state().time < 3.0) {
    a.step();
    b.step();
    const Eigen::Vector3d pa = a.state().object_pose_world[0].translation();
    const Eigen::Vector3d pb = b.state().object_pose_world[0].translation();
    worst = std::max(worst, (pa - pb).norm());
  }
  // The two pad-cube pairs were answered from memory on nearly every step; the cube is where
  // it is without reuse.
  EXPECT_GT(a.state().work.resting_reuses, 2 * 3000 * 9 / 10);
  EXPECT_EQ(b.state().work.resting_reuses, 0u);
  EXPECT_LT(worst, 1e-9);
  EXPECT_EQ(a.state().contacts.size(), 2u);
}

TEST(RestingPairs, ACubeOnATableStaysWithinABoundOfTheRunWithoutReuse) {
  // The benchmark's scene (bench_sim BM_SimStepCubeOnTable): a free 5 cm cube dropped 0.1 mm
  // onto a fixed table box beside the open BarrettHand; four corner contacts with friction.
  auto scene = [](double tolerance) {
    Options options;
    options.contact.constraint()->resting_tolerance = tolerance;
    return compileModel(test::barrettHand(),
                        {test::boxObject("table", {0.6, 0.6, 0.05}, false, 1000.0),
                         test::boxObject("cube", {0.05, 0.05, 0.05}, true, 1000.0)},
                        options);
  };
  RunPlan plan;
  plan.object_pose_world = {test::at({0.3, 0.0, -0.2}), test::at({0.3, 0.0, -0.175 - 1e-4 + 0.05})};
  plan.record_every = std::numeric_limits<int>::max();
  sim::Run a(scene(1e-9), plan), b(scene(0.0), plan);
  double worst = 0.0, worst_turn = 0.0;
  while (a.state().time < 2.0) {
    a.step();
    b.step();
    const Eigen::Isometry3d& pa = a.state().object_pose_world[1];
    const Eigen::Isometry3d& pb = b.state().object_pose_world[1];
    worst = std::max(worst, (pa.translation() - pb.translation()).norm());
    worst_turn = std::max(worst_turn, (pa.linear() - pb.linear()).norm());
  }
  EXPECT_GT(a.state().work.resting_reuses, 1000u);
  EXPECT_EQ(a.state().object_contacts.size(), 4u);
  EXPECT_LT(worst, 1e-8);
  EXPECT_LT(worst_turn, 1e-6);
}

TEST(RestingPairs, ACopiedStateContinuesBitForBitLikeItsOriginal) {
  const Scenario sc = hold(1e-9);
  const auto model = compileScenario(sc);
  sim::Run run(model, sc.plan);
  for (int i = 0; i < 300; ++i) run.step();
  SimState& a = run.state();
  ASSERT_FALSE(a.resting_pairs.empty());
  SimState b = a;  // the memory is state: copied with it
  for (int i = 0; i < 300; ++i) {
    step(*model, a);
    step(*model, b);
    ASSERT_TRUE(sameState(a, b)) << "step " << i;
  }
  EXPECT_GT(a.work.resting_reuses, 0u);
}

TEST(RestingPairs, AResetRunRepeatsAFreshRunBitForBit) {
  const Scenario sc = hold(1e-9);
  const auto model = compileScenario(sc);
  sim::Run used(model, sc.plan);
  for (int i = 0; i < 400; ++i) used.step();
  ASSERT_FALSE(used.state().resting_pairs.empty());
  used.reset();
  EXPECT_TRUE(used.state().resting_pairs.empty());
  sim::Run fresh(model, sc.plan);
  for (int i = 0; i < 400; ++i) {
    used.step();
    fresh.step();
    ASSERT_TRUE(sameState(used.state(), fresh.state())) << "step " << i;
  }
}

TEST(RestingPairs, ANewModelForgetsTheOldBodiesContacts) {
  // The GUI swaps objects under a running state (Run::setModel): a held cube replaced where it
  // stands by a 2 mm smaller box must not keep the cube's pad contacts.
  const Scenario sc = hold(1e-9);
  sim::Run run(compileScenario(sc), sc.plan);
  for (int i = 0; i < 300; ++i) run.step();
  ASSERT_EQ(run.state().contacts.size(), 2u);
  ASSERT_FALSE(run.state().resting_pairs.empty());
  ObjectModel smaller = test::boxObject("cube", {0.048, 0.048, 0.048}, true, 1000.0);
  run.setModel(withObjects(run.model(), {smaller}));
  EXPECT_TRUE(run.state().resting_pairs.empty());
  run.step();
  EXPECT_TRUE(run.state().contacts.empty()) << "the pads are 1 mm from the smaller box";
}
