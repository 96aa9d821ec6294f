// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::dynamics {

/// Joint torques/forces [N m or N] (dof) by the recursive Newton-Euler algorithm of Luh, Walker
/// & Paul (Fu, Gonzalez & Lee, section 3.3), written independently of the
/// Lagrange-Euler code so each checks the other. Handles revolute, prismatic and fixed rows.
/// `q`, `qd`, `qdd` have chain.dof() entries; gravity_base is the gravitational acceleration in
/// the chain base frame {k0} [m/s^2]. Throws std::invalid_argument on a size mismatch.
kinematics::JointVector inverseDynamicsNewtonEuler(const kinematics::Chain& chain,
                                                   const Eigen::Ref<const Eigen::VectorXd>& q,
                                                   const Eigen::Ref<const Eigen::VectorXd>& qd,
                                                   const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                                   const Eigen::Vector3d& gravity_base);

}  // namespace handsim::dynamics
