// SPDX-License-Identifier: GPL-3.0-or-later
// Projected Gauss-Seidel (Cottle, Pang and Stone 1992, sec. 5.2; Catto 2005): each row's
// impulse is moved to the value that makes its constraint hold with the others fixed, then
// projected onto lambda >= 0, and the velocity follows the change.
#include "handsim/contact/projected_gauss_seidel.hpp"

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
                                 const Eigen::Ref<const Eigen::VectorXd>& mu,
                                 const PgsSettings& settings,
                                 Eigen::Ref<Eigen::VectorXd> velocity,
                                 Eigen::Ref<Eigen::VectorXd> lambda) {
  const Eigen::Index nr = bias.size();
  if (!settings.warm_start) {
    lambda.setZero();
  } else {
    // The warm start, each tangent row inside the box of its (already projected) normal row.
    for (Eigen::Index i = 0; i < nr; ++i) {
      double l = lambda[i];
      if (!(w(i, i) > settings.row_floor) || !std::isfinite(l)) {
        l = 0.0;
      } else if (normal_of[i] < 0) {
        l = std::max(0.0, l);
      } else {
        const double bound = mu[i] * lambda[normal_of[i]];  // normals come first
        l = std::clamp(l, -bound, bound);
      }
      lambda[i] = l;
      if (l != 0.0) velocity += minv_rows.col(i) * l;
    }
  }
  int sweep = 0;
  while (sweep < settings.sweeps) {
    ++sweep;
    double largest = 0.0;
    for (Eigen::Index i = 0; i < nr; ++i) {
      if (!(w(i, i) > settings.row_floor)) continue;
      const double free = lambda[i] - (rows.row(i).dot(velocity) - bias[i]) / w(i, i);
      double next;
      if (normal_of[i] < 0) {
        next = std::max(0.0, free);
      } else {
        // Coulomb's box at the normal impulse of the moment (Catto 2005: the friction bound
        // follows the normal impulse within the sweeps).
        const double bound = mu[i] * lambda[normal_of[i]];
        next = std::clamp(free, -bound, bound);
      }
      if (next == lambda[i]) continue;
      velocity += minv_rows.col(i) * (next - lambda[i]);
      largest = std::max(largest, std::abs(next - lambda[i]));
      lambda[i] = next;
    }
    if (settled(largest, lambda, settings)) break;
  }
  return sweep;
}

}  // namespace handsim::contact
