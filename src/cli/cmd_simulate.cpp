// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/sim/scenario.hpp"
#include "outputs.hpp"
#ifdef HANDSIM_HAVE_PLOT
#include "signal_plot.hpp"
#endif

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli simulate SCENARIO.json [--csv OUT.csv] [--quiet]\n\n"
    "Runs a scenario (docs/scenario-format.md) through the fixed-step simulator.\n"
    "  --csv OUT.csv  write the recorded time series (header: time, <finger>.<joint>.angle,\n"
    "                 ...; SI units), atomically\n"
    "  --quiet        no progress on stderr\n"
#ifdef HANDSIM_HAVE_PLOT
    "  --plot OUT.(png|svg|pdf)  render a figure of --signals against time, without a display\n"
    "                 (the same plotting code as the application's plot dock)\n"
    "  --signals A,B  recorder columns to plot, e.g. F3.J2.torque,F3.J3.torque\n"
#endif
    "\n"
    "Output: a JSON summary with the final state, clutch events and warnings.\n";

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--csv", "--plot", "--signals"}, {"--quiet"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(1, "one scenario file");
  // Outputs are checked before the run, which may take long: writable, and none of them an
  // input (the scenario, its hand file, its object meshes) or another output.
  std::vector<OutputFile> outputs;
  if (const auto csv = args.value("--csv")) outputs.push_back({"--csv", *csv});
  if (const auto plot = args.value("--plot")) {
#ifdef HANDSIM_HAVE_PLOT
    const auto signals = args.value("--signals");
    if (!signals || signals->empty()) throw UsageError("--plot needs --signals A,B,...");
    outputs.push_back({"--plot", *plot});
#else
    throw UsageError("--plot " + *plot +
                     ": this handsim-cli was built without the plot library "
                     "(HANDSIM_BUILD_GUI=OFF)");
#endif
  }
  for (const auto& out : outputs) requireWritable(out);
  requireDistinct(outputs, {args.positional()[0]});
  const sim::Scenario sc = sim::loadScenario(args.positional()[0]);
  // What the loader found questionable in the object meshes (e.g. millimetre coordinates).
  for (const auto& object : sc.objects)
    for (const std::string& w : object.warnings)
      std::fprintf(stderr, "handsim-cli simulate: warning: %s\n", w.c_str());
  std::vector<std::string> inputs{sc.hand->source_file};
  for (const auto& object : sc.objects) inputs.push_back(object.source);
  requireDistinct(outputs, inputs);
  const hand::HandModel& hand = *sc.hand;
  const bool quiet = args.has("--quiet");
  int last = -1;
  const auto run = sim::runScenario(sc, [&](double done) {
    const int pct = static_cast<int>(done * 100.0);
    if (!quiet && pct / 10 != last / 10) {
      std::fprintf(stderr, "\rsimulate: %3d%%", pct);
      last = pct;
    }
  });
  if (!quiet) std::fprintf(stderr, "\rsimulate: done  \n");
  const sim::SimState& s = run->state();
  const sim::Recorder& rec = run->recorder();
  // A run that produced NaN or infinity says so and fails, after writing what it recorded.
  std::string non_finite;
  for (std::size_t r = 0; r < rec.rowCount() && non_finite.empty(); ++r)
    for (std::size_t c = 0; c < rec.columns().size(); ++c)
      if (!std::isfinite(rec.value(r, c))) {
        non_finite = rec.columns()[c] + " at t = " + std::to_string(rec.value(r, 0)) + " s";
        break;
      }
  if (const auto csv = args.value("--csv")) rec.writeCsv(*csv);
#ifdef HANDSIM_HAVE_PLOT
  if (const auto plot = args.value("--plot")) {
    const auto list = args.value("--signals");
    std::vector<std::string> columns;
    std::string::size_type begin = 0;
    while (begin <= list->size()) {
      const auto end = std::min(list->find(',', begin), list->size());
      if (end > begin) columns.push_back(list->substr(begin, end - begin));
      begin = end + 1;
    }
    try {
      plot::renderPlotFile(
          rec, columns, *plot,
          hand.name + " - " + sc.source_file.substr(sc.source_file.find_last_of('/') + 1));
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
#endif
  nlohmann::ordered_json actuators = nlohmann::ordered_json::object();
  for (std::size_t a = 0; a < hand.actuators.size(); ++a)
    actuators[hand.actuators[a].name] = s.actuator_position[a];
  nlohmann::ordered_json fingers = nlohmann::ordered_json::array();
  for (std::size_t f = 0; f < hand.fingers.size(); ++f)
    fingers.push_back(
        {{"name", hand.fingers[f].name}, {"q", vectorJson(s.q[f])}, {"tau", vectorJson(s.tau[f])}});
  nlohmann::ordered_json clutches = nlohmann::ordered_json::array();
  for (std::size_t c = 0; c < hand.clutches.size(); ++c)
    clutches.push_back(
        {{"finger", hand.fingers[static_cast<std::size_t>(hand.clutches[c].inner.finger)].name},
         {"broken", s.clutches[c].broken},
         {"break_position", s.clutches[c].broken
                                ? nlohmann::ordered_json(s.clutches[c].break_position)
                                : nlohmann::ordered_json()}});
  const nlohmann::ordered_json summary = {
      {"scenario", sc.source_file},
      {"hand", hand.id},
      {"steps", s.step},
      {"time", s.time},
      {"dt", sc.options.dt},
      {"rows", rec.rowCount()},
      {"final", {{"actuators", actuators}, {"fingers", fingers}, {"clutches", clutches}}},
      {"warnings", s.warnings},
      {"warning_count", s.warning_count},
      {"csv", args.value("--csv") ? nlohmann::ordered_json(*args.value("--csv"))
                                  : nlohmann::ordered_json()},
      {"non_finite",
       non_finite.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(non_finite)}};
  // A non-finite run prints its summary (non-finite values as null) and says where it went
  // wrong; any other non-finite number in the summary fails through printJson.
  if (non_finite.empty()) {
    printJson(summary);
  } else {
    printJsonUnchecked(summary);
    std::cerr << "handsim-cli simulate: the run produced a non-finite value (" << non_finite
              << "); see the warnings\n";
    return kNonFinite;
  }
  return kOk;
}

const CommandRegistration reg({"simulate", "run a scenario file, optionally writing CSV", run});

}  // namespace
}  // namespace handsim::cli
