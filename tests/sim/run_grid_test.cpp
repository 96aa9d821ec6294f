// SPDX-License-Identifier: GPL-3.0-or-later
// The grid engine (tools/run_grid.hpp): shards that together cover every cell once (checked by
// brute force), every cell run exactly once on several threads, outcomes counted, the first
// error stopping the rest, shards merged equal to one run of real simulations bit for bit, and
// a run killed half way resumed to the same rows with none twice.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/tools/grasp_closing.hpp"
#include "handsim/tools/run_grid.hpp"

using namespace handsim;

namespace {

TEST(RunGrid, ShardsCoverEveryCellOnceAndSkipTheDoneOnes) {
  for (std::size_t total : {0u, 1u, 7u, 30u})
    for (int n : {1, 2, 3, 8}) {
      std::vector<int> seen(total, 0);
      for (int i = 0; i < n; ++i)
        for (std::size_t c : sim::pendingCells(total, {i, n})) {
          ASSERT_LT(c, total);
          EXPECT_EQ(static_cast<int>(c % static_cast<std::size_t>(n)), i);
          ++seen[c];
        }
      for (std::size_t c = 0; c < total; ++c) EXPECT_EQ(seen[c], 1) << total << " " << n;
    }
  const auto odd = sim::pendingCells(10, {}, [](std::size_t c) { return c % 2 == 0; });
  EXPECT_EQ(odd, (std::vector<std::size_t>{1, 3, 5, 7, 9}));
  EXPECT_THROW(sim::pendingCells(10, {2, 2}), std::invalid_argument);
}

TEST(RunGrid, EveryCellRunsOnceOnSeveralThreadsAndItsOutcomeIsCounted) {
  const std::size_t n = 200;
  std::vector<std::atomic<int>> runs(n);
  std::vector<std::size_t> order;
  std::size_t last_done = 0;
  bool eta_finite = true;
  sim::GridOptions o;
  o.threads = 4;
  o.finished = [&](std::size_t k, sim::CellOutcome outcome, const sim::GridProgress& p) {
    order.push_back(k);
    EXPECT_EQ(p.done, last_done + 1);  // one at a time, counted in order
    last_done = p.done;
    EXPECT_EQ(p.total, n);
    EXPECT_EQ(outcome, k % 5 == 0 ? sim::CellOutcome::Refused : sim::CellOutcome::Ok);
    eta_finite = eta_finite && std::isfinite(p.eta_s) && p.eta_s >= 0.0;
  };
  const sim::GridProgress end = sim::runGrid(
      sim::pendingCells(n),
      [&](std::size_t c) {
        ++runs[c];
        return c % 5 == 0 ? sim::CellOutcome::Refused : sim::CellOutcome::Ok;
      },
      o);
  for (std::size_t c = 0; c < n; ++c) EXPECT_EQ(runs[c].load(), 1) << c;
  EXPECT_EQ(order.size(), n);
  EXPECT_TRUE(eta_finite);
  EXPECT_EQ(end.done, n);
  EXPECT_EQ(end.count(sim::CellOutcome::Refused), 40u);
  EXPECT_EQ(end.count(sim::CellOutcome::Ok), 160u);
  EXPECT_EQ(end.eta_s, 0.0);
  EXPECT_EQ(sim::progressLine("vary", end), "vary: 200/200 (40 refused)");
}

TEST(RunGrid, TheFirstErrorStopsTheRestAndIsRethrown) {
  std::atomic<int> started{0};
  sim::GridOptions o;
  o.threads = 2;
  EXPECT_THROW(sim::runGrid(
                   sim::pendingCells(1000),
                   [&](std::size_t c) {
                     ++started;
                     if (c == 3) throw std::runtime_error("cell 3");
                     // Cells take real time, as a simulation does: without it the other
                     // thread may finish all 1000 trivial cells while the throw unwinds
                     // (seen under the sanitizers).
                     std::this_thread::sleep_for(std::chrono::microseconds(500));
                     return sim::CellOutcome::Ok;
                   },
                   o),
               std::runtime_error);
  EXPECT_LT(started.load(), 500);
}

// A real cell: the Barrett hand closing from a start of `c` tenths of its range, 60 steps;
// the result is every actuator's position and velocity at the end.
struct Closing {
  std::shared_ptr<const sim::Model> model;
  std::vector<double> operator()(std::size_t c) const {
    const hand::HandModel& hand = model->hand();
    sim::RunPlan plan;
    for (const hand::Actuator& a : hand.actuators)
      plan.initial.push_back(a.lower + 0.1 * static_cast<double>(c) * (a.upper - a.lower));
    plan.trajectories = sim::closingReferences(hand, plan.initial).actuators;
    plan.duration = 60 * model->options.dt;
    sim::Run run(model, plan);
    run.runToEnd();
    std::vector<double> out = run.state().actuator_position;
    out.insert(out.end(), run.state().actuator_velocity.begin(),
               run.state().actuator_velocity.end());
    return out;
  }
};

Closing closing() {
  auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  return {sim::compileModel(hand, {}, sim::Options{})};
}

TEST(RunGrid, ShardsMergedEqualOneRunBitForBit) {
  const Closing cell = closing();
  const std::size_t n = 9;
  std::vector<std::vector<double>> whole(n);
  sim::GridOptions o;
  o.threads = 3;
  sim::runGrid(
      sim::pendingCells(n),
      [&](std::size_t c) {
        whole[c] = cell(c);
        return sim::CellOutcome::Ok;
      },
      o);
  std::map<std::size_t, std::vector<double>> merged;  // as shards' files merged by index
  for (int i = 0; i < 3; ++i) {
    const std::vector<std::size_t> cells = sim::pendingCells(n, {i, 3});
    std::vector<std::vector<double>> rows(cells.size());
    sim::GridOptions s;
    s.threads = 2;
    s.finished = [&](std::size_t k, sim::CellOutcome, const sim::GridProgress&) {
      EXPECT_TRUE(merged.emplace(cells[k], rows[k]).second) << cells[k];
    };
    sim::runGrid(
        cells,
        [&](std::size_t c) {
          const auto k =
              static_cast<std::size_t>(std::find(cells.begin(), cells.end(), c) - cells.begin());
          rows[k] = cell(c);
          return sim::CellOutcome::Ok;
        },
        s);
  }
  ASSERT_EQ(merged.size(), n);
  for (std::size_t c = 0; c < n; ++c) EXPECT_EQ(merged[c], whole[c]) << c;  // bit for bit
  // The cells differ (the test would pass for any constant otherwise).
  EXPECT_NE(whole[0], whole[5]);
}

TEST(RunGrid, AKilledRunResumesToTheSameRowsWithNoneTwice) {
  const Closing cell = closing();
  const std::size_t n = 8;
  std::map<std::size_t, std::vector<double>> stored;  // the results file: one row per cell
  std::map<std::size_t, int> writes;
  auto store = [&](std::size_t c, const std::vector<double>& row) {
    ++writes[c];
    stored[c] = row;
  };
  // First run: killed (an exception) when the fourth cell finishes; what finished is stored.
  {
    const std::vector<std::size_t> cells = sim::pendingCells(n);
    std::vector<std::vector<double>> rows(n);
    sim::GridOptions o;
    o.threads = 2;
    o.finished = [&](std::size_t k, sim::CellOutcome, const sim::GridProgress& p) {
      store(cells[k], rows[cells[k]]);
      if (p.done == 4) throw std::runtime_error("killed");
    };
    EXPECT_THROW(sim::runGrid(
                     cells,
                     [&](std::size_t c) {
                       rows[c] = cell(c);
                       return sim::CellOutcome::Ok;
                     },
                     o),
                 std::runtime_error);
  }
  ASSERT_GE(stored.size(), 4u);
  ASSERT_LT(stored.size(), n);
  // Resume: only the cells not stored run.
  const std::vector<std::size_t> rest =
      sim::pendingCells(n, {}, [&](std::size_t c) { return stored.count(c) > 0; });
  EXPECT_EQ(rest.size() + stored.size(), n);
  std::vector<std::vector<double>> rows(n);
  sim::GridOptions o;
  o.threads = 2;
  o.finished = [&](std::size_t k, sim::CellOutcome, const sim::GridProgress&) {
    store(rest[k], rows[rest[k]]);
  };
  sim::runGrid(
      rest,
      [&](std::size_t c) {
        rows[c] = cell(c);
        return sim::CellOutcome::Ok;
      },
      o);
  ASSERT_EQ(stored.size(), n);
  for (std::size_t c = 0; c < n; ++c) {
    EXPECT_EQ(writes[c], 1) << c;        // no row written twice
    EXPECT_EQ(stored[c], cell(c)) << c;  // the same as an uninterrupted run's
  }
}

}  // namespace
