// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/scenario.hpp"
#include "outputs.hpp"
#ifdef HANDSIM_HAVE_PLOT
#include "signal_plot.hpp"
#endif

namespace handsim::cli {
namespace {

#ifdef HANDSIM_HAVE_PLOT
// The figure settings, checked before the run so that a typo does not cost a simulation.
struct PlotRequest {
  std::vector<std::string> columns;
  std::optional<std::string> preset;
  plot::PlotFileOptions options;
};

PlotRequest plotRequest(const Args& args) {
  PlotRequest r;
  const auto plot = args.value("--plot");
  if (!plot) return r;
  const auto signals = args.value("--signals");
  r.preset = args.value("--preset");
  if (signals && r.preset) throw UsageError("--plot takes --signals or --preset, not both");
  if (r.preset) {
    const auto names = plot::presetNames();
    if (std::find(names.begin(), names.end(), *r.preset) == names.end())
      throw UsageError("--preset " + *r.preset + ": unknown preset; known: seed000");
  } else if (!signals || signals->empty()) {
    throw UsageError("--plot needs --signals A,B,... or --preset seed000");
  } else {
    std::string::size_type begin = 0;
    while (begin <= signals->size()) {
      const auto end = std::min(signals->find(',', begin), signals->size());
      if (end > begin) r.columns.push_back(signals->substr(begin, end - begin));
      begin = end + 1;
    }
  }
  if (const auto size = args.value("--plot-size")) {
    try {
      r.options.size = plot::parseFigureSize(*size);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--plot-size: ") + e.what());
    }
  }
  if (const auto dpi = args.value("--dpi")) {
    const double v = parseNumber(*dpi, "--dpi");
    if (v != std::floor(v) || v < 50 || v > 2400)
      throw UsageError("--dpi " + *dpi + ": use a whole number from 50 to 2400");
    const std::string suffix = plot->substr(std::min(plot->size(), plot->find_last_of('.') + 1));
    if (suffix != "png" && suffix != "PNG")
      throw UsageError("--dpi applies to PNG output; " + *plot + " is a vector file");
    r.options.dpi = static_cast<int>(v);
  }
  if (const auto events = args.value("--events")) {
    if (*events != "on" && *events != "off")
      throw UsageError("--events " + *events + ": use on or off");
    r.options.figure.events = *events == "on";
  }
  r.options.figure.overlay = args.has("--overlay");
  r.options.figure.max_points = plot::kExportPoints;
  return r;
}
#endif

const char* kHelp =
    "usage: handsim-cli simulate SCENARIO.json [--csv OUT.csv] [--quiet]\n\n"
    "Runs a scenario (docs/scenario-format.md) through the fixed-step simulator.\n"
    "  --csv OUT.csv  write the recorded time series (header: time, <finger>.<joint>.angle,\n"
    "                 ...; SI units), atomically\n"
    "  --quiet        no progress on stderr\n"
#ifdef HANDSIM_HAVE_PLOT
    "  --plot OUT.(png|svg|pdf)  render a figure of --signals against time, without a display\n"
    "                 (the same plotting code as the application's plot dock): one panel per\n"
    "                 unit, a shared time axis, events as labelled vertical lines\n"
    "  --signals A,B  recorder columns to plot, e.g. F3.J2.torque,F3.J3.torque\n"
    "  --preset seed000  instead of --signals: seed 000's Fig. 7-8 (angle, velocity,\n"
    "                 acceleration, torque of the breakaway finger's joints, contact force)\n"
    "  --plot-size single|double|WxH  3.5 in, 7 in or W by H inches (H may be auto);\n"
    "                 default double, the preset's own with --preset\n"
    "  --dpi N        PNG resolution, 50 to 2400 (default 300)\n"
    "  --overlay      all signals on one panel, one y axis per unit\n"
    "  --events on|off  contact onsets, clutch break-away/re-engagement, controller phases\n"
    "                 and warnings as vertical lines (default on)\n"
#endif
    "\n"
    "Output: a JSON summary with the final state, clutch events and warnings.\n";

int run(const std::vector<std::string>& argv) {
  const Args args(argv,
                  {"--csv", "--plot", "--signals", "--preset", "--plot-size", "--dpi", "--events"},
                  {"--quiet", "--overlay"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(1, "one scenario file");
  // Outputs are checked before the run, which may take long: writable, and none of them an
  // input (the scenario, its hand file, its object meshes) or another output.
  std::vector<OutputFile> outputs;
  if (const auto csv = args.value("--csv")) outputs.push_back({"--csv", *csv});
  for (const char* flag :
       {"--signals", "--preset", "--plot-size", "--dpi", "--events", "--overlay"})
    if (!args.has("--plot") && args.has(flag))
      throw UsageError(std::string(flag) + " needs --plot OUT.(png|svg|pdf)");
#ifdef HANDSIM_HAVE_PLOT
  const PlotRequest plot_request = plotRequest(args);
#endif
  addPlotOutput(args, outputs);
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
  // Memory stays bounded however long the run: the CSV gets every row, the plot the
  // evenly thinned rows kept in memory (Recorder, "Long runs"); the non-finite check sees
  // every row.
  sim::RunPlan plan = sc.plan;
  if (plan.kept_rows == 0) plan.kept_rows = sim::Recorder::kDefaultKeptRows;
  sim::Run run(sim::compileScenario(sc), plan);
  // Rows go to the CSV as they are recorded, so a run of any length fits in memory; the
  // file appears (atomically) when the run is over.
  if (const auto csv = args.value("--csv")) run.recorder().streamCsv(*csv);
  run.runToEnd([&](double done) {
    const int pct = static_cast<int>(done * 100.0);
    if (!quiet && pct / 10 != last / 10) {
      std::fprintf(stderr, "\rsimulate: %3d%%", pct);
      last = pct;
    }
  });
  if (!quiet) std::fprintf(stderr, "\rsimulate: done  \n");
  const sim::SimState& s = run.state();
  sim::Recorder& rec = run.recorder();
  // A run that produced NaN or infinity says so and fails, after writing what it recorded.
  const std::string non_finite = rec.firstNonFinite();
  if (rec.streaming()) rec.finishCsv();
#ifdef HANDSIM_HAVE_PLOT
  if (const auto plot = args.value("--plot")) {
    plot::PlotFileOptions options = plot_request.options;
    std::vector<std::string> columns = plot_request.columns;
    try {
      if (plot_request.preset) {
        const plot::Preset preset = plot::presetFor(*plot_request.preset, rec);
        columns = preset.columns;
        if (!args.value("--plot-size")) options.size = preset.size;
      } else {
        options.figure.title =
            hand.name + " - " + sc.source_file.substr(sc.source_file.find_last_of('/') + 1);
      }
      options.warnings = s.warnings;
      plot::renderPlotFile(rec, columns, *plot, options);
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
      {"rows", rec.recordedRows()},
      {"final", {{"actuators", actuators}, {"fingers", fingers}, {"clutches", clutches}}},
      {"warnings", s.warnings},
      {"warning_count", s.warning_count},
      {"continuous_collisions", s.continuous_collisions},
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
