// SPDX-License-Identifier: GPL-3.0-or-later
// Planner options for tests: every force-closure candidate of a small budget kept, a short
// descent and a short closing (the defaults of docs/planner.md take seconds per candidate).
#pragma once

#include "handsim/planner/planner.hpp"

namespace handsim::test {

inline planner::PlannerOptions quickPlanner(int candidates, unsigned threads = 2,
                                            double close_time = 0.3) {
  planner::PlannerOptions o;
  o.grasps = 0;  // every force-closure candidate that is distinct
  o.candidates = candidates;
  o.descent_steps = 10;
  o.closing.close_time = close_time;
  o.closing.settle_time = 0.1;
  o.threads = threads;
  return o;
}

}  // namespace handsim::test
