// SPDX-License-Identifier: GPL-3.0-or-later
// The step's narrow phase with the frontier cache (StepWorkspace::frontier) against the same
// runs with the cache disabled (every query descends the trees): the gripper squeezing the
// cube, the BarrettHand lifting the cube off the ground, and the breakaway grasp whose links
// touch each other. Every step's contacts, forces and poses are the same bit for bit; the cache
// did answer most queries; and a copied state (which starts with an empty cache) continues as
// the original does.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

bool sameBits(const Eigen::Vector3d& x, const Eigen::Vector3d& y) {
  return std::memcmp(x.data(), y.data(), 3 * sizeof(double)) == 0;
}

bool sameContacts(const std::vector<Contact>& x, const std::vector<Contact>& y) {
  if (x.size() != y.size()) return false;
  for (std::size_t k = 0; k < x.size(); ++k)
    if (!sameBits(x[k].point_world, y[k].point_world) ||
        !sameBits(x[k].normal_world, y[k].normal_world) || x[k].depth != y[k].depth ||
        x[k].force != y[k].force || x[k].finger != y[k].finger || x[k].row != y[k].row ||
        x[k].object != y[k].object || x[k].other != y[k].other)
      return false;
  return true;
}

::testing::AssertionResult sameState(const SimState& a, const SimState& b) {
  if (!sameContacts(a.contacts, b.contacts)) return ::testing::AssertionFailure() << "contacts";
  if (!sameContacts(a.object_contacts, b.object_contacts))
    return ::testing::AssertionFailure() << "object contacts";
  if (!sameContacts(a.link_contacts, b.link_contacts))
    return ::testing::AssertionFailure() << "link contacts";
  if (a.actuator_position != b.actuator_position)
    return ::testing::AssertionFailure() << "actuator positions";
  for (std::size_t o = 0; o < a.object_pose_world.size(); ++o)
    if (!(a.object_pose_world[o].matrix() == b.object_pose_world[o].matrix()))
      return ::testing::AssertionFailure() << "object " << o << " pose";
  return ::testing::AssertionSuccess();
}

struct Counts {
  std::size_t touching_steps = 0;
  std::uint64_t replays = 0, refreshes = 0;
};

Counts compare(const std::string& scenario, double seconds) {
  Scenario sc = loadScenario(hand::assetDirectory() + "/scenarios/" + scenario);
  // Every pair queried every step (no resting-pair reuse), so the frontier cache answers them.
  sc.options.contact.constraint()->resting_tolerance = 0.0;
  RunPlan plan = sc.plan;
  plan.duration = 0.0;
  plan.record_every = std::numeric_limits<int>::max();
  const auto model = compileScenario(sc);
  sim::Run cached(model, plan), plain(model, plan);
  plain.state().work.frontier.margin_m = -1.0;  // disabled: the full descent every query
  Counts n;
  while (cached.state().time < seconds) {
    cached.step();
    plain.step();
    const ::testing::AssertionResult same = sameState(cached.state(), plain.state());
    if (!same) {
      ADD_FAILURE() << scenario << " at t = " << cached.state().time << ": " << same.message();
      break;
    }
    if (!cached.state().contacts.empty() || !cached.state().object_contacts.empty() ||
        !cached.state().link_contacts.empty())
      ++n.touching_steps;
  }
  n.replays = cached.state().work.frontier.replays;
  n.refreshes = cached.state().work.frontier.refreshes;
  EXPECT_EQ(plain.state().work.frontier.replays + plain.state().work.frontier.refreshes, 0u);
  return n;
}

}  // namespace

TEST(FrontierCacheStep, TheGrippersHoldIsTheSameBitForBit) {
  const Counts n = compare("gripper2p_hold_cube.json", 1.5);
  EXPECT_GT(n.touching_steps, 1000u);
  EXPECT_GT(n.replays, 10 * n.refreshes);  // the held cube barely moves
}

TEST(FrontierCacheStep, TheBarrettLiftIsTheSameBitForBit) {
  // Closing (0-2 s) and lifting (from 2 s): fingers and object move, records refresh.
  const Counts n = compare("barrett_lift_cube.json", 3.0);
  EXPECT_GT(n.touching_steps, 1000u);
  EXPECT_GT(n.replays, 0u);
  EXPECT_GT(n.refreshes, 0u);
}

TEST(FrontierCacheStep, LinksTouchingEachOtherAreTheSameBitForBit) {
  const Counts n = compare("barrett_breakaway_cube.json", 3.0);
  EXPECT_GT(n.touching_steps, 500u);
  EXPECT_GT(n.replays, 0u);
}

TEST(FrontierCacheStep, ACopiedStateContinuesLikeTheOriginal) {
  Scenario sc = loadScenario(hand::assetDirectory() + "/scenarios/gripper2p_hold_cube.json");
  sc.options.contact.constraint()->resting_tolerance = 0.0;  // every step queries the pads
  const auto model = compileScenario(sc);
  // The scenario's plan (the palm turned so the fingers are horizontal, the jaws' reference)
  // makes the grip: a bare makeState leaves the jaws without their reference and knocks the
  // cube away within 0.1 s, so nothing would stay in contact to be cached.
  sim::Run run(model, sc.plan);
  for (int i = 0; i < 500; ++i) run.step();
  SimState& a = run.state();
  ASSERT_FALSE(a.contacts.empty()) << "held";
  ASSERT_GT(a.work.frontier.replays, 0u);
  SimState b = a;  // its workspace, and so its cache, starts empty
  EXPECT_TRUE(b.work.frontier.records.empty());
  for (int i = 0; i < 500; ++i) {
    step(*model, a);
    step(*model, b);
    ASSERT_TRUE(sameState(a, b)) << "step " << i;
  }
}
