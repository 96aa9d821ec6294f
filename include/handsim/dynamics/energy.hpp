// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>

#include "handsim/kinematics/chain.hpp"

namespace handsim::dynamics {

/// Kinetic energy of the chain's links [J], sum of (1/2 m v_c^2 + 1/2 w^T I_c w), computed from
/// the link velocities (not from D, so it checks D). `q`, `qd` have chain.dof() entries.
/// Throws std::invalid_argument on a size mismatch.
double kineticEnergy(const kinematics::Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                     const Eigen::Ref<const Eigen::VectorXd>& qd);

/// Potential energy of the chain's links in gravity [J], -sum_j m_j g^T p_com,j with the centres
/// of mass p_com,j and gravity_base [m/s^2] both in the base frame {k0} (zero at the base
/// origin). `q` has chain.dof() entries. Throws std::invalid_argument on a size mismatch.
double potentialEnergy(const kinematics::Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Vector3d& gravity_base);

}  // namespace handsim::dynamics
