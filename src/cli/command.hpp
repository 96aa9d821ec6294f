// SPDX-License-Identifier: GPL-3.0-or-later
// handsim-cli's sub-command registry: each cmd_*.cpp registers itself with a static
// CommandRegistration, so adding a command touches no other file.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace handsim::cli {

/// Exit codes shared by every command.
enum ExitCode : int { kOk = 0, kFailure = 1, kBadInput = 2, kInfeasible = 3, kNonFinite = 4 };

struct Command {
  std::string name;
  std::string summary;  ///< one line for `handsim-cli --help`
  std::function<int(const std::vector<std::string>& args)> run;
};

std::vector<Command>& commandRegistry();

struct CommandRegistration {
  explicit CommandRegistration(Command c) { commandRegistry().push_back(std::move(c)); }
};

}  // namespace handsim::cli
