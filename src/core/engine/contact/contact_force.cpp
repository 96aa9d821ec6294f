// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 000 eq. 11 "inverts" the cross-product matrix [p_c - p_km]x, which has rank 2. What the
// torques determine for a frictionless contact is the magnitude f along the known normal d:
// tau_m = Z_m . ((p_c - p_m) x f d) = a_m f, solved by least squares (docs/design.md section 4).
#include "handsim/contact/contact_force.hpp"

#include <stdexcept>
#include <string>

#include "handsim/contact/contact_jacobian.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::contact {

ContactForceEstimate contactForceFromTorques(const kinematics::Chain& chain,
                                             const Eigen::Ref<const Eigen::VectorXd>& q,
                                             int link_row, const Eigen::Vector3d& point_base,
                                             const Eigen::Vector3d& normal_base,
                                             const Eigen::Ref<const Eigen::VectorXd>& tau,
                                             double lever_tolerance_m) {
  kinematics::checkJointVectorSize(chain, tau.size(), "tau");
  checkLinkRow(chain, link_row);
  const kinematics::ChainFrames frames = kinematics::forwardKinematics(chain, q);
  ContactForceEstimate out;
  const double len = normal_base.norm();
  if (!(len > 0.0) || !normal_base.allFinite()) {
    out.explanation = "the contact normal is zero or not finite";
    return out;
  }
  const Eigen::Vector3d d = normal_base / len;
  const kinematics::JointVector a_all =
      linkPointJacobianTranspose(chain, frames, link_row, point_base, d);
  // Only joints at rows 0..link_row move the link; the others would add zero rows to a and
  // their torques do not belong to this contact.
  Eigen::VectorXd a(chain.dof()), t(chain.dof());
  int used = 0;
  for (int r = 0, j = 0; r < static_cast<int>(chain.rows.size()); ++r) {
    if (chain.rows[static_cast<std::size_t>(r)].type == kinematics::JointType::Fixed) continue;
    if (r <= link_row) {
      a[used] = a_all[j];
      t[used] = tau[j];
      ++used;
    }
    ++j;
  }
  const auto av = a.head(used), tv = t.head(used);
  out.joints_used = used;
  out.lever_m = av.norm();
  if (out.lever_m < lever_tolerance_m) {
    out.explanation = used == 0 ? "no movable joint carries the link"
                                : "the force line passes through (or is parallel to) every "
                                  "carrying joint axis: |a| = " +
                                      std::to_string(out.lever_m) +
                                      " m, so the torques do "
                                      "not determine f";
    out.residual_nm = tv.norm();
    return out;
  }
  out.well_posed = true;
  out.force_n = av.dot(tv) / av.squaredNorm();
  out.residual_nm = (tv - av * out.force_n).norm();
  return out;
}

Eigen::VectorXd jointTorquesFromContactForce(const kinematics::Chain& chain,
                                             const Eigen::Ref<const Eigen::VectorXd>& q,
                                             int link_row, const Eigen::Vector3d& point_base,
                                             const Eigen::Vector3d& force_base) {
  checkLinkRow(chain, link_row);
  const kinematics::ChainFrames frames = kinematics::forwardKinematics(chain, q);
  return linkPointJacobianTranspose(chain, frames, link_row, point_base, force_base);
}

}  // namespace handsim::contact
