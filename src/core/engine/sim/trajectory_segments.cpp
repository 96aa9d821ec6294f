// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/trajectory_segments.hpp"

#include <algorithm>

#include "handsim/hand/transmission.hpp"

namespace handsim::sim {

std::vector<ActuatorTrajectory> actuatorTrajectories(
    const hand::HandModel& hand, const std::vector<double>& initial,
    const std::vector<TrajectorySegment>& segments) {
  const std::size_t na = hand.actuators.size();
  std::vector<double> at =
      hand::clampActuators(hand, initial.size() == na ? initial : std::vector<double>(na, 0.0));
  std::vector<ActuatorTrajectory> trajectories(na);
  std::vector<double> free_at(na, 0.0);  // when each actuator's last move ends
  for (const TrajectorySegment& s : segments) {
    if (s.actuator < 0 || static_cast<std::size_t>(s.actuator) >= na) continue;
    const auto a = static_cast<std::size_t>(s.actuator);
    const double start = std::max(s.start, free_at[a]);
    const TrapezoidalProfile profile(at[a], s.to, s.max_velocity, s.max_acceleration, start);
    trajectories[a].append(profile);
    at[a] = s.to;
    free_at[a] = profile.end();
  }
  return trajectories;
}

std::vector<TrajectorySegment> trajectorySegments(
    const std::vector<ActuatorTrajectory>& trajectories) {
  std::vector<TrajectorySegment> out;
  for (std::size_t a = 0; a < trajectories.size(); ++a)
    for (const TrapezoidalProfile& p : trajectories[a].segments())
      out.push_back({static_cast<int>(a), p.to(), p.maxVelocity(), p.maxAcceleration(), p.start()});
  return out;
}

}  // namespace handsim::sim
