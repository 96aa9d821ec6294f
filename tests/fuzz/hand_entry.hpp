// SPDX-License-Identifier: GPL-3.0-or-later
// The hand-file loader's fuzz entry, shared by hand_fuzzer and tests/fuzz_regression. Any
// input must either give a HandModel or throw handsim::io::InputError; every other exception
// (left to propagate), crash, sanitizer report or hang is a finding.
#pragma once

#include <string>
#include <string_view>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::fuzz {

/// Returns true when the input loaded, false when it was rejected with the documented error.
inline bool runHandInput(std::string_view input) {
  try {
    // Mesh paths resolve against a folder that does not exist; the loader only records them.
    const auto hand = hand::parseHandFile(std::string(input), "/nonexistent/fuzz.json");
    (void)hand;
    return true;
  } catch (const io::InputError&) {
    return false;
  }
}

}  // namespace handsim::fuzz
