// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <exception>
#include <iostream>

#include "args.hpp"
#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/io/utf8.hpp"

namespace handsim::cli {
std::vector<Command>& commandRegistry() {
  static std::vector<Command> registry;
  return registry;
}
}  // namespace handsim::cli

namespace {
void printUsage(std::ostream& out) {
  auto commands = handsim::cli::commandRegistry();
  std::sort(commands.begin(), commands.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  out << "usage: handsim-cli COMMAND [options]\n\n"
         "Batch and scripting front end of handsim. Results are JSON on stdout, errors on\n"
         "stderr. Exit codes: 0 ok, 1 failure, 2 bad input, 3 unreachable/infeasible,\n"
         "4 non-finite result (NaN or infinity).\n\n"
         "commands:\n";
  for (const auto& c : commands) {
    out << "  " << c.name << std::string(c.name.size() < 12 ? 12 - c.name.size() : 1, ' ')
        << c.summary << "\n";
  }
  out << "\n`handsim-cli COMMAND --help` describes a command.\n";
}
}  // namespace

int main(int argc, char** argv) {
  using namespace handsim::cli;
  if (argc < 2) {
    printUsage(std::cerr);
    return kBadInput;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    printUsage(std::cout);
    return kOk;
  }
  // Messages quote file names and arguments, which may hold any bytes; stderr gets UTF-8.
  const auto report = [&](const std::exception& e) {
    std::cerr << "handsim-cli " << name << ": " << handsim::io::toValidUtf8(e.what()) << "\n";
  };
  const auto& registry = commandRegistry();
  const auto it = std::find_if(registry.begin(), registry.end(),
                               [&](const Command& c) { return c.name == name; });
  if (it == registry.end()) {
    std::cerr << "handsim-cli: unknown command '" << handsim::io::toValidUtf8(name) << "'\n\n";
    printUsage(std::cerr);
    return kBadInput;
  }
  try {
    return it->run(std::vector<std::string>(argv + 2, argv + argc));
  } catch (const UsageError& e) {
    report(e);
    return kBadInput;
  } catch (const handsim::io::InputError& e) {
    report(e);
    return kBadInput;
  } catch (const std::invalid_argument& e) {
    report(e);
    return kBadInput;
  } catch (const NonFiniteResult& e) {
    report(e);
    return kNonFinite;
  } catch (const std::exception& e) {
    report(e);
    return kFailure;
  }
}
