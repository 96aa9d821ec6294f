// SPDX-License-Identifier: GPL-3.0-or-later
// The URDF reader's fuzz entry (liburdfdom and handsim's reader on top), shared by urdf_fuzzer
// and tests/fuzz_regression. Any input must either give a HandModel or throw
// handsim::io::InputError; every other exception (left to propagate), crash, sanitizer report
// or hang is a finding. Primitives are tessellated; mesh files resolve against a folder that
// does not exist, so a mesh is "not found".
#pragma once

#include <string>
#include <string_view>

#include "handsim/formats/urdf_reader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::fuzz {

/// Returns true when the input loaded, false when it was rejected with the documented error.
inline bool runUrdfInput(std::string_view input) {
  try {
    hand::UrdfOptions options;
    // A smaller triangle budget keeps each input fast; the check is the same.
    options.max_triangles = std::size_t{1} << 18;
    const auto hand = hand::parseUrdfHand(std::string(input), "/nonexistent/fuzz.urdf", options);
    (void)hand;
    return true;
  } catch (const io::InputError&) {
    return false;
  }
}

}  // namespace handsim::fuzz
