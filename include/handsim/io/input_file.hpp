// SPDX-License-Identifier: GPL-3.0-or-later
// Reading the files users give handsim, and the limits every JSON input obeys.
#pragma once

#include <cstddef>
#include <string>

namespace handsim::io {

/// Largest JSON input (hand, scenario, sweep, grasp contact or pose file) read [bytes]: 64 MiB,
/// far above any real input, far below what would exhaust memory. Checked before reading.
inline constexpr std::size_t kMaxJsonInputBytes = std::size_t{64} << 20;

/// Deepest nesting of arrays and objects in a JSON input (handsim's formats need fewer than 10
/// levels). Checked by a linear scan before the text is parsed, so neither the parser nor the
/// document can be driven into deep recursion or memory growing with the depth.
inline constexpr int kMaxJsonDepth = 256;

/// The whole content of the regular file `path`. Throws InputError naming the path when it
/// cannot be opened, is not a regular file (a directory, a FIFO, a device such as /dev/zero;
/// refused without reading or blocking), or holds more than `max_bytes` bytes (refused from its
/// size before reading; a file that grows while read is stopped at max_bytes + 1).
std::string readInputFile(const std::string& path, std::size_t max_bytes);

}  // namespace handsim::io
