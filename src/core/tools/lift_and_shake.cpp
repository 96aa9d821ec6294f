// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/tools/lift_and_shake.hpp"

#include <algorithm>
#include <cmath>

#include "handsim/sim/trapezoidal_profile.hpp"

namespace handsim::sim {

namespace {
constexpr double kNegligibleComponent = 1e-12;
}

Eigen::Vector3d liftDirection(const Eigen::Vector3d& gravity_world) {
  const Eigen::Vector3d up = -gravity_world;
  return up.norm() > 0.0 ? up.normalized() : Eigen::Vector3d::UnitZ();
}

double appendPalmLift(PalmMotion& motion, const Eigen::Vector3d& direction_world, double distance,
                      double speed, double acceleration, double start) {
  double end = start;
  for (int a = 0; a < 3; ++a) {
    const double u = direction_world[a];
    const double c = std::abs(u);
    if (!(c > kNegligibleComponent)) continue;
    const TrapezoidalProfile move(0.0, distance * u, speed * c, acceleration * c, start);
    end = std::max(end, move.end());
    motion.axis(a).segments.append(move);
  }
  return end;
}

void appendPalmShake(PalmMotion& motion, const Eigen::Vector3d& direction_world, double amplitude,
                     double frequency_hz, int cycles, double start) {
  if (!(amplitude > 0.0) || cycles <= 0) return;
  for (int a = 0; a < 3; ++a) {
    const double d = direction_world[a];
    if (!(std::abs(d) > kNegligibleComponent)) continue;
    // A (sin wt - sin 2wt / 2): velocity A w (cos wt - cos 2wt) and acceleration
    // A w^2 (2 sin 2wt - sin wt) are both 0 at the ends of whole periods.
    std::vector<Sinusoid>& s = motion.axis(a).sinusoids;
    s.push_back({amplitude * d, frequency_hz, start, double(cycles)});
    s.push_back({-0.5 * amplitude * d, 2.0 * frequency_hz, start, 2.0 * cycles});
  }
}

}  // namespace handsim::sim
