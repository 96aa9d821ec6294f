// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <vector>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::kinematics {

/// True when the chain has the BarrettHand finger's structure: row 0 turns about z_k0 (spread,
/// revolute or fixed) with d = 0 and alpha = +-90 deg; rows 1 and 2 are revolute with
/// alpha = 0 and d = 0 (two parallel flexion axes).
bool isBarrettFinger(const Chain& chain);

/// Closed-form inverse kinematics of a BarrettHand finger (seed 000 eq. 5-7, derived in
/// docs/kinematics.md): theta1 = atan2(p_y, p_x) (or that + pi), then the planar two-link
/// problem in the finger plane, law of cosines for the outer joint, difference of two angles
/// for the inner one, the Phi offsets and the A1 offset included. Target in {k0} [m].
/// Returns every solution within the joint limits, the one nearest `q_ref` first; empty when
/// none.
std::vector<JointVector> barrettFingerIkAll(const Chain& chain, const Eigen::Vector3d& target,
                                            const Eigen::Ref<const Eigen::VectorXd>& q_ref);

/// The first of barrettFingerIkAll, or throws UnreachableTarget with the miss distance.
JointVector barrettFingerIk(const Chain& chain, const Eigen::Vector3d& target,
                            const Eigen::Ref<const Eigen::VectorXd>& q_ref);

/// True when the chain's last three rows are planar revolute (alpha = 0, d = 0).
bool isPlanarThreeLinkFinger(const Chain& chain);

/// Closed-form inverse kinematics of a planar three-link finger with tip orientation
/// (seed 003): target (x, y) [m] and phi [rad] in frame {n-3}, the frame of the first planar
/// joint, where phi is the angle of the last link's x axis, i.e. the sum of the three joint
/// angles and their DH offsets. Joints before the planar rows keep their values in `q_ref`.
/// Returns the solutions within limits (elbow up/down), nearest to q_ref first.
std::vector<JointVector> planarFingerIkAll(const Chain& chain, double x, double y, double phi,
                                           const Eigen::Ref<const Eigen::VectorXd>& q_ref);

/// The first of planarFingerIkAll, or throws UnreachableTarget with the miss distance.
JointVector planarFingerIk(const Chain& chain, double x, double y, double phi,
                           const Eigen::Ref<const Eigen::VectorXd>& q_ref);

}  // namespace handsim::kinematics
