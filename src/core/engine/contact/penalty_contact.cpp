// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004 (arXiv:2108.00348) eq. 4-8 and the stick-slip anchor friction; the units, the
// paper's typos and the choices made here are in docs/free-objects.md, "Contact model".
#include "handsim/contact/penalty_contact.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace handsim::contact {

namespace {

constexpr double kPi = 3.14159265358979323846;

// c(t) and s(t) of exp((A - σ I) t) = c I + s (A - σ I) for the filter matrix A = [[0, 1],
// [-ω², -2 ζ ω]], σ = -ζ ω: (A - σ I)² = q I with q = σ² - ω² (Cayley-Hamilton), so c and s are
// cosh/sinh (q > 0), cos/sin (q < 0) or 1 and t (q = 0); a short series near q t² = 0.
void expShifted(double q, double t, double& c, double& s) {
  const double x = q * t * t;
  if (std::abs(x) < 1e-6) {
    c = 1.0 + x / 2.0 + x * x / 24.0;
    s = t * (1.0 + x / 6.0 + x * x / 120.0);
  } else if (q > 0.0) {
    const double r = std::sqrt(q);
    c = std::cosh(r * t);
    s = std::sinh(r * t) / r;
  } else {
    const double r = std::sqrt(-q);
    c = std::cos(r * t);
    s = std::sin(r * t) / r;
  }
}

double impactDuration(const PenaltyContactParams& p, const FirstContact& contact) {
  return p.target_depth_m / contact.approach_mps;
}

}  // namespace

LowPassState startLowPass(double input) {
  return LowPassState{input, 0.0, input};
}

void advanceLowPass(LowPassState& state, double input, double dt, double damping_ratio,
                    double natural_frequency_radps) {
  if (!(dt >= 0.0) || !(damping_ratio > 0.0) || !(natural_frequency_radps > 0.0))
    throw std::invalid_argument(
        "advanceLowPass: dt must be >= 0 and the damping ratio and natural frequency > 0");
  if (dt == 0.0) {
    state.input = input;
    return;
  }
  const double w = natural_frequency_radps, z = damping_ratio;
  // Input x(τ) = x0 + b τ: particular solution x_p(τ) = x(τ) - 2 ζ b / ω, x_p' = b; the rest
  // decays as exp(A τ) (x_f - x_p, x_f' - b).
  const double b = (input - state.input) / dt;
  const double e0 = state.value - (state.input - 2.0 * z * b / w);
  const double e1 = state.rate - b;
  const double sigma = -z * w;
  double c = 0.0, s = 0.0;
  expShifted(sigma * sigma - w * w, dt, c, s);
  const double decay = std::exp(sigma * dt);
  // exp(A dt) = decay (c I + s (A - σ I)), A - σ I = [[-σ, 1], [-ω², -2 ζ ω - σ]].
  const double n0 = decay * ((c - s * sigma) * e0 + s * e1);
  const double n1 = decay * (-s * w * w * e0 + (c + s * (-2.0 * z * w - sigma)) * e1);
  state.value = input - 2.0 * z * b / w + n0;
  state.rate = b + n1;
  state.input = input;
}

double firstContactForce(const PenaltyContactParams& p, const FirstContact& contact,
                         double total_mass_kg, double t) {
  if (!(contact.approach_mps > 0.0)) return 0.0;
  const double d = impactDuration(p, contact);
  const double impulse = p.first_contact_gain * total_mass_kg * contact.approach_mps;
  const double peak = contact.time_s + p.first_contact_delay * d;
  const double x = (t - peak) / d;
  return impulse / (std::sqrt(kPi) * d) * std::exp(-x * x);
}

double firstContactGain(const PenaltyContactParams& p, const FirstContact& contact,
                        double total_mass_kg, double t) {
  if (!(contact.approach_mps > 0.0) || !(p.stiffness_n_per_m > 0.0)) return 1.0;
  const double d = impactDuration(p, contact);
  const double x = (t - contact.time_s - p.first_contact_delay * d) / d;
  // The impact's kinetic energy over the spring's at the admissible depth (twice each).
  const double severity = total_mass_kg * contact.approach_mps * contact.approach_mps /
                          (p.stiffness_n_per_m * p.target_depth_m * p.target_depth_m);
  return 1.0 + p.first_contact_gain * severity * std::exp(-x * x) / std::sqrt(kPi);
}

double filterNaturalFrequency(const PenaltyContactParams& p, double gain, double inverse_mass) {
  const double floor =
      2.0 * gain * p.damping_ns_per_m * std::max(0.0, inverse_mass) / p.filter_damping_ratio;
  return std::max(p.filter_natural_frequency_radps, std::isfinite(floor) ? floor : 0.0);
}

