// SPDX-License-Identifier: GPL-3.0-or-later
// The VRML97 reader's fuzz entry, shared by vrml_fuzzer and tests/fuzz_regression. Any input
// must either load or throw handsim::io::InputError; every other exception (left to
// propagate), crash, sanitizer report or hang is a finding. Budgets are lowered so that slow
// inputs show up as timeouts rather than as memory use.
#pragma once

#include <string_view>

#include "handsim/formats/vrml_reader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::fuzz {

/// Returns true when the input loaded, false when it was rejected with the documented error.
inline bool runVrmlInput(std::string_view input) {
  geometry::VrmlOptions options;
  options.segments = 12;
  options.max_triangles = 200'000;
  options.max_vertices = 200'000;
  options.max_node_visits = 200'000;
  options.max_file_bytes = 1u << 22;
  try {
    // A folder that does not exist keeps relative Inline urls from reading real files.
    const auto model = geometry::parseVrml(input, "/nonexistent/fuzz.wrl", options);
    (void)model.merged();
    return true;
  } catch (const io::InputError&) {
    return false;
  }
}

}  // namespace handsim::fuzz
