// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Draws a Figure (figure.hpp) with Qt: on a widget or an image through QPainter, or as SVG
// written here. Layout is in points (1/72 in) so that a 3.5 in figure has 8 pt text.
//
// Text is drawn as glyph outlines (QPainterPath::addText), in every output: an SVG or PDF
// looks the same on a machine without the font, and PNG, PDF, SVG and the screen share one
// layout. The SVG keeps the words machine-readable: every text outline carries aria-label,
// and ticks, axis titles, traces and events are <g> groups with data- attributes (value,
// label, time...), which tests and scripts read.

#include <QColor>
#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <string>
#include <utility>
#include <vector>

#include "figure.hpp"
#include "heatmap.hpp"

namespace handsim::plot {

struct Stroke {
  QColor color = Qt::black;
  double width = 1.0;          ///< [pt]
  std::vector<double> dashes;  ///< on/off lengths [pt]; empty: solid
};

using Attributes = std::vector<std::pair<std::string, std::string>>;

/// Where drawFigure() draws: QPainter (screen, PNG, PDF) or SVG text.
class Canvas {
 public:
  virtual ~Canvas() = default;
  /// Groups what follows up to endGroup() (an SVG <g class=... data-...>; nothing elsewhere).
  virtual void beginGroup(const std::string& cls, const Attributes& data) = 0;
  virtual void endGroup() = 0;
  virtual void fillRect(const QRectF& rect, const QColor& color) = 0;
  virtual void line(QPointF a, QPointF b, const Stroke& stroke) = 0;
  /// A polyline clipped to `clip`.
  virtual void polyline(const QPolygonF& points, const Stroke& stroke, const QRectF& clip) = 0;
  /// Glyph outlines of `text`.
  virtual void text(const QPainterPath& outline, const QColor& color, const QString& text) = 0;
};

class PainterCanvas : public Canvas {
 public:
  explicit PainterCanvas(QPainter& painter) : p_(painter) {}
  void beginGroup(const std::string&, const Attributes&) override {}
  void endGroup() override {}
  void fillRect(const QRectF& rect, const QColor& color) override;
  void line(QPointF a, QPointF b, const Stroke& stroke) override;
  void polyline(const QPolygonF& points, const Stroke& stroke, const QRectF& clip) override;
  void text(const QPainterPath& outline, const QColor& color, const QString& text) override;

 private:
  QPainter& p_;
};

class SvgCanvas : public Canvas {
 public:
  /// `size` [pt]; the SVG's width and height are given in inches.
  explicit SvgCanvas(QSizeF size, const Attributes& root_data = {});
  void beginGroup(const std::string& cls, const Attributes& data) override;
  void endGroup() override;
  void fillRect(const QRectF& rect, const QColor& color) override;
  void line(QPointF a, QPointF b, const Stroke& stroke) override;
  void polyline(const QPolygonF& points, const Stroke& stroke, const QRectF& clip) override;
  void text(const QPainterPath& outline, const QColor& color, const QString& text) override;
  /// The document (closes it).
  QByteArray finish();

 private:
  QByteArray out_;
  int clips_ = 0;
  int depth_ = 0;
};

/// Text sizes and line widths [pt].
struct Style {
  double font = 8.0;   ///< axis titles, "no data"
  double small = 7.0;  ///< tick labels, legends, event labels
  double title = 9.0;  ///< figure title
  double line = 1.0;   ///< signals
  double frame = 0.6;  ///< panel frames, ticks
};

/// Where drawFigure() put the panels, for mapping the mouse to time.
struct FigureLayout {
  std::vector<QRectF> plots;      ///< plot area of each panel [pt]
  double t_lo = 0.0, t_hi = 1.0;  ///< time at the left and right plot edges [s]
  double timeAt(double x_pt) const;
};

/// Draws `figure` into a `size` [pt] area at the origin.
FigureLayout drawFigure(const Figure& figure, Canvas& canvas, QSizeF size, const Style& style = {});

/// Height [in] of `size` for `figure`: its own, or (height 0) what gives every panel a plot
/// area of panelHeight(), measured with the same layout (at most 30 in).
double figureHeight(const Figure& figure, const FigureSize& size);

/// Writes `figure` as PNG (at `dpi`), SVG or PDF by the suffix of `path`, `size` inches,
/// atomically. Throws std::runtime_error naming the path (unknown suffix, I/O, a PNG of more
/// than 20000 x 20000 pixels); std::invalid_argument for a dpi outside [50, 2400].
void exportFigure(const Figure& figure, const QString& path, const FigureSize& size, int dpi = 300);

/// Where drawHeatMap() put things [pt].
struct HeatMapLayout {
  QRectF plot;    ///< the cells' area
  QRectF bar;     ///< the colour bar
  QPointF marker; ///< the marked point (when there is one)
};

/// Draws a heat map (heatmap.hpp) into a `size` [pt] area: cells coloured by heatColour (a
/// refused cell light grey with a cross), the axes' ticks and titles, a colour bar with its
/// ticks and title on the right, the marker as a green dot. In SVG every cell, tick, the bar
/// and the marker are <g> groups with data- attributes (values, labels, positions in pt).
HeatMapLayout drawHeatMap(const HeatMap& map, Canvas& canvas, QSizeF size, const Style& style = {});

/// Writes a heat map as PNG (at `dpi`), SVG or PDF by the suffix of `path`, atomically; height
/// 0 in `size`: 0.8 of the width. Errors as exportFigure.
void exportHeatMap(const HeatMap& map, const QString& path, const FigureSize& size, int dpi = 300);

}  // namespace handsim::plot
