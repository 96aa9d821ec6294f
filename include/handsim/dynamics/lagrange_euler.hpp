// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <vector>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::dynamics {

/// The terms of the closed-form joint-space equation of motion tau = D(q) qdd + H(q, qd) + C(q)
/// (Fu, Gonzalez & Lee, Robotics: Control, Sensing, Vision and Intelligence, 1987, section 3.2).
struct DynamicsTerms {
  kinematics::JointMatrix D;  ///< inertia matrix [kg m^2] (dof x dof)
  kinematics::JointVector H;  ///< Coriolis/centrifugal torques [N m] (dof)
  kinematics::JointVector C;  ///< gravity torques [N m] (dof)
};

/// Per-row working memory of the Lagrange-Euler algorithms (any number of rows): resized to the
/// chain on each call, so a scratch kept with a simulation state stops allocating after the
/// first call for each of its chains.
struct LagrangeEulerScratch {
  /// J~_r: pseudo-inertia of link r in {k0} [kg m^2, kg m, kg] (rows).
  std::vector<Eigen::Matrix4d> pseudo;
  /// Delta_r = T_r Q_r T_r^-1 (top three rows) of movable row r (rows).
  std::vector<Eigen::Matrix<double, 3, 4>> delta;
  /// The forward pass's acceleration terms B_r (or A_r with qdd and gravity) (rows).
  std::vector<Eigen::Matrix<double, 3, 4>> acceleration;
  std::vector<int> joint;  ///< joint index of row r, -1 for a fixed row (rows)
};

/// D, H and C of one chain by the Lagrange-Euler formulation (Fu, Gonzalez & Lee, ch. 3.2;
/// derivation in docs/dynamics.md). `q` and `qd` have chain.dof() entries [rad or m, rad/s or
/// m/s]. gravity_base: gravitational acceleration expressed in the chain base frame {k0}
/// [m/s^2], e.g. (0,0,-9.81) when z_k0 points up. Throws std::invalid_argument on a size
/// mismatch. Units of D, H, C: per joint, [N m] for revolute and [N] for prismatic joints.
DynamicsTerms lagrangeEuler(const kinematics::Chain& chain,
                            const Eigen::Ref<const Eigen::VectorXd>& q,
                            const Eigen::Ref<const Eigen::VectorXd>& qd,
                            const Eigen::Vector3d& gravity_base);

/// The same from the chain's forward kinematics at q (kinematics::forwardKinematics), which the
/// simulator's kinematics stage has already computed: no second pass of sines and cosines.
/// Throws std::invalid_argument when `frames` do not belong to a chain of this length.
DynamicsTerms lagrangeEuler(const kinematics::Chain& chain,
                            const kinematics::ChainFrames& frames,
                            const Eigen::Ref<const Eigen::VectorXd>& qd,
                            const Eigen::Vector3d& gravity_base);

/// The same into `out` with the working memory `scratch`: the simulator's step calls this with
/// both kept in its workspace, and it then allocates nothing (out's D, H, C already have the
/// chain's size after the first call).
void lagrangeEuler(const kinematics::Chain& chain, const kinematics::ChainFrames& frames,
                   const Eigen::Ref<const Eigen::VectorXd>& qd, const Eigen::Vector3d& gravity_base,
                   DynamicsTerms& out, LagrangeEulerScratch& scratch);

/// Joint torques/forces tau = D qdd + H + C [N m or N] (dof) for the Lagrange-Euler model,
/// evaluated without forming D (the same trace sums, factored; see docs/dynamics.md).
/// `qdd` [rad/s^2 or m/s^2] has chain.dof() entries. Throws std::invalid_argument on a size
/// mismatch.
kinematics::JointVector inverseDynamicsLagrangeEuler(const kinematics::Chain& chain,
                                                     const Eigen::Ref<const Eigen::VectorXd>& q,
                                                     const Eigen::Ref<const Eigen::VectorXd>& qd,
                                                     const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                                     const Eigen::Vector3d& gravity_base);

}  // namespace handsim::dynamics
