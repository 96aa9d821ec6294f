// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::hand {

/// How one joint follows its actuator at the current clutch states:
/// q = ratio * a + offset, qd = ratio * ad, qdd = ratio * add.
struct EffectiveDrive {
  int actuator = -1;
  double ratio = 0.0;   ///< [joint unit per actuator unit]; 0 while locked by a broken clutch
  double offset = 0.0;  ///< [rad or m]
};

/// Effective drives of every joint, indexed [finger][joint] (seed 000 eq. 1-4; eq. 10 for a
/// broken-away clutch: the inner joint is frozen at r_i a_break and the outer follows
/// (r_o + r_i) a - r_i a_break). `clutches` has one state per hand.clutches entry (or is empty:
/// all engaged).
std::vector<std::vector<EffectiveDrive>> effectiveDrives(const HandModel& hand,
                                                         const std::vector<ClutchState>& clutches);
/// The same, written into `out` (resized to [finger][joint]); allocates nothing when `out`
/// already has those sizes (the simulator's step).
void effectiveDrives(const HandModel& hand, const std::vector<ClutchState>& clutches,
                     std::vector<std::vector<EffectiveDrive>>& out);

/// Joint positions [finger] from actuator positions (size = hand.actuators.size()).
std::vector<kinematics::JointVector> jointPositions(const HandModel& hand,
                                                    const std::vector<double>& actuator_positions,
                                                    const std::vector<ClutchState>& clutches = {});

/// Clamps actuator positions into their ranges. Each clamped value adds a message such as
/// "M1: 20000 counts is above the range [0, 17500]; clamped" to `messages`.
std::vector<double> clampActuators(const HandModel& hand, std::vector<double> positions,
                                   std::vector<std::string>* messages = nullptr);

/// Joint limits reached by the given joint positions: messages "F1.J2: 150 deg is above ...".
std::vector<std::string> jointLimitViolations(const HandModel& hand,
                                              const std::vector<kinematics::JointVector>& q);

}  // namespace handsim::hand
