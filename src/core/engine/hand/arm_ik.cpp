// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/hand/arm_ik.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::hand {

namespace {

using kinematics::Chain;

struct Limits {
  Eigen::VectorXd lo, hi;
};

Limits limitsOf(const Chain& chain) {
  const int n = chain.dof();
  Limits l{Eigen::VectorXd(n), Eigen::VectorXd(n)};
  for (int j = 0; j < n; ++j) {
    const kinematics::DhRow& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
    l.lo[j] = row.lower;
    l.hi[j] = row.upper;
  }
  return l;
}

/// 6-D error (position [m]; weighted rotation vector) of the palm at `tip` against the target.
Eigen::Matrix<double, 6, 1> poseError(const Eigen::Isometry3d& tip, const Eigen::Isometry3d& target,
                                      double w) {
  Eigen::Matrix<double, 6, 1> e;
  e.head<3>() = target.translation() - tip.translation();
  const Eigen::AngleAxisd aa(target.linear() * tip.linear().transpose());
  e.tail<3>() = w * aa.angle() * aa.axis();
  return e;
}

/// Deterministic low-discrepancy point in [0, 1)^n (additive recurrence of the generalised
/// golden ratio, Roberts 2018), sample k.
double spread(int k, int j, int n) {
  // phi_n: the positive root of x^(n+1) = x + 1.
  double phi = 2.0;
  for (int it = 0; it < 30; ++it) phi = std::pow(1.0 + phi, 1.0 / (n + 1));
  const double alpha = 1.0 / std::pow(phi, j + 1);
  const double v = 0.5 + alpha * (k + 1);
  return v - std::floor(v);
}

}  // namespace

ArmIkResult solveArmIk(const ArmModel& arm, const Eigen::Isometry3d& palm_in_base,
                       const Eigen::Ref<const Eigen::VectorXd>& q0, const ArmIkOptions& options) {
  if (arm.empty()) throw std::invalid_argument("arm IK: the hand has no arm");
  const Chain& chain = arm.chain;
  kinematics::checkJointVectorSize(chain, q0.size(), "arm IK start");
  if (!q0.allFinite() || !palm_in_base.matrix().allFinite())
    throw std::invalid_argument("arm IK: the start or the target is not finite");
  const int n = chain.dof();
  const Limits lim = limitsOf(chain);
  const double w = options.orientation_weight;
  const auto errors = [&](const Eigen::Isometry3d& tip) {
    const Eigen::AngleAxisd aa(palm_in_base.linear() * tip.linear().transpose());
    return std::pair<double, double>{(palm_in_base.translation() - tip.translation()).norm(),
                                     std::abs(aa.angle())};
  };
  ArmIkResult best;
  double best_cost = std::numeric_limits<double>::infinity();
  kinematics::ChainFrames frames;
  kinematics::Jacobian jac;
  for (int start = 0; start <= options.restarts; ++start) {
    Eigen::VectorXd q(n);
    if (start == 0)
      q = q0.cwiseMax(lim.lo).cwiseMin(lim.hi);
    else
      for (int j = 0; j < n; ++j)
        q[j] = lim.lo[j] + spread(start - 1, j, n) * (lim.hi[j] - lim.lo[j]);
    kinematics::forwardKinematics(chain, q, frames);
    Eigen::Matrix<double, 6, 1> e = poseError(frames.tip(), palm_in_base, w);
    double cost = e.squaredNorm();
    double lambda = options.damping;
    for (int it = 0; it < options.max_iterations; ++it) {
      ++best.iterations;
      const auto [pe, oe] = errors(frames.tip());
      if (pe < options.position_tolerance && oe < options.orientation_tolerance) break;
      kinematics::geometricJacobian(chain, frames, -1, Eigen::Vector3d::Zero(), jac);
      jac.bottomRows<3>() *= w;
      // Joints pinned at a limit and pushed beyond it take no part in the step.
      const Eigen::VectorXd g = jac.transpose() * e;
      Eigen::MatrixXd ja = jac;
      for (int j = 0; j < n; ++j)
        if ((q[j] <= lim.lo[j] && g[j] < 0.0) || (q[j] >= lim.hi[j] && g[j] > 0.0))
          ja.col(j).setZero();
      bool improved = false;
      for (int tries = 0; tries < 12; ++tries) {
        const Eigen::MatrixXd a =
            ja.transpose() * ja + lambda * lambda * Eigen::MatrixXd::Identity(n, n);
        const Eigen::VectorXd dq = a.ldlt().solve(ja.transpose() * e);
        const Eigen::VectorXd qn = (q + dq).cwiseMax(lim.lo).cwiseMin(lim.hi);
        kinematics::forwardKinematics(chain, qn, frames);
        const Eigen::Matrix<double, 6, 1> en = poseError(frames.tip(), palm_in_base, w);
        if (en.squaredNorm() < cost) {
          q = qn;
          e = en;
          cost = en.squaredNorm();
          lambda = std::max(1e-9, lambda * 0.3);
          improved = true;
          break;
        }
        lambda *= 10.0;
      }
      if (!improved) {
        kinematics::forwardKinematics(chain, q, frames);
        break;  // a local minimum: the next start
      }
    }
    kinematics::forwardKinematics(chain, q, frames);
    const auto [pe, oe] = errors(frames.tip());
    const double c = pe * pe + w * w * oe * oe;
    if (c < best_cost) {
      best_cost = c;
      best.q = q;
      best.position_error = pe;
      best.orientation_error = oe;
      best.reached = pe < options.position_tolerance && oe < options.orientation_tolerance;
    }
    if (best.reached) break;
  }
  return best;
}

}  // namespace handsim::hand
