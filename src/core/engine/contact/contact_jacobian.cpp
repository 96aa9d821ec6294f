// SPDX-License-Identifier: GPL-3.0-or-later
// tau = J_v(p)^T f for a point force on a link (Spong, Hutchinson and Vidyasagar, Robot
// Modeling and Control, 2006, eq. 4.88).
#include "handsim/contact/contact_jacobian.hpp"

#include <stdexcept>
#include <string>

namespace handsim::contact {

void checkLinkRow(const kinematics::Chain& chain, int link_row) {
  if (link_row < 0 || link_row >= static_cast<int>(chain.rows.size()))
    throw std::invalid_argument("link_row " + std::to_string(link_row) + " is outside finger '" +
                                chain.name + "' with " + std::to_string(chain.rows.size()) +
                                " rows");
}

kinematics::JointVector linkPointJacobianTranspose(const kinematics::Chain& chain,
                                                   const kinematics::ChainFrames& frames,
                                                   int link_row, const Eigen::Vector3d& point_base,
                                                   const Eigen::Vector3d& direction_base) {
  kinematics::JointVector g = kinematics::JointVector::Zero(chain.dof());
  visitLinkPointJacobianTranspose(chain, frames, link_row, point_base, direction_base,
                                  [&g](int j, double v) { g[j] = v; });
  return g;
}

kinematics::JointVector linkAngularJacobianTranspose(const kinematics::Chain& chain,
                                                     const kinematics::ChainFrames& frames,
                                                     int link_row,
                                                     const Eigen::Vector3d& axis_base) {
  kinematics::JointVector g = kinematics::JointVector::Zero(chain.dof());
  visitLinkAngularJacobianTranspose(chain, frames, link_row, axis_base,
                                    [&g](int j, double v) { g[j] = v; });
  return g;
}

Eigen::Vector3d linkPointVelocity(const kinematics::Chain& chain,
                                  const kinematics::ChainFrames& frames, int link_row,
                                  const Eigen::Vector3d& point_base,
                                  const Eigen::Ref<const Eigen::VectorXd>& qd) {
  kinematics::checkJointVectorSize(chain, qd.size(), "qd");
  checkLinkRow(chain, link_row);
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  int j = 0;
  for (int r = 0; r <= link_row; ++r) {
    const kinematics::DhRow& row = chain.rows[static_cast<std::size_t>(r)];
    if (row.type == kinematics::JointType::Fixed) continue;
    const kinematics::JointAxis ax = kinematics::jointAxisInBase(row, frames.at(r));
    v += qd[j++] * (row.type == kinematics::JointType::Revolute
                        ? Eigen::Vector3d(ax.direction.cross(point_base - ax.point))
                        : ax.direction);
  }
  return v;
}

}  // namespace handsim::contact