double referenceArea(double previous_m2, double area_a_m2, double area_b_m2) {
  return std::max(previous_m2, 0.5 * (area_a_m2 + area_b_m2));
}

double equivalentDepth(double volume_m3, double reference_area_m2) {
  return reference_area_m2 > 0.0 ? volume_m3 / reference_area_m2 : 0.0;
}

double penaltyForceMagnitude(const PenaltyContactParams& p, double gain, double depth_m,
                             double depth_rate_mps) {
  return std::max(0.0,
                  gain * (p.stiffness_n_per_m * depth_m + p.damping_ns_per_m * depth_rate_mps));
}

Eigen::Vector3d penaltyForceOnB(double magnitude_n, const Eigen::Vector3d& direction) {
  const double n = direction.norm();
  return n > 0.0 ? Eigen::Vector3d(direction * (magnitude_n / n)) : Eigen::Vector3d::Zero();
}

Eigen::Vector3d penaltyTorque(const Eigen::Vector3d& application_point,
                              const Eigen::Vector3d& centre_of_mass, const Eigen::Vector3d& force) {
  return (application_point - centre_of_mass).cross(force);
}

Eigen::Vector3d tanhFriction(const PenaltyContactParams& p, double normal_force_n,
                             const Eigen::Vector3d& slip_velocity) {
  const double v = slip_velocity.norm();
  if (!(v > 0.0)) return Eigen::Vector3d::Zero();
  const double magnitude = p.mu * std::abs(normal_force_n) * std::tanh(p.tanh_slope_s_per_m * v) +
                           p.viscous_ns_per_m * v;
  return -magnitude / v * slip_velocity;
}

double tanhCreepSpeed(const PenaltyContactParams& p, double tangential_load_n,
                      double normal_force_n) {
  if (!(tangential_load_n > 0.0)) return 0.0;
  const double coulomb = p.mu * std::abs(normal_force_n);
  const auto residual = [&](double v) {
    return coulomb * std::tanh(p.tanh_slope_s_per_m * v) + p.viscous_ns_per_m * v -
           tangential_load_n;
  };
  if (!(p.viscous_ns_per_m > 0.0) && tangential_load_n >= coulomb)
    return std::numeric_limits<double>::infinity();
  // The residual increases with v: bracket the root, then bisect to the last bit.
  double lo = 0.0, hi = 1e-6;
  while (residual(hi) < 0.0) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 0.0; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (residual(mid) < 0.0 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

AnchorFrictionResult anchorFriction(const AnchorFrictionParams& p, AnchorState& state,
                                    const Eigen::Vector3d& normal,
                                    const Eigen::Vector3d& slip_velocity, double normal_force_n,
                                    double dt) {
  AnchorFrictionResult out;
  const double k = p.stiffness_n_per_m;
  const double energy_before = 0.5 * k * state.extension.squaredNorm();
  if (!(normal_force_n > 0.0) || !(k > 0.0)) {
    // Contact lost: the anchor lets go, its spring energy is gone (dissipated).
    state.extension.setZero();
    state.active = false;
    out.dissipated_j = energy_before;
    return out;
  }
  const Eigen::Vector3d vt = slip_velocity - slip_velocity.dot(normal) * normal;
  // A new anchor starts at the current point; an old one is laid on the current tangent plane.
  Eigen::Vector3d z = state.active
                          ? Eigen::Vector3d(state.extension - state.extension.dot(normal) * normal)
                          : Eigen::Vector3d::Zero();
  z += vt * dt;
  const double limit = p.mu * normal_force_n;
  Eigen::Vector3d f;
  if (k * z.norm() <= limit) {
    // Stick: spring plus as much of the damper as the cone allows, |f_s + β f_d| <= limit.
    const Eigen::Vector3d fs = -k * z, fd = -p.damping_ns_per_m * vt;
    double beta = 1.0;
    if ((fs + fd).norm() > limit) {
      // Largest root of |fs + β fd|² = limit² (fs is inside the cone, so one root is in [0, 1]).
      const double a = fd.squaredNorm(), bh = fs.dot(fd), c = fs.squaredNorm() - limit * limit;
      beta = std::clamp((-bh + std::sqrt(std::max(0.0, bh * bh - a * c))) / a, 0.0, 1.0);
    }
    f = fs + beta * fd;
  } else {
    // Slip: the anchor slides so that the spring force stays on Coulomb's cone.
    z *= limit / (k * z.norm());
    f = -k * z;
    out.sliding = true;
  }
  state.extension = z;
  state.active = true;
  out.force = f;
  // Energy removed: the spring's energy drop plus the work the body did against f.
  out.dissipated_j = energy_before - 0.5 * k * z.squaredNorm() - f.dot(vt) * dt;
  return out;
}

}  // namespace handsim::contact
