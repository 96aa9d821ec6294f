// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <exception>
#include <filesystem>
#include <iostream>
#include <new>

#include "args.hpp"
#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/urdf_reader.hpp"
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
  out << "\nglobal option (any command, any position):\n"
         "  --package-path DIR[:DIR...]  folders searched for package://NAME/... in URDF hands\n"
         "                               (before $HANDSIM_PACKAGE_PATH and the URDF's folders)\n";
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
    // --package-path is global: taken out before the command parses its flags.
    std::vector<std::string> args, package_path;
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i], value;
      if (a == "--package-path") {
        if (i + 1 >= argc) throw UsageError("--package-path needs a value");
        value = argv[++i];
      } else if (a.rfind("--package-path=", 0) == 0) {
        value = a.substr(15);
      } else {
        args.push_back(a);
        continue;
      }
      std::size_t start = 0;
      while (start <= value.size()) {
        const std::size_t colon = std::min(value.find(':', start), value.size());
        if (colon > start) package_path.push_back(value.substr(start, colon - start));
        start = colon + 1;
      }
    }
    handsim::hand::setDefaultPackagePath(package_path);
    return it->run(args);
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
  } catch (const std::bad_alloc&) {
    // A bare "std::bad_alloc" says nothing: name what was being done and with which files.
    std::string inputs;
    for (int i = 2; i < argc && inputs.size() < 400; ++i)
      inputs += std::string(inputs.empty() ? "" : " ") + handsim::io::excerpt(argv[i], 120);
    std::cerr << "handsim-cli " << name << ": out of memory (std::bad_alloc) running '" << name
              << " " << handsim::io::toValidUtf8(inputs)
              << "': the inputs need more memory than this process may use (its address-space "
                 "limit or the machine's); make them smaller\n";
    return kFailure;
  } catch (const std::filesystem::filesystem_error& e) {
    // E.g. a name longer than the file system takes: the file name is the input's fault.
    report(e);
    return kBadInput;
  } catch (const std::exception& e) {
    report(e);
    return kFailure;
  }
}
