// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/actuator_trajectory.hpp"
#include "handsim/sim/recorder.hpp"
#include "handsim/sim/simulator.hpp"
#include "handsim/sim/world.hpp"

namespace handsim::sim {

/// An experiment read from a scenario file (docs/scenario-format.md): a hand, its initial
/// actuator positions, trapezoidal references, duration, step and gravity.
struct Scenario {
  std::string source_file;
  hand::HandModel hand;
  SimOptions options;
  double duration = 1.0;                         ///< [s]
  int record_every = 1;                          ///< record one state every N steps
  std::vector<double> initial;                   ///< actuator positions [actuator units] (na)
  std::vector<ActuatorTrajectory> trajectories;  ///< per actuator (na), may be empty
  std::vector<WorldObject> objects;              ///< static objects the hand can touch
};

/// Reads a scenario file. The hand is a built-in id or a path relative to the scenario file.
/// Errors throw io::InputError naming file, line, column and field.
Scenario loadScenario(const std::string& path);
Scenario parseScenario(const std::string& text, const std::string& file_name);

/// Runs a scenario from its initial state, recording into `recorder` (which must be built for
/// scenario.hand). `progress` (may be empty) is called with the fraction done about every 1%.
/// Returns the final state.
SimState runScenario(const Scenario& scenario, Recorder& recorder,
                     const std::function<void(double)>& progress = {});

}  // namespace handsim::sim
