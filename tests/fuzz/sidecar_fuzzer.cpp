// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer entry point for the URDF sidecar (hand::UrdfOptions::sidecar_text); the body and what
// counts as a finding are in sidecar_entry.hpp, which tests/fuzz_regression replays without
// libFuzzer.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sidecar_entry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  handsim::fuzz::runSidecarInput(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
