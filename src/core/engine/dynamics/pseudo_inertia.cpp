// SPDX-License-Identifier: GPL-3.0-or-later
// Pseudo-inertia of a rigid link (Fu, Gonzalez & Lee, Robotics: Control, Sensing, Vision and
// Intelligence, section 3.2). With I = integral((r^T r) 1 - r r^T dm) about the frame origin,
// tr(I) = 2 integral(r^T r dm), hence integral(r r^T dm) = (tr(I)/2) 1 - I (docs/dynamics.md).
#include "handsim/dynamics/pseudo_inertia.hpp"

namespace handsim::dynamics {

Eigen::Matrix4d pseudoInertia(const kinematics::LinkInertia& link) {
  Eigen::Matrix4d j;
  j.topLeftCorner<3, 3>() = 0.5 * link.inertia.trace() * Eigen::Matrix3d::Identity() - link.inertia;
  j.topRightCorner<3, 1>() = link.mass * link.com;
  j.bottomLeftCorner<1, 3>() = link.mass * link.com.transpose();
  j(3, 3) = link.mass;
  return j;
}

Eigen::Matrix4d pseudoInertiaInBase(const kinematics::LinkInertia& link,
                                    const Eigen::Isometry3d& link_to_base) {
  // T J T^T in blocks, T = [R p; 0 1], J = [E h; h^T m]:
  // [ R E R^T + h' p^T + p h'^T + m p p^T , h' + m p ; (.)^T , m ] with h' = R h.
  // Cheaper than two 4x4 products and exactly symmetric.
  const Eigen::Matrix3d& r = link_to_base.linear();
  const Eigen::Vector3d p = link_to_base.translation();
  const Eigen::Matrix3d e = 0.5 * link.inertia.trace() * Eigen::Matrix3d::Identity() - link.inertia;
  const Eigen::Vector3d h = r * (link.mass * link.com);
  const Eigen::Vector3d first_moment = h + link.mass * p;
  Eigen::Matrix4d out;
  out.topLeftCorner<3, 3>() =
      r * e * r.transpose() + h * p.transpose() + p * h.transpose() + link.mass * p * p.transpose();
  out.topRightCorner<3, 1>() = first_moment;
  out.bottomLeftCorner<1, 3>() = first_moment.transpose();
  out(3, 3) = link.mass;
  return out;
}

}  // namespace handsim::dynamics
