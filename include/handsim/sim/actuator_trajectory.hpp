// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "handsim/sim/trapezoidal_profile.hpp"

namespace handsim::sim {

/// The reference of one actuator: trapezoidal segments one after the other. Before the first
/// segment the reference is its start value; between segments it holds the last end value.
class ActuatorTrajectory {
 public:
  /// Appends a segment. Throws std::invalid_argument if it starts before the previous one
  /// ends.
  void append(const TrapezoidalProfile& segment);
  bool empty() const { return segments_.empty(); }
  const std::vector<TrapezoidalProfile>& segments() const { return segments_; }
  /// Time the last segment ends [s] (0 when empty).
  double end() const { return segments_.empty() ? 0.0 : segments_.back().end(); }

  /// Reference position/velocity/acceleration at time t; `hold` when there are no segments.
  double position(double t, double hold) const;
  double velocity(double t) const;
  double acceleration(double t) const;

 private:
  const TrapezoidalProfile* active(double t) const;
  std::vector<TrapezoidalProfile> segments_;
};

}  // namespace handsim::sim
