// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer entry point for the VRML97 reader. Any input must either load or throw
// handsim::io::InputError; every other exception, crash, leak, sanitizer report or hang is a
// bug. Budgets are lowered so that slow inputs show up as timeouts rather than as memory use.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "handsim/geometry/vrml_reader.hpp"
#include "handsim/io/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  handsim::geometry::VrmlOptions options;
  options.segments = 12;
  options.max_triangles = 200'000;
  options.max_vertices = 200'000;
  options.max_node_visits = 200'000;
  options.max_file_bytes = 1u << 22;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    // A folder that does not exist keeps relative Inline urls from reading real files.
    const auto model = handsim::geometry::parseVrml(text, "/nonexistent/fuzz.wrl", options);
    (void)model.merged();
  } catch (const handsim::io::InputError&) {
  }
  return 0;
}
