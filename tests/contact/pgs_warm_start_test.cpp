// SPDX-License-Identifier: GPL-3.0-or-later
// The projected Gauss-Seidel solves, cold and warm started, checked against the conditions
// that define their answer, written out here independently of the solver: for the impulses
// returned, v+ = v + M^-1 J^T lambda (recomputed with a dense inverse), each normal row
// 0 <= lambda _|_ J v+ - c >= 0, and each friction row inside its Coulomb box
// |lambda_t| <= mu lambda_n (or each pair of tangent rows inside its disc, the isotropic cone),
// with J_t v+ = c_t when strictly inside and the sliding velocity against the impulse at the
// bound (for a cone: anti-parallel to the pair's impulse, maximal dissipation). No comparison with
// another run of the solver decides these tests (except the determinism test, which is about
// exactly that).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "handsim/contact/projected_gauss_seidel.hpp"

using namespace handsim;

namespace {

struct System {
  Eigen::MatrixXd m_inv;   // n x n
  Eigen::MatrixXd j;       // nr x n
  Eigen::VectorXd bias;    // nr
  Eigen::VectorXd v0;      // n
  Eigen::VectorXi normal;  // nr: -1 normal rows, else the normal row of a tangent row
  Eigen::VectorXi partner;  // nr: the other tangent row of a cone, else -1 (a box)
  Eigen::VectorXd mu;       // nr
};

// `contacts` contacts, each a normal row then two tangent rows, on n generalised velocities
// with a random positive definite inertia; normal right-hand sides of both signs (pushing out
// and allowing approach), tangent ones zero (sticking wanted). With `cones` each contact's two
// tangent rows are one isotropic cone, else two boxes.
System randomSystem(std::mt19937& rng, int n, int contacts, double friction, bool cones = false) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto random = [&](Eigen::Index r, Eigen::Index c) {
    Eigen::MatrixXd a(r, c);
    for (Eigen::Index i = 0; i < r; ++i)
      for (Eigen::Index k = 0; k < c; ++k) a(i, k) = u(rng);
    return a;
  };
  System s;
  const Eigen::MatrixXd a = random(n, n);
  const Eigen::MatrixXd mass = a * a.transpose() + Eigen::MatrixXd::Identity(n, n);
  s.m_inv = mass.inverse();
  const int nr = 3 * contacts;
  s.j = random(nr, n);
  s.bias = Eigen::VectorXd::Zero(nr);
  s.normal = Eigen::VectorXi::Constant(nr, -1);
  s.partner = Eigen::VectorXi::Constant(nr, -1);
  s.mu = Eigen::VectorXd::Zero(nr);
  // Normal rows first (the solver's order), then two tangent rows per contact.
  for (int c = 0; c < contacts; ++c) {
    s.bias[c] = 0.5 * u(rng);
    for (int k = 0; k < 2; ++k) {
      const int t = contacts + 2 * c + k;
      s.normal[t] = c;
      s.mu[t] = friction;
      if (cones) s.partner[t] = k == 0 ? t + 1 : t - 1;
    }
  }
  s.v0 = 2.0 * random(n, 1);
  return s;
}

