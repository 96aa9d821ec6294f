// SPDX-License-Identifier: GPL-3.0-or-later
#include <cstdio>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/sim/scenario.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli simulate SCENARIO.json [--csv OUT.csv] [--quiet]\n\n"
    "Runs a scenario (docs/scenario-format.md) through the fixed-step simulator.\n"
    "  --csv OUT.csv  write the recorded time series (header: time, <finger>.<joint>.angle,\n"
    "                 ...; SI units), atomically\n"
    "  --quiet        no progress on stderr\n\n"
    "Output: a JSON summary with the final state, clutch events and warnings.\n";

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--csv"}, {"--quiet"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  if (args.positional().size() != 1) throw UsageError("give exactly one scenario file");
  const sim::Scenario sc = sim::loadScenario(args.positional()[0]);
  sim::Recorder rec(sc.hand);
  const bool quiet = args.has("--quiet");
  int last = -1;
  const sim::SimState s = sim::runScenario(sc, rec, [&](double done) {
    const int pct = static_cast<int>(done * 100.0);
    if (!quiet && pct / 10 != last / 10) {
      std::fprintf(stderr, "\rsimulate: %3d%%", pct);
      last = pct;
    }
  });
  if (!quiet) std::fprintf(stderr, "\rsimulate: done  \n");
  if (const auto csv = args.value("--csv")) rec.writeCsv(*csv);
  nlohmann::ordered_json actuators = nlohmann::ordered_json::object();
  for (std::size_t a = 0; a < sc.hand.actuators.size(); ++a)
    actuators[sc.hand.actuators[a].name] = s.actuator_position[a];
  nlohmann::ordered_json fingers = nlohmann::ordered_json::array();
  for (std::size_t f = 0; f < sc.hand.fingers.size(); ++f)
    fingers.push_back({{"name", sc.hand.fingers[f].name},
                       {"q", vectorJson(s.q[f])},
                       {"tau", vectorJson(s.tau[f])}});
  nlohmann::ordered_json clutches = nlohmann::ordered_json::array();
  for (std::size_t c = 0; c < sc.hand.clutches.size(); ++c)
    clutches.push_back(
        {{"finger",
          sc.hand.fingers[static_cast<std::size_t>(sc.hand.clutches[c].inner.finger)].name},
         {"broken", s.clutches[c].broken},
         {"break_position", s.clutches[c].broken
                                ? nlohmann::ordered_json(s.clutches[c].break_position)
                                : nlohmann::ordered_json()}});
  printJson({{"scenario", sc.source_file},
             {"hand", sc.hand.id},
             {"steps", s.step},
             {"time", s.time},
             {"dt", sc.options.dt},
             {"rows", rec.rowCount()},
             {"final", {{"actuators", actuators}, {"fingers", fingers}, {"clutches", clutches}}},
             {"warnings", s.warnings},
             {"warning_count", s.warning_count},
             {"csv", args.value("--csv") ? nlohmann::ordered_json(*args.value("--csv"))
                                         : nlohmann::ordered_json()}});
  return kOk;
}

const CommandRegistration reg({"simulate", "run a scenario file, optionally writing CSV", run});

}  // namespace
}  // namespace handsim::cli
