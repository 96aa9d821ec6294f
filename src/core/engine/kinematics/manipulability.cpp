// SPDX-License-Identifier: GPL-3.0-or-later
// Kinematic conditioning: condition number of the task Jacobian (Salisbury and Craig,
// "Articulated hands: force control and kinematic issues", IJRR 1(1), 1982) and Yoshikawa's
// manipulability w = sqrt(det(J J^T)) (Yoshikawa, "Manipulability of robotic mechanisms",
// IJRR 4(2), 1985, eq. 6). Both from the singular value decomposition of J.
#include "handsim/kinematics/manipulability.hpp"

#include <Eigen/SVD>
#include <limits>
#include <stdexcept>
#include <string>

#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::kinematics {

Eigen::MatrixXd taskJacobian(const Jacobian& jacobian, TaskSpace space) {
  switch (space) {
    case TaskSpace::Position:
      return jacobian.topRows(3);
    case TaskSpace::PositionOrientation:
      return jacobian;
    case TaskSpace::Planar: {
      Eigen::MatrixXd out(3, jacobian.cols());
      out.row(0) = jacobian.row(0);
      out.row(1) = jacobian.row(1);
      out.row(2) = jacobian.row(5);
      return out;
    }
    case TaskSpace::PlanarPosition:
      return jacobian.topRows(2);
  }
  throw std::invalid_argument("taskJacobian: unknown task space");
}

Eigen::MatrixXd taskJacobian(const Chain& chain, const Eigen::Ref<const Eigen::VectorXd>& q,
                             TaskSpace space) {
  return taskJacobian(geometricJacobian(chain, q), space);
}

Eigen::VectorXd singularValues(const Eigen::Ref<const Eigen::MatrixXd>& j) {
  return Eigen::JacobiSVD<Eigen::MatrixXd>(j).singularValues();
}

double conditionNumber(const Eigen::Ref<const Eigen::MatrixXd>& j) {
  const Eigen::VectorXd s = singularValues(j);
  if (s.size() == 0) throw std::invalid_argument("conditionNumber: empty matrix");
  const double smax = s[0], smin = s[s.size() - 1];
  // Below ~1e3 eps relative, sigma_min is rounding noise of an exactly singular J: report it as
  // singular instead of a large, meaningless ratio.
  if (smax == 0.0 || smin <= 1e-13 * smax) return std::numeric_limits<double>::infinity();
  return smax / smin;
}

double yoshikawaManipulability(const Eigen::Ref<const Eigen::MatrixXd>& j) {
  if (j.rows() > j.cols()) return 0.0;
  return singularValues(j).prod();
}

bool nearSingular(const Eigen::Ref<const Eigen::MatrixXd>& j, double threshold) {
  if (!(threshold >= 1.0))
    throw std::invalid_argument("nearSingular: threshold must be >= 1 (a condition number), got " +
                                std::to_string(threshold));
  return conditionNumber(j) > threshold;
}

}  // namespace handsim::kinematics
