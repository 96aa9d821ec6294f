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

/// Throws std::invalid_argument when link_row is not a row of the chain.
void checkLinkRow(const kinematics::Chain& chain, int link_row);

/// Calls visit(j, g_j) for every movable joint j that carries the link rigid with frame
/// {link_row + 1} (the joints after it have g_j = 0 and are not visited), with g = J_v(p)^T d
/// as linkPointJacobianTranspose below. Writes nothing itself: the step adds the entries to
/// its own vectors and rows without a joint-space temporary, for a chain of any length.
template <class Visit>
void visitLinkPointJacobianTranspose(const kinematics::Chain& chain,
                                     const kinematics::ChainFrames& frames, int link_row,
                                     const Eigen::Vector3d& point_base,
                                     const Eigen::Vector3d& direction_base, Visit&& visit) {
  checkLinkRow(chain, link_row);
  int j = 0;
  for (int r = 0; r <= link_row; ++r) {
    const kinematics::DhRow& row = chain.rows[static_cast<std::size_t>(r)];
    if (row.type == kinematics::JointType::Fixed) continue;
    // The column of the geometric Jacobian: z x (p - a) for a revolute joint about the axis
    // through a, z for a prismatic joint (Spong et al. eq. 4.52), dotted with d.
    const kinematics::JointAxis ax = kinematics::jointAxisInBase(row, frames.at(r));
    const double g = row.type == kinematics::JointType::Revolute
                         ? direction_base.dot(ax.direction.cross(point_base - ax.point))
                         : direction_base.dot(ax.direction);
    visit(j++, g);
  }
}

/// Calls visit(j, g_j) with g = J_w^T m (linkAngularJacobianTranspose below) for every movable
/// joint that carries the link (a prismatic joint's entry is 0).
template <class Visit>
void visitLinkAngularJacobianTranspose(const kinematics::Chain& chain,
                                       const kinematics::ChainFrames& frames, int link_row,
                                       const Eigen::Vector3d& axis_base, Visit&& visit) {
  checkLinkRow(chain, link_row);
  int j = 0;
  for (int r = 0; r <= link_row; ++r) {
    const kinematics::DhRow& row = chain.rows[static_cast<std::size_t>(r)];
    if (row.type == kinematics::JointType::Fixed) continue;
    const double g = row.type == kinematics::JointType::Revolute
                         ? axis_base.dot(kinematics::jointAxisInBase(row, frames.at(r)).direction)
                         : 0.0;
    visit(j++, g);
  }
}

/// Velocity J_v(p) qd of the point p (finger base frame {k0}, rigid with the link of
/// link_row) from the joint velocities `qd` (the finger base held still) [m/s].
Eigen::Vector3d linkPointVelocity(const kinematics::Chain& chain,
                                  const kinematics::ChainFrames& frames, int link_row,
                                  const Eigen::Vector3d& point_base,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd);

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
