// SPDX-License-Identifier: GPL-3.0-or-later
// Projected Gauss-Seidel for unilateral velocity constraints in impulse form: the linear
// complementarity problem 0 <= lambda  _|_  J v+ - c >= 0 with v+ = v + M^-1 J^T lambda,
// solved one row at a time with each impulse projected onto lambda >= 0 (Cottle, Pang and
// Stone, The Linear Complementarity Problem, 1992, sec. 5.2 "projected SOR" with relaxation 1;
// in the velocity/impulse form used by rigid-body simulators, Catto, "Iterative Dynamics with
// Temporal Coherence", GDC 2005, and Erleben, "Velocity-based shock propagation for multibody
// dynamics animation", ACM TOG 26(2), 2007).
#pragma once

#include <Eigen/Core>

namespace handsim::contact {

/// Runs at most `sweeps` Gauss-Seidel sweeps over the rows of the system (nr = bias.size()),
/// fewer when a sweep changes no impulse (then every further sweep would repeat it exactly, so
/// the result is the same bit for bit).
///  - rows: J (nr x n), one constraint per row, J v >= bias wanted;
///  - minv_rows: M^-1 J^T (n x nr);
///  - w: J M^-1 J^T (nr x nr), the Delassus matrix; a row with w_ii <= row_floor is skipped
///    (it constrains nothing, e.g. a contact on a clutch-locked link);
///  - velocity (n): updated in place to v + M^-1 J^T lambda;
///  - lambda (nr): the impulses on return (>= 0), starting from zero.
/// Deterministic (fixed sweep count, fixed row order) and free of heap allocation.
void projectedGaussSeidel(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                          const Eigen::Ref<const Eigen::MatrixXd>& minv_rows,
                          const Eigen::Ref<const Eigen::MatrixXd>& w,
                          const Eigen::Ref<const Eigen::VectorXd>& bias, int sweeps,
                          double row_floor, Eigen::Ref<Eigen::VectorXd> velocity,
                          Eigen::Ref<Eigen::VectorXd> lambda);

/// The same with Coulomb friction rows (box bounds that follow a normal impulse): a row i with
/// normal_of[i] >= 0 is a tangent row of the contact whose normal row is normal_of[i]; its
/// impulse is kept in [-mu[i] lambda_n, mu[i] lambda_n] with the normal impulse of the moment
/// (updated every sweep), so the tangential velocity is brought to `bias` (0: sticking) unless
/// that needs more than the friction cone allows (sliding, at the Coulomb bound). Rows with
/// normal_of[i] < 0 are unilateral as above. The normal rows must come before their tangent
/// rows. `normal_of` and `mu` have nr entries. Stops at the exact fixed point like the above;
/// deterministic and free of heap allocation.
void projectedGaussSeidelFriction(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                                  const Eigen::Ref<const Eigen::MatrixXd>& minv_rows,
                                  const Eigen::Ref<const Eigen::MatrixXd>& w,
                                  const Eigen::Ref<const Eigen::VectorXd>& bias,
                                  const Eigen::Ref<const Eigen::VectorXi>& normal_of,
                                  const Eigen::Ref<const Eigen::VectorXd>& mu, int sweeps,
                                  double row_floor, Eigen::Ref<Eigen::VectorXd> velocity,
                                  Eigen::Ref<Eigen::VectorXd> lambda);

}  // namespace handsim::contact
