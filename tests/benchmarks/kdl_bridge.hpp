// SPDX-License-Identifier: GPL-3.0-or-later
// Converting handsim chains for Orocos KDL, the peer in the benchmarks.
#pragma once

#include <Eigen/Core>
#include <kdl/chain.hpp>
#include <kdl/jntarray.hpp>

#include "handsim/kinematics/chain.hpp"

namespace handsim::bench {

/// The same chain for KDL: one segment per DH row, joint about/along z of the segment root,
/// tip frame Frame::DH(a, alpha, d, theta) (Rz(q) commutes with Rz(theta) Tz(d), Tz(q) with
/// Tz(d)). KDL wants the rotational inertia about the centre of mass (in the segment tip frame,
/// which is our link frame), so the tensor about the origin is moved by the parallel-axis
/// theorem.
inline KDL::Chain toKdl(const kinematics::Chain& chain) {
  KDL::Chain out;
  for (std::size_t r = 0; r < chain.rows.size(); ++r) {
    const kinematics::DhRow& row = chain.rows[r];
    const kinematics::LinkInertia& l = chain.links[r];
    KDL::Joint::JointType type = KDL::Joint::None;
    if (row.type == kinematics::JointType::Revolute) type = KDL::Joint::RotZ;
    if (row.type == kinematics::JointType::Prismatic) type = KDL::Joint::TransZ;
    const Eigen::Matrix3d ic =
        l.inertia -
        l.mass * (l.com.squaredNorm() * Eigen::Matrix3d::Identity() - l.com * l.com.transpose());
    const KDL::RigidBodyInertia inertia(
        l.mass, KDL::Vector(l.com.x(), l.com.y(), l.com.z()),
        KDL::RotationalInertia(ic(0, 0), ic(1, 1), ic(2, 2), ic(0, 1), ic(0, 2), ic(1, 2)));
    out.addSegment(KDL::Segment(KDL::Joint(type),
                                KDL::Frame::DH(row.a, row.alpha, row.d, row.theta), inertia));
  }
  return out;
}

inline KDL::JntArray toKdl(const Eigen::VectorXd& v) {
  KDL::JntArray out(static_cast<unsigned int>(v.size()));
  out.data = v;
  return out;
}

}  // namespace handsim::bench
