// SPDX-License-Identifier: GPL-3.0-or-later
// The planner: reproducible from a seed on any number of threads, antipodal pinches of a box
// and a sphere, starts in collision reported, shards merged into the one-process result.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "../support/quick_planner.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/planner/grasp_records.hpp"
#include "handsim/planner/planner.hpp"
#include "handsim/planner/validation.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;

namespace {

sim::ObjectModel object(const std::string& name, geometry::TriangleMesh mesh) {
  auto g = std::make_shared<sim::BodyGeometry>();
  g->collision = sim::makeCollisionBody(std::move(mesh), 18);
  sim::ObjectModel o;
  o.name = name;
  o.geometry = g;
  sim::computeMassProperties(o, 1000.0);
  return o;
}

std::shared_ptr<const hand::HandModel> shipped(const std::string& id) {
  return std::make_shared<const hand::HandModel>(hand::loadHand(id));
}

std::string text(const planner::PlannerModel& pm, const planner::PlannerOptions& o,
                 const std::vector<planner::PlannedGrasp>& grasps) {
  std::vector<planner::GraspRecord> records;
  for (const auto& g : grasps) {
    planner::GraspRecord r;
    r.hand = pm.model->hand().id;
    r.object = pm.model->objects[0].name;
    r.run = planner::runInfo(o, pm);
    r.grasp = g;
    records.push_back(r);
  }
  return planner::graspRecordsText(records);
}

// Nguyen's antipodal condition, checked here without the wrench space: two contacts whose
// joining line lies inside both friction cones (half-angle atan mu) pinch the object.
bool hasAntipodalPair(const planner::ClosedGrasp& g, double mu) {
  const double cone = std::atan(mu);
  for (std::size_t i = 0; i < g.contacts.size(); ++i)
    for (std::size_t j = i + 1; j < g.contacts.size(); ++j) {
      const auto& a = g.contacts[i];
      const auto& b = g.contacts[j];
      if (a.finger == b.finger) continue;
      const Eigen::Vector3d line = b.point_world - a.point_world;
      if (line.norm() < 1e-6) continue;
      const Eigen::Vector3d u = line.normalized();
      // a pushes along its normal (into the object) towards b, b towards a.
      if (std::acos(std::clamp(a.normal_world.dot(u), -1.0, 1.0)) < cone &&
          std::acos(std::clamp(b.normal_world.dot(-u), -1.0, 1.0)) < cone)
        return true;
    }
  return false;
}

}  // namespace

TEST(Planner, AnnealingScheduleIsIngbersAsGraspItUsesIt) {
  const planner::AnnealingSchedule s;
  // T(k) = 1e6 exp(-7 k^(1/8)); at k = 30000, 30000^(1/8) = 3.6245...
  EXPECT_NEAR(s.temperature(30000), 1e6 * std::exp(-7.0 * std::pow(30000.0, 0.125)), 1e-18);
  EXPECT_NEAR(std::pow(s.temperature(31000) / s.t0, 1.0 / 8.0), s.stepFraction(31000), 1e-12);
  EXPECT_LT(s.temperature(40000), s.temperature(30000));
}

TEST(Planner, SameSeedSameGraspsOnAnyThreadCount) {
  const auto pm = planner::compilePlannerModel(shipped("barrett"),
                                               object("ball", geometry::makeSphere(0.04, 24)));
  for (planner::Strategy strategy :
       {planner::Strategy::SurfaceNormals, planner::Strategy::Annealing}) {
    planner::PlannerOptions o = test::quickPlanner(2, 1);  // every candidate of the budget
    o.strategy = strategy;
    o.annealing_steps = 60;
    o.seed = 11;
    std::vector<planner::PlannedGrasp> all;
    for (int i = 0; i < 2; ++i) all.push_back(planner::planCandidate(pm, o, i));
    o.threads = 2;
    const auto threaded = planner::planGrasps(pm, o);
    o.threads = 1;
    const auto serial = planner::planGrasps(pm, o);
    EXPECT_EQ(text(pm, o, serial), text(pm, o, threaded)) << planner::strategyName(strategy);
    // Another seed searches elsewhere.
    o.seed = 12;
    const planner::PlannedGrasp other = planner::planCandidate(pm, o, 0);
    EXPECT_FALSE(other.palm_object.isApprox(all[0].palm_object, 1e-9));
  }
}

