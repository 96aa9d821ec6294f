// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>

namespace handsim::io {

/// Writes `content` to `path` so that readers see either the old file or the complete new one:
/// the bytes go to a temporary file in the same directory, are flushed to disk, the temporary
/// is renamed over `path`, and the directory is flushed. An existing file keeps its permission
/// bits (a new one gets 0666 & ~umask); when `path` is a symbolic link, its target is replaced
/// and the link stays. Throws std::runtime_error naming the path on failure (the old file, if
/// any, is then untouched and no temporary file is left).
void writeFileAtomically(const std::string& path, std::string_view content);

/// Checks, before any work, that writeFileAtomically(path, ...) can create its file: the
/// folder (of the link's target, for a symbolic link) exists and takes a new file, and `path`
/// is not a folder. Creates and removes an empty file beside the target; throws
/// std::runtime_error naming the path otherwise.
void checkWritable(const std::string& path);

/// Reads a whole file; throws std::runtime_error naming the path when it cannot be read.
std::string readFile(const std::string& path);

}  // namespace handsim::io