// The largest violation of the conditions above, scaled to velocities [the units of J v].
double lcpViolation(const System& s, const Eigen::VectorXd& lambda, const Eigen::VectorXd& v) {
  const Eigen::VectorXd v_expected = s.v0 + s.m_inv * s.j.transpose() * lambda;
  double worst = (v - v_expected).cwiseAbs().maxCoeff();
  const Eigen::VectorXd r = s.j * v_expected - s.bias;
  const double scale = 1.0 + lambda.cwiseAbs().maxCoeff();
  for (Eigen::Index i = 0; i < r.size(); ++i) {
    if (s.normal[i] < 0) {
      worst = std::max(worst, -lambda[i]);               // no pulling
      worst = std::max(worst, -r[i]);                    // no approach beyond c
      worst = std::max(worst, std::abs(lambda[i] * r[i]) / scale);  // complementarity
    } else if (s.partner[i] < 0) {
      const double bound = s.mu[i] * lambda[s.normal[i]];
      worst = std::max(worst, std::abs(lambda[i]) - bound);  // inside Coulomb's box
      const double slack = 1e-9 * scale;
      if (std::abs(lambda[i]) < bound - slack)
        worst = std::max(worst, std::abs(r[i]));  // sticking: tangential velocity at c
      else if (lambda[i] > 0.0)
        worst = std::max(worst, r[i]);  // sliding along -t, the impulse along +t opposes it
      else if (lambda[i] < 0.0)
        worst = std::max(worst, -r[i]);
    } else if (s.partner[i] > i) {
      // A cone: the pair (i, j) inside the disc; sticking inside, and at the rim the pair's
      // sliding velocity r_t = -k lambda_t with k >= 0 (opposed, parallel).
      const Eigen::Index j = s.partner[i];
      const double bound = s.mu[i] * lambda[s.normal[i]];
      const Eigen::Vector2d l(lambda[i], lambda[j]), rt(r[i], r[j]);
      worst = std::max(worst, l.norm() - bound);
      if (l.norm() < bound - 1e-9 * scale) {
        worst = std::max(worst, rt.norm());
      } else if (l.norm() > 0.0) {
        const Eigen::Vector2d dir = l / l.norm();
        worst = std::max(worst, rt.dot(dir));  // not along the impulse
        worst = std::max(worst, std::abs(rt[0] * dir[1] - rt[1] * dir[0]));  // nor across it
      }
    }
  }
  return worst;
}

struct Solve {
  Eigen::VectorXd lambda, v;
  int sweeps = 0;
};

Solve solve(const System& s, contact::PgsSettings settings, const Eigen::VectorXd& start,
            bool refined = false) {
  const Eigen::MatrixXd minv_rows = s.m_inv * s.j.transpose();
  const Eigen::MatrixXd w = s.j * minv_rows;
  contact::PgsScratch scratch;
  if (refined) {
    scratch.reserve(s.bias.size(), s.v0.size());
    settings.scratch = &scratch;
  }
  Solve out;
  out.lambda = start;
  out.v = s.v0;
  out.sweeps = contact::projectedGaussSeidelFriction(s.j, minv_rows, w, s.bias, s.normal, s.partner,
                                                     s.mu, settings, out.v, out.lambda);
  return out;
}

}  // namespace

TEST(PgsWarmStart, ColdAndWarmStartsBothMeetTheCoulombComplementarityConditions) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 80; ++trial) {
    const System s = randomSystem(rng, 8, 2 + trial % 3, trial % 2 ? 0.3 : 0.8, trial >= 40);
    contact::PgsSettings settings;
    settings.sweeps = 20000;
    settings.tolerance = 1e-13;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(s.bias.size());
    const Solve cold = solve(s, settings, zero);
    ASSERT_LT(cold.sweeps, settings.sweeps) << "trial " << trial << ": the tolerance stopped it";
    EXPECT_LT(lcpViolation(s, cold.lambda, cold.v), 1e-9) << "trial " << trial;
    // Warm from an arbitrary guess, negative and beyond the friction bounds too: the start is
    // projected, and the answer meets the same conditions.
    settings.warm_start = true;
    Eigen::VectorXd guess(s.bias.size());
    for (Eigen::Index i = 0; i < guess.size(); ++i) guess[i] = 3.0 * u(rng);
    const Solve warm = solve(s, settings, guess);
    ASSERT_LT(warm.sweeps, settings.sweeps) << "trial " << trial;
    EXPECT_LT(lcpViolation(s, warm.lambda, warm.v), 1e-9) << "trial " << trial;
    // Warm from a nearby answer (the last step's, slightly off): few sweeps.
    Eigen::VectorXd near = cold.lambda;
    for (Eigen::Index i = 0; i < near.size(); ++i) near[i] *= 1.0 + 1e-3 * u(rng);
    const Solve again = solve(s, settings, near);
    EXPECT_LT(lcpViolation(s, again.lambda, again.v), 1e-9) << "trial " << trial;
  }
}

TEST(PgsWarmStart, AStartAtTheAnswerStopsAtOnce) {
  std::mt19937 rng(11);
  const System s = randomSystem(rng, 6, 3, 0.5);
  contact::PgsSettings settings;
  settings.sweeps = 20000;
  settings.tolerance = 1e-13;
  const Solve cold = solve(s, settings, Eigen::VectorXd::Zero(s.bias.size()));
  settings.warm_start = true;
  const Solve warm = solve(s, settings, cold.lambda);
  EXPECT_LE(warm.sweeps, 2);
  EXPECT_LT(cold.sweeps, settings.sweeps);
  EXPECT_GT(cold.sweeps, warm.sweeps);
  EXPECT_LT(lcpViolation(s, warm.lambda, warm.v), 1e-9);
}

