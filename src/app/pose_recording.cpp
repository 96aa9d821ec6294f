// SPDX-License-Identifier: GPL-3.0-or-later
#include "pose_recording.hpp"

#include <algorithm>

#include "handsim/formats/pose_io.hpp"
#include "handsim/io/atomic_file.hpp"
#include "simulation_controller.hpp"

namespace handsim::app {

hand::NamedPose currentPose(const SimulationController& controller, const std::string& name) {
  const hand::HandModel& hand = controller.hand();
  const auto& q = controller.state().q;
  hand::NamedPose pose;
  pose.name = name;
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const kinematics::Chain& chain = hand.fingers[f];
    std::vector<double> values(static_cast<std::size_t>(chain.dof()), 0.0);
    for (int j = 0; j < chain.dof() && f < q.size() && j < q[f].size(); ++j) {
      const kinematics::DhRow& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
      double v = q[f](j);
      if (row.lower < row.upper) v = std::clamp(v, row.lower, row.upper);
      values[static_cast<std::size_t>(j)] = v;
    }
    pose.q.push_back(std::move(values));
  }
  return pose;
}

void recordPose(const SimulationController& controller, const std::string& name,
                const std::string& path) {
  hand::appendPoseToFile(path, controller.hand(), currentPose(controller, name));
}

void exportPosesCsv(const hand::HandModel& hand, const std::string& pose_path,
                    const std::string& csv_path) {
  io::writeFileAtomically(csv_path, hand::posesToCsv(hand, hand::readPoseFile(pose_path, hand)));
}

}  // namespace handsim::app
