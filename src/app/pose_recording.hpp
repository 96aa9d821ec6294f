// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "handsim/hand/hand_model.hpp"

namespace handsim::app {

class SimulationController;

/// The shown state's joint angles as pose `name`, each clamped into its joint's limits (a
/// contact or the integrator can leave a joint a hair beyond them).
hand::NamedPose currentPose(const SimulationController& controller, const std::string& name);

/// Records the shown pose as `name` in the pose file at `path` (hand::appendPoseToFile: a pose
/// of the same name is replaced, others are kept, the file is written atomically). Throws
/// io::InputError for a bad existing file, std::invalid_argument for a bad name.
void recordPose(const SimulationController& controller, const std::string& name,
                const std::string& path);

/// Writes the poses of pose file `pose_path` as CSV (hand::posesToCsv) to `csv_path`,
/// atomically. Throws io::InputError for a bad pose file, std::runtime_error when the CSV
/// cannot be written.
void exportPosesCsv(const hand::HandModel& hand, const std::string& pose_path,
                    const std::string& csv_path);

}  // namespace handsim::app
