// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <string>
#include <vector>

#include "figure.hpp"
#include "heatmap.hpp"
#include "handsim/sim/recorder.hpp"

namespace handsim::plot {

/// One plotted signal: a recorder column against time, in the recorder's SI units.
struct Signal {
  QString name;           ///< recorder column, e.g. "F3.J2.torque"
  QString unit;           ///< the column's unit from the recorder ("N m"); empty: a pure number
  std::vector<double> t;  ///< [s]
  std::vector<double> y;  ///< [unit]
};

/// Reads `columns` and their units (sim::Recorder::unit) from the recorder (for CSV export).
/// Throws std::invalid_argument naming every unknown column and the known ones.
std::vector<Signal> signalsFromRecorder(const sim::Recorder& recorder,
                                        const std::vector<std::string>& columns);

/// CSV of the signals (time, then one column per signal; rows by sample index, which is the
/// recorder's row, so all signals share the time column), written atomically.
void exportSignalsCsv(const std::vector<Signal>& signals, const QString& path);

/// Settings of a figure file.
struct PlotFileOptions {
  FigureOptions figure;
  FigureSize size;  ///< inches; height 0: by the number of panels
  int dpi = 300;    ///< PNG only
  /// The run's warnings (sim::SimState::warnings), marked as events when figure.events.
  std::vector<std::string> warnings;
};

/// Headless figure for the CLI: creates a QApplication on Qt's offscreen platform when none
/// exists, builds the same figure as the application's plot dock and exports it to `path`
/// (exportFigure). Unknown columns: std::invalid_argument.
void renderPlotFile(const sim::Recorder& recorder, const std::vector<std::string>& columns,
                    const std::string& path, const PlotFileOptions& options);

/// Writes a heat map (render.hpp, exportHeatMap) without a display, creating the Qt
/// application it needs when there is none.
void renderHeatMapFile(const HeatMap& map, const std::string& path, const FigureSize& size,
                       int dpi);

}  // namespace handsim::plot
