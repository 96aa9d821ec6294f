// SPDX-License-Identifier: GPL-3.0-or-later
// Forward dynamics qdd = D^-1 (tau - H - C) (Fu, Gonzalez & Lee, Robotics: Control, Sensing,
// Vision and Intelligence, section 3.2) with locked joints removed. A locked joint (engaged
// clutch) is a holonomic constraint q_j = const, so qd_j = qdd_j = 0; the remaining equations
// are the rows of the free joints with the locked columns multiplied by zero, i.e. the reduced
// system D_ff qdd_f = (tau - H - C)_f, where H is evaluated with qd_j = 0 (docs/dynamics.md).
#include "handsim/dynamics/forward_dynamics.hpp"

#include <Eigen/Cholesky>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "chain_check.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::dynamics {

kinematics::JointVector forwardDynamics(const kinematics::Chain& chain,
                                        const Eigen::Ref<const Eigen::VectorXd>& q,
                                        const Eigen::Ref<const Eigen::VectorXd>& qd,
                                        const Eigen::Ref<const Eigen::VectorXd>& tau,
                                        const Eigen::Vector3d& gravity_base,
                                        std::uint32_t locked_mask) {
  detail::checkChainShape(chain);
  kinematics::checkJointVectorSize(chain, q.size(), "q");
  kinematics::checkJointVectorSize(chain, qd.size(), "qd");
  kinematics::checkJointVectorSize(chain, tau.size(), "tau");
  const int dof = chain.dof();
  if (dof < 32 && (locked_mask >> dof) != 0)
    throw std::invalid_argument("locked_mask has bits set beyond the " + std::to_string(dof) +
                                " joints of finger '" + chain.name + "'");

  // The mask reaches joints 0-31; a longer chain's later joints are never locked.
  const auto locked = [locked_mask](int j) { return j < 32 && ((locked_mask >> j) & 1U) != 0; };
  kinematics::JointVector qd_free = qd;
  std::vector<int> free_joint(static_cast<std::size_t>(dof));
  int nf = 0;
  for (int j = 0; j < dof; ++j) {
    if (locked(j))
      qd_free[j] = 0.0;
    else
      free_joint[static_cast<std::size_t>(nf++)] = j;
  }

  const DynamicsTerms terms = lagrangeEuler(chain, q, qd_free, gravity_base);
  kinematics::JointVector qdd = kinematics::JointVector::Zero(dof);
  if (nf == 0) return qdd;
  const kinematics::JointVector rhs_all = tau - terms.H - terms.C;

  kinematics::JointMatrix d(nf, nf);
  kinematics::JointVector rhs(nf);
  for (int a = 0; a < nf; ++a) {
    const int ja = free_joint[static_cast<std::size_t>(a)];
    rhs[a] = rhs_all[ja];
    for (int b = 0; b < nf; ++b) d(a, b) = terms.D(ja, free_joint[static_cast<std::size_t>(b)]);
  }
  // D is symmetric positive definite for a chain whose links have mass; LDLT is the cheap,
  // pivoted factorisation for it.
  const Eigen::LDLT<kinematics::JointMatrix> ldlt(d);
  const kinematics::JointVector qdd_free = ldlt.solve(rhs);
  for (int a = 0; a < nf; ++a) qdd[free_joint[static_cast<std::size_t>(a)]] = qdd_free[a];
  return qdd;
}

}  // namespace handsim::dynamics