TEST(Planner, FindsAntipodalPinchesOfABoxAndASphere) {
  const auto hand = shipped("barrett");
  for (const auto& obj : {object("box", geometry::makeBox(Eigen::Vector3d(0.05, 0.04, 0.06))),
                          object("ball", geometry::makeSphere(0.03, 24))}) {
    const auto pm = planner::compilePlannerModel(hand, obj, 0.5);
    planner::PlannerOptions o;
    o.grasps = 2;
    o.candidates = 6;
    o.descent_steps = 20;
    o.closing.close_time = 0.5;
    o.closing.settle_time = 0.2;
    const auto grasps = planner::planGrasps(pm, o);
    ASSERT_EQ(grasps.size(), 2u) << obj.name;
    int antipodal = 0;
    for (const auto& g : grasps) {
      EXPECT_TRUE(g.forceClosure());
      EXPECT_GE(g.closed.contacts.size(), 2u);
      antipodal += hasAntipodalPair(g.closed, 0.5) ? 1 : 0;
    }
    EXPECT_GE(antipodal, 1) << obj.name;
    EXPECT_GE(planner::poseDistance(grasps[0].palm_object, grasps[1].palm_object, pm.radius,
                                    o.distinct_fraction, o.distinct_angle),
              1.0);
  }
}

TEST(Planner, AStartInsideTheObjectIsMovedOutOrReported) {
  // The gripper's palm at the centre of a 10 cm cube: deep in collision.
  const auto pm = planner::compilePlannerModel(
      shipped("gripper2p"), object("cube", geometry::makeBox(Eigen::Vector3d(0.1, 0.1, 0.1))));
  const Eigen::VectorXd open = Eigen::VectorXd::Zero(1);
  sim::SimState s = sim::makeState(*pm.model);
  planner::setConfiguration(pm, Eigen::Isometry3d::Identity(), open, s);
  ASSERT_TRUE(sim::handTouchesObjects(*pm.model, s));
  // Backing out along -z (away from the approach) in 1 cm steps frees it within the bounded
  // steps: at most the cube's half size plus the hand's depth below its palm origin.
  const auto out = planner::backOutOfCollision(pm, Eigen::Isometry3d::Identity(), open,
                                               -Eigen::Vector3d::UnitZ(), 0.01, 40);
  ASSERT_TRUE(out.has_value());
  planner::setConfiguration(pm, *out, open, s);
  EXPECT_FALSE(sim::handTouchesObjects(*pm.model, s));
  // One step less would still touch: the first free pose is returned.
  Eigen::Isometry3d before = *out;
  before.translation().z() += 0.01;
  planner::setConfiguration(pm, before, open, s);
  EXPECT_TRUE(sim::handTouchesObjects(*pm.model, s));
  // Too few steps: reported, not an endless loop.
  EXPECT_FALSE(planner::backOutOfCollision(pm, Eigen::Isometry3d::Identity(), open,
                                           -Eigen::Vector3d::UnitZ(), 0.01, 2)
                   .has_value());
}

TEST(Planner, ShardsMergeIntoTheOneProcessRun) {
  const auto hand = shipped("barrett");
  const auto pm = planner::compilePlannerModel(
      hand, object("box", geometry::makeBox(Eigen::Vector3d(0.04, 0.03, 0.05))));
  planner::PlannerOptions o;
  o.grasps = 2;
  o.candidates = 5;
  o.descent_steps = 5;
  o.closing.close_time = 0.3;
  o.closing.settle_time = 0.1;
  auto records = [&](const std::vector<planner::PlannedGrasp>& grasps) {
    std::vector<planner::GraspRecord> out;
    for (const auto& g : grasps) {
      planner::GraspRecord r;
      r.hand = hand->id;
      r.object = "box";
      for (const auto& a : hand->actuators) r.actuators.push_back(a.name);
      r.run = planner::runInfo(o, pm);
      r.grasp = g;
      out.push_back(r);
    }
    return out;
  };
  const std::string one = planner::graspRecordsText(records(planner::planGrasps(pm, o)));
  ASSERT_FALSE(one.empty());
  std::vector<std::vector<planner::GraspRecord>> shards;
  o.shards = 3;
  for (int i = 2; i >= 0; --i) {  // in any order
    o.shard = i;
    // Each shard file goes through text and back, as between processes.
    shards.push_back(planner::parseGraspRecords(
        planner::graspRecordsText(records(planner::planGrasps(pm, o))), "shard"));
  }
  EXPECT_EQ(planner::graspRecordsText(planner::mergeShardRecords(shards)), one);
  // A shard given twice is refused.
  for (const auto& sh : shards)
    if (!sh.empty()) {
      shards.push_back(sh);
      break;
    }
  EXPECT_THROW(planner::mergeShardRecords(shards), std::invalid_argument);
}

TEST(Planner, HooksSeeEachAcceptedGraspAndStopTheRun) {
  const auto pm = planner::compilePlannerModel(
      shipped("barrett"), object("box", geometry::makeBox(Eigen::Vector3d(0.05, 0.04, 0.06))));
  planner::PlannerOptions o;
  o.grasps = 3;
  o.candidates = 12;
  o.descent_steps = 10;
  o.closing.close_time = 0.4;
  o.closing.settle_time = 0.1;
  const auto all = planner::planGrasps(pm, o);
  ASSERT_GE(all.size(), 2u);
  // The hook sees the grasps in the order returned; stopping at the first ends the run there.
  std::atomic<bool> stop{false};
  std::vector<std::int64_t> seen;
  planner::PlannerHooks hooks;
  hooks.stop = &stop;
  hooks.accepted = [&](const planner::PlannedGrasp& g) {
    seen.push_back(g.candidate);
    stop = true;
  };
  const auto first = planner::planGrasps(pm, o, {}, hooks);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(seen, std::vector<std::int64_t>{all[0].candidate});
  EXPECT_EQ(first[0].candidate, all[0].candidate);
}

