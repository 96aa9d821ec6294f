// SPDX-License-Identifier: GPL-3.0-or-later
// Damped-least-squares inverse kinematics with joint limits (Levenberg-Marquardt damping:
// Wampler, IEEE SMC 16(1), 1986; Buss, "Introduction to IK with Jacobian transpose, pseudo-
// inverse and damped least squares methods", 2004, eq. 11).
#include "handsim/kinematics/numerical_ik.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

namespace handsim::kinematics {

namespace {

using Task = Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, 6, 1>;
using TaskJacobian =
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor, 6, Eigen::Dynamic>;

Eigen::Vector3d rotationError(const Eigen::Matrix3d& current, const Eigen::Matrix3d& target) {
  const Eigen::AngleAxisd aa(target * current.transpose());
  return aa.angle() * aa.axis();
}

void clampToLimits(const Chain& chain, JointVector& q) {
  for (int j = 0; j < chain.dof(); ++j) {
    const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
    q[j] = std::clamp(q[j], row.lower, row.upper);
  }
}

struct Evaluation {
  Task error;
  double norm2;
};

Evaluation evaluate(const Chain& chain, const JointVector& q, const Eigen::Vector3d& target,
                    const std::optional<Eigen::Matrix3d>& rot, double w) {
  const auto frames = forwardKinematics(chain, q);
  Evaluation e;
  e.error.resize(rot ? 6 : 3);
  e.error.head<3>() = target - frames.tip().translation();
  if (rot) e.error.tail<3>() = w * rotationError(frames.tip().linear(), *rot);
  e.norm2 = e.error.squaredNorm();
  return e;
}

}  // namespace

NumericalIkResult solveNumericalIk(const Chain& chain, const Eigen::Vector3d& target,
                                   const Eigen::Ref<const Eigen::VectorXd>& q0,
                                   const NumericalIkOptions& options,
                                   const std::optional<Eigen::Matrix3d>& target_rotation) {
  checkJointVectorSize(chain, q0.size(), "q0");
  const int n = chain.dof();
  const double w = options.orientation_weight;
  JointVector q = q0;
  clampToLimits(chain, q);
  Evaluation cur = evaluate(chain, q, target, target_rotation, w);
  double lambda = options.damping;
  int it = 0;
  for (; it < options.max_iterations && std::sqrt(cur.norm2) > options.tolerance; ++it) {
    const Jacobian full = geometricJacobian(chain, q);
    TaskJacobian jac(target_rotation ? 6 : 3, n);
    jac.topRows(3) = full.topRows<3>();
    if (target_rotation) jac.bottomRows(3) = w * full.bottomRows<3>();
    for (int j = 0; j < n; ++j)
      if (!(options.free_mask >> j & 1u)) jac.col(j).setZero();
    // Active set: a joint on a limit that the steepest descent J^T e pushes further out stays
    // there (projected Newton for bound constraints, Bertsekas 1982), so the step uses the
    // other joints instead of being clamped away.
    const JointVector descent = jac.transpose() * cur.error;
    for (int j = 0; j < n; ++j) {
      const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
      if ((q[j] <= row.lower && descent[j] < 0.0) || (q[j] >= row.upper && descent[j] > 0.0))
        jac.col(j).setZero();
    }
    // Try a step; grow the damping until the error decreases, shrink it after success.
    bool improved = false;
    for (int attempt = 0; attempt < 30 && !improved; ++attempt) {
      JointMatrix a = jac.transpose() * jac;
      a.diagonal().array() += lambda * lambda;
      const JointVector dq = a.ldlt().solve(jac.transpose() * cur.error);
      JointVector trial = q + dq;
      clampToLimits(chain, trial);
      const Evaluation next = evaluate(chain, trial, target, target_rotation, w);
      if (next.norm2 < cur.norm2) {
        q = trial;
        cur = next;
        lambda = std::max(lambda * 0.3, 1e-12);
        improved = true;
      } else {
        lambda *= 4.0;
      }
    }
    if (!improved) break;  // a local minimum (or a limit) stops progress
  }
  NumericalIkResult r;
  r.q = q;
  r.position_error = cur.error.head<3>().norm();
  r.orientation_error = target_rotation ? cur.error.tail<3>().norm() / w : 0.0;
  r.iterations = it;
  r.converged = std::sqrt(cur.norm2) <= options.tolerance * 10.0;
  return r;
}

NumericalIkResult nearestReachable(const Chain& chain, const Eigen::Vector3d& target,
                                   const Eigen::Ref<const Eigen::VectorXd>& q0,
                                   const NumericalIkOptions& options,
                                   const std::optional<Eigen::Matrix3d>& target_rotation) {
  NumericalIkResult best = solveNumericalIk(chain, target, q0, options, target_rotation);
  const int n = chain.dof();
  std::vector<int> free;
  for (int j = 0; j < n; ++j)
    if (options.free_mask >> j & 1u) free.push_back(j);
  // 4 samples per free joint (at most 4^4 starts; more joints use a diagonal sweep).
  const int per = 4;
  const int dims = std::min<int>(static_cast<int>(free.size()), 4);
  int total = 1;
  for (int d = 0; d < dims; ++d) total *= per;
  auto score = [](const NumericalIkResult& r) {
    return r.position_error + 0.05 * r.orientation_error;
  };
  for (int s = 0; s < total && score(best) > options.tolerance; ++s) {
    JointVector start = q0;
    int code = s;
    for (std::size_t k = 0; k < free.size(); ++k) {
      const int j = free[k];
      const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
      const int level = k < static_cast<std::size_t>(dims) ? code % per : s % per;
      if (k < static_cast<std::size_t>(dims)) code /= per;
      start[j] = row.lower + (row.upper - row.lower) * (level + 0.5) / per;
    }
    const NumericalIkResult r = solveNumericalIk(chain, target, start, options, target_rotation);
    if (score(r) < score(best)) best = r;
  }
  if (score(best) <= options.tolerance * 10.0) return best;
  // Unreachable: the nearest tip may lie in a basin none of those starts fell into. Sample a
  // finer grid over the free joints (limits included, where such minima often lie) and polish
  // the best few samples.
  constexpr int kMaxSamples = 6561;  // 9^4: about a millisecond of forward kinematics
  int fine = 2;
  const auto power = [&](int base) {
    long long p = 1;
    for (std::size_t k = 0; k < free.size() && p <= kMaxSamples; ++k) p *= base;
    return p;
  };
  while (fine < 41 && power(fine + 1) <= kMaxSamples) ++fine;
  const int samples = static_cast<int>(power(fine));
  constexpr int kPolished = 12;
  std::vector<std::pair<double, JointVector>> seeds;
  for (int s = 0; s < samples; ++s) {
    JointVector q = q0;
    int code = s;
    for (const int j : free) {
      const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
      q[j] = row.lower + (row.upper - row.lower) * (code % fine) / (fine - 1.0);
      code /= fine;
    }
    const Evaluation e = evaluate(chain, q, target, target_rotation, options.orientation_weight);
    seeds.emplace_back(e.norm2, q);
  }
  const auto polished = seeds.begin() + std::min<std::ptrdiff_t>(kPolished, seeds.size());
  std::partial_sort(seeds.begin(), polished, seeds.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto it = seeds.begin(); it != polished; ++it) {
    const NumericalIkResult r =
        solveNumericalIk(chain, target, it->second, options, target_rotation);
    if (score(r) < score(best)) best = r;
  }
  return best;
}

JointVector inverseKinematicsNumerical(const Chain& chain, const Eigen::Vector3d& target,
                                       const Eigen::Ref<const Eigen::VectorXd>& q0, double accept,
                                       const NumericalIkOptions& options) {
  const NumericalIkResult r = nearestReachable(chain, target, q0, options);
  if (r.position_error > accept) {
    std::ostringstream msg;
    msg << "target is out of reach of finger '" << chain.name << "' within its joint limits: "
        << "the nearest fingertip position found misses it by " << r.position_error * 1000.0
        << " mm";
    throw UnreachableTarget(msg.str(), r.position_error, r.q);
  }
  return r.q;
}

}  // namespace handsim::kinematics
