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

/// Scratch of the active-set refinement (PgsSettings::scratch): the block of the Delassus
/// matrix of the rows that move, its factor, and the step in impulses and velocities. reserve()
/// sizes it for up to `rows` rows on `n` generalised velocities; a solve with more rows skips the
/// refinement. The solves allocate nothing.
struct PgsScratch {
  Eigen::MatrixXd block;     ///< W_AA, then its Cholesky factor (lower)
  Eigen::VectorXd step;      ///< -residual of the active rows, then their impulse change
  Eigen::VectorXd change;    ///< the step of every row's impulse (nr)
  Eigen::VectorXd velocity_change;  ///< M^-1 J_A^T times the step (n)
  Eigen::VectorXi active;    ///< the rows that move
  void reserve(Eigen::Index rows, Eigen::Index n);
};

/// How a solve runs. Deterministic in every setting: fixed row order, and the stopping test
/// depends only on the impulses.
struct PgsSettings {
  /// At most this many sweeps over the rows.
  int sweeps = 50;
  /// Stop after a sweep whose largest impulse change is at most `tolerance` times the largest
  /// impulse magnitude [-]; 0 stops only at the exact fixed point (a sweep that changes no
  /// impulse: every later sweep would repeat it, so the result is that of all `sweeps`).
  double tolerance = 0.0;
  /// An impulse magnitude [the rows' unit] the tolerance is also relative to: the solve stops
  /// when the largest change is at most `tolerance` times the larger of this and the largest
  /// impulse. A solve whose own impulses are tiny beside the system's (the impact solve of a
  /// resting contact, against last step's sustained impulses) then stops at the precision the
  /// system needs, not at `tolerance` of its own rounding-sized impulses. 0: its own only.
  double reference_impulse = 0.0;
  /// A row with w_ii <= row_floor constrains nothing (e.g. a contact on a clutch-locked link)
  /// and is skipped; its impulse is 0.
  double row_floor = 0.0;
  /// Start from the impulses passed in `lambda` (projected onto their bounds first; the
  /// velocity is moved by them) instead of from zero: Catto 2005's warm start.
  bool warm_start = false;
  /// With a tolerance > 0 and this set (sized for the rows), the sweeps are accelerated by an
  /// active-set refinement after sweeps 2, 4, 8, ...: the rows whose impulses are strictly
  /// inside their bounds (normals > 0, friction inside its cone or box) are solved exactly
  /// together, W_AA dlambda_A = -(J_A v - c_A) (Cholesky of W_AA + 1e-10 max diag(W_AA) I:
  /// in redundant directions the least change), the others kept; the impulses move towards that
  /// answer as far as every bound allows (normals >= 0, friction in its cone or box, no normal row
  /// at zero driven into approach; friction kept on its bound follows a falling normal impulse),
  /// and the sweeps go on from there (they stop as before, when a sweep changes nothing beyond the
  /// tolerance). It is the subspace step of a gradient-projection method (More and Toraldo 1991):
  /// for a correctly guessed active set it lands on the answer, so a resting or held contact set
  /// converges in a few sweeps instead of the many that Gauss-Seidel needs when bodies of very
  /// different mass meet or contacts are redundant (four corners of a box on a plane).
  PgsScratch* scratch = nullptr;
};

/// Runs at most `settings.sweeps` Gauss-Seidel sweeps over the rows of the system
/// (nr = bias.size()), fewer when a sweep changes no impulse or changes none by more than the
/// tolerance. Returns the number of sweeps run.
///  - rows: J (nr x n), one constraint per row, J v >= bias wanted;
///  - minv_rows: M^-1 J^T (n x nr);
///  - w: J M^-1 J^T (nr x nr), the Delassus matrix;
///  - velocity (n): updated in place to v + M^-1 J^T lambda;
///  - lambda (nr): the impulses on return (>= 0); on entry the warm start if
///    settings.warm_start, else ignored.
/// Free of heap allocation.
int projectedGaussSeidel(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                         const Eigen::Ref<const Eigen::MatrixXd>& minv_rows,
                         const Eigen::Ref<const Eigen::MatrixXd>& w,
                         const Eigen::Ref<const Eigen::VectorXd>& bias,
                         const PgsSettings& settings, Eigen::Ref<Eigen::VectorXd> velocity,
                         Eigen::Ref<Eigen::VectorXd> lambda);

/// The same with Coulomb friction rows that follow a normal impulse. A row i with
/// normal_of[i] >= 0 is a friction row of the contact whose normal row is normal_of[i]; rows
/// with normal_of[i] < 0 are unilateral as above. The normal rows must come before their
/// friction rows. `normal_of`, `partner` and `mu` have nr entries.
///  - A friction row with partner[i] < 0 is a box: its impulse stays in
///    [-mu[i] lambda_n, mu[i] lambda_n] (a torsional row of the soft-finger contact).
///  - Two friction rows that name each other as partner (the two tangents of one contact,
///    partner[i] = i + 1 and partner[i + 1] = i, the same mu) are an isotropic Coulomb cone:
///    the pair's impulse stays in the disc |(lambda_i, lambda_i+1)| <= mu lambda_n, solved
///    together (the 2 x 2 block of the Delassus matrix); at the disc's rim it is turned to
///    oppose the pair's sliding velocity (maximal dissipation; Stewart and Trinkle 1996), so
///    friction has the same strength in every direction of the tangent plane, unlike the
///    four-sided pyramid of two independent boxes.
/// The normal impulse of the moment is used (updated every sweep; Catto 2005), so the
/// tangential velocity is brought to `bias` (0: sticking) unless that needs more than the cone
/// allows (sliding, at the bound). Stops like the above; returns the sweeps run; free of heap
/// allocation.
int projectedGaussSeidelFriction(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                                 const Eigen::Ref<const Eigen::MatrixXd>& minv_rows,
                                 const Eigen::Ref<const Eigen::MatrixXd>& w,
                                 const Eigen::Ref<const Eigen::VectorXd>& bias,
                                 const Eigen::Ref<const Eigen::VectorXi>& normal_of,
                                 const Eigen::Ref<const Eigen::VectorXi>& partner,
                                 const Eigen::Ref<const Eigen::VectorXd>& mu,
                                 const PgsSettings& settings, Eigen::Ref<Eigen::VectorXd> velocity,
                                 Eigen::Ref<Eigen::VectorXd> lambda);

}  // namespace handsim::contact
