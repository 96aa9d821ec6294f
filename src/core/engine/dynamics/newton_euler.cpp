// SPDX-License-Identifier: GPL-3.0-or-later
// Recursive Newton-Euler inverse dynamics in link coordinates (J. Y. S. Luh, M. W. Walker,
// R. P. C. Paul, "On-line computational scheme for mechanical manipulators", ASME J. Dyn.
// Syst. Meas. Control 102, 1980; Fu, Gonzalez & Lee, Robotics: Control, Sensing, Vision and
// Intelligence, section 3.3). Deliberately shares nothing with the Lagrange-Euler code but the
// Chain data: rotations and link offsets are taken from the DH parameters (or the placement
// and axis of a general row) here, inertias are moved to the centre of mass by the
// parallel-axis theorem.
#include "handsim/dynamics/newton_euler.hpp"

#include <cmath>
#include <cstddef>
#include <vector>

#include "chain_check.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::dynamics {

using kinematics::Chain;
using kinematics::DhRow;
using kinematics::JointType;

namespace {

// Row r's frame at joint value qv (theta and d already include it), in {r+1} coordinates:
// rot = rotation of {r+1} in {r}; pstar = O_{r+1} - O_r; axis = the joint axis; apt = a point
// of the joint axis relative to O_r; and the axis and its point in {r} coordinates.
struct RowFrame {
  Eigen::Matrix3d rot;
  Eigen::Vector3d pstar, axis, apt;
  Eigen::Vector3d axis_prev;  // the axis in {r} coordinates
  Eigen::Vector3d apt_prev;   // its point relative to O_r in {r} coordinates
};

RowFrame rowFrame(const DhRow& row, double theta, double d, double qv) {
  RowFrame f;
  if (row.form == kinematics::JointFrameForm::Dh) {
    const double ct = std::cos(theta), st = std::sin(theta);
    const double ca = std::cos(row.alpha), sa = std::sin(row.alpha);
    f.rot << ct, -st * ca, st * sa,  //
        st, ct * ca, -ct * sa,       //
        0.0, sa, ca;
    f.pstar = Eigen::Vector3d(row.a, d * sa, d * ca);
    f.axis = Eigen::Vector3d(0.0, sa, ca);
    f.apt.setZero();
    f.axis_prev = Eigen::Vector3d::UnitZ();
    f.apt_prev.setZero();
  } else {
    // T = P Rot(axis, q) or P Trans(axis q): rotation P_R R(q), origin P_t (+ P_R axis q).
    f.rot = row.placement.linear();
    Eigen::Vector3d origin = row.placement.translation();
    f.axis_prev = f.rot * row.axis;
    f.apt_prev = origin;
    if (row.type == JointType::Revolute) f.rot = f.rot * Eigen::AngleAxisd(qv, row.axis).matrix();
    if (row.type == JointType::Prismatic) origin += f.axis_prev * qv;
    f.pstar = f.rot.transpose() * origin;
    f.axis = f.rot.transpose() * f.axis_prev;
    f.apt = f.rot.transpose() * f.apt_prev;
  }
  return f;
}

}  // namespace

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

  // Per row r (link r rigid with frame {r+1}), in {r+1} coordinates: rot = rotation of {r+1}
  // in {r}; pstar = O_{r+1} - O_r; axis = the joint axis; apt = a point of the joint axis
  // relative to O_r. DH rows take them from the parameters: pstar = (a, d sin(alpha),
  // d cos(alpha)), axis = z_r = rot^T e3 = (0, sin(alpha), cos(alpha)), apt = 0 (the axis
  // passes through O_r). Placement rows: the axis passes through the placement origin, which
  // is O_{r+1}. F, N = net force / moment about the centre of mass that link r needs.
  const auto rows = static_cast<std::size_t>(n);
  std::vector<Eigen::Matrix3d> rot(rows);
  std::vector<Eigen::Vector3d> pstar(rows), axis(rows), apt(rows), force(rows), moment(rows);
  std::vector<int> joint(rows);

  // Forward recursion of angular velocity w, angular acceleration wd and origin acceleration
  // vd. The base "accelerates" at -g so that gravity enters every link's inertial force.
  Eigen::Vector3d w = Eigen::Vector3d::Zero();
  Eigen::Vector3d wd = Eigen::Vector3d::Zero();
  Eigen::Vector3d vd = -gravity_base;
  int j = 0;
  for (int r = 0; r < n; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const DhRow& row = chain.rows[ur];
    double theta = row.theta, d = row.d, qdot = 0.0, qddot = 0.0, qv = 0.0;
    joint[ur] = -1;
    if (row.type != JointType::Fixed) {
      joint[ur] = j;
      qv = q[j];
      qdot = qd[j];
      qddot = qdd[j];
      (row.type == JointType::Revolute ? theta : d) += q[j];
      ++j;
    }
    const RowFrame frame = rowFrame(row, theta, d, qv);
    rot[ur] = frame.rot;
    pstar[ur] = frame.pstar;
    axis[ur] = frame.axis;
    apt[ur] = frame.apt;
    const Eigen::Matrix3d& rr = rot[ur];
    const Eigen::Vector3d& axis_prev = frame.axis_prev;
    const Eigen::Vector3d& apt_prev = frame.apt_prev;
    const Eigen::Vector3d& ps = pstar[ur];

    if (row.type == JointType::Revolute) {
      // Fu et al. eq. for revolute joints: w_i = R^T (w_{i-1} + z qd_i), ...; the axis point A
      // belongs to both links, so O_{r+1} is reached from O_r via A: first as a point of link
      // r-1, then of link r (A = O_r for DH rows, and this is Fu et al.'s formula).
      const Eigen::Vector3d vd_a = vd + wd.cross(apt_prev) + w.cross(w.cross(apt_prev));
      const Eigen::Vector3d w_new = rr.transpose() * (w + axis_prev * qdot);
      wd = rr.transpose() * (wd + axis_prev * qddot + w.cross(axis_prev * qdot));
      const Eigen::Vector3d s = ps - apt[ur];
      vd = wd.cross(s) + w_new.cross(w_new.cross(s)) + rr.transpose() * vd_a;
      w = w_new;
    } else {
      // Prismatic (a fixed row is a prismatic row that never moves): the Coriolis term
      // 2 w x (z qd) appears because the slide axis turns with the previous link.
      w = rr.transpose() * w;
      wd = rr.transpose() * wd;
      vd = rr.transpose() * (axis_prev * qddot + vd) + wd.cross(ps) +
           2.0 * w.cross(axis[ur] * qdot) + w.cross(w.cross(ps));
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
  // in {r+1} coordinates. The torque of joint r is the moment about a point of its axis,
  // nm - apt x f, projected on the axis (apt = 0 for a DH row, whose axis passes through O_r).
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
    tau[jr] = chain.rows[ur].type == JointType::Revolute ? (nm - apt[ur].cross(f)).dot(axis[ur])
                                                         : f.dot(axis[ur]);
  }
  return tau;
}

}  // namespace handsim::dynamics
