// SPDX-License-Identifier: GPL-3.0-or-later
#include "outputs.hpp"

#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "args.hpp"
#include "handsim/io/atomic_file.hpp"

namespace handsim::cli {

void addPlotOutput(const Args& args, std::vector<OutputFile>& outputs) {
  const auto plot = args.value("--plot");
  if (!plot) return;
#ifdef HANDSIM_HAVE_PLOT
  outputs.push_back({"--plot", *plot});
#else
  static_cast<void>(outputs);
  throw UsageError("--plot " + *plot +
                   ": this handsim-cli was built without the plot library "
                   "(HANDSIM_BUILD_GUI=OFF)");
#endif
}

void requireWritable(const OutputFile& out) {
  if (out.path.empty()) throw UsageError(out.flag + ": needs a file name");
  try {
    io::checkWritable(out.path);
  } catch (const std::runtime_error& e) {
    throw UsageError(out.flag + ": " + e.what());
  }
}

bool sameFile(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec) && !ec) return true;
  std::error_code ea, eb;
  const fs::path ca = fs::weakly_canonical(a, ea), cb = fs::weakly_canonical(b, eb);
  return !ea && !eb && ca == cb;
}

void requireDistinct(const std::vector<OutputFile>& outputs,
                     const std::vector<std::string>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    for (const auto& in : inputs)
      if (!in.empty() && sameFile(outputs[i].path, in))
        throw UsageError(outputs[i].flag + ": '" + outputs[i].path + "' is the input file '" + in +
                         "'; refusing to overwrite it");
    for (std::size_t k = 0; k < i; ++k)
      if (sameFile(outputs[i].path, outputs[k].path))
        throw UsageError(outputs[i].flag + ": '" + outputs[i].path + "' is also the file of " +
                         outputs[k].flag);
  }
}

}  // namespace handsim::cli
