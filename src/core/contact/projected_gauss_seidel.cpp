// SPDX-License-Identifier: GPL-3.0-or-later
// Projected Gauss-Seidel (Cottle, Pang and Stone 1992, sec. 5.2; Catto 2005): each row's
// impulse is moved to the value that makes its constraint hold with the others fixed, then
// projected onto lambda >= 0, and the velocity follows the change.
#include "handsim/contact/projected_gauss_seidel.hpp"

#include <algorithm>

namespace handsim::contact {

void projectedGaussSeidel(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                          const Eigen::Ref<const Eigen::MatrixXd>& minv_rows,
                          const Eigen::Ref<const Eigen::MatrixXd>& w,
                          const Eigen::Ref<const Eigen::VectorXd>& bias, int sweeps,
                          double row_floor, Eigen::Ref<Eigen::VectorXd> velocity,
                          Eigen::Ref<Eigen::VectorXd> lambda) {
  const Eigen::Index nr = bias.size();
  lambda.setZero();
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    bool changed = false;
    for (Eigen::Index i = 0; i < nr; ++i) {
      if (!(w(i, i) > row_floor)) continue;  // the row constrains no actuator
      const double next =
          std::max(0.0, lambda[i] - (rows.row(i).dot(velocity) - bias[i]) / w(i, i));
      if (next == lambda[i]) continue;
      velocity += minv_rows.col(i) * (next - lambda[i]);
      lambda[i] = next;
      changed = true;
    }
    // A sweep that changed no impulse leaves the velocity as it was, so every later sweep
    // would repeat it exactly: this is the fixed point the remaining sweeps would return.
    if (!changed) break;
  }
}

void projectedGaussSeidelFriction(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                                  const Eigen::Ref<const Eigen::MatrixXd>& minv_rows,
                                  const Eigen::Ref<const Eigen::MatrixXd>& w,
                                  const Eigen::Ref<const Eigen::VectorXd>& bias,
                                  const Eigen::Ref<const Eigen::VectorXi>& normal_of,
                                  const Eigen::Ref<const Eigen::VectorXd>& mu, int sweeps,
                                  double row_floor, Eigen::Ref<Eigen::VectorXd> velocity,
                                  Eigen::Ref<Eigen::VectorXd> lambda) {
  const Eigen::Index nr = bias.size();
  lambda.setZero();
  for (int sweep = 0; sweep < sweeps; ++sweep) {
    bool changed = false;
    for (Eigen::Index i = 0; i < nr; ++i) {
      if (!(w(i, i) > row_floor)) continue;
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
      lambda[i] = next;
      changed = true;
    }
    if (!changed) break;
  }
}

}  // namespace handsim::contact
