// SPDX-License-Identifier: GPL-3.0-or-later
// Contact force magnitude from joint torques: the well-posed form of seed 000 eq. 11
// (docs/design.md section 4; derivation in docs/collision.md, "Contact force from joint torques").
#pragma once

#include <Eigen/Core>
#include <string>

#include "handsim/kinematics/chain.hpp"

namespace handsim::contact {

/// Default smallest lever |a| for which the force is considered observable [m] (|a| is the
/// norm of the torques a unit force along the normal produces, N m per N).
inline constexpr double kDefaultLeverTolerance = 1e-6;

/// Least-squares estimate of a frictionless contact force f d from the torques of the joints
/// that carry the contact link.
struct ContactForceEstimate {
  double force_n = 0.0;      ///< f: force along the normal d [N]; > 0 pushes along d
  double residual_nm = 0.0;  ///< |tau_c - a f| over the carrying joints [N m]
  double lever_m = 0.0;      ///< |a|: torque per newton along d [N m / N = m]
  int joints_used = 0;       ///< movable joints that carry the link
  bool well_posed = false;   ///< false when |a| < tolerance (f is then 0)
  std::string explanation;   ///< why it is not well posed; empty otherwise
};

/// Solves tau_m = a_m f, a_m = Z_m . ((p_c - p_m) x d) (revolute; Z_m . d for prismatic), in the
/// least-squares sense over the movable joints m at rows 0..link_row: f = (a . tau) / (a . a).
/// `q` and `tau` [N m or N] have chain.dof() entries (joints beyond the link are ignored);
/// `link_row` is the DH row whose frame {link_row + 1} the contact link is rigid with;
/// `point_base` p_c [m] and `normal_base` d (any non-zero length, normalised here) are in the
/// finger base {k0}. Throws std::invalid_argument on size or row errors.
ContactForceEstimate contactForceFromTorques(const kinematics::Chain& chain,
                                             const Eigen::Ref<const Eigen::VectorXd>& q,
                                             int link_row, const Eigen::Vector3d& point_base,
                                             const Eigen::Vector3d& normal_base,
                                             const Eigen::Ref<const Eigen::VectorXd>& tau,
                                             double lever_tolerance_m = kDefaultLeverTolerance);

/// Joint torques (chain.dof() entries) [N m or N] that balance a force `force_base` [N] applied
/// at `point_base` [m] on the link rigid with frame {link_row + 1}, both in {k0}:
/// tau = J_v^T f (zero for joints beyond the link).
Eigen::VectorXd jointTorquesFromContactForce(const kinematics::Chain& chain,
                                             const Eigen::Ref<const Eigen::VectorXd>& q,
                                             int link_row, const Eigen::Vector3d& point_base,
                                             const Eigen::Vector3d& force_base);

}  // namespace handsim::contact
