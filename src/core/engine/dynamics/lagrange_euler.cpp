// SPDX-License-Identifier: GPL-3.0-or-later
// Lagrange-Euler dynamics of a serial chain.
// K. S. Fu, R. C. Gonzalez, C. S. G. Lee, Robotics: Control, Sensing, Vision and Intelligence,
// McGraw-Hill 1987, section 3.2: pseudo-inertia J_j, U_ij = dT_i/dq_j = T_{j-1} Q_j T_{j-1}^-1
// T_i, D_ik = sum_j tr(U_jk J_j U_ji^T), h_ikm = sum_j tr(U_jkm J_j U_ji^T),
// c_i = -sum_j m_j g^T U_ji r_j. The sums over j are factored through suffix sums over the
// links (the idea of J. M. Hollerbach, "A recursive Lagrangian formulation of manipulator
// dynamics", IEEE Trans. SMC 10(11), 1980); docs/dynamics.md derives every step.
#include "handsim/dynamics/lagrange_euler.hpp"

#include <cstddef>
#include <stdexcept>

#include "chain_check.hpp"
#include "handsim/dynamics/pseudo_inertia.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::dynamics {

namespace {

using kinematics::Chain;
using kinematics::DhRow;
using kinematics::JointType;

/// Top three rows of a 4x4 matrix whose last row is zero (velocity-like matrices in se(3) and
/// their products); the zero row is never stored or multiplied.
using Mat34 = Eigen::Matrix<double, 3, 4>;

/// Delta = T Q T^-1 for the joint that rotates about / slides along the axis (point p,
/// direction z, in {k0}): for a DH row z of frame T through its origin; for a placement row the
/// placement's axis (T P Q P^-1 T^-1 has the same form with the axis moved).
Mat34 jointDelta(JointType type, const kinematics::JointAxis& axis) {
  const Eigen::Vector3d& z = axis.direction;
  Mat34 m = Mat34::Zero();
  if (type == JointType::Revolute) {
    // T [z^ 0; 0 0] T^-1 = [ (Rz)^  p x (Rz) ; 0 0 ]
    m(0, 1) = -z.z();
    m(0, 2) = z.y();
    m(1, 0) = z.z();
    m(1, 2) = -z.x();
    m(2, 0) = -z.y();
    m(2, 1) = z.x();
    m.col(3) = axis.point.cross(z);
  } else {
    m.col(3) = z;
  }
  return m;
}

/// tr(A B^T) for two matrices with zero last rows: the Frobenius product of the top rows.
inline double traceProduct(const Mat34& a, const Mat34& b) {
  return a.cwiseProduct(b).sum();
}

/// Fills J~_r = T_{r+1} J_r T_{r+1}^T (pseudo-inertia of link r in {k0}), Delta_r = T_r Q_r
/// T_r^-1 (top rows) for movable rows (dT/dq = Delta T for every frame the joint moves: Fu et
/// al.'s U_ij with Q_r the revolute or prismatic derivative matrix) and the joint of each row.
void prepare(const Chain& chain, const kinematics::ChainFrames& frames, LagrangeEulerScratch& s) {
  const auto rows = chain.rows.size();
  s.pseudo.resize(rows);
  s.delta.resize(rows);
  s.acceleration.resize(rows);
  s.joint.resize(rows);
  int j = 0;
  for (int r = 0; r < static_cast<int>(rows); ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const DhRow& row = chain.rows[ur];
    s.pseudo[ur] = pseudoInertiaInBase(chain.links[ur], frames.at(r + 1));
    if (row.type == JointType::Fixed) {
      s.joint[ur] = -1;
    } else {
      s.joint[ur] = j++;
      s.delta[ur] = jointDelta(row.type, kinematics::jointAxisInBase(row, frames.at(r)));
    }
  }
}

}  // namespace

DynamicsTerms lagrangeEuler(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                            const Eigen::Ref<const Eigen::VectorXd>& qd,
                            const Eigen::Vector3d& gravity_base) {
  detail::checkChainShape(chain);
  kinematics::checkJointVectorSize(chain, q.size(), "q");
  return lagrangeEuler(chain, kinematics::forwardKinematics(chain, q), qd, gravity_base);
}

DynamicsTerms lagrangeEuler(const Chain& chain, const kinematics::ChainFrames& frames,
                            const Eigen::Ref<const Eigen::VectorXd>& qd,
                            const Eigen::Vector3d& gravity_base) {
  DynamicsTerms out;
  LagrangeEulerScratch scratch;
  lagrangeEuler(chain, frames, qd, gravity_base, out, scratch);
  return out;
}

