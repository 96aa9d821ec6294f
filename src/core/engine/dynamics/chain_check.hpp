// SPDX-License-Identifier: GPL-3.0-or-later
// Private to the dynamics sources: the structural checks every algorithm needs before it
// indexes its per-row arrays.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::dynamics::detail {

/// Throws std::invalid_argument unless the chain has one LinkInertia per row.
inline void checkChainShape(const kinematics::Chain& chain) {
  if (chain.links.size() != chain.rows.size())
    throw std::invalid_argument("finger '" + chain.name + "' has " +
                                std::to_string(chain.links.size()) + " link inertias for " +
                                std::to_string(chain.rows.size()) + " DH rows");
}

}  // namespace handsim::dynamics::detail
