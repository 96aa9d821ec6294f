// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/actuator_trajectory.hpp"

#include <stdexcept>

namespace handsim::sim {

void ActuatorTrajectory::append(const TrapezoidalProfile& segment) {
  if (!segments_.empty() && segment.start() < segments_.back().end() - 1e-12)
    throw std::invalid_argument("trajectory segment starts at " + std::to_string(segment.start()) +
                                " s, before the previous one "
                                "ends at " +
                                std::to_string(segments_.back().end()) + " s");
  segments_.push_back(segment);
}

const TrapezoidalProfile* ActuatorTrajectory::active(double t) const {
  // The last segment that has started; before any, the first one (which holds its start).
  const TrapezoidalProfile* seg = segments_.empty() ? nullptr : &segments_.front();
  for (const auto& s : segments_)
    if (s.start() <= t) seg = &s;
  return seg;
}

double ActuatorTrajectory::position(double t, double hold) const {
  const auto* s = active(t);
  return s ? s->position(t) : hold;
}

double ActuatorTrajectory::velocity(double t) const {
  const auto* s = active(t);
  return s ? s->velocity(t) : 0.0;
}

double ActuatorTrajectory::acceleration(double t) const {
  const auto* s = active(t);
  return s ? s->acceleration(t) : 0.0;
}

}  // namespace handsim::sim
