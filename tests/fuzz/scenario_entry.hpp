// SPDX-License-Identifier: GPL-3.0-or-later
// The scenario loader's fuzz entry, shared by scenario_fuzzer and tests/fuzz_regression. Any
// input must either give a Scenario or throw handsim::io::InputError; every other exception
// (left to propagate), crash, sanitizer report or hang is a finding. Built-in hands and the
// shipped object meshes are loaded by name, as the loader does for any scenario.
#pragma once

#include <string>
#include <string_view>

#include "handsim/formats/scenario.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::fuzz {

/// Returns true when the input loaded, false when it was rejected with the documented error.
inline bool runScenarioInput(std::string_view input) {
  try {
    // Relative hand and mesh paths fall back to the shipped assets/ folder.
    const auto scenario = sim::parseScenario(std::string(input), "/nonexistent/fuzz.json");
    (void)scenario;
    return true;
  } catch (const io::InputError&) {
    return false;
  }
}

}  // namespace handsim::fuzz
