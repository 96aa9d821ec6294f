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
// or the largest change is within the tolerance of the largest impulse (or of the settings'
// reference impulse, when that is larger).
bool settled(double largest_change, Eigen::Ref<const Eigen::VectorXd> lambda,
             const PgsSettings& settings) {
  if (largest_change == 0.0) return true;
  if (settings.tolerance <= 0.0) return false;
  const double scale = std::max(lambda.cwiseAbs().maxCoeff(), settings.reference_impulse);
  return largest_change <= settings.tolerance * scale;
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
    const double m0 = m[0] + s, m1 = m[1] + s;
    const double dy =
        (g[0] * g[0] / (m0 * m0 * m0) + g[1] * g[1] / (m1 * m1 * m1)) / (len * len * len);
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

// The active-set refinement (PgsSettings::scratch). `normal_of`, `partner`, `mu` are null for
// a solve of normal rows only. Returns true when it moved the impulses (and the velocity).
bool refine(const Eigen::Ref<const Eigen::MatrixXd>& rows,
            const Eigen::Ref<const Eigen::MatrixXd>& minv_rows,
            const Eigen::Ref<const Eigen::MatrixXd>& w,
            const Eigen::Ref<const Eigen::VectorXd>& bias, const int* normal_of, const int* partner,
            const double* mu, const PgsSettings& settings, Eigen::Ref<Eigen::VectorXd> velocity,
            Eigen::Ref<Eigen::VectorXd> lambda) {
  PgsScratch& sc = *settings.scratch;
  const Eigen::Index nr = bias.size(), n = velocity.size();
  if (nr > sc.block.rows() || n > sc.velocity_change.size()) return false;
  const auto live = [&](Eigen::Index i) { return w(i, i) > settings.row_floor; };
  // Inside a bound by more than rounding: such a row moves with the others; at a bound it stays.
  constexpr double kInside = 1.0 - 1e-9;
  // The rows that move.
  Eigen::Index na = 0;
  for (Eigen::Index i = 0; i < nr; ++i) {
    if (!live(i)) continue;
    if (normal_of == nullptr || normal_of[i] < 0) {
      if (lambda[i] > 0.0) sc.active[na++] = static_cast<int>(i);
      continue;
    }
    const double bound = mu[i] * lambda[normal_of[i]];
    if (!(bound > 0.0)) continue;
    if (partner[i] >= 0) {
      const Eigen::Index j = partner[i];
      if (j < i) continue;         // the cone's second row: with its first
      if (!live(j)) return false;  // a half-dead cone: a box the sweeps handle
      if (std::hypot(lambda[i], lambda[j]) < kInside * bound) {
        sc.active[na++] = static_cast<int>(i);
        sc.active[na++] = static_cast<int>(j);
      }
    } else if (std::abs(lambda[i]) < kInside * bound) {
      sc.active[na++] = static_cast<int>(i);
    }
  }
  if (na == 0) return false;
  // W_AA dlambda = -(J_A v - c_A), by Cholesky of W_AA + delta I: a redundant set (W_AA
  // singular, e.g. four coplanar corners) gets the change of least size in the redundant
  // directions, where the right side has no component (solving for the whole impulses instead,
  // for the least-norm split, measured 3-4x more sweeps on the lifts: each refinement undoes
  // the sweeps' split and they walk back).
  double largest_diagonal = 0.0;
  for (Eigen::Index a = 0; a < na; ++a) {
    const Eigen::Index i = sc.active[a];
    largest_diagonal = std::max(largest_diagonal, w(i, i));
    sc.step[a] = -(rows.row(i).dot(velocity) - bias[i]);
    for (Eigen::Index b = 0; b <= a; ++b) {
      const Eigen::Index k = sc.active[b];
      sc.block(a, b) = 0.5 * (w(i, k) + w(k, i));
    }
  }
  const double delta = 1e-10 * largest_diagonal;
  for (Eigen::Index a = 0; a < na; ++a) {
    double d = sc.block(a, a) + delta;
    for (Eigen::Index m = 0; m < a; ++m) d -= sc.block(a, m) * sc.block(a, m);
    if (!(d > 0.0)) return false;
    d = std::sqrt(d);
    sc.block(a, a) = d;
    for (Eigen::Index b = a + 1; b < na; ++b) {
      double v = 0.5 * (w(sc.active[b], sc.active[a]) + w(sc.active[a], sc.active[b]));
      for (Eigen::Index m = 0; m < a; ++m) v -= sc.block(b, m) * sc.block(a, m);
      sc.block(b, a) = v / d;
    }
  }
  for (Eigen::Index a = 0; a < na; ++a) {  // L y = r
    double v = sc.step[a];
    for (Eigen::Index m = 0; m < a; ++m) v -= sc.block(a, m) * sc.step[m];
    sc.step[a] = v / sc.block(a, a);
  }
  for (Eigen::Index a = na - 1; a >= 0; --a) {  // L^T x = y
    double v = sc.step[a];
    for (Eigen::Index m = a + 1; m < na; ++m) v -= sc.block(m, a) * sc.step[m];
    sc.step[a] = v / sc.block(a, a);
  }
  // The step is taken as far as every bound allows (alpha in [0, 1]; the row that stops it
  // joins its bound's set at the next refinement): normals stay >= 0, friction inside its
  // cone or box, and no normal row at zero is driven into approach.
  auto v_change = sc.velocity_change.head(n);
  v_change.setZero();
  for (Eigen::Index a = 0; a < na; ++a) {
    if (!std::isfinite(sc.step[a])) return false;
    v_change += minv_rows.col(sc.active[a]) * sc.step[a];
  }
  auto change = sc.change.head(nr);
  change.setZero();
  for (Eigen::Index a = 0; a < na; ++a) change[sc.active[a]] = sc.step[a];
  double alpha = 1.0;
  // Largest alpha with g0 + alpha g1 <= 0, given g0 <= 0.
  const auto limitLinear = [&alpha](double g0, double g1) {
    if (g1 > 0.0) alpha = std::min(alpha, std::max(0.0, -g0 / g1));
  };
  const double scale = std::max(lambda.cwiseAbs().maxCoeff(), settings.reference_impulse);
  for (Eigen::Index i = 0; i < nr; ++i) {
    if (!live(i)) continue;
    if (normal_of == nullptr || normal_of[i] < 0) {
      if (change[i] != 0.0) {
        limitLinear(-lambda[i], -change[i]);
      } else if (lambda[i] == 0.0) {
        // Approach beyond what an impulse of the tolerance would undo.
        const double r = rows.row(i).dot(velocity) - bias[i];
        const double slack = settings.tolerance * scale * w(i, i);
        limitLinear(-std::max(0.0, r + slack), -rows.row(i).dot(v_change));
      }
      continue;
    }
    const Eigen::Index nrow = normal_of[i];
    if (change[i] == 0.0) continue;  // at its bound (or dead): kept, see below
    const double m = mu[i], ln = lambda[nrow], dn = change[nrow];
    if (partner[i] >= 0) {
      const Eigen::Index j = partner[i];
      if (j < i) continue;
      // |a + alpha d| <= m (ln + alpha dn): the first root of the quadratic f(alpha) (f(0) < 0).
      const Eigen::Vector2d a(lambda[i], lambda[j]), d(change[i], change[j]);
      const double qa = d.squaredNorm() - m * m * dn * dn;
      const double qb = 2.0 * (a.dot(d) - m * m * ln * dn);
      const double qc = a.squaredNorm() - m * m * ln * ln;
      limitLinear(-ln, -dn);
      if (std::abs(qa) <= 1e-300) {
        limitLinear(std::min(0.0, qc), qb);
      } else {
        const double disc = qb * qb - 4.0 * qa * qc;
        if (disc >= 0.0) {
          const double root = std::sqrt(disc);
          for (const double x : {(-qb - root) / (2.0 * qa), (-qb + root) / (2.0 * qa)})
            if (x >= 0.0) alpha = std::min(alpha, x);
        }
      }
    } else {
      limitLinear(lambda[i] - m * ln, change[i] - m * dn);
      limitLinear(-lambda[i] - m * ln, -change[i] - m * dn);
    }
  }
  if (!(alpha > 0.0)) return false;
  for (Eigen::Index i = 0; i < nr; ++i) {
    lambda[i] += alpha * change[i];
    if (normal_of == nullptr || normal_of[i] < 0) lambda[i] = std::max(0.0, lambda[i]);
  }
  velocity += alpha * v_change;
  // Friction kept at its bound whose normal impulse fell: back onto the (smaller) bound.
  if (normal_of != nullptr) {
    for (Eigen::Index i = 0; i < nr; ++i) {
      if (normal_of[i] < 0 || change[i] != 0.0 || !live(i)) continue;
      const double bound = mu[i] * lambda[normal_of[i]];
      if (partner[i] >= 0) {
        const Eigen::Index j = partner[i];
        if (j < i) continue;
        const double len = std::hypot(lambda[i], lambda[j]);
        if (len > bound) {
          const double f = len > 0.0 ? bound / len : 0.0;
          velocity += minv_rows.col(i) * ((f - 1.0) * lambda[i]) +
                      minv_rows.col(j) * ((f - 1.0) * lambda[j]);
          lambda[i] *= f;
          lambda[j] *= f;
        }
      } else if (std::abs(lambda[i]) > bound) {
        const double next = std::clamp(lambda[i], -bound, bound);
        velocity += minv_rows.col(i) * (next - lambda[i]);
        lambda[i] = next;
      }
    }
  }
  return true;
}

// Sweeps after which the refinement is tried: 2, 4, 8, ...
bool refineAfter(int sweep) {
  return sweep >= 2 && (sweep & (sweep - 1)) == 0;
}

}  // namespace

