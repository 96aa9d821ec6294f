// SPDX-License-Identifier: GPL-3.0-or-later
// Recursive Newton-Euler inverse dynamics in link coordinates (J. Y. S. Luh, M. W. Walker,
// R. P. C. Paul, "On-line computational scheme for mechanical manipulators", ASME J. Dyn.
// Syst. Meas. Control 102, 1980; Fu, Gonzalez & Lee, Robotics: Control, Sensing, Vision and
// Intelligence, section 3.3). Deliberately shares nothing with the Lagrange-Euler code but the
// Chain data: rotations and link offsets are taken from the DH parameters here, inertias are
// moved to the centre of mass by the parallel-axis theorem.
#include "handsim/dynamics/newton_euler.hpp"

#include <array>
#include <cmath>
#include <cstddef>

#include "chain_check.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::dynamics {

using kinematics::Chain;
using kinematics::DhRow;
using kinematics::JointType;
using kinematics::kMaxChainRows;

kinematics::JointVector inverseDynamicsNewtonEuler(const Chain& chain,
                                                   const Eigen::Ref<const Eigen::VectorXd>& q,
                                                   const Eigen::Ref<const Eigen::VectorXd>& qd,
                                                   const Eigen::Ref<const Eigen::VectorXd>& qdd,
                                                   const Eigen::Vector3d& gravity_base) {
  detail::checkChainShape(chain);
  kinematics::checkJointVectorSize(chain, q.size(), "q");
  kinematics::checkJointVectorSize(chain, qd.size(), "qd");
  kinematics::checkJointVectorSize(chain, qdd.size(), "qdd");
  const int n = static_cast<int>(chain.rows.size());

  // Per row r (joint axis z_r, link r rigid with frame {r+1}), in {r+1} coordinates:
  // rot = rotation of {r+1} in {r}; pstar = O_{r+1} - O_r = (a, d sin(alpha), d cos(alpha));
  // axis = z_r = rot^T e3 = (0, sin(alpha), cos(alpha)); F, N = net force / moment about the
  // centre of mass that link r needs.
  std::array<Eigen::Matrix3d, kMaxChainRows> rot;
  std::array<Eigen::Vector3d, kMaxChainRows> pstar, axis, force, moment;
  std::array<int, kMaxChainRows> joint;

  // Forward recursion of angular velocity w, angular acceleration wd and origin acceleration
  // vd. The base "accelerates" at -g so that gravity enters every link's inertial force.
  Eigen::Vector3d w = Eigen::Vector3d::Zero();
  Eigen::Vector3d wd = Eigen::Vector3d::Zero();
  Eigen::Vector3d vd = -gravity_base;
  const Eigen::Vector3d e3 = Eigen::Vector3d::UnitZ();
  int j = 0;
  for (int r = 0; r < n; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const DhRow& row = chain.rows[ur];
    double theta = row.theta, d = row.d, qdot = 0.0, qddot = 0.0;
    joint[ur] = -1;
    if (row.type != JointType::Fixed) {
      joint[ur] = j;
      qdot = qd[j];
      qddot = qdd[j];
      (row.type == JointType::Revolute ? theta : d) += q[j];
      ++j;
    }
    const double ct = std::cos(theta), st = std::sin(theta);
    const double ca = std::cos(row.alpha), sa = std::sin(row.alpha);
    Eigen::Matrix3d& rr = rot[ur];
    rr << ct, -st * ca, st * sa,  //
        st, ct * ca, -ct * sa,    //
        0.0, sa, ca;
    pstar[ur] = Eigen::Vector3d(row.a, d * sa, d * ca);
    axis[ur] = Eigen::Vector3d(0.0, sa, ca);
    const Eigen::Vector3d& ps = pstar[ur];

    if (row.type == JointType::Revolute) {
      // Fu et al. eq. for revolute joints: w_i = R^T (w_{i-1} + z0 qd_i), ...
      const Eigen::Vector3d w_new = rr.transpose() * (w + e3 * qdot);
      wd = rr.transpose() * (wd + e3 * qddot + w.cross(e3 * qdot));
      vd = wd.cross(ps) + w_new.cross(w_new.cross(ps)) + rr.transpose() * vd;
      w = w_new;
    } else {
      // Prismatic (a fixed row is a prismatic row that never moves): the Coriolis term
      // 2 w x (z qd) appears because the slide axis turns with the previous link.
      w = rr.transpose() * w;
      wd = rr.transpose() * wd;
      vd = rr.transpose() * (e3 * qddot + vd) + wd.cross(ps) + 2.0 * w.cross(axis[ur] * qdot) +
           w.cross(w.cross(ps));
    }

    const kinematics::LinkInertia& link = chain.links[ur];
    const Eigen::Vector3d& c = link.com;
    const Eigen::Matrix3d inertia_com =
        link.inertia -
        link.mass * (c.squaredNorm() * Eigen::Matrix3d::Identity() - c * c.transpose());
    const Eigen::Vector3d acc_com = wd.cross(c) + w.cross(w.cross(c)) + vd;
    force[ur] = link.mass * acc_com;
    moment[ur] = inertia_com * wd + w.cross(inertia_com * w);
  }

  // Backward recursion: f, nm = force and moment (about O_r) that link r-1 exerts on link r,
  // in {r+1} coordinates. Euler's equation is taken about the joint axis point O_r, so the
  // torque of joint r is the projection of nm on z_r.
  kinematics::JointVector tau = kinematics::JointVector::Zero(chain.dof());
  Eigen::Vector3d f = Eigen::Vector3d::Zero();
  Eigen::Vector3d nm = Eigen::Vector3d::Zero();
  for (int r = n - 1; r >= 0; --r) {
    const auto ur = static_cast<std::size_t>(r);
    Eigen::Vector3d f_next = Eigen::Vector3d::Zero();
    Eigen::Vector3d n_next = Eigen::Vector3d::Zero();
    if (r + 1 < n) {
      f_next = rot[ur + 1] * f;
      n_next = rot[ur + 1] * nm;
    }
    f = f_next + force[ur];
    nm = n_next + pstar[ur].cross(f_next) + (pstar[ur] + chain.links[ur].com).cross(force[ur]) +
         moment[ur];
    const int jr = joint[ur];
    if (jr < 0) continue;
    tau[jr] = chain.rows[ur].type == JointType::Revolute ? nm.dot(axis[ur]) : f.dot(axis[ur]);
  }
  return tau;
}

}  // namespace handsim::dynamics
