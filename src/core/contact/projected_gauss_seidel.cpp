// SPDX-License-Identifier: GPL-3.0-or-later
// Projected Gauss-Seidel (Cottle, Pang and Stone 1992, sec. 5.2; Catto 2005): each row's
// impulse is moved to the value that makes its constraint hold with the others fixed, then
// projected onto lambda >= 0, and the velocity follows the change.
#include "handsim/contact/projected_gauss_seidel.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>

namespace handsim::contact {

namespace {

// True when the sweep just done may stop the solve: nothing changed (the exact fixed point)
// or the largest change is within the tolerance of the largest impulse.
bool settled(double largest_change, Eigen::Ref<const Eigen::VectorXd> lambda,
             const PgsSettings& settings) {
  if (largest_change == 0.0) return true;
  if (settings.tolerance <= 0.0) return false;
  return largest_change <= settings.tolerance * lambda.cwiseAbs().maxCoeff();
}

// The impulse of one isotropic friction cone (two tangent rows) with the other rows fixed: the
// minimiser of the pair's quadratic 1/2 x^T W x + c^T x (W = [[a, b], [b, d]], the 2 x 2
// block of the Delassus matrix; c from the residual at the old impulse) over the disc
// |x| <= bound. Inside the disc it is the unconstrained block solve; on the rim it is the
// point where the pair's sliding velocity W x + c is anti-parallel to x: x(s) = -(W + s I)^-1 c
// with |x(s)| = bound, s >= 0 found by Newton's method on 1/|x(s)| - 1/bound (More and
// Sorensen 1983; monotone from s = 0). A dead row (its w_ii at the floor) keeps 0 and the live
// one is a box of half-width `bound`.
Eigen::Vector2d coneImpulse(double a, double b, double d, bool live_a, bool live_d,
                            const Eigen::Vector2d& old, const Eigen::Vector2d& residual,
                            double bound) {
  if (!(bound > 0.0)) return Eigen::Vector2d::Zero();
  if (!live_a || !live_d) {
    Eigen::Vector2d x = Eigen::Vector2d::Zero();
    if (live_a) x[0] = std::clamp(old[0] - residual[0] / a, -bound, bound);
    if (live_d) x[1] = std::clamp(old[1] - residual[1] / d, -bound, bound);
    return x;
  }
  Eigen::Matrix2d block;
  block << a, b, b, d;
  // c: the residual with the pair's own impulse taken out (the residual is W old + c).
  const Eigen::Vector2d c = residual - block * old;
  const double det = a * d - b * b;
  if (det > 1e-14 * a * d) {
    const Eigen::Vector2d free = -block.inverse() * c;
    if (free.norm() <= bound) return free;
  }
  // On the rim: in the eigenbasis of the block, |x(s)|^2 = sum_k (q_k . c)^2 / (m_k + s)^2.
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> eig;
  eig.computeDirect(block);
  const Eigen::Vector2d m = eig.eigenvalues().cwiseMax(0.0);
  const Eigen::Vector2d g = eig.eigenvectors().transpose() * c;
  if (g.isZero(0.0)) return Eigen::Vector2d::Zero();
  double s = 0.0;
  // A singular block with c in its null direction has no finite unconstrained answer; start
  // where |x(s)| is finite.
  if (m.minCoeff() <= 0.0) s = 1e-300;
  for (int it = 0; it < 50; ++it) {
    const Eigen::Vector2d y(g[0] / (m[0] + s), g[1] / (m[1] + s));
    const double len = y.norm();
    if (std::abs(len - bound) <= 1e-15 * bound) break;
    const double dy = (g[0] * g[0] / std::pow(m[0] + s, 3) + g[1] * g[1] / std::pow(m[1] + s, 3)) /
                      (len * len * len);
    const double step = (1.0 / len - 1.0 / bound) / dy;
    if (!(std::abs(step) > 1e-16 * (1.0 + s))) break;
    s = std::max(s - step, 0.5 * s);
  }
  const Eigen::Vector2d y(g[0] / (m[0] + s), g[1] / (m[1] + s));
  Eigen::Vector2d x = -(eig.eigenvectors() * y);
  // Rounding: exactly on the rim.
  const double len = x.norm();
  if (len > 0.0) x *= bound / len;
  return x;
}

}  // namespace

int projectedGaussSeidel(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                         const Eigen::Ref<const Eigen::MatrixXd>& minv_rows,
                         const Eigen::Ref<const Eigen::MatrixXd>& w,
                         const Eigen::Ref<const Eigen::VectorXd>& bias,
                         const PgsSettings& settings, Eigen::Ref<Eigen::VectorXd> velocity,
                         Eigen::Ref<Eigen::VectorXd> lambda) {
  const Eigen::Index nr = bias.size();
  if (!settings.warm_start) {
    lambda.setZero();
  } else {
    // Start from the given impulses, projected onto lambda >= 0, the velocity moved by them;
    // rows that constrain nothing start at 0.
    for (Eigen::Index i = 0; i < nr; ++i) {
      double l = lambda[i];
      l = (w(i, i) > settings.row_floor && std::isfinite(l)) ? std::max(0.0, l) : 0.0;
      lambda[i] = l;
      if (l != 0.0) velocity += minv_rows.col(i) * l;
    }
  }
  int sweep = 0;
  while (sweep < settings.sweeps) {
    ++sweep;
    double largest = 0.0;
    for (Eigen::Index i = 0; i < nr; ++i) {
      if (!(w(i, i) > settings.row_floor)) continue;  // the row constrains no actuator
      const double next =
          std::max(0.0, lambda[i] - (rows.row(i).dot(velocity) - bias[i]) / w(i, i));
      if (next == lambda[i]) continue;
      velocity += minv_rows.col(i) * (next - lambda[i]);
      largest = std::max(largest, std::abs(next - lambda[i]));
      lambda[i] = next;
    }
    // A sweep that changed no impulse leaves the velocity as it was, so every later sweep
    // would repeat it exactly: this is the fixed point the remaining sweeps would return.
    if (settled(largest, lambda, settings)) break;
  }
  return sweep;
}

int projectedGaussSeidelFriction(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                                 const Eigen::Ref<const Eigen::MatrixXd>& minv_rows,
                                 const Eigen::Ref<const Eigen::MatrixXd>& w,
                                 const Eigen::Ref<const Eigen::VectorXd>& bias,
                                 const Eigen::Ref<const Eigen::VectorXi>& normal_of,
                                 const Eigen::Ref<const Eigen::VectorXi>& partner,
                                 const Eigen::Ref<const Eigen::VectorXd>& mu,
                                 const PgsSettings& settings, Eigen::Ref<Eigen::VectorXd> velocity,
                                 Eigen::Ref<Eigen::VectorXd> lambda) {
  const Eigen::Index nr = bias.size();
  const auto live = [&](Eigen::Index i) { return w(i, i) > settings.row_floor; };
  const auto coneOf = [&](Eigen::Index i) { return normal_of[i] >= 0 && partner[i] > i; };
  const auto secondOfCone = [&](Eigen::Index i) {
    return normal_of[i] >= 0 && partner[i] >= 0 && partner[i] < i;
  };
  if (!settings.warm_start) {
    lambda.setZero();
  } else {
    // The warm start, projected: normals onto lambda >= 0, boxes into their bounds, cones
    // radially into their discs (normals come first, so their impulses are final here).
    for (Eigen::Index i = 0; i < nr; ++i)
      if (!live(i) || !std::isfinite(lambda[i])) lambda[i] = 0.0;
    for (Eigen::Index i = 0; i < nr; ++i) {
      if (normal_of[i] < 0) {
        lambda[i] = std::max(0.0, lambda[i]);
      } else if (coneOf(i)) {
        const Eigen::Index j = partner[i];
        const double bound = mu[i] * lambda[normal_of[i]];
        const double len = std::hypot(lambda[i], lambda[j]);
        if (len > bound) {
          const double scale = len > 0.0 ? bound / len : 0.0;
          lambda[i] *= scale;
          lambda[j] *= scale;
        }
      } else if (!secondOfCone(i)) {
        const double bound = mu[i] * lambda[normal_of[i]];
        lambda[i] = std::clamp(lambda[i], -bound, bound);
      }
    }
    for (Eigen::Index i = 0; i < nr; ++i)
      if (lambda[i] != 0.0) velocity += minv_rows.col(i) * lambda[i];
  }
  int sweep = 0;
  while (sweep < settings.sweeps) {
    ++sweep;
    double largest = 0.0;
    const auto move = [&](Eigen::Index i, double next) {
      if (next == lambda[i]) return;
      velocity += minv_rows.col(i) * (next - lambda[i]);
      largest = std::max(largest, std::abs(next - lambda[i]));
      lambda[i] = next;
    };
    for (Eigen::Index i = 0; i < nr; ++i) {
      if (secondOfCone(i)) continue;  // solved with its first row
      if (coneOf(i)) {
        const Eigen::Index j = partner[i];
        const double bound = mu[i] * lambda[normal_of[i]];
        const Eigen::Vector2d old(lambda[i], lambda[j]);
        const Eigen::Vector2d residual(rows.row(i).dot(velocity) - bias[i],
                                       rows.row(j).dot(velocity) - bias[j]);
        const Eigen::Vector2d next = coneImpulse(w(i, i), 0.5 * (w(i, j) + w(j, i)), w(j, j),
                                                 live(i), live(j), old, residual, bound);
        move(i, next[0]);
        move(j, next[1]);
        continue;
      }
      if (!live(i)) continue;
      const double free = lambda[i] - (rows.row(i).dot(velocity) - bias[i]) / w(i, i);
      if (normal_of[i] < 0) {
        move(i, std::max(0.0, free));
      } else {
        // A box (a torsional row): Coulomb's bound at the normal impulse of the moment.
        const double bound = mu[i] * lambda[normal_of[i]];
        move(i, std::clamp(free, -bound, bound));
      }
    }
    if (settled(largest, lambda, settings)) break;
  }
  return sweep;
}

}  // namespace handsim::contact
