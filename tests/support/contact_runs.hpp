// SPDX-License-Identifier: GPL-3.0-or-later
// The contacts of one pair kind among a state's one contact list (SimState::contacts), for the
// engine's tests: links on objects, objects pushed by the ground, the palm or other objects, or
// links on links and the palm (sim::ContactPair, BodyTable::pairOf).
#pragma once

#include <vector>

#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::test {

/// Copies of the contacts of `s` between bodies of `kind`, in the list's order.
inline std::vector<sim::Contact> contactsOf(const sim::Model& model, const sim::SimState& s,
                                            sim::ContactPair kind) {
  std::vector<sim::Contact> out;
  for (const sim::Contact& c : s.contacts)
    if (model.bodies.pairOf(c) == kind) out.push_back(c);
  return out;
}

/// How many contacts of `s` are between bodies of `kind` (allocates nothing).
inline std::size_t contactCount(const sim::Model& model, const sim::SimState& s,
                                sim::ContactPair kind) {
  std::size_t n = 0;
  for (const sim::Contact& c : s.contacts) n += model.bodies.pairOf(c) == kind ? 1 : 0;
  return n;
}

}  // namespace handsim::test
