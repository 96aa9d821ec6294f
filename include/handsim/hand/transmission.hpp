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

/// Adds R^T g to the actuator-space vector `out`: g is a joint-space quantity of one finger (a
/// Jacobian row, a generalised force) and `finger_drives` that finger's effective drives, so each
/// joint j adds ratio_j g_j to its actuator's entry. A direction at a link point projected
/// through the drives (a constraint row), a link load reflected to the actuators, all go
/// through here. `g` is any Eigen vector expression (evaluated entry by entry, no temporary);
/// `out` is any Eigen vector or row indexable by actuator.
template <class G, class Out>
void addThroughDrives(const std::vector<EffectiveDrive>& finger_drives, const G& g, Out&& out) {
  for (std::size_t j = 0; j < finger_drives.size(); ++j) {
    const EffectiveDrive& e = finger_drives[j];
    if (e.ratio == 0.0) continue;
    out(static_cast<Eigen::Index>(e.actuator)) += e.ratio * g[static_cast<Eigen::Index>(j)];
  }
}

/// Adds R^T D R, the joint-space inertia `d` of one finger reflected through its drives, to the
/// actuator-space inertia `m` (na x na).
void addActuatorInertia(const std::vector<EffectiveDrive>& finger_drives,
                        const kinematics::JointMatrix& d, Eigen::MatrixXd& m);

/// Narrows the actuator range [lower, upper] to the values for which a joint with limits
/// [joint_lower, joint_upper], driven as q = ratio a + offset, stays within them (either sign of
/// ratio; ratio 0, a locked joint, narrows nothing).
void narrowByJointLimits(double joint_lower, double joint_upper, double ratio, double offset,
                         double& lower, double& upper);

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
