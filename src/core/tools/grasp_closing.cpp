// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/tools/grasp_closing.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace handsim::sim {

namespace {
// The closing move from `from` to `upper` over a range [lower, upper]; none when already there.
void appendClosing(ActuatorTrajectory& trajectory, double from, double lower, double upper,
                   const ClosingSpeed& speed) {
  if (!(upper > from)) return;
  const double velocity = speed.range_scale * (upper - lower) / speed.range_seconds;
  trajectory.append(TrapezoidalProfile(from, upper, velocity, velocity / speed.ramp_seconds));
}

// The same move towards `lower` (an actuator that closes at the lower end of its range).
void appendClosingDown(ActuatorTrajectory& trajectory, double from, double lower, double upper,
                       const ClosingSpeed& speed) {
  if (!(lower < from)) return;
  const double velocity = speed.range_scale * (upper - lower) / speed.range_seconds;
  trajectory.append(TrapezoidalProfile(from, lower, velocity, velocity / speed.ramp_seconds));
}

void checkClosingInput(const hand::HandModel& hand, const std::vector<double>& start,
                       const ClosingSpeed& speed) {
  if (start.size() != hand.actuators.size())
    throw std::invalid_argument("closing: expected " + std::to_string(hand.actuators.size()) +
                                " actuator positions, got " + std::to_string(start.size()));
  if (!(speed.range_scale > 0.0) || !(speed.range_seconds > 0.0) || !(speed.ramp_seconds > 0.0) ||
      !std::isfinite(speed.range_scale) || !std::isfinite(speed.range_seconds) ||
      !std::isfinite(speed.ramp_seconds))
    throw std::invalid_argument("closing: speeds and times must be finite and positive");
}
}  // namespace

ClosingReferences closingReferences(const hand::HandModel& hand, const std::vector<double>& start,
                                    const ClosingSpeed& speed) {
  checkClosingInput(hand, start, speed);
  ClosingReferences r;
  r.actuators.resize(hand.actuators.size());
  for (int a : hand.closing_actuators) {
    const hand::Actuator& act = hand.actuators.at(static_cast<std::size_t>(a));
    appendClosing(r.actuators[static_cast<std::size_t>(a)], start[static_cast<std::size_t>(a)],
                  act.lower, act.upper, speed);
  }
  r.tendons.resize(hand.tendons.size());
  for (int t : hand.closing_tendons) {
    const hand::Tendon& ten = hand.tendons.at(static_cast<std::size_t>(t));
    // Runs start a tendon at the end of its range nearest to 0 (sim::makeState).
    appendClosing(r.tendons[static_cast<std::size_t>(t)], std::clamp(0.0, ten.lower, ten.upper),
                  ten.lower, ten.upper, speed);
  }
  return r;
}

ClosingReferences closingReferences(const hand::HandModel& hand, const std::vector<double>& start,
                                    const std::vector<int>& closing,
                                    const std::vector<int>& directions, const ClosingSpeed& speed) {
  checkClosingInput(hand, start, speed);
  if (directions.size() != closing.size())
    throw std::invalid_argument("closing: one direction per closing actuator");
  ClosingReferences r;
  r.actuators.resize(hand.actuators.size());
  r.tendons.resize(hand.tendons.size());
  for (std::size_t i = 0; i < closing.size(); ++i) {
    const auto a = static_cast<std::size_t>(closing[i]);
    const hand::Actuator& act = hand.actuators.at(a);
    if (directions[i] >= 0)
      appendClosing(r.actuators[a], start[a], act.lower, act.upper, speed);
    else
      appendClosingDown(r.actuators[a], start[a], act.lower, act.upper, speed);
  }
  return r;
}

bool canClose(const hand::HandModel& hand) {
  return !hand.closing_actuators.empty() || !hand.closing_tendons.empty();
}

}  // namespace handsim::sim
