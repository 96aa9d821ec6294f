// SPDX-License-Identifier: GPL-3.0-or-later
// Output files of handsim-cli commands, checked before any work: each must be writable and
// none may be one of the command's input files (or another output).
#pragma once

#include <string>
#include <vector>

namespace handsim::cli {

class Args;

/// One file a command will write, and the option that names it.
struct OutputFile {
  std::string flag;  ///< e.g. "--csv"
  std::string path;
};

/// UsageError naming the option and path unless the file can be created (its folder exists and
/// takes a new file: io::checkWritable). Call before any work, so a long run cannot end in a
/// write error.
void requireWritable(const OutputFile& out);

/// True when `a` and `b` are the same file: std::filesystem::equivalent when both exist, or
/// equal weakly canonical paths (which also catches "./x" and "x" before either exists).
bool sameFile(const std::string& a, const std::string& b);

/// UsageError when an output is the same file as one of `inputs` (empty entries are skipped) or
/// as another output.
void requireDistinct(const std::vector<OutputFile>& outputs,
                     const std::vector<std::string>& inputs);

/// Adds the `--plot` file to `outputs` when the option is given; a UsageError naming it when
/// this handsim-cli was built without the plot library (HANDSIM_BUILD_GUI=OFF).
void addPlotOutput(const Args& args, std::vector<OutputFile>& outputs);

}  // namespace handsim::cli