void PgsScratch::reserve(Eigen::Index rows, Eigen::Index n) {
  if (block.rows() < rows) {
    block.resize(rows, rows);
    step.resize(rows);
    change.resize(rows);
    active.resize(rows);
  }
  if (velocity_change.size() < n) velocity_change.resize(n);
}

int projectedGaussSeidel(const Eigen::Ref<const Eigen::MatrixXd>& rows,
                         const Eigen::Ref<const Eigen::MatrixXd>& minv_rows,
                         const Eigen::Ref<const Eigen::MatrixXd>& w,
                         const Eigen::Ref<const Eigen::VectorXd>& bias, const PgsSettings& settings,
                         Eigen::Ref<Eigen::VectorXd> velocity, Eigen::Ref<Eigen::VectorXd> lambda) {
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
    if (settings.scratch != nullptr && settings.tolerance > 0.0 && refineAfter(sweep))
      refine(rows, minv_rows, w, bias, nullptr, nullptr, nullptr, settings, velocity, lambda);
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
    if (settings.scratch != nullptr && settings.tolerance > 0.0 && refineAfter(sweep))
      refine(rows, minv_rows, w, bias, normal_of.data(), partner.data(), mu.data(), settings,
             velocity, lambda);
  }
  return sweep;
}

}  // namespace handsim::contact
