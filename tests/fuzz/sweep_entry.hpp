// SPDX-License-Identifier: GPL-3.0-or-later
// The grasp sweep specification's fuzz entry (grasp::parseSweepSpec, then the spec hash that
// resumed results are checked against), shared by sweep_fuzzer and tests/fuzz_regression. The
// closing scenario and object mesh named in the input resolve to the shipped assets. Any input
// must either give a SweepSpec or throw handsim::io::InputError; every other exception (left to
// propagate), crash, sanitizer report or hang is a finding.
#pragma once

#include <string>
#include <string_view>

#include "handsim/grasp/grasp_sweep.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::fuzz {

/// Returns true when the input loaded, false when it was rejected with the documented error.
inline bool runSweepInput(std::string_view input) {
  try {
    const grasp::SweepSpec spec =
        grasp::parseSweepSpec(std::string(input), "/nonexistent/fuzz.json");
    (void)grasp::sweepSpecHash(spec);
    return true;
  } catch (const io::InputError&) {
    return false;
  }
}

}  // namespace handsim::fuzz