TEST(PgsWarmStart, TheToleranceBoundsTheLastSweepsChange) {
  // Stopped by a loose tolerance, one more sweep from the result changes no impulse by more
  // than that tolerance of the largest one would allow a sweep to (checked with a plain
  // sweep budget of 1 warm started from the result).
  std::mt19937 rng(3);
  System s = randomSystem(rng, 8, 4, 0.5);
  s.bias.head(4) = s.bias.head(4).cwiseAbs().array() + 0.1;  // every contact pushed out
  contact::PgsSettings settings;
  settings.sweeps = 20000;
  settings.tolerance = 1e-4;
  const Solve loose = solve(s, settings, Eigen::VectorXd::Zero(s.bias.size()));
  contact::PgsSettings one = settings;
  one.sweeps = 1;
  one.tolerance = 0.0;
  one.warm_start = true;
  const Solve next = solve(s, one, loose.lambda);
  const double largest = loose.lambda.cwiseAbs().maxCoeff();
  EXPECT_GT(largest, 0.0);
  // The sweep after the stopping one moves less than a few tolerances' worth (PGS contracts).
  EXPECT_LT((next.lambda - loose.lambda).cwiseAbs().maxCoeff(), 10.0 * 1e-4 * largest);
}

TEST(PgsWarmStart, SameInputSameOutputBitForBit) {
  std::mt19937 rng(5);
  const System s = randomSystem(rng, 7, 3, 0.4);
  contact::PgsSettings settings;
  settings.tolerance = 1e-8;
  settings.warm_start = true;
  Eigen::VectorXd guess = Eigen::VectorXd::Constant(s.bias.size(), 0.1);
  const Solve a = solve(s, settings, guess);
  const Solve b = solve(s, settings, guess);
  EXPECT_EQ(a.sweeps, b.sweeps);
  EXPECT_TRUE((a.lambda.array() == b.lambda.array()).all());
  EXPECT_TRUE((a.v.array() == b.v.array()).all());
}

// --- the active-set refinement (PgsSettings::scratch) ---------------------------------------

TEST(PgsRefinement, MeetsTheCoulombComplementarityConditionsWithCones) {
  // Random systems as above, redundant ones too (up to 5 contacts x 3 rows on 8 velocities):
  // the refined solve meets the same conditions, checked independently.
  std::mt19937 rng(17);
  int converged = 0;
  for (int trial = 0; trial < 120; ++trial) {
    const int n = trial % 3 == 0 ? 8 : 9;
    const System s = randomSystem(rng, n, 2 + trial % 4, trial % 2 ? 0.3 : 0.9, trial % 5 != 0);
    contact::PgsSettings settings;
    settings.sweeps = 20000;
    settings.tolerance = 1e-13;
    // Gauss-Seidel itself does not converge on every random cone system; where it does, the
    // refined solve must too.
    const Solve plain = solve(s, settings, Eigen::VectorXd::Zero(s.bias.size()), false);
    if (plain.sweeps == settings.sweeps) continue;
    ++converged;
    const Solve refined = solve(s, settings, Eigen::VectorXd::Zero(s.bias.size()), true);
    ASSERT_LT(refined.sweeps, settings.sweeps) << "trial " << trial;
    EXPECT_LT(lcpViolation(s, refined.lambda, refined.v), 1e-9) << "trial " << trial;
  }
  EXPECT_GE(converged, 100);
}

TEST(PgsRefinement, NeverNeedsMoreSweepsOnAverageThanPlainGaussSeidel) {
  std::mt19937 rng(23);
  long plain = 0, refined = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const System s = randomSystem(rng, 8, 3 + trial % 3, 0.6, true);
    contact::PgsSettings settings;
    settings.sweeps = 20000;
    settings.tolerance = 1e-10;
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(s.bias.size());
    plain += solve(s, settings, zero, false).sweeps;
    refined += solve(s, settings, zero, true).sweeps;
  }
  EXPECT_LT(refined, plain);
}

