// SPDX-License-Identifier: GPL-3.0-or-later
#include "signal_plot.hpp"

#include <QApplication>
#include <QBuffer>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QLineSeries>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace handsim::plot {
namespace {

void commit(QSaveFile& file, const QString& path) {
  if (!file.commit())
    throw std::runtime_error("cannot write " + path.toStdString() + ": " +
                             file.errorString().toStdString());
}

void openForWrite(QSaveFile& file, const QString& path) {
  if (!file.open(QIODevice::WriteOnly))
    throw std::runtime_error("cannot write " + path.toStdString() + ": " +
                             file.errorString().toStdString());
}

// Lays the chart out at `size` in a scene of its own and paints it; the chart goes back to
// where it was afterwards, so a chart shown in a view can be exported too.
void paintChart(QChart& chart, QPainter& painter, QSize size) {
  QGraphicsScene* const old_scene = chart.scene();
  const QRectF old_geometry = chart.geometry();
  QGraphicsScene scene;
  if (old_scene) old_scene->removeItem(&chart);
  scene.addItem(&chart);
  chart.setGeometry(QRectF(QPointF(0, 0), QSizeF(size)));
  scene.setSceneRect(QRectF(QPointF(0, 0), QSizeF(size)));
  scene.render(&painter, QRectF(QPointF(0, 0), QSizeF(size)), scene.sceneRect());
  scene.removeItem(&chart);
  if (old_scene) {
    old_scene->addItem(&chart);
    chart.setGeometry(old_geometry);
  }
}

}  // namespace

std::vector<Signal> signalsFromRecorder(const sim::Recorder& recorder,
                                        const std::vector<std::string>& columns) {
  std::vector<std::string> unknown;
  for (const std::string& c : columns)
    if (recorder.columnIndex(c) < 0) unknown.push_back(c);
  if (!unknown.empty()) {
    std::ostringstream msg;
    msg << "unknown signal";
    if (unknown.size() > 1) msg << 's';
    for (std::size_t i = 0; i < unknown.size(); ++i) msg << (i ? ", " : " ") << unknown[i];
    msg << "; known:";
    for (const std::string& c : recorder.columns()) msg << ' ' << c;
    throw std::invalid_argument(msg.str());
  }
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

void fillChart(QChart& chart, const std::vector<Signal>& signals, const QString& title,
               int max_points) {
  chart.removeAllSeries();
  for (QAbstractAxis* axis : chart.axes()) {
    chart.removeAxis(axis);
    delete axis;
  }
  chart.setTitle(title);
  auto* x_axis = new QValueAxis;
  x_axis->setTitleText(QStringLiteral("time [s]"));
  auto* y_axis = new QValueAxis;
  QStringList units;
  double t_min = 0.0, t_max = 0.0;
  double y_min = std::numeric_limits<double>::infinity();
  double y_max = -y_min;
  bool first = true;
  for (const Signal& s : signals) {
    const QString& unit = s.unit;
    if (!unit.isEmpty() && !units.contains(unit)) units << unit;
    auto* series = new QLineSeries;
    series->setName(unit.isEmpty() ? s.name : s.name + QStringLiteral(" [") + unit + ']');
    const std::size_t n = std::min(s.t.size(), s.y.size());
    const std::size_t stride =
        max_points > 0 ? std::max<std::size_t>(1, n / static_cast<std::size_t>(max_points)) : 1;
    QList<QPointF> points;
    points.reserve(static_cast<qsizetype>(n / stride + 1));
    for (std::size_t i = 0; i < n; i += stride) {
      if (!std::isfinite(s.y[i])) continue;
      points.append(QPointF(s.t[i], s.y[i]));
    }
    if (n > 0 && (n - 1) % stride != 0 && std::isfinite(s.y[n - 1]))
      points.append(QPointF(s.t[n - 1], s.y[n - 1]));
    for (const QPointF& p : points) {
      if (first) {
        t_min = t_max = p.x();
        first = false;
      }
      t_min = std::min(t_min, p.x());
      t_max = std::max(t_max, p.x());
      y_min = std::min(y_min, p.y());
      y_max = std::max(y_max, p.y());
    }
    series->replace(points);
    chart.addSeries(series);
  }
  chart.addAxis(x_axis, Qt::AlignBottom);
  chart.addAxis(y_axis, Qt::AlignLeft);
  for (QAbstractSeries* s : chart.series()) {
    s->attachAxis(x_axis);
    s->attachAxis(y_axis);
  }
  if (first) {
    y_min = -1.0;
    y_max = 1.0;
  } else if (y_max - y_min < 1e-12) {
    y_min -= 1.0;
    y_max += 1.0;
  } else {
    const double margin = 0.05 * (y_max - y_min);
    y_min -= margin;
    y_max += margin;
  }
  x_axis->setRange(t_min, t_max > t_min ? t_max : t_min + 1.0);
  y_axis->setRange(y_min, y_max);
  y_axis->setTitleText(units.join(QStringLiteral(", ")));
  chart.legend()->setVisible(true);
  chart.legend()->setAlignment(Qt::AlignBottom);
}

void exportChart(QChart& chart, const QString& path, QSize size) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  QSaveFile file(path);
  if (suffix == QLatin1String("png")) {
    const qreal scale = 2.0;  // crisp text in papers and slides
    QImage image(size * scale, QImage::Format_ARGB32);
    image.fill(Qt::white);
    {
      QPainter painter(&image);
      painter.setRenderHint(QPainter::Antialiasing);
      painter.scale(scale, scale);
      paintChart(chart, painter, size);
    }
    openForWrite(file, path);
    if (!image.save(&file, "PNG"))
      throw std::runtime_error("cannot encode PNG for " + path.toStdString());
  } else if (suffix == QLatin1String("svg")) {
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(chart.title());
    {
      QPainter painter(&generator);
      paintChart(chart, painter, size);
    }
    openForWrite(file, path);
    file.write(buffer.data());
  } else if (suffix == QLatin1String("pdf")) {
    openForWrite(file, path);
    QPdfWriter writer(&file);
    writer.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setResolution(72);
    writer.setTitle(chart.title());
    {
      QPainter painter(&writer);
      paintChart(chart, painter, size);
    }
  } else {
    throw std::runtime_error("cannot export " + path.toStdString() +
                             ": use a .png, .svg or .pdf file name");
  }
  commit(file, path);
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
  openForWrite(file, path);
  file.write(text);
  commit(file, path);
}

void renderPlotFile(const sim::Recorder& recorder, const std::vector<std::string>& columns,
                    const std::string& path, const std::string& title) {
  std::unique_ptr<QApplication> app;
  if (!QApplication::instance()) {
    // No display is needed to paint a chart into an image or a file.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "handsim-cli";
    static char* argv[] = {name, nullptr};
    app = std::make_unique<QApplication>(argc, argv);
  }
  const std::vector<Signal> signals = signalsFromRecorder(recorder, columns);
  QChart chart;
  chart.setAnimationOptions(QChart::NoAnimation);
  fillChart(chart, signals, QString::fromStdString(title), 0);
  exportChart(chart, QString::fromStdString(path));
}

}  // namespace handsim::plot
