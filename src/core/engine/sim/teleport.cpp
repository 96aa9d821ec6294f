// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/teleport.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "handsim/sim/step.hpp"

namespace handsim::sim {

void teleportActuators(const Model& model, SimState& s, const std::vector<double>& positions) {
  if (positions.size() != model.hand().actuators.size())
    throw std::invalid_argument("teleport: expected " +
                                std::to_string(model.hand().actuators.size()) +
                                " actuator positions, got " + std::to_string(positions.size()));
  for (double v : positions)
    if (!std::isfinite(v)) throw std::invalid_argument("teleport: actuator position not finite");
  for (std::size_t a = 0; a < positions.size(); ++a) {
    s.actuator_position[a] = positions[a];
    s.actuator_velocity[a] = 0.0;
    s.actuator_acceleration[a] = 0.0;
    s.actuator_command[a] = positions[a];
    s.actuator_reference[a] = positions[a];
  }
  forwardPosition(model, s);
}

void teleportObject(const Model& model, SimState& s, int index,
                    const Eigen::Isometry3d& pose_world) {
  if (index < 0 || static_cast<std::size_t>(index) >= model.objects.size() ||
      static_cast<std::size_t>(index) >= s.object_pose_world.size())
    throw std::invalid_argument("teleport: no object " + std::to_string(index) +
                                " (the model has " + std::to_string(model.objects.size()) + ")");
  if (!pose_world.matrix().allFinite())
    throw std::invalid_argument("teleport: object pose not finite");
  s.object_pose_world[static_cast<std::size_t>(index)] = pose_world;
}

void teleportPalm(const Model&, SimState& s, const Eigen::Isometry3d& pose_world) {
  if (!pose_world.matrix().allFinite())
    throw std::invalid_argument("teleport: palm pose not finite");
  // The links' frames are in the palm frame ({P}): they move with it.
  s.palm_pose_world = pose_world;
}

}  // namespace handsim::sim