// A box of mass m resting on a plane on its four bottom corners (a rigid body: 3 translational
// and 3 rotational velocities; inertia of a cube of edge 2h), the step's gravity impulse
// m g dt to be held, mu 0.5 on isotropic cones. Twelve rows on six velocities: the normal
// rows are redundant (any split of m g dt over the corners with the right moments holds it).
// Worked here: the box stays at rest (v+ = 0), so the normal impulses add up to m g dt and
// their moments about the centre cancel; friction can only be internal (its sum is zero).
TEST(PgsRefinement, ARestingBoxSettlesInAFewSweeps) {
  const double m = 0.2, h = 0.025, g = 9.81, dt = 1e-3, mu = 0.5;
  const double inertia = m * (2.0 * h) * (2.0 * h) / 6.0;
  System s;
  s.m_inv = Eigen::MatrixXd::Zero(6, 6);
  s.m_inv.diagonal() << 1.0 / m, 1.0 / m, 1.0 / m, 1.0 / inertia, 1.0 / inertia, 1.0 / inertia;
  const int contacts = 4, nr = 3 * contacts;
  s.j = Eigen::MatrixXd::Zero(nr, 6);
  s.bias = Eigen::VectorXd::Zero(nr);
  s.normal = Eigen::VectorXi::Constant(nr, -1);
  s.partner = Eigen::VectorXi::Constant(nr, -1);
  s.mu = Eigen::VectorXd::Zero(nr);
  const double corner[4][2] = {{h, h}, {-h, h}, {-h, -h}, {h, -h}};
  for (int c = 0; c < contacts; ++c) {
    const Eigen::Vector3d r(corner[c][0], corner[c][1], -h);  // from the centre
    const Eigen::Vector3d axes[3] = {Eigen::Vector3d::UnitZ(), Eigen::Vector3d::UnitX(),
                                     Eigen::Vector3d::UnitY()};
    const int row[3] = {c, contacts + 2 * c, contacts + 2 * c + 1};
    for (int k = 0; k < 3; ++k) {
      // The velocity of the corner along the axis: d . (v + omega x r) = d . v + (r x d) . omega.
      s.j.row(row[k]).head<3>() = axes[k].transpose();
      s.j.row(row[k]).tail<3>() = r.cross(axes[k]).transpose();
      if (k > 0) {
        s.normal[row[k]] = c;
        s.partner[row[k]] = k == 1 ? row[k] + 1 : row[k] - 1;
        s.mu[row[k]] = mu;
      }
    }
  }
  s.v0 = Eigen::VectorXd::Zero(6);
  s.v0[2] = -g * dt;  // the step's gravity, to be taken out by the contacts
  contact::PgsSettings settings;
  settings.sweeps = 50;  // the simulator's default budget and tolerance
  settings.tolerance = 1e-9;
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(nr);
  const Solve refined = solve(s, settings, zero, true);
  EXPECT_LE(refined.sweeps, 6);
  EXPECT_LT(lcpViolation(s, refined.lambda, refined.v), 1e-12);
  EXPECT_LT(refined.v.cwiseAbs().maxCoeff(), 1e-9 * g * dt);
  Eigen::Vector3d force = Eigen::Vector3d::Zero(), moment = Eigen::Vector3d::Zero();
  for (int c = 0; c < contacts; ++c) {
    const Eigen::Vector3d r(corner[c][0], corner[c][1], -h);
    const Eigen::Vector3d f(refined.lambda[contacts + 2 * c], refined.lambda[contacts + 2 * c + 1],
                            refined.lambda[c]);  // along x, y (the tangent rows), z
    EXPECT_GT(refined.lambda[c], 0.0) << "corner " << c;
    force += f;
    moment += r.cross(f);
  }
  EXPECT_NEAR(force.z(), m * g * dt, 1e-9 * m * g * dt);
  EXPECT_LT(force.head<2>().norm(), 1e-9 * m * g * dt);
  EXPECT_LT(moment.norm(), 1e-9 * m * g * dt * h);
  // Plain Gauss-Seidel holds the box too, but spends the whole budget on the redundant split.
  const Solve plain = solve(s, settings, zero, false);
  EXPECT_LT(lcpViolation(s, plain.lambda, plain.v), 1e-6);
  EXPECT_GT(plain.sweeps, refined.sweeps);
}
