// SPDX-License-Identifier: GPL-3.0-or-later
#include "signal_plot.hpp"

#include <QApplication>
#include <QSaveFile>
#include <memory>
#include <stdexcept>

#include "render.hpp"

namespace handsim::plot {

std::vector<Signal> signalsFromRecorder(const sim::Recorder& recorder,
                                        const std::vector<std::string>& columns) {
  requireColumns(recorder, columns);
  std::vector<Signal> out;
  const std::vector<double> t =
      recorder.rowCount() ? recorder.series("time") : std::vector<double>{};
  for (const std::string& c : columns) {
    Signal s;
    s.name = QString::fromStdString(c);
    s.unit = QString::fromStdString(recorder.unit(c));
    s.t = t;
    s.y = recorder.series(c);
    out.push_back(std::move(s));
  }
  return out;
}

void exportSignalsCsv(const std::vector<Signal>& signals, const QString& path) {
  QByteArray text = "time";
  for (const Signal& s : signals) text += ',' + s.name.toUtf8();
  text += '\n';
  const std::size_t rows = signals.empty() ? 0 : signals.front().t.size();
  for (std::size_t r = 0; r < rows; ++r) {
    text += QByteArray::number(signals.front().t[r], 'g', 17);
    for (const Signal& s : signals) {
      text += ',';
      if (r < s.y.size()) text += QByteArray::number(s.y[r], 'g', 17);
    }
    text += '\n';
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size() || !file.commit())
    throw std::runtime_error("cannot write " + path.toStdString() + ": " +
                             file.errorString().toStdString());
}

void renderPlotFile(const sim::Recorder& recorder, const std::vector<std::string>& columns,
                    const std::string& path, const PlotFileOptions& options) {
  std::unique_ptr<QApplication> app;
  if (!QApplication::instance()) {
    // No display is needed to paint a figure into a file, so none is asked for, whatever
    // QT_QPA_PLATFORM says (xcb without a display would abort); fonts come from fontconfig.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "handsim-cli";
    static char* argv[] = {name, nullptr};
    app = std::make_unique<QApplication>(argc, argv);
  }
  const Figure figure =
      buildFigure(recorder, columns, options.figure, eventsFromWarnings(options.warnings));
  exportFigure(figure, QString::fromStdString(path), options.size, options.dpi);
}

}  // namespace handsim::plot

namespace handsim::plot {

void renderHeatMapFile(const HeatMap& map, const std::string& path, const FigureSize& size,
                       int dpi) {
  std::unique_ptr<QApplication> app;
  if (!QApplication::instance()) {
    // As renderPlotFile: no display is needed.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "handsim-cli";
    static char* argv[] = {name, nullptr};
    app = std::make_unique<QApplication>(argc, argv);
  }
  exportHeatMap(map, QString::fromStdString(path), size, dpi);
}

}  // namespace handsim::plot
