// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>

namespace handsim::io {

/// Writes `content` to `path` so that readers see either the old file or the complete new one:
/// the bytes go to a temporary file in the same directory, are flushed to disk, and the
/// temporary is renamed over `path`. Throws std::runtime_error naming the path on failure (the
/// old file, if any, is then untouched).
void writeFileAtomically(const std::string& path, std::string_view content);

/// Reads a whole file; throws std::runtime_error naming the path when it cannot be read.
std::string readFile(const std::string& path);

}  // namespace handsim::io
