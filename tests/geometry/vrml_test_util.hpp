// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the VRML tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "handsim/formats/vrml_reader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::geometry::testing {

inline LoadedModel parse(const std::string& body, const VrmlOptions& options = {}) {
  return parseVrml("#VRML V2.0 utf8\n" + body, "test.wrl", options);
}

/// Parses text that must fail; returns the error (fails the test if none is thrown).
inline io::InputError parseError(const std::string& text) {
  try {
    parseVrml(text, "bad.wrl");
  } catch (const io::InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return io::InputError({}, "none");
}

}  // namespace handsim::geometry::testing
