// SPDX-License-Identifier: GPL-3.0-or-later
// Trapezoidal velocity profile (e.g. Biagiotti & Melchiorri, Trajectory Planning for Automatic
// Machines and Robots, 2008, sec. 3.2.2): distance D, limits v, a. If D >= v^2/a the profile
// cruises: ta = v/a, tc = D/v - v/a; otherwise it is triangular: ta = sqrt(D/a), tc = 0.
#include "handsim/sim/trapezoidal_profile.hpp"

#include <cmath>
#include <stdexcept>

namespace handsim::sim {

TrapezoidalProfile::TrapezoidalProfile(double from, double to, double max_velocity,
                                       double max_acceleration, double start)
    : from_(from),
      to_(to),
      start_(start),
      dir_(to >= from ? 1.0 : -1.0),
      a_(max_acceleration),
      vmax_(max_velocity) {
  if (!std::isfinite(from) || !std::isfinite(to) || !std::isfinite(start))
    throw std::invalid_argument("trapezoidal profile: from, to and start must be finite");
  if (!(max_velocity > 0.0) || !std::isfinite(max_velocity))
    throw std::invalid_argument("trapezoidal profile: max velocity must be positive");
  if (!(max_acceleration > 0.0) || !std::isfinite(max_acceleration))
    throw std::invalid_argument("trapezoidal profile: max acceleration must be positive");
  const double distance = std::abs(to - from);
  if (distance == 0.0) return;
  if (distance >= max_velocity * max_velocity / max_acceleration) {
    ta_ = max_velocity / max_acceleration;
    tc_ = distance / max_velocity - ta_;
    vp_ = max_velocity;
  } else {
    ta_ = std::sqrt(distance / max_acceleration);
    tc_ = 0.0;
    vp_ = max_acceleration * ta_;
  }
}

double TrapezoidalProfile::position(double t) const {
  const double s = t - start_;
  if (s <= 0.0) return from_;
  if (s >= duration()) return to_;
  double d;
  if (s < ta_) {
    d = 0.5 * a_ * s * s;
  } else if (s < ta_ + tc_) {
    d = 0.5 * a_ * ta_ * ta_ + vp_ * (s - ta_);
  } else {
    const double r = duration() - s;  // time left: mirror of the acceleration phase
    d = std::abs(to_ - from_) - 0.5 * a_ * r * r;
  }
  return from_ + dir_ * d;
}

double TrapezoidalProfile::velocity(double t) const {
  const double s = t - start_;
  if (s <= 0.0 || s >= duration()) return 0.0;
  if (s < ta_) return dir_ * a_ * s;
  if (s < ta_ + tc_) return dir_ * vp_;
  return dir_ * a_ * (duration() - s);
}

double TrapezoidalProfile::acceleration(double t) const {
  const double s = t - start_;
  if (s < 0.0 || s >= duration() || from_ == to_) return 0.0;
  if (s < ta_) return dir_ * a_;
  if (s < ta_ + tc_) return 0.0;
  return -dir_ * a_;
}

}  // namespace handsim::sim
