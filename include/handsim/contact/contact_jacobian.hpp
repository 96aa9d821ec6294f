// SPDX-License-Identifier: GPL-3.0-or-later
// The one contact Jacobian of handsim: every generalised force of a point force on a link (the
// contact constraint rows, external loads, the joint torques a contact force balances, seed 000
// eq. 11) goes through linkPointJacobianTranspose.
#pragma once

#include <Eigen/Core>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::contact {

/// J_v(p)^T d: the generalised force (dof entries, [N m] per revolute joint, [N] per prismatic
/// joint, per unit of d) of a force `direction_base` d applied at the point `point_base` p
/// rigid with frame {link_row + 1} of `chain`; both in the finger base frame {k0}, `frames`
/// the chain's forward kinematics at the current q. Joints beyond the link get 0. For a
/// unit normal d this is a contact constraint row in joint space; for a force [N] it is the
/// torque vector the force produces (tau = J_v^T f, Spong et al., Robot Modeling and Control,
/// eq. 4.88). Throws std::invalid_argument when link_row is not a row of the chain.
kinematics::JointVector linkPointJacobianTranspose(const kinematics::Chain& chain,
                                                   const kinematics::ChainFrames& frames,
                                                   int link_row, const Eigen::Vector3d& point_base,
                                                   const Eigen::Vector3d& direction_base);

/// J_w^T m: the generalised force (per unit of m) of a pure moment `axis_base` m on the link
/// rigid with frame {link_row + 1}, in the finger base frame: the angular rows of the geometric
/// Jacobian (Spong et al. eq. 4.88 with a moment; a prismatic joint gets 0). For a unit axis it
/// is the row of the link's angular velocity about that axis (a torsional friction row).
/// Throws std::invalid_argument when link_row is not a row of the chain.
kinematics::JointVector linkAngularJacobianTranspose(const kinematics::Chain& chain,
                                                     const kinematics::ChainFrames& frames,
                                                     int link_row,
                                                     const Eigen::Vector3d& axis_base);

}  // namespace handsim::contact