void lagrangeEuler(const Chain& chain, const kinematics::ChainFrames& frames,
                   const Eigen::Ref<const Eigen::VectorXd>& qd, const Eigen::Vector3d& gravity_base,
                   DynamicsTerms& out, LagrangeEulerScratch& s) {
  detail::checkChainShape(chain);
  kinematics::checkJointVectorSize(chain, qd.size(), "qd");
  if (frames.count != static_cast<int>(chain.rows.size()) + 1)
    throw std::invalid_argument("lagrangeEuler: frames of another chain");
  prepare(chain, frames, s);
  const int n = static_cast<int>(chain.rows.size());
  const int dof = chain.dof();

  // Forward pass: B_r = (d^2 T_{r+1}/dt^2 at qdd = 0) T_{r+1}^-1 = sum_{k,m} qd_k qd_m
  // Delta_min(k,m) Delta_max(k,m), i.e. the sum over k, m of U_jkm qd_k qd_m (Fu et al.'s
  // second derivatives) with T_j factored out; V = sum_k qd_k Delta_k is dT/dt T^-1.
  std::vector<Mat34>& b = s.acceleration;
  Mat34 v = Mat34::Zero();
  Mat34 acc = Mat34::Zero();
  for (int r = 0; r < n; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    if (s.joint[ur] >= 0) {
      const Mat34 w = qd[s.joint[ur]] * s.delta[ur];
      // B += (qd_m Delta_m + 2 V_before) qd_m Delta_m: the earlier joint stands left in U_jkm.
      acc += (w + 2.0 * v).leftCols<3>() * w;
      v += w;
    }
    b[ur] = acc;
  }

  // Backward pass over the links: S = sum_{j >= r} J~_j and G = sum_{j >= r} B_j J~_j, so that
  // D_ik = tr(Delta_k S Delta_i^T), h_i = tr(G Delta_i^T), c_i = -g^T (Delta_i S)(:,3).
  out.D.setZero(dof, dof);
  out.H.setZero(dof);
  out.C.setZero(dof);
  Eigen::Matrix4d sum_pseudo = Eigen::Matrix4d::Zero();
  Mat34 sum_g = Mat34::Zero();
  for (int r = n - 1; r >= 0; --r) {
    const auto ur = static_cast<std::size_t>(r);
    sum_pseudo += s.pseudo[ur];
    sum_g += b[ur] * s.pseudo[ur];
    const int k = s.joint[ur];
    if (k < 0) continue;
    const Mat34 y = s.delta[ur] * sum_pseudo;  // Delta_k S_{r_k}
    out.H[k] = traceProduct(sum_g, s.delta[ur]);
    out.C[k] = -gravity_base.dot(y.col(3));
    // D_ik for every joint i at or before row r (the max(i, k) rule: S starts at joint k's
    // row), filled symmetrically.
    for (int ri = 0; ri <= r; ++ri) {
      const int i = s.joint[static_cast<std::size_t>(ri)];
      if (i < 0) continue;
      const double dik = traceProduct(y, s.delta[static_cast<std::size_t>(ri)]);
      out.D(i, k) = dik;
      out.D(k, i) = dik;
    }
  }
}

kinematics::JointVector inverseDynamicsLagrangeEuler(const Chain& chain,
                                                     const Eigen::Ref<const Eigen::VectorXd>& q,
                                                     const Eigen::Ref<const Eigen::VectorXd>& qd,
                                                     const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                                     const Eigen::Vector3d& gravity_base) {
  detail::checkChainShape(chain);
  kinematics::checkJointVectorSize(chain, q.size(), "q");
  kinematics::checkJointVectorSize(chain, qd.size(), "qd");
  kinematics::checkJointVectorSize(chain, qdd.size(), "qdd");
  const kinematics::ChainFrames frames = kinematics::forwardKinematics(chain, q);
  LagrangeEulerScratch s;
  prepare(chain, frames, s);
  const int n = static_cast<int>(chain.rows.size());

  // tau_i = sum_k D_ik qdd_k + h_i + c_i = tr((sum_{j >= r_i} A_j J~_j) Delta_i^T) with
  // A_j = B_j + sum_{k <= j} qdd_k Delta_k - [0 g; 0 0]: the D qdd sum folds into the
  // acceleration d^2T/dt^2 T^-1, and c_i is the trace with a constant "acceleration" -g of
  // every link (docs/dynamics.md, "inverse dynamics without D").
  std::vector<Mat34>& a = s.acceleration;
  Mat34 v = Mat34::Zero();
  Mat34 acc = Mat34::Zero();
  acc.col(3) = -gravity_base;
  for (int r = 0; r < n; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const int k = s.joint[ur];
    if (k >= 0) {
      const Mat34 w = qd[k] * s.delta[ur];
      acc += (w + 2.0 * v).leftCols<3>() * w + qdd[k] * s.delta[ur];
      v += w;
    }
    a[ur] = acc;
  }
  kinematics::JointVector tau = kinematics::JointVector::Zero(chain.dof());
  Mat34 sum = Mat34::Zero();
  for (int r = n - 1; r >= 0; --r) {
    const auto ur = static_cast<std::size_t>(r);
    sum += a[ur] * s.pseudo[ur];
    const int k = s.joint[ur];
    if (k >= 0) tau[k] = traceProduct(sum, s.delta[ur]);
  }
  return tau;
}

}  // namespace handsim::dynamics
