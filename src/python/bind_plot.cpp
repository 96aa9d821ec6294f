// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.plot: figures of a run's recorded signals through the shared plot library (src/plot:
// handsim_plot_layout and handsim_plot), the same code as the application's plot dock and
// `handsim-cli simulate --plot`. Without the plot library (-DHANDSIM_BUILD_GUI=OFF, no Qt) the
// function exists and says so.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "py_run.hpp"

#ifdef HANDSIM_PYTHON_PLOT
#include "figure.hpp"
#include "signal_plot.hpp"
#endif

namespace py = pybind11;

namespace handsim::python {

namespace {

void plotRun(const PyRun& run, const std::string& path,
             const std::optional<std::vector<std::string>>& signals,
             const std::optional<std::string>& preset, const std::optional<std::string>& size,
             int dpi, const std::string& title, bool events, bool overlay) {
#ifdef HANDSIM_PYTHON_PLOT
  if (signals && preset) throw std::invalid_argument("plot: give signals or preset, not both");
  if (!signals && !preset)
    throw std::invalid_argument("plot: give signals=[columns] or preset='seed000'");
  if (signals && signals->empty()) throw std::invalid_argument("plot: signals is empty");
  const std::string suffix = path.substr(std::min(path.size(), path.find_last_of('.') + 1));
  std::string lower = suffix;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower != "png" && lower != "svg" && lower != "pdf")
    throw std::invalid_argument("plot: '" + path + "': write a .png, .svg or .pdf file");
  if (dpi < 50 || dpi > 2400) throw std::invalid_argument("plot: dpi from 50 to 2400");
  plot::PlotFileOptions options;
  if (size) options.size = plot::parseFigureSize(*size);
  options.dpi = dpi;
  options.figure.events = events;
  options.figure.overlay = overlay;
  options.figure.max_points = plot::kExportPoints;
  options.figure.title = title;
  std::vector<std::string> columns;
  if (preset) {
    const auto names = plot::presetNames();
    if (std::find(names.begin(), names.end(), *preset) == names.end())
      throw std::invalid_argument("plot: unknown preset '" + *preset + "'; known: seed000");
    const plot::Preset p = plot::presetFor(*preset, run.recorder());
    columns = p.columns;
    if (!size) options.size = p.size;
  } else {
    columns = *signals;
  }
  options.warnings = run.state().warnings;
  plot::renderPlotFile(run.recorder(), columns, path, options);
#else
  (void)run, (void)path, (void)signals, (void)preset, (void)size, (void)dpi, (void)title,
      (void)events, (void)overlay;
  throw std::runtime_error(
      "handsim.plot: this module was built without the plot library (Qt; "
      "-DHANDSIM_BUILD_GUI=ON builds it)");
#endif
}

}  // namespace

void bindPlot(py::module_& m) {
  m.def("plot", &plotRun, py::arg("run"), py::arg("path"), py::kw_only(),
        py::arg("signals") = py::none(), py::arg("preset") = py::none(),
        py::arg("size") = py::none(), py::arg("dpi") = 300, py::arg("title") = "",
        py::arg("events") = true, py::arg("overlay") = false,
        "Writes a figure of the run's recorded signals to `path` (.svg, .png or .pdf, written "
        "atomically) with the plot code of the application and of handsim-cli simulate --plot "
        "(the same file for the same run and settings): signals, a list of recorder columns "
        "(one panel per unit), or preset='seed000'; size 'single', 'double' or 'WxH' inches (H "
        "may be 'auto'); dpi for PNG; title above the panels ('' none); events marks the run's "
        "events and warnings; overlay puts every signal on one panel. Draws without a display. "
        "ValueError for an unknown column (listing the known ones), preset or file type; "
        "RuntimeError when the module was built without the plot library.");
}

}  // namespace handsim::python
