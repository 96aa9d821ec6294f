// SPDX-License-Identifier: GPL-3.0-or-later
// tau = J_v(p)^T f for a point force on a link (Spong, Hutchinson and Vidyasagar, Robot
// Modeling and Control, 2006, eq. 4.88).
#include "handsim/contact/contact_jacobian.hpp"

#include <stdexcept>
#include <string>

namespace handsim::contact {

namespace {

void checkRow(const kinematics::Chain& chain, int link_row) {
  if (link_row < 0 || link_row >= static_cast<int>(chain.rows.size()))
    throw std::invalid_argument("link_row " + std::to_string(link_row) + " is outside finger '" +
                                chain.name + "' with " + std::to_string(chain.rows.size()) +
                                " rows");
}

}  // namespace

kinematics::JointVector linkPointJacobianTranspose(const kinematics::Chain& chain,
                                                   const kinematics::ChainFrames& frames,
                                                   int link_row, const Eigen::Vector3d& point_base,
                                                   const Eigen::Vector3d& direction_base) {
  checkRow(chain, link_row);
  const Eigen::Vector3d local = frames.at(link_row + 1).inverse() * point_base;
  return kinematics::geometricJacobian(chain, frames, link_row + 1, local)
             .topRows<3>()
             .transpose() *
         direction_base;
}

kinematics::JointVector linkAngularJacobianTranspose(const kinematics::Chain& chain,
                                                     const kinematics::ChainFrames& frames,
                                                     int link_row,
                                                     const Eigen::Vector3d& axis_base) {
  checkRow(chain, link_row);
  return kinematics::geometricJacobian(chain, frames, link_row + 1, Eigen::Vector3d::Zero())
             .bottomRows<3>()
             .transpose() *
         axis_base;
}

}  // namespace handsim::contact
