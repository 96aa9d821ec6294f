// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <cstdint>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::dynamics {

/// Joint accelerations qdd = D^-1 (tau - H - C) [rad/s^2 or m/s^2] (dof), with D, H, C from
/// lagrangeEuler(). Bit j of locked_mask set = movable joint j is locked (clutch engaged): its
/// qd and qdd are zero (a non-zero qd[j] is ignored) and it is removed from the system (its
/// row/column dropped, the reduced D factored by LDLT); the returned qdd has 0 there. The mask
/// reaches joints 0-31: joints beyond (chains longer than 32) are always free.
/// `q`, `qd`, `tau` [N m or N] have chain.dof() entries. Throws std::invalid_argument on a size
/// mismatch or when locked_mask has a bit at or above chain.dof().
kinematics::JointVector forwardDynamics(const kinematics::Chain& chain,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& tau,
                                        const Eigen::Vector3d& gravity_base,
                                        std::uint32_t locked_mask = 0);

}  // namespace handsim::dynamics
