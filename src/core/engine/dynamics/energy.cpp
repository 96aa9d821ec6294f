// SPDX-License-Identifier: GPL-3.0-or-later
// Kinetic and potential energy of a serial chain from link velocities and positions. The
// kinetic energy of a rigid body with origin velocity v_o, angular velocity w, first moment
// m c and inertia I_o about the origin (all in one frame) is
//   K = 1/2 m v_o^T v_o + v_o^T (w x m c) + 1/2 w^T I_o w
// (Goldstein, Classical Mechanics, section 5.1). It is evaluated here without D so that the
// energy tests check the dynamics.
#include "handsim/dynamics/energy.hpp"

#include <cstddef>

#include "chain_check.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::dynamics {

using kinematics::Chain;
using kinematics::DhRow;
using kinematics::JointType;

double kineticEnergy(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                     const Eigen::Ref<const Eigen::VectorXd>& qd) {
  detail::checkChainShape(chain);
  kinematics::checkJointVectorSize(chain, qd.size(), "qd");
  const kinematics::ChainFrames frames = kinematics::forwardKinematics(chain, q);
  // Velocities of frame origins and bodies in {k0}, propagated joint by joint: a revolute joint
  // adds qd z_r to the angular velocity and moves O_{r+1} about its axis; a prismatic joint
  // adds qd z_r to the linear velocity.
  Eigen::Vector3d w = Eigen::Vector3d::Zero();
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  double energy = 0.0;
  int j = 0;
  for (int r = 0; r < static_cast<int>(chain.rows.size()); ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const DhRow& row = chain.rows[ur];
    const Eigen::Isometry3d& from = frames.at(r);
    const Eigen::Isometry3d& to = frames.at(r + 1);
    // The axis passes through `point`, a point rigid with the previous link (the origin of
    // {r} for a DH row, the placement origin for a placement row).
    const kinematics::JointAxis axis = kinematics::jointAxisInBase(row, from);
    const Eigen::Vector3d& z = axis.direction;
    v += w.cross(axis.point - from.translation());
    if (row.type == JointType::Revolute) w += qd[j] * z;
    v += w.cross(to.translation() - axis.point);
    if (row.type == JointType::Prismatic) v += qd[j] * z;
    if (row.type != JointType::Fixed) ++j;

    const kinematics::LinkInertia& link = chain.links[ur];
    const Eigen::Matrix3d& rot = to.linear();
    const Eigen::Vector3d first_moment = link.mass * (rot * link.com);
    const Eigen::Vector3d w_local = rot.transpose() * w;
    energy += 0.5 * link.mass * v.squaredNorm() + v.dot(w.cross(first_moment)) +
              0.5 * w_local.dot(link.inertia * w_local);
  }
  return energy;
}

double potentialEnergy(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                       const Eigen::Vector3d& gravity_base) {
  detail::checkChainShape(chain);
  const kinematics::ChainFrames frames = kinematics::forwardKinematics(chain, q);
  double energy = 0.0;
  for (int r = 0; r < static_cast<int>(chain.rows.size()); ++r) {
    const kinematics::LinkInertia& link = chain.links[static_cast<std::size_t>(r)];
    energy -= link.mass * gravity_base.dot(frames.at(r + 1) * link.com);
  }
  return energy;
}

}  // namespace handsim::dynamics
