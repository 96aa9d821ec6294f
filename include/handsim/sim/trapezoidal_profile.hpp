// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace handsim::sim {

/// A trapezoidal velocity profile from `from` to `to` (seed 000 sec. V): constant
/// acceleration, cruise at the maximum velocity, constant deceleration; triangular (no
/// cruise) when the distance is too short to reach the maximum velocity. Works on any unit
/// (encoder counts, rad, m); velocities and accelerations are in that unit per second (per
/// second squared). Before `start` it holds `from`, after the end it holds `to`.
class TrapezoidalProfile {
 public:
  /// Throws std::invalid_argument unless max_velocity > 0, max_acceleration > 0 and all
  /// values are finite.
  TrapezoidalProfile(double from, double to, double max_velocity, double max_acceleration,
                     double start = 0.0);

  double position(double t) const;
  double velocity(double t) const;
  double acceleration(double t) const;

  double from() const { return from_; }
  double to() const { return to_; }
  double start() const { return start_; }
  /// The limits the profile was built with (what a scenario file states) [unit/s, unit/s^2].
  double maxVelocity() const { return vmax_; }
  double maxAcceleration() const { return a_; }
  /// Duration of the acceleration phase (= that of the deceleration phase) [s].
  double accelerationTime() const { return ta_; }
  /// Duration of the cruise phase [s]; 0 for a triangular profile.
  double cruiseTime() const { return tc_; }
  /// Total duration [s].
  double duration() const { return 2.0 * ta_ + tc_; }
  double end() const { return start_ + duration(); }
  /// Highest speed reached (max_velocity unless triangular).
  double peakVelocity() const { return vp_; }
  bool triangular() const { return tc_ == 0.0 && from_ != to_; }

 private:
  double from_, to_, start_;
  double dir_;   ///< +1 or -1
  double a_;     ///< acceleration magnitude
  double vmax_;  ///< velocity limit
  double ta_ = 0.0, tc_ = 0.0, vp_ = 0.0;
};

}  // namespace handsim::sim