// A custom energy sees the configuration the built-in energies see: one that computes the
// contact energy from its input plans the grasps of --energy contact bit for bit, and one that
// ranks by the palm's height makes every pre-grasp's recorded energy that height. A non-finite
// value or a throwing energy stops the run with its error.
TEST(Planner, ACustomEnergySeesTheSearchsConfiguration) {
  const auto pm = planner::compilePlannerModel(shipped("barrett"),
                                               object("ball", geometry::makeSphere(0.04, 24)));
  planner::PlannerOptions o = test::quickPlanner(3);
  const auto builtin = planner::planGrasps(pm, o);
  int calls = 0;
  std::mutex lock;
  o.custom_energy = [&](const planner::EnergyInput& in) {
    {
      const std::lock_guard<std::mutex> g(lock);
      ++calls;
    }
    // The configuration is the state's: the palm and posture given are those set in it.
    EXPECT_TRUE(in.palm_object.isApprox(in.state.palm_pose_world, 0.0));
    EXPECT_EQ(in.posture.size(), 4);
    EXPECT_EQ(in.points.size(), pm.contact_points.size());
    return planner::contactEnergy(in.points);
  };
  const auto custom = planner::planGrasps(pm, o);
  EXPECT_GT(calls, 3);
  ASSERT_EQ(custom.size(), builtin.size());
  for (std::size_t i = 0; i < custom.size(); ++i) {
    EXPECT_EQ(custom[i].energy, builtin[i].energy);
    EXPECT_TRUE(custom[i].palm_object.isApprox(builtin[i].palm_object, 0.0));
  }
  EXPECT_EQ(planner::runInfo(o, pm).energy, "custom");

  o.custom_energy = [](const planner::EnergyInput& in) { return in.palm_object(2, 3); };
  for (const auto& g : planner::planGrasps(pm, o)) EXPECT_EQ(g.energy, g.palm_object(2, 3));

  o.custom_energy = [](const planner::EnergyInput&) { return std::nan(""); };
  EXPECT_THROW(planner::planGrasps(pm, o), std::runtime_error);
  o.custom_energy = [](const planner::EnergyInput&) -> double {
    throw std::domain_error("my energy failed");
  };
  EXPECT_THROW(planner::planGrasps(pm, o), std::domain_error);
}

// anthro20 on the floating bottle: in candidate 3 (seed 1) the first finger to touch pushes
// the bottle away and the hand ends touching nothing; the planner closes again with the bottle
// held where it started, so the grasp is judged on contacts that lie on the bottle's surface,
// and validation does the same before the load releases it (docs/planner.md, "When the
// floating object escapes").
TEST(Planner, AFloatingObjectPushedAwayIsClosedOnAgainHeld) {
  const auto hand = shipped("anthro20");
  const sim::ObjectModel bottle = sim::loadObject(hand::assetDirectory() + "/objects/bottle.wrl");
  const auto pm = planner::compilePlannerModel(hand, bottle);
  ASSERT_TRUE(pm.object_free);
  const planner::PlannerOptions o;
  const planner::PlannedGrasp g = planner::planCandidate(pm, o, 3);
  ASSERT_FALSE(g.start_collision);
  // The floating closing alone: nothing touches at the end, the bottle has gone.
  sim::Run floating(pm.model,
                    planner::closingPlan(*pm.model, g.palm_object, g.pregrasp, o.closing));
  planner::runClosing(floating, o.closing);
  EXPECT_TRUE(planner::objectContacts(floating.state()).empty());
  EXPECT_GT(floating.state().object_pose_world[0].translation().norm(), 0.05);
  // The planner's closing: held, the bottle where it started, every contact on its surface.
  EXPECT_TRUE(g.closed.held);
  EXPECT_TRUE(g.closed.object_pose.isApprox(Eigen::Isometry3d::Identity(), 0.0));
  ASSERT_GE(g.closed.contacts.size(), 3u);
  for (const auto& c : g.closed.contacts)
    EXPECT_LT(std::abs(planner::closestSurfacePoint(pm.surface, c.point_world).distance), 2e-3);
  // Validation closes the same way, then releases the bottle under the load.
  const planner::Validator v =
      planner::makeValidator(hand, bottle, planner::validationPreset("six-directions"));
  const planner::ValidationOutcome out = planner::validateGrasp(v, g.palm_object, g.pregrasp);
  EXPECT_TRUE(out.held);
  ASSERT_EQ(out.directions.size(), 6u);
}
