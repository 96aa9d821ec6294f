// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QChart>
#include <QSize>
#include <QString>
#include <string>
#include <vector>

#include "handsim/sim/recorder.hpp"

namespace handsim::plot {

/// One plotted signal: a recorder column against time, in the recorder's SI units.
struct Signal {
  QString name;           ///< recorder column, e.g. "F3.J2.torque"
  QString unit;           ///< the column's unit from the recorder ("N m"); empty: a pure number
  std::vector<double> t;  ///< [s]
  std::vector<double> y;  ///< [unit]
};

/// Reads `columns` and their units (sim::Recorder::unit) from the recorder. Throws
/// std::invalid_argument naming every unknown column and the known ones.
std::vector<Signal> signalsFromRecorder(const sim::Recorder& recorder,
                                        const std::vector<std::string>& columns);

/// Replaces the chart's series and axes with `signals` as line series against time; each
/// series is named "column [unit]" and the y axis is titled with the signals' distinct units.
/// At most
/// `max_points` points per series are drawn (evenly decimated) so live plots stay cheap.
void fillChart(QChart& chart, const std::vector<Signal>& signals, const QString& title,
               int max_points = 4000);

/// Renders the chart to PNG, SVG or PDF, chosen by the file suffix, written atomically (a
/// temporary file renamed over `path`). Throws std::runtime_error naming the path.
void exportChart(QChart& chart, const QString& path, QSize size = QSize(1000, 600));

/// CSV of the signals (time, then one column per signal; rows by sample index, which is the
/// recorder's row, so all signals share the time column), written atomically.
void exportSignalsCsv(const std::vector<Signal>& signals, const QString& path);

/// Headless figure for the CLI: creates a QApplication on Qt's offscreen platform when none
/// exists, builds the same chart as the application and exports it to `path`.
void renderPlotFile(const sim::Recorder& recorder, const std::vector<std::string>& columns,
                    const std::string& path, const std::string& title);

}  // namespace handsim::plot
