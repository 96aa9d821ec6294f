// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"

namespace handsim::sim {

/// An experiment (docs/scenario-format.md): a hand, objects, options and a run plan. The one
/// file format of handsim's runs: the CLI's simulate and sweeps read it, and the GUI opens and
/// saves its scenes in it.
struct Scenario {
  std::string source_file;  ///< file it was read from ("" when built in code)
  std::string description;
  /// The hand as the file names it: a built-in id, or a path (relative to the scenario file or
  /// absolute).
  std::string hand_ref;
  std::shared_ptr<const hand::HandModel> hand;
  /// The arm as the file names it (docs/arm.md): the hand's palm link (empty: its default),
  /// and an arm URDF the hand is mounted on (empty: none), its flange link and the palm's
  /// pose in the flange frame.
  std::string palm_link;
  std::string arm_ref, arm_flange;
  Eigen::Isometry3d arm_mount = Eigen::Isometry3d::Identity();
  /// The objects: shapes, materials, masses. Their start poses and velocities are the plan's
  /// (plan.object_pose_world and plan.object_twist_world, one per object, as the file's "pose",
  /// "linear_velocity_mps" and "angular_velocity_radps" keys give them).
  std::vector<ObjectModel> objects;
  Options options;
  RunPlan plan;
};

/// Reads a scenario file. Errors throw io::InputError naming file, line, column and field.
Scenario loadScenario(const std::string& path);
Scenario parseScenario(const std::string& text, const std::string& file_name);

/// The scenario as a file: everything needed to reproduce the run (hand, palm pose, objects
/// with their poses and scales, dt, gravity, contact and solver options, initial positions,
/// every trajectory in actuator units with its limits and start, the controller, duration).
/// Paths are written relative to the folder of `target_file` where they can be. Numbers are
/// written so that they read back exactly, so a saved scenario runs bit for bit as the
/// original.
std::string scenarioToJson(const Scenario& scenario, const std::string& target_file);
/// Writes scenarioToJson atomically to `path` (io::writeFileAtomically).
void saveScenario(const Scenario& scenario, const std::string& path);

/// The scenario's model (hand, its geometry, objects, options). Throws io::InputError when
/// a link mesh of the hand fails to load.
std::shared_ptr<const Model> compileScenario(const Scenario& scenario);

/// Compiles and runs a scenario to its end. `progress` (may be empty) gets the fraction done
/// about every 1%. The returned run holds the final state and the recording.
std::unique_ptr<Run> runScenario(const Scenario& scenario,
                                 const std::function<void(double)>& progress = {});

}  // namespace handsim::sim
