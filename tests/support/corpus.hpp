// SPDX-License-Identifier: GPL-3.0-or-later
// The reference corpus (public URDF hands with their meshes, meshes, VRML scenes) is not part of
// the project. Tests and benchmarks that read it find its folder through the environment
// variable HANDSIM_CORPUS_DIR, or else the CMake cache variable of the same name (taken from the
// environment when the build was configured), and skip cleanly when neither names a folder
// holding the file they want (docs/development.md, "The reference corpus").
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace handsim::test {

/// The corpus folder, or an empty path when none is configured.
inline std::filesystem::path corpusDir() {
  if (const char* env = std::getenv("HANDSIM_CORPUS_DIR"); env != nullptr && *env != '\0')
    return env;
#ifdef HANDSIM_CORPUS_DIR_CONFIGURED
  return HANDSIM_CORPUS_DIR_CONFIGURED;
#else
  return {};
#endif
}

/// `relative` inside the corpus folder, or an empty string when no corpus is configured (so a
/// test's "is it there?" check fails and the test skips).
inline std::string corpusPath(const std::string& relative) {
  const std::filesystem::path dir = corpusDir();
  return dir.empty() ? std::string() : (dir / relative).string();
}

/// Why a corpus test skipped: the file, or that no corpus is configured.
inline std::string corpusSkipReason(const std::string& relative) {
  return corpusDir().empty()
             ? "no reference corpus configured (set HANDSIM_CORPUS_DIR to its folder)"
             : corpusPath(relative) + " absent from the corpus";
}

}  // namespace handsim::test
