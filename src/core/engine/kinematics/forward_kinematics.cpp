// SPDX-License-Identifier: GPL-3.0-or-later
// Standard DH forward kinematics and the geometric Jacobian
// (Spong, Hutchinson, Vidyasagar, Robot Modeling and Control, sections 3.2 and 4.6).
#include "handsim/kinematics/forward_kinematics.hpp"

#include <stdexcept>
#include <string>

namespace handsim::kinematics {

void checkJointVectorSize(const Chain& chain, Eigen::Index size, const char* what) {
  if (size != chain.dof())
    throw std::invalid_argument(std::string(what) + " has " + std::to_string(size) +
                                " entries but finger '" + chain.name + "' has " +
                                std::to_string(chain.dof()) + " joints");
}

ChainFrames forwardKinematics(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q) {
  ChainFrames out;
  forwardKinematics(chain, q, out);
  return out;
}

void forwardKinematics(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                       ChainFrames& out) {
  checkJointVectorSize(chain, q.size(), "q");
  const int n = static_cast<int>(chain.rows.size());
  out.frame.resize(static_cast<std::size_t>(n) + 1);
  out.count = n + 1;
  out.frame[0].setIdentity();
  int j = 0;
  for (int r = 0; r < n; ++r) {
    const DhRow& row = chain.rows[static_cast<std::size_t>(r)];
    const double qr = row.type == JointType::Fixed ? 0.0 : q[j++];
    out.frame[static_cast<std::size_t>(r + 1)] =
        out.frame[static_cast<std::size_t>(r)] * dhTransform(row, qr);
  }
}

Eigen::Vector3d fingertipPosition(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q) {
  return forwardKinematics(chain, q).tip().translation();
}

Jacobian geometricJacobian(const Chain& chain, const ChainFrames& frames, int frame_index,
                           const Eigen::Vector3d& point_in_frame) {
  Jacobian jac;
  geometricJacobian(chain, frames, frame_index, point_in_frame, jac);
  return jac;
}

void geometricJacobian(const Chain& chain, const ChainFrames& frames, int frame_index,
                       const Eigen::Vector3d& point_in_frame, Jacobian& jac) {
  const int last = frames.count - 1;
  if (frame_index < 0) frame_index = last;
  if (frame_index > last) throw std::invalid_argument("frame index out of range");
  const Eigen::Vector3d p = frames.at(frame_index) * point_in_frame;
  jac.setZero(6, chain.dof());
  int j = 0;
  for (int r = 0; r < static_cast<int>(chain.rows.size()); ++r) {
    const DhRow& row = chain.rows[static_cast<std::size_t>(r)];
    if (row.type == JointType::Fixed) continue;
    // Joint r moves frames r+1.. about/along its axis (z of frame r for a DH row).
    if (r < frame_index) {
      const JointAxis ax = jointAxisInBase(row, frames.at(r));
      const Eigen::Vector3d& z = ax.direction;
      if (row.type == JointType::Revolute) {
        jac.block<3, 1>(0, j) = z.cross(p - ax.point);
        jac.block<3, 1>(3, j) = z;
      } else {
        jac.block<3, 1>(0, j) = z;
      }
    }
    ++j;
  }
}

Jacobian geometricJacobian(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                           int frame_index, const Eigen::Vector3d& point_in_frame) {
  return geometricJacobian(chain, forwardKinematics(chain, q), frame_index, point_in_frame);
}

}  // namespace handsim::kinematics
