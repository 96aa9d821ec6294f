// SPDX-License-Identifier: GPL-3.0-or-later
// The actuator-space inertia is factorised block by block (StepWorkspace::inertia_blocks,
// docs/simulation.md): actuators that drive joints of the same fingers form a block, and
// actuators of different blocks share no inertia term. Checked against the dense matrix the step
// assembles: the blocks partition the actuators, every entry between two blocks is exactly zero,
// and the blocks' factorisations solve like a dense LDLT of the whole matrix (a second
// formulation) to rounding. The BarrettHand's spread actuator joins fingers 1 and 2
// (one block of three, not contiguous in the actuator order); anthro20's five fingers are five
// blocks; seed 004's one-actuator gripper is one.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <string>
#include <vector>

#include "../support/box_objects.hpp"
#include "handsim/hand/hand_loader.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

// Steps the hand a little way into closing (every actuator driven towards 60 % of its range),
// so its inertia is not the rest pose's, and returns the state.
SimState closingState(const std::shared_ptr<const Model>& model, int steps) {
  SimState s = makeState(*model);
  const hand::HandModel& hand = model->hand();
  for (std::size_t a = 0; a < hand.actuators.size(); ++a)
    s.actuator_command[a] =
        hand.actuators[a].lower + 0.6 * (hand.actuators[a].upper - hand.actuators[a].lower);
  for (int k = 0; k < steps; ++k) step(*model, s);
  return s;
}

void expectBlocksMatchTheDenseInertia(const std::shared_ptr<const hand::HandModel>& hand,
                                      std::size_t expected_blocks) {
  auto model = compileModel(hand, {}, Options{});
  SimState s = closingState(model, 50);
  const StepWorkspace& w = s.work;
  const auto na = static_cast<Eigen::Index>(hand->actuators.size());
  ASSERT_EQ(w.mass.rows(), na);
  EXPECT_EQ(w.inertia_blocks.size(), expected_blocks);
  // A partition of the actuators.
  std::vector<int> block_of(static_cast<std::size_t>(na), -1);
  for (std::size_t b = 0; b < w.inertia_blocks.size(); ++b)
    for (Eigen::Index a : w.inertia_blocks[b].actuators) {
      ASSERT_EQ(block_of[static_cast<std::size_t>(a)], -1) << "actuator " << a << " twice";
      block_of[static_cast<std::size_t>(a)] = static_cast<int>(b);
    }
  for (int b : block_of) EXPECT_GE(b, 0);
  // No inertia between blocks, exactly; some within each (the diagonal at least).
  for (Eigen::Index i = 0; i < na; ++i) {
    EXPECT_GT(w.mass(i, i), 0.0);
    for (Eigen::Index j = 0; j < na; ++j) {
      if (block_of[static_cast<std::size_t>(i)] != block_of[static_cast<std::size_t>(j)]) {
        EXPECT_EQ(w.mass(i, j), 0.0) << i << ", " << j;
      }
    }
  }
  // Each block's factorisation (the step's, of this matrix) solves like a dense LDLT of the
  // whole matrix: every unit vector, so the whole inverse, block by block.
  const Eigen::MatrixXd inverse = w.mass.ldlt().solve(Eigen::MatrixXd::Identity(na, na));
  for (const InertiaBlock& b : w.inertia_blocks) {
    const auto k = static_cast<Eigen::Index>(b.actuators.size());
    Eigen::MatrixXd sub(k, k);
    for (Eigen::Index i = 0; i < k; ++i)
      for (Eigen::Index j = 0; j < k; ++j)
        sub(i, j) = inverse(b.actuators[static_cast<std::size_t>(i)],
                            b.actuators[static_cast<std::size_t>(j)]);
    EXPECT_LE((b.ldlt.solve(Eigen::MatrixXd::Identity(k, k)) - sub).norm(),
              1e-12 * sub.norm());
  }
}

}  // namespace

TEST(InertiaBlocks, BarrettHandSpreadJoinsFingersOneAndTwo) {
  const auto hand = test::barrettHand();
  expectBlocksMatchTheDenseInertia(hand, 2);
  // Which actuators: the one block of three holds the spread and the actuators of fingers 1
  // and 2 (those that drive a joint of finger 0 or 1).
  auto model = compileModel(hand, {}, Options{});
  SimState s = makeState(*model);
  step(*model, s);
  const auto& blocks = s.work.inertia_blocks;
  const auto big = std::max_element(blocks.begin(), blocks.end(), [](const auto& a, const auto& b) {
    return a.actuators.size() < b.actuators.size();
  });
  ASSERT_EQ(big->actuators.size(), 3u);
  EXPECT_FALSE(big->contiguous);  // M1, M2 and M4: the gathered path
  for (std::size_t f = 0; f < 2; ++f)
    for (const hand::EffectiveDrive& e : s.work.drives[f])
      EXPECT_TRUE(std::find(big->actuators.begin(), big->actuators.end(),
                            static_cast<Eigen::Index>(e.actuator)) != big->actuators.end());
}

TEST(InertiaBlocks, Anthro20HasOneBlockPerFinger) {
  expectBlocksMatchTheDenseInertia(
      std::make_shared<const hand::HandModel>(hand::loadHand("anthro20")), 5);
}

TEST(InertiaBlocks, OneActuatorGripperIsOneBlock) {
  expectBlocksMatchTheDenseInertia(
      std::make_shared<const hand::HandModel>(hand::loadHand("gripper2p")), 1);
}
