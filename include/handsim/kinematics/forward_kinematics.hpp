// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Geometry>
#include <vector>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::kinematics {

/// Every frame of a chain in its base frame {k0}: at(0) is the identity, at(i) = 0T_i; the
/// last one (at(rows)) is the fingertip frame. Any number of rows; forwardKinematics(chain, q,
/// frames) reuses the storage, so refilling frames of the same chain does not allocate.
struct ChainFrames {
  std::vector<Eigen::Isometry3d> frame;  ///< count entries
  int count = 0;                         ///< rows + 1
  const Eigen::Isometry3d& at(int i) const { return frame[static_cast<std::size_t>(i)]; }
  const Eigen::Isometry3d& tip() const { return frame[static_cast<std::size_t>(count - 1)]; }
};

/// Forward kinematics by the DH product (seed 000 Table I; Spong, Robot Modeling and Control,
/// eq. 3.10). `q` has chain.dof() entries; fixed rows take none. Throws std::invalid_argument
/// on a size mismatch.
ChainFrames forwardKinematics(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q);

/// The same into `out` (resized to rows + 1; no allocation when it held this chain's frames).
void forwardKinematics(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                       ChainFrames& out);

/// Fingertip position in the finger base frame {k0} [m].
Eigen::Vector3d fingertipPosition(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q);

/// Geometric Jacobian (6 x dof) of the point `point_in_frame` rigid with frame {frame_index},
/// expressed in {k0}: v = J.topRows(3) qd, w = J.bottomRows(3) qd. frame_index -1 means the
/// fingertip frame. Only joints before that frame contribute; the others get zero columns.
Jacobian geometricJacobian(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                           int frame_index = -1,
                           const Eigen::Vector3d& point_in_frame = Eigen::Vector3d::Zero());

/// Same, reusing frames already computed for this q.
Jacobian geometricJacobian(const Chain& chain, const ChainFrames& frames, int frame_index = -1,
                           const Eigen::Vector3d& point_in_frame = Eigen::Vector3d::Zero());

/// Same into `out` (resized to 6 x dof; no allocation when it had that size already).
void geometricJacobian(const Chain& chain, const ChainFrames& frames, int frame_index,
                       const Eigen::Vector3d& point_in_frame, Jacobian& out);

/// Throws std::invalid_argument unless q.size() == chain.dof() (names `what` in the message).
void checkJointVectorSize(const Chain& chain, Eigen::Index size, const char* what);

}  // namespace handsim::kinematics
