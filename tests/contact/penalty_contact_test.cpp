// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's contact laws (penalty_contact.hpp) against closed forms: the filter's response to a
// ramp, a step and a slow sine; the first-contact force's integral (a Gaussian's, through erf);
// the tanh law's creep speed from integrating a block against the root of its equation; the
// anchor friction holding a block below mu F_n, sliding it at (F_t - mu F_n) / m above, and never
// creating energy.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

#include "handsim/contact/penalty_contact.hpp"

namespace handsim::contact {
namespace {

using Eigen::Vector3d;
constexpr double kPi = 3.14159265358979323846;

TEST(LowPass, RampSlopeMatchesTheCriticallyDampedClosedForm) {
  // x = a t, x_f(0) = 0, x_f'(0) = 0, ζ = 1: x_f' = a (1 - (1 + ω t) e^{-ω t}),
  // x_f = a t - 2a/ω + (2a/ω + a t) e^{-ω t}. The input is linear, so the steps are exact.
  const double a = 0.37, w = 200.0, dt = 1e-3;
  LowPassState s = startLowPass(0.0);
  for (int i = 1; i <= 100; ++i) {
    const double t = i * dt;
    advanceLowPass(s, a * t, dt, 1.0, w);
    const double e = std::exp(-w * t);
    EXPECT_NEAR(s.rate, a * (1 - (1 + w * t) * e), 1e-12) << t;
    EXPECT_NEAR(s.value, a * t - 2 * a / w + (2 * a / w + a * t) * e, 1e-14) << t;
  }
  EXPECT_NEAR(s.rate, a, 1e-6 * a);  // tracks the slope
}

TEST(LowPass, StepResponseMatchesTheSecondOrderClosedForm) {
  const double w = 50.0;
  for (double zeta : {0.3, 1.0, 2.5}) {
    for (double dt : {0.01, 0.0037}) {
      LowPassState s{0.0, 0.0, 1.0};  // at rest at 0 with the unit step already applied
      for (int i = 1; i * dt <= 0.3; ++i) {
        advanceLowPass(s, 1.0, dt, zeta, w);
        const double t = i * dt;
        double x = 0.0, xd = 0.0;
        if (zeta < 1) {
          const double wd = w * std::sqrt(1 - zeta * zeta);
          x = 1 - std::exp(-zeta * w * t) *
                      (std::cos(wd * t) + zeta / std::sqrt(1 - zeta * zeta) * std::sin(wd * t));
          xd = w / std::sqrt(1 - zeta * zeta) * std::exp(-zeta * w * t) * std::sin(wd * t);
        } else if (zeta == 1) {
          x = 1 - (1 + w * t) * std::exp(-w * t);
          xd = w * w * t * std::exp(-w * t);
        } else {
          const double r1 = -w * (zeta - std::sqrt(zeta * zeta - 1));
          const double r2 = -w * (zeta + std::sqrt(zeta * zeta - 1));
          x = 1 + (r2 * std::exp(r1 * t) - r1 * std::exp(r2 * t)) / (r1 - r2);
          xd = r1 * r2 * (std::exp(r1 * t) - std::exp(r2 * t)) / (r1 - r2);
        }
        EXPECT_NEAR(s.value, x, 1e-12) << zeta << " " << t;
        EXPECT_NEAR(s.rate, xd, 1e-10 * w) << zeta << " " << t;
      }
    }
  }
}

TEST(LowPass, SlowSineDerivativeMatchesTheFrequencyResponse) {
  // x = sin(Ω t) = Im(e^{iΩt}): after the transient x_f' = Im(i Ω H(iΩ) e^{iΩt}), H(s) = ω² / (s² +
  // 2ζωs + ω²); with Ω << ω it is close to the true derivative Ω cos(Ω t).
  const double W = 2 * kPi * 2.0, w = 2 * kPi * 100.0, zeta = 1.0, dt = 1e-3;
  const std::complex<double> iW(0.0, W);
  const std::complex<double> H = w * w / (iW * iW + 2 * zeta * w * iW + w * w);
  LowPassState s = startLowPass(0.0);
  for (int i = 1; i <= 1000; ++i) {
    const double t = i * dt;
    advanceLowPass(s, std::sin(W * t), dt, zeta, w);
    if (t < 0.1) continue;
    const double expected = std::imag(iW * H * std::exp(iW * t));
    // The input is linear between samples: the error is the sine's curvature over one step.
    EXPECT_NEAR(s.rate, expected, 1e-4 * W) << t;
    EXPECT_NEAR(s.rate, W * std::cos(W * t), 0.05 * W) << t;
  }
}

TEST(LowPass, RejectsBadArguments) {
  LowPassState s;
  EXPECT_THROW(advanceLowPass(s, 1.0, -1e-3, 1.0, 10.0), std::invalid_argument);
  EXPECT_THROW(advanceLowPass(s, 1.0, 1e-3, 0.0, 10.0), std::invalid_argument);
  EXPECT_THROW(advanceLowPass(s, 1.0, 1e-3, 1.0, 0.0), std::invalid_argument);
}

TEST(FirstContact, ForceIntegratesToTheGaussianClosedForm) {
  // ∫ from t_c to T of δ_i = i_v / 2 (erf((T - t_v) / d_v) + erf(g_t)), i_v = g_i m Δv, and the
  // gain's excess over 1 is δ_i / (g1 d_t), so it integrates to that integral over g1 d_t.
  PenaltyContactParams p;
  const FirstContact c{0.25, 0.15};
  const double m = 0.4, iv = p.first_contact_gain * m * c.approach_mps;
  const double dv = p.target_depth_m / c.approach_mps;
  const double tv = c.time_s + p.first_contact_delay * dv;
  const int n = 20000;
  for (double T : {tv - 0.5 * dv, tv, tv + 3 * dv, c.time_s + 40 * dv}) {
    // Simpson's rule on [t_c, T].
    const double h = (T - c.time_s) / n;
    double sum = 0.0, gain_sum = 0.0;
    for (int i = 0; i <= n; ++i) {
      const double wgt = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
      sum += wgt * firstContactForce(p, c, m, c.time_s + i * h);
      gain_sum += wgt * (firstContactGain(p, c, m, c.time_s + i * h) - 1.0);
    }
    const double closed = iv / 2 * (std::erf((T - tv) / dv) + std::erf(p.first_contact_delay));
    EXPECT_NEAR(sum * h / 3, closed, 1e-9 * iv) << T;
    const double force_scale = p.stiffness_n_per_m * p.target_depth_m;
    EXPECT_NEAR(gain_sum * h / 3, closed / force_scale, 1e-9 * iv / force_scale) << T;
  }
  EXPECT_EQ(firstContactForce(p, FirstContact{0.0, 0.0}, m, 0.1), 0.0);
  EXPECT_EQ(firstContactGain(p, FirstContact{0.0, -0.2}, m, 0.1), 1.0);
  // The peak, 1 + g_i / sqrt(pi) m dv^2 / (g1 d_t^2): a slow touch gets almost nothing (1 mm/s
  // on 0.4 kg: 1 + 1.9e-5), a 1 m/s impact 1 + 141 x 1.35.
  for (const double speed : {1e-3, 1.0}) {
    const FirstContact hit{0.0, speed};
    const double t_peak = p.first_contact_delay * p.target_depth_m / speed;
    const double severity =
        m * speed * speed / (p.stiffness_n_per_m * p.target_depth_m * p.target_depth_m);
    EXPECT_NEAR(firstContactGain(p, hit, m, t_peak),
                1.0 + p.first_contact_gain / std::sqrt(kPi) * severity, 1e-12 * severity);
  }
}

TEST(PenaltyForce, MagnitudeDirectionTorqueAndDepth) {
  PenaltyContactParams p;
  // A thin slab between two flat faces of area A: v = A d, each sub-mesh has area A.
  EXPECT_DOUBLE_EQ(equivalentDepth(2e-4 * 1e-3, referenceArea(0.0, 2e-4, 2e-4)), 1e-3);
  EXPECT_EQ(equivalentDepth(1e-9, 0.0), 0.0);
  // The reference area keeps the largest mean area: it grows with the contact, never shrinks.
  EXPECT_DOUBLE_EQ(referenceArea(0.0, 1e-4, 3e-4), 2e-4);
  EXPECT_DOUBLE_EQ(referenceArea(2e-4, 1e-4, 1e-4), 2e-4);
  EXPECT_DOUBLE_EQ(referenceArea(2e-4, 3e-4, 5e-4), 4e-4);
  // 0.1 mm at rest: 740 N/cm * 0.01 cm = 7.4 N.
  EXPECT_NEAR(penaltyForceMagnitude(p, 1.0, 1e-4, 0.0), 7.4, 1e-12);
  EXPECT_NEAR(penaltyForceMagnitude(p, 3.0, 1e-4, 1e-3), 3 * (7.4 + 5.0), 1e-12);
  EXPECT_EQ(penaltyForceMagnitude(p, 1.0, 1e-4, -1.0), 0.0);  // separating fast: no pull
  const Vector3d f = penaltyForceOnB(5.0, Vector3d(0, 3, 4));
  EXPECT_NEAR((f - Vector3d(0, 3, 4)).norm(), 0.0, 1e-15);
  EXPECT_EQ(penaltyForceOnB(5.0, Vector3d::Zero()), Vector3d::Zero());
  EXPECT_NEAR(
      (penaltyTorque(Vector3d(1, 0, 0), Vector3d(0, 0, 0), Vector3d(0, 2, 0)) - Vector3d(0, 0, 2))
          .norm(),
      0.0, 1e-15);
}

TEST(TanhFriction, BlockCreepsAtTheClosedFormSpeed) {
  // A 0.2 kg block pressed with F_n = 10 N and pushed with F_t < mu F_n reaches the speed that
  // solves mu F_n tanh(γ v) + β v = F_t.
  for (const PenaltyContactParams& p : {PenaltyContactParams{}, [] {
                                          PenaltyContactParams q;
                                          q.tanh_slope_s_per_m =
                                              1.0;  // the SI-literal reading of the paper's γ and β
                                          q.viscous_ns_per_m = 0.2;
                                          return q;
                                        }()}) {
    const double m = 0.2, fn = 10.0, ft = 0.981;
    const double v_star = tanhCreepSpeed(p, ft, fn);
    EXPECT_NEAR(p.mu * fn * std::tanh(p.tanh_slope_s_per_m * v_star) + p.viscous_ns_per_m * v_star,
                ft, 1e-12);
    Vector3d v = Vector3d::Zero();
    const double dt = 1e-5;
    for (int i = 0; i < 300000; ++i) v += dt * (Vector3d(ft, 0, 0) + tanhFriction(p, fn, v)) / m;
    EXPECT_NEAR(v.x(), v_star, 1e-6 * v_star);
    EXPECT_GT(v_star, 0.0);  // it never holds
  }
  PenaltyContactParams no_viscous;
  no_viscous.viscous_ns_per_m = 0.0;
  EXPECT_TRUE(std::isinf(tanhCreepSpeed(no_viscous, 3.0, 10.0)));
  EXPECT_EQ(tanhCreepSpeed(no_viscous, 0.0, 10.0), 0.0);
}

struct BlockRun {
  double x_final = 0.0, x_at_1s = 0.0, max_abs_x = 0.0;
  double v_at_1s = 0.0, v_at_2s = 0.0;
  double min_dissipated = 0.0, total_dissipated = 0.0;
};

// A block of mass m on a plane (normal +z) pressed with F_n, pushed along x with F_t, friction
// from the anchor model, semi-implicit Euler at dt for `seconds`; F_t ramps up over `ramp_s`.
BlockRun runBlock(const AnchorFrictionParams& p, double m, double fn, double ft, double dt,
                  double seconds, double ramp_s = 0.0) {
  BlockRun r;
  AnchorState anchor;
  Vector3d x = Vector3d::Zero(), v = Vector3d::Zero();
  const int steps = static_cast<int>(std::lround(seconds / dt));
  for (int i = 1; i <= steps; ++i) {
    const AnchorFrictionResult f = anchorFriction(p, anchor, Vector3d::UnitZ(), v, fn, dt);
    r.min_dissipated = std::min(r.min_dissipated, f.dissipated_j);
    r.total_dissipated += f.dissipated_j;
    const double load = ramp_s > 0.0 ? ft * std::min(1.0, i * dt / ramp_s) : ft;
    v += dt * (Vector3d(load, 0, 0) + f.force) / m;
    x += dt * v;
    r.max_abs_x = std::max(r.max_abs_x, x.norm());
    if (i == static_cast<int>(std::lround(1.0 / dt))) {
      r.x_at_1s = x.x();
      r.v_at_1s = v.x();
    }
    if (i == static_cast<int>(std::lround(2.0 / dt))) r.v_at_2s = v.x();
  }
  r.x_final = x.x();
  return r;
}

TEST(AnchorFriction, HoldsBelowTheConeWithoutDrift) {
  const AnchorFrictionParams p;  // mu 0.5, k 1e4 N/m, c 20 N s/m
  const double m = 0.2, fn = m * 9.81, dt = 1e-3;
  for (double ratio : {0.1, 0.5, 0.95}) {
    const double ft = ratio * p.mu * fn;
    // A sudden load overshoots (up to twice its static stretch, undamped), which near the cone
    // would slip during the transient: the load comes on over 0.2 s, as a grasp's would.
    const BlockRun r = runBlock(p, m, fn, ft, dt, 10.0, 0.2);
    // The spring stretches to F_t / k_t and stays: nothing moves between t = 1 s and t = 10 s.
    EXPECT_LE(r.max_abs_x, 2 * ft / p.stiffness_n_per_m) << ratio;
    EXPECT_NEAR(r.x_final, ft / p.stiffness_n_per_m, 1e-9 * ft / p.stiffness_n_per_m) << ratio;
    EXPECT_NEAR(r.x_final - r.x_at_1s, 0.0, 1e-12) << ratio;
    EXPECT_GE(r.min_dissipated, -1e-18);
  }
}

TEST(AnchorFriction, SlidesAboveTheConeWithCoulombAcceleration) {
  const AnchorFrictionParams p;
  const double m = 0.2, fn = m * 9.81, dt = 1e-3;
  for (double ratio : {1.05, 1.5, 3.0}) {
    const double ft = ratio * p.mu * fn;
    const BlockRun r = runBlock(p, m, fn, ft, dt, 2.0);
    const double expected = (ft - p.mu * fn) / m;
    EXPECT_NEAR((r.v_at_2s - r.v_at_1s) / 1.0, expected, 0.02 * expected) << ratio;
    EXPECT_GE(r.min_dissipated, -1e-18);
    // While sliding, friction removes mu F_n per metre slid.
    EXPECT_GT(r.total_dissipated, 0.0);
  }
}

TEST(AnchorFriction, NeverCreatesEnergy) {
  // Random slip velocities, normals turning, normal forces changing and vanishing.
  AnchorFrictionParams p;
  AnchorState s;
  std::mt19937 rng(42);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Vector3d n = Vector3d::UnitZ();
  for (int i = 0; i < 20000; ++i) {
    n = (n + 0.05 * Vector3d(g(rng), g(rng), g(rng))).normalized();
    const Vector3d v = 0.02 * Vector3d(g(rng), g(rng), g(rng));
    const double fn = u(rng) < 0.02 ? 0.0 : 5.0 * u(rng);
    const AnchorFrictionResult f = anchorFriction(p, s, n, v, fn, 1e-3);
    ASSERT_GE(f.dissipated_j, -1e-15) << i;
    ASSERT_LE(f.force.norm(), p.mu * fn * (1 + 1e-12) + 1e-15) << i;
  }
}

}  // namespace
}  // namespace handsim::contact
