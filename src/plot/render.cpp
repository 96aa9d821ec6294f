// SPDX-License-Identifier: GPL-3.0-or-later
#include "render.hpp"

#include <QFileInfo>
#include <QFont>
#include <QFontMetricsF>
#include <QImage>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <stdexcept>

namespace handsim::plot {
namespace {

// Okabe and Ito's palette, told apart with the common colour-vision deficiencies.
const std::array<QColor, 7> kPalette{QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00),
                                     QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7),
                                     QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9),
                                     QColor(0x00, 0x00, 0x00)};
const QColor kGrid(0xE3, 0xE3, 0xE3);
const QColor kInk(0x20, 0x20, 0x20);

// Glyph outlines come from a 100 px font scaled to the wanted size: pixel sizes do not depend
// on the paint device's resolution, and the outline is unhinted.
constexpr double kFontPx = 100.0;

const QFont& baseFont() {
  static const QFont font = [] {
    QFont f(QStringLiteral("DejaVu Sans"));
    f.setStyleHint(QFont::SansSerif);
    f.setPixelSize(static_cast<int>(kFontPx));
    f.setHintingPreference(QFont::PreferNoHinting);
    return f;
  }();
  return font;
}

double textWidth(const QString& s, double size) {
  return QFontMetricsF(baseFont()).horizontalAdvance(s) * size / kFontPx;
}
double capHeight(double size) {
  return QFontMetricsF(baseFont()).capHeight() * size / kFontPx;
}

enum class HAlign { Left, Center, Right };

// Outline of `s` at `size` pt: horizontally aligned at `at`, its cap height centred on at.y
// (`vcenter`) or its baseline on at.y; rotated 90 degrees counter-clockwise when `vertical`.
QPainterPath outline(const QString& s, double size, QPointF at, HAlign h, bool vcenter = true,
                     bool vertical = false) {
  QPainterPath glyphs;
  glyphs.addText(0.0, 0.0, baseFont(), s);
  const double k = size / kFontPx;
  const double w = textWidth(s, size);
  const double dx = h == HAlign::Left ? 0.0 : h == HAlign::Center ? -w / 2 : -w;
  const double dy = vcenter ? capHeight(size) / 2 : 0.0;
  QTransform t;
  t.translate(at.x(), at.y());
  if (vertical) t.rotate(-90.0);
  t.translate(dx, dy);
  t.scale(k, k);
  return t.map(glyphs);
}

QString qs(const std::string& s) {
  return QString::fromUtf8(s.c_str());
}
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

QByteArray fmt(double v) {
  return QByteArray::number(v, 'f', 2);
}

QByteArray escape(const std::string& s) {
  QByteArray out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

QByteArray color(const QColor& c) {
  return c.name(QColor::HexRgb).toLatin1();
}

QByteArray strokeAttrs(const Stroke& s) {
  QByteArray a =
      " fill=\"none\" stroke=\"" + color(s.color) + "\" stroke-width=\"" + fmt(s.width) + "\"";
  if (!s.dashes.empty()) {
    a += " stroke-dasharray=\"";
    for (std::size_t i = 0; i < s.dashes.size(); ++i) a += (i ? " " : "") + fmt(s.dashes[i]);
    a += "\"";
  }
  return a;
}

QPen pen(const Stroke& s) {
  QPen p(s.color, s.width);
  p.setCapStyle(Qt::FlatCap);
  if (!s.dashes.empty()) {
    // Qt's dash lengths are in pen widths.
    QList<qreal> pattern;
    for (double d : s.dashes) pattern << d / std::max(1e-6, s.width);
    p.setDashPattern(pattern);
  }
  return p;
}

struct EventStyle {
  QColor color;
  std::vector<double> dashes;
};
EventStyle eventStyle(EventKind k) {
  switch (k) {
    case EventKind::ContactOnset:
      return {QColor(0x00, 0x7A, 0x58), {1.0, 1.5}};
    case EventKind::ClutchBreak:
    case EventKind::ClutchEngage:
      return {QColor(0xA0, 0x40, 0x00), {4.0, 2.0}};
    case EventKind::PhaseChange:
      return {QColor(0x40, 0x40, 0x90), {4.0, 1.5, 1.0, 1.5}};
    case EventKind::Warning:
      return {QColor(0xC0, 0x00, 0x00), {2.0, 2.0}};
  }
  return {kInk, {}};
}

std::string kindName(EventKind k) {
  switch (k) {
    case EventKind::ContactOnset:
      return "contact";
    case EventKind::ClutchBreak:
      return "clutch-break";
    case EventKind::ClutchEngage:
      return "clutch-engage";
    case EventKind::PhaseChange:
      return "phase";
    case EventKind::Warning:
      return "warning";
  }
  return "event";
}

// A legend entry: sample line then the label.
struct LegendItem {
  QPointF at;  // start of the sample line, on the text's centre line
  QString label;
  QColor color;
};

constexpr double kSample = 11.0;  // legend sample line length [pt]
constexpr double kTick = 3.0;     // tick mark length [pt]

}  // namespace

// --- QPainter -------------------------------------------------------------------------------

void PainterCanvas::fillRect(const QRectF& rect, const QColor& color) {
  p_.fillRect(rect, color);
}

void PainterCanvas::line(QPointF a, QPointF b, const Stroke& stroke) {
  p_.setPen(pen(stroke));
  p_.drawLine(a, b);
}

void PainterCanvas::polyline(const QPolygonF& points, const Stroke& stroke, const QRectF& clip) {
  p_.save();
  p_.setClipRect(clip, Qt::IntersectClip);
  QPen p = pen(stroke);
  p.setJoinStyle(Qt::RoundJoin);
  p_.setPen(p);
  p_.drawPolyline(points);
  p_.restore();
}

void PainterCanvas::text(const QPainterPath& outline, const QColor& color, const QString&) {
  p_.fillPath(outline, color);
}

// --- SVG ------------------------------------------------------------------------------------

SvgCanvas::SvgCanvas(QSizeF size, const Attributes& root_data) {
  out_ =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
      "version=\"1.1\" width=\"" +
      QByteArray::number(size.width() / 72.0, 'g', 6) + "in\" height=\"" +
      QByteArray::number(size.height() / 72.0, 'g', 6) + "in\" viewBox=\"0 0 " + fmt(size.width()) +
      " " + fmt(size.height()) + "\"";
  for (const auto& [k, v] : root_data) out_ += " data-" + escape(k) + "=\"" + escape(v) + "\"";
  out_ += ">\n";
}

void SvgCanvas::beginGroup(const std::string& cls, const Attributes& data) {
  out_ += "<g class=\"" + escape(cls) + "\"";
  for (const auto& [k, v] : data) out_ += " data-" + escape(k) + "=\"" + escape(v) + "\"";
  out_ += ">\n";
  ++depth_;
}

void SvgCanvas::endGroup() {
  if (depth_ == 0) return;
  out_ += "</g>\n";
  --depth_;
}

void SvgCanvas::fillRect(const QRectF& r, const QColor& c) {
  out_ += "<rect x=\"" + fmt(r.x()) + "\" y=\"" + fmt(r.y()) + "\" width=\"" + fmt(r.width()) +
          "\" height=\"" + fmt(r.height()) + "\" fill=\"" + color(c) + "\"/>\n";
}

void SvgCanvas::line(QPointF a, QPointF b, const Stroke& s) {
  out_ += "<line x1=\"" + fmt(a.x()) + "\" y1=\"" + fmt(a.y()) + "\" x2=\"" + fmt(b.x()) +
          "\" y2=\"" + fmt(b.y()) + "\"" + strokeAttrs(s) + "/>\n";
}

void SvgCanvas::polyline(const QPolygonF& points, const Stroke& s, const QRectF& clip) {
  const QByteArray id = "clip" + QByteArray::number(clips_++);
  out_ += "<clipPath id=\"" + id + "\"><rect x=\"" + fmt(clip.x()) + "\" y=\"" + fmt(clip.y()) +
          "\" width=\"" + fmt(clip.width()) + "\" height=\"" + fmt(clip.height()) +
          "\"/></clipPath>\n<polyline clip-path=\"url(#" + id + ")\" stroke-linejoin=\"round\"" +
          strokeAttrs(s) + " points=\"";
  for (int i = 0; i < points.size(); ++i)
    out_ += (i ? " " : "") + fmt(points[i].x()) + "," + fmt(points[i].y());
  out_ += "\"/>\n";
}

void SvgCanvas::text(const QPainterPath& path, const QColor& c, const QString& text) {
  out_ += "<path class=\"text\" aria-label=\"" + escape(text.toStdString()) + "\" fill=\"" +
          color(c) + "\" d=\"";
  for (int i = 0; i < path.elementCount(); ++i) {
    const QPainterPath::Element e = path.elementAt(i);
    if (e.isMoveTo()) {
      out_ += "M" + fmt(e.x) + " " + fmt(e.y);
    } else if (e.isLineTo()) {
      out_ += "L" + fmt(e.x) + " " + fmt(e.y);
    } else if (e.isCurveTo() && i + 2 < path.elementCount()) {
      const QPainterPath::Element c1 = path.elementAt(i + 1), c2 = path.elementAt(i + 2);
      out_ += "C" + fmt(e.x) + " " + fmt(e.y) + " " + fmt(c1.x) + " " + fmt(c1.y) + " " +
              fmt(c2.x) + " " + fmt(c2.y);
      i += 2;
    }
  }
  out_ += "\"/>\n";
}

QByteArray SvgCanvas::finish() {
  while (depth_ > 0) endGroup();
  out_ += "</svg>\n";
  return out_;
}

// --- layout and drawing ---------------------------------------------------------------------

double FigureLayout::timeAt(double x_pt) const {
  if (plots.empty() || plots.front().width() <= 0) return t_lo;
  const QRectF& r = plots.front();
  return t_lo + (x_pt - r.left()) / r.width() * (t_hi - t_lo);
}

namespace {

// An event label placed above the top panel.
struct PlacedEvent {
  const Event* event;
  double x;
  double label_x;  // centre of the label
  int row;         // 0 nearest the top panel
};

// Where everything of a figure goes, worked out before anything is drawn (layOut).
struct Geometry {
  double pad = 3.0;    // margin around the figure [pt]
  double gap = 4.0;    // between panels [pt]
  double top = 0.0;    // below the figure's title [pt]
  double title_h = 0;  // an axis title's line [pt]
  double leg_line = 0, ev_line = 0;
  double x0 = 0, x1 = 0, pw = 0, ph = 0, strip_h = 0;
  int title_lines = 1;  // axis titles on one line or (quantity, [unit]) on two
  int event_rows = 0;
  std::vector<double> label_w;  // widest tick label per axis slot
  std::vector<double> slot_x;   // outer edge offsets of the right-hand axes
  std::vector<std::vector<QStringList>> titles;  // [panel][axis]: the title's lines
  std::vector<std::vector<LegendItem>> legends;  // [panel]
  std::vector<double> legend_h;                  // [panel]
  std::vector<PlacedEvent> placed;
  double xOf(const Ticks& xt, double t_scaled) const {
    return x0 + (t_scaled - xt.lo) / (xt.hi - xt.lo) * pw;
  }
};

// The widest tick label of each axis slot (0: the left axis, then the right-hand ones).
std::vector<double> tickLabelWidths(const Figure& fig, const Style& st) {
  std::vector<double> label_w;
  for (const Panel& p : fig.panels)
    for (std::size_t a = 0; a < p.axes.size(); ++a) {
      if (label_w.size() <= a) label_w.resize(a + 1, 0.0);
      for (const std::string& l : p.axes[a].ticks.labels())
        label_w[a] = std::max(label_w[a], textWidth(qs(l), st.small));
    }
  return label_w;
}

// Horizontal: the left axis' labels and title; extra (overlaid) axes stack on the right.
void layOutColumns(const Figure& fig, const Style& st, QSizeF size, Geometry& g) {
  const Ticks& xt = fig.time.ticks;
  const double left = g.pad + g.title_h * g.title_lines + 2.0 + g.label_w[0] + kTick + 2.0;
  g.slot_x.clear();
  double right = 0.0;
  for (std::size_t a = 1; a < g.label_w.size(); ++a) {
    g.slot_x.push_back(right);
    right += kTick + 2.0 + g.label_w[a] + 2.0 + g.title_h * g.title_lines +
             (a + 1 < g.label_w.size() ? 4.0 : 0.0);
  }
  const QString last_x_label = xt.count() ? qs(xt.label(xt.count() - 1)) : QString();
  right = std::max(right + g.pad, textWidth(last_x_label, st.small) / 2 + g.pad + 1.0);
  g.x0 = left;
  g.x1 = std::max(left + 10.0, size.width() - right);
  g.pw = g.x1 - g.x0;
}

// Legends above each panel, wrapped to the plot width.
void layOutLegends(const Figure& fig, const Style& st, Geometry& g) {
  g.legends.assign(fig.panels.size(), {});
  g.legend_h.assign(fig.panels.size(), 0.0);
  for (std::size_t p = 0; p < fig.panels.size(); ++p) {
    double x = g.x0, row = 0;
    for (const Trace& tr : fig.panels[p].traces) {
      const QString label = qs(tr.label);
      const double w = kSample + 3.0 + textWidth(label, st.small);
      if (x > g.x0 && x + w > g.x1) {
        x = g.x0;
        ++row;
      }
      g.legends[p].push_back({QPointF(x, row * g.leg_line + g.leg_line / 2), label,
                              kPalette[tr.color % kPalette.size()]});
      x += w + 8.0;
    }
    g.legend_h[p] = (row + 1) * g.leg_line;
  }
}

// Event labels in rows above the top panel, each in the lowest row where it overlaps no label,
// crosses no higher label's leader line, and its own leader crosses no label.
void placeEvents(const Figure& fig, const Style& st, QSizeF size, Geometry& g) {
  const double tscale = fig.time.scale.factor;
  g.placed.clear();
  g.event_rows = 0;
  for (const Event& e : fig.events) {
    const double x = g.xOf(fig.time.ticks, e.time / tscale);
    const double w = textWidth(qs(e.label), st.small);
    const double lx = std::clamp(x, w / 2 + 1.0, size.width() - w / 2 - 1.0);
    // Leader lines may cross labels only when four rows cannot avoid it.
    const auto fits = [&](int row, bool leaders) {
      for (const PlacedEvent& q : g.placed) {
        const double qw = textWidth(qs(q.event->label), st.small);
        if (q.row == row && std::fabs(q.label_x - lx) < (w + qw) / 2 + 3.0) return false;
        if (!leaders) continue;
        if (q.row > row && std::fabs(q.x - lx) < w / 2 + 1.5) return false;
        if (q.row < row && std::fabs(x - q.label_x) < qw / 2 + 1.5) return false;
      }
      return true;
    };
    int row = 0;
    while (row < 4 && !fits(row, true)) ++row;
    if (row == 4) {
      row = 0;
      while (!fits(row, false)) ++row;
    }
    g.event_rows = std::max(g.event_rows, row + 1);
    g.placed.push_back({&e, x, lx, row});
  }
  g.strip_h = g.event_rows == 0 ? 0.0 : g.event_rows * g.ev_line + 2.0;
}

// Axis titles: one line, else quantity and [unit] on two lines, else [unit] alone, for plots
// `ph` tall. Sets title_lines to 2 when a title needs two.
void fitAxisTitles(const Figure& fig, const Style& st, Geometry& g) {
  const double room = g.ph + 8.0;
  for (std::size_t p = 0; p < fig.panels.size(); ++p) {
    g.titles[p].clear();
    for (const Axis& axis : fig.panels[p].axes) {
      const QString full = qs(axis.title);
      const auto cut = full.lastIndexOf(QStringLiteral(" ["));
      const QString quantity = full.left(cut), unit = full.mid(cut + 1);
      if (textWidth(full, st.font) <= room || cut < 0) {
        g.titles[p].push_back({full});
      } else if (textWidth(quantity, st.font) <= room) {
        g.titles[p].push_back({quantity, unit});
        g.title_lines = 2;
      } else {
        g.titles[p].push_back({unit});
      }
    }
  }
}

// The whole layout: columns, legends, event rows and the panels' height; a second pass when a
// title needs two lines (a wider left margin).
Geometry layOut(const Figure& fig, const Style& st, QSizeF size, double top) {
  Geometry g;
  g.top = top;
  g.title_h = st.font * 1.25;
  g.leg_line = st.small * 1.45;
  g.ev_line = st.small * 1.3;
  g.label_w = tickLabelWidths(fig, st);
  g.titles.resize(fig.panels.size());
  const double bottom = kTick + 1.0 + st.small * 1.3 + g.title_h + g.pad;
  for (int pass = 0; pass < 2; ++pass) {
    layOutColumns(fig, st, size, g);
    layOutLegends(fig, st, g);
    placeEvents(fig, st, size, g);
    // Vertical: title, then per panel its legend (the first also the event labels) and plot;
    // the bottom panel's time labels and title below.
    double fixed = top + bottom + g.strip_h + g.gap * static_cast<double>(fig.panels.size() - 1);
    for (double h : g.legend_h) fixed += h;
    g.ph = std::max(12.0, (size.height() - fixed) / static_cast<double>(fig.panels.size()));
    if (pass == 1) break;
    fitAxisTitles(fig, st, g);
    if (g.title_lines == 1) break;
  }
  return g;
}

// The events' labels and lines, under the signals.
void drawEvents(const Geometry& g, const FigureLayout& layout, Canvas& c, const Style& st) {
  const double strip_top = layout.plots.front().top() - g.strip_h;
  for (const PlacedEvent& pe : g.placed) {
    const Event& e = *pe.event;
    const EventStyle es = eventStyle(e.kind);
    const Stroke s{es.color, 0.6, es.dashes};
    c.beginGroup(
        "event",
        {{"time", num(e.time)}, {"kind", kindName(e.kind)}, {"label", e.label}, {"x", num(pe.x)}});
    const QString label = qs(e.label);
    const double ly = strip_top + (g.event_rows - 1 - pe.row + 0.5) * g.ev_line;
    c.text(outline(label, st.small, QPointF(pe.label_x, ly), HAlign::Center), es.color, label);
    c.line(QPointF(pe.x, ly + g.ev_line / 2), QPointF(pe.x, layout.plots.front().top()), s);
    for (const QRectF& r : layout.plots)
      c.line(QPointF(pe.x, r.top()), QPointF(pe.x, r.bottom()), s);
    c.endGroup();
  }
}

double yOf(const QRectF& r, const Ticks& t, double v) {
  return r.bottom() - (v - t.lo) / (t.hi - t.lo) * r.height();
}

// Grid at the time ticks and the first axis' ticks, then the signals, split at non-finite
// values.
void drawGridAndTraces(const Figure& fig, const Panel& panel, const QRectF& r, const Geometry& g,
                       Canvas& c, const Style& st) {
  const Ticks& xt = fig.time.ticks;
  const double tscale = fig.time.scale.factor;
  const Stroke grid{kGrid, 0.4, {}};
  for (std::size_t i = 0; i < xt.count(); ++i) {
    const double x = g.xOf(xt, xt.value(i));
    c.line(QPointF(x, r.top()), QPointF(x, r.bottom()), grid);
  }
  for (std::size_t i = 0; i < panel.axes.front().ticks.count(); ++i) {
    const double yy = yOf(r, panel.axes.front().ticks, panel.axes.front().ticks.value(i));
    c.line(QPointF(r.left(), yy), QPointF(r.right(), yy), grid);
  }
  for (const Trace& tr : panel.traces) {
    const Ticks& yt = panel.axes[tr.axis].ticks;
    c.beginGroup(
        "trace",
        {{"column", tr.column}, {"label", tr.label}, {"axis-title", panel.axes[tr.axis].title}});
    const Stroke s{kPalette[tr.color % kPalette.size()], st.line, {}};
    QPolygonF poly;
    for (std::size_t i = 0; i < tr.t.size(); ++i) {
      if (!std::isfinite(tr.y[i])) {
        if (poly.size() > 1) c.polyline(poly, s, r);
        poly.clear();
        continue;
      }
      poly << QPointF(g.xOf(xt, tr.t[i] / tscale), yOf(r, yt, tr.y[i]));
    }
    if (poly.size() > 1) c.polyline(poly, s, r);
    c.endGroup();
  }
}

// Y axis `a` of panel `p`: the first on the left, the others outward on the right; its ticks,
// labels and rotated title.
void drawYAxis(const Panel& panel, std::size_t p, std::size_t a, const QRectF& r, const Geometry& g,
               Canvas& c, const Style& st) {
  const Stroke frame{kInk, st.frame, {}};
  const Axis& axis = panel.axes[a];
  const bool on_left = a == 0;
  const double edge = on_left ? r.left() : r.right() + g.slot_x[a - 1];
  if (!on_left && a > 1) c.line(QPointF(edge, r.top()), QPointF(edge, r.bottom()), frame);
  const double dir = on_left ? -1.0 : 1.0;
  // In a panel too short for every label, every second (or third...) tick keeps its label,
  // starting from the one nearest zero so that zero stays labelled.
  const std::size_t n_ticks = axis.ticks.count();
  const double spacing = n_ticks > 1 ? r.height() / static_cast<double>(n_ticks - 1) : r.height();
  const auto every = static_cast<std::size_t>(std::max(1.0, std::ceil(st.small * 1.25 / spacing)));
  std::size_t anchor = 0;
  for (std::size_t i = 0; i < n_ticks; ++i)
    if (std::fabs(axis.ticks.value(i)) < std::fabs(axis.ticks.value(anchor))) anchor = i;
  for (std::size_t i = 0; i < n_ticks; ++i) {
    const double yy = yOf(r, axis.ticks, axis.ticks.value(i));
    const QString label = qs(axis.ticks.label(i));
    const bool labelled = (i + every - anchor % every) % every == 0;
    c.beginGroup(labelled ? "ytick" : "ytick-unlabelled", {{"panel", std::to_string(p)},
                                                           {"axis", std::to_string(a)},
                                                           {"value", num(axis.ticks.value(i))},
                                                           {"label", axis.ticks.label(i)},
                                                           {"y", num(yy)}});
    c.line(QPointF(edge, yy), QPointF(edge + dir * kTick, yy), frame);
    if (labelled)
      c.text(outline(label, st.small, QPointF(edge + dir * (kTick + 2.0), yy),
                     on_left ? HAlign::Right : HAlign::Left),
             kInk, label);
    c.endGroup();
  }
  // The title, rotated, in one or two lines.
  const QStringList& lines = g.titles[p][a];
  const QString title = lines.join(QLatin1Char(' '));
  c.beginGroup("axis-title", {{"panel", std::to_string(p)},
                              {"axis", std::to_string(a)},
                              {"text", title.toStdString()},
                              {"unit", axis.scale.display}});
  for (int l = 0; l < lines.size(); ++l) {
    const double offset = (l + 0.8) * g.title_h / 1.25 + l * (g.title_h - st.font);
    const double tx = on_left ? g.pad + offset : edge + kTick + 2.0 + g.label_w[a] + 2.0 + offset;
    c.text(outline(lines[l], st.font, QPointF(tx, r.center().y()), HAlign::Center, false, true),
           kInk, lines[l]);
  }
  c.endGroup();
}

// Time ticks in every panel; labels and title under the bottom one.
void drawTimeAxis(const Figure& fig, std::size_t p, const QRectF& r, const Geometry& g, Canvas& c,
                  const Style& st) {
  const Ticks& xt = fig.time.ticks;
  const bool bottom_panel = p + 1 == fig.panels.size();
  const Stroke frame{kInk, st.frame, {}};
  for (std::size_t i = 0; i < xt.count(); ++i) {
    const double x = g.xOf(xt, xt.value(i));
    const QString label = qs(xt.label(i));
    c.beginGroup(bottom_panel ? "xtick" : "xtick-mark", {{"panel", std::to_string(p)},
                                                         {"value", num(xt.value(i))},
                                                         {"label", xt.label(i)},
                                                         {"x", num(x)}});
    c.line(QPointF(x, r.bottom()), QPointF(x, r.bottom() - kTick), frame);
    if (bottom_panel)
      c.text(outline(label, st.small, QPointF(x, r.bottom() + kTick + 1.0 + st.small * 0.65),
                     HAlign::Center),
             kInk, label);
    c.endGroup();
  }
  if (!bottom_panel) return;
  const QString title = qs(fig.time.title);
  c.beginGroup("axis-title",
               {{"panel", "time"}, {"text", fig.time.title}, {"unit", fig.time.scale.display}});
  c.text(
      outline(title, st.font,
              QPointF(r.center().x(), r.bottom() + kTick + 1.0 + st.small * 1.3 + g.title_h * 0.55),
              HAlign::Center),
      kInk, title);
  c.endGroup();
}

// One panel: grid, signals, frame, axes and legend.
void drawPanel(const Figure& fig, std::size_t p, const QRectF& r, const Geometry& g, Canvas& c,
               const Style& st) {
  const Panel& panel = fig.panels[p];
  c.beginGroup("panel", {{"index", std::to_string(p)},
                         {"axis-title", panel.axes.front().title},
                         {"unit", panel.axes.front().scale.display}});
  drawGridAndTraces(fig, panel, r, g, c, st);
  const Stroke frame{kInk, st.frame, {}};
  c.line(r.topLeft(), r.topRight(), frame);
  c.line(r.bottomLeft(), r.bottomRight(), frame);
  c.line(r.topLeft(), r.bottomLeft(), frame);
  c.line(r.topRight(), r.bottomRight(), frame);
  for (std::size_t a = 0; a < panel.axes.size(); ++a) drawYAxis(panel, p, a, r, g, c, st);
  drawTimeAxis(fig, p, r, g, c, st);
  c.beginGroup("legend", {{"panel", std::to_string(p)}});
  for (const LegendItem& item : g.legends[p]) {
    c.line(item.at, item.at + QPointF(kSample, 0), Stroke{item.color, st.line * 1.2, {}});
    c.text(outline(item.label, st.small, item.at + QPointF(kSample + 3.0, 0), HAlign::Left), kInk,
           item.label);
  }
  c.endGroup();
  c.endGroup();
}

}  // namespace

FigureLayout drawFigure(const Figure& fig, Canvas& c, QSizeF size, const Style& st) {
  FigureLayout layout;
  c.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
  const double pad = 3.0;
  double top = pad;
  if (!fig.title.empty()) {
    const QString title = qs(fig.title);
    c.text(outline(title, st.title, QPointF(size.width() / 2, top + st.title * 0.8), HAlign::Center,
                   false),
           kInk, title);
    top += st.title * 1.5;
  }
  if (fig.panels.empty()) {
    // Plainly: nothing selected or nothing recorded yet.
    const QString text = QStringLiteral("no data");
    c.beginGroup("no-data", {});
    c.text(outline(text, st.font * 1.2, QPointF(size.width() / 2, (top + size.height()) / 2),
                   HAlign::Center),
           kInk, text);
    c.endGroup();
    return layout;
  }
  layout.t_lo = fig.time.ticks.lo * fig.time.scale.factor;
  layout.t_hi = fig.time.ticks.hi * fig.time.scale.factor;
  Geometry g = layOut(fig, st, size, top);
  double y = top;
  for (std::size_t p = 0; p < fig.panels.size(); ++p) {
    for (LegendItem& item : g.legends[p]) item.at.ry() += y;
    y += g.legend_h[p];
    if (p == 0) y += g.strip_h;
    layout.plots.push_back(QRectF(g.x0, y, g.pw, g.ph));
    y += g.ph + g.gap;
  }
  // Events first, so the signals are drawn over them.
  drawEvents(g, layout, c, st);
  for (std::size_t p = 0; p < fig.panels.size(); ++p) drawPanel(fig, p, layout.plots[p], g, c, st);
  return layout;
}

namespace {
// Lays out without drawing.
class NullCanvas : public Canvas {
 public:
  void beginGroup(const std::string&, const Attributes&) override {}
  void endGroup() override {}
  void fillRect(const QRectF&, const QColor&) override {}
  void line(QPointF, QPointF, const Stroke&) override {}
  void polyline(const QPolygonF&, const Stroke&, const QRectF&) override {}
  void text(const QPainterPath&, const QColor&, const QString&) override {}
};
}  // namespace

double figureHeight(const Figure& figure, const FigureSize& size) {
  if (size.height_in > 0) return size.height_in;
  const bool overlay = figure.panels.size() == 1 && figure.panels.front().axes.size() > 1;
  const double panel = panelHeight(size.width_in, overlay) * 72.0;
  if (figure.panels.empty()) return 2.0;
  // Everything but the plot areas is the same at any height: measure it once.
  NullCanvas canvas;
  const double probe = 72.0 * 30.0;
  const FigureLayout layout = drawFigure(figure, canvas, QSizeF(size.width_in * 72.0, probe));
  const double n = static_cast<double>(figure.panels.size());
  const double fixed = probe - n * layout.plots.front().height();
  return std::min(30.0, (fixed + n * panel) / 72.0);
}

namespace {

// Writes what `draw` draws on a `pt` sized canvas as PNG (at `dpi`), SVG or PDF by the suffix
// of `path`, atomically (QSaveFile).
void exportDrawing(const QString& path, QSizeF pt, int dpi, const std::string& title,
                   const Attributes& svg_root, const std::function<void(Canvas&)>& draw) {
  if (dpi < 50 || dpi > 2400)
    throw std::invalid_argument("dpi " + std::to_string(dpi) + ": use 50 to 2400");
  const QString suffix = QFileInfo(path).suffix().toLower();
  const auto fail = [&](const QString& why) {
    throw std::runtime_error("cannot write " + path.toStdString() + ": " + why.toStdString());
  };
  QSaveFile file(path);
  const auto open = [&] {
    if (!file.open(QIODevice::WriteOnly)) fail(file.errorString());
  };
  if (suffix == QLatin1String("png")) {
    const QSize px(static_cast<int>(std::lround(pt.width() / 72.0 * dpi)),
                   static_cast<int>(std::lround(pt.height() / 72.0 * dpi)));
    if (px.width() > 20000 || px.height() > 20000)
      fail(QStringLiteral("%1 x %2 pixels is too large; lower --dpi or the size")
               .arg(px.width())
               .arg(px.height()));
    QImage image(px, QImage::Format_ARGB32);
    image.setDotsPerMeterX(static_cast<int>(std::lround(dpi / 0.0254)));
    image.setDotsPerMeterY(static_cast<int>(std::lround(dpi / 0.0254)));
    image.fill(Qt::white);
    {
      QPainter painter(&image);
      painter.setRenderHint(QPainter::Antialiasing);
      painter.scale(dpi / 72.0, dpi / 72.0);
      PainterCanvas canvas(painter);
      draw(canvas);
    }
    open();
    if (!image.save(&file, "PNG")) fail(QStringLiteral("cannot encode PNG"));
  } else if (suffix == QLatin1String("svg")) {
    SvgCanvas canvas(pt, svg_root);
    draw(canvas);
    open();
    file.write(canvas.finish());
  } else if (suffix == QLatin1String("pdf")) {
    open();
    QPdfWriter writer(&file);
    writer.setPageSize(QPageSize(pt, QPageSize::Point));
    writer.setPageMargins(QMarginsF(0, 0, 0, 0));
    writer.setResolution(1200);
    writer.setTitle(qs(title));
    writer.setCreator(QStringLiteral("handsim"));
    {
      QPainter painter(&writer);
      painter.setRenderHint(QPainter::Antialiasing);
      painter.scale(1200.0 / 72.0, 1200.0 / 72.0);
      PainterCanvas canvas(painter);
      draw(canvas);
    }
  } else {
    fail(QStringLiteral("use a .png, .svg or .pdf file name"));
  }
  if (!file.commit()) fail(file.errorString());
}

}  // namespace

void exportFigure(const Figure& figure, const QString& path, const FigureSize& size, int dpi) {
  const double height_in = figureHeight(figure, size);
  const QSizeF pt(size.width_in * 72.0, height_in * 72.0);
  exportDrawing(path, pt, dpi, figure.title,
                {{"width-in", num(size.width_in)}, {"height-in", num(height_in)}},
                [&](Canvas& canvas) { drawFigure(figure, canvas, pt); });
}

// --- heat maps ------------------------------------------------------------------------------

namespace {

double heatX(const QRectF& P, double f) {
  return P.left() + f * P.width();
}
double heatY(const QRectF& P, double f) {
  return P.bottom() - f * P.height();
}

// The cells, coloured by value; refused and lost cells crossed.
void drawHeatCells(const HeatMap& map, const QRectF& P, Canvas& c, const Style& st) {
  auto xAt = [&](double f) { return heatX(P, f); };
  auto yAt = [&](double f) { return heatY(P, f); };
  const double xspan = map.x.edges.back() - map.x.edges.front();
  const double yspan = map.y.edges.back() - map.y.edges.front();
  for (const HeatCell& cell : map.cells) {
    const double x0 = xAt((map.x.edges[cell.ix] - map.x.edges.front()) / xspan);
    const double x1 = xAt((map.x.edges[cell.ix + 1] - map.x.edges.front()) / xspan);
    const double y0 = yAt((map.y.edges[cell.iy] - map.y.edges.front()) / yspan);
    const double y1 = yAt((map.y.edges[cell.iy + 1] - map.y.edges.front()) / yspan);
    const QRectF r(QPointF(x0, y1), QPointF(x1, y0));
    const auto rgb = heatColour(map.colourFraction(cell.value));
    const QColor colour = cell.refused ? QColor(0xF2, 0xF2, 0xF2)
                          : cell.lost  ? QColor(0xB2, 0x22, 0x22)
                                       : QColor(rgb[0], rgb[1], rgb[2]);
    c.beginGroup("cell", {{"x", num(map.x.values[cell.ix])},
                          {"y", num(map.y.values[cell.iy])},
                          {"value", num(cell.value)},
                          {"refused", cell.refused ? "1" : "0"},
                          {"lost", cell.lost ? "1" : "0"},
                          {"colour", colour.name(QColor::HexRgb).toStdString()},
                          {"rect", num(r.left()) + " " + num(r.top()) + " " + num(r.width()) +
                                       " " + num(r.height())}});
    c.fillRect(r, colour);
    if (cell.refused || cell.lost) {
      // A cross: the loader refused these parameters (no run, no value), or the run lost the
      // object (grey on red).
      const Stroke cross{cell.lost ? QColor(0xF2, 0xF2, 0xF2) : QColor(0x90, 0x90, 0x90),
                         st.frame, {}};
      const double k = 0.3 * std::min(r.width(), r.height());
      c.line(r.center() + QPointF(-k, -k), r.center() + QPointF(k, k), cross);
      c.line(r.center() + QPointF(-k, k), r.center() + QPointF(k, -k), cross);
    }
    c.endGroup();
  }
}

// The frame, the x and y ticks with their labels, and the axis titles.
void drawHeatAxes(const HeatMap& map, const QRectF& P, QSizeF size, Canvas& c, const Style& st) {
  const Stroke frame{kInk, st.frame, {}};
  auto xAt = [&](double f) { return heatX(P, f); };
  auto yAt = [&](double f) { return heatY(P, f); };
  c.line(P.topLeft(), P.topRight(), frame);
  c.line(P.bottomLeft(), P.bottomRight(), frame);
  c.line(P.topLeft(), P.bottomLeft(), frame);
  c.line(P.topRight(), P.bottomRight(), frame);
  // Axis ticks and titles.
  for (const HeatTick& t : map.x.ticks) {
    const double x = xAt(map.x.fraction(t.value));
    c.beginGroup("tick", {{"axis", "x"}, {"value", num(t.value)}, {"label", t.label},
                          {"pos", num(x)}});
    c.line(QPointF(x, P.bottom()), QPointF(x, P.bottom() + kTick), frame);
    c.text(outline(qs(t.label), st.small, QPointF(x, P.bottom() + kTick + 2.0 + st.small * 0.7),
                   HAlign::Center),
           kInk, qs(t.label));
    c.endGroup();
  }
  for (const HeatTick& t : map.y.ticks) {
    const double y = yAt(map.y.fraction(t.value));
    c.beginGroup("tick", {{"axis", "y"}, {"value", num(t.value)}, {"label", t.label},
                          {"pos", num(y)}});
    c.line(QPointF(P.left() - kTick, y), QPointF(P.left(), y), frame);
    c.text(outline(qs(t.label), st.small, QPointF(P.left() - kTick - 2.0, y), HAlign::Right),
           kInk, qs(t.label));
    c.endGroup();
  }
  c.beginGroup("axis-title", {{"axis", "x"}, {"text", map.x.title}});
  c.text(outline(qs(map.x.title), st.font, QPointF(P.center().x(), size.height() - 4.0),
                 HAlign::Center, false),
         kInk, qs(map.x.title));
  c.endGroup();
  c.beginGroup("axis-title", {{"axis", "y"}, {"text", map.y.title}});
  c.text(outline(qs(map.y.title), st.font, QPointF(4.0 + st.font, P.center().y()),
                 HAlign::Center, false, true),
         kInk, qs(map.y.title));
  c.endGroup();
}

// The colour bar: 64 bands, its ticks on the right, its title along it.
void drawColourBar(const HeatMap& map, const QRectF& B, QSizeF size, Canvas& c, const Style& st) {
  const Stroke frame{kInk, st.frame, {}};
  c.beginGroup("colourbar", {{"lo", num(map.colour_lo)},
                             {"hi", num(map.colour_hi)},
                             {"log", map.log_colour ? "1" : "0"},
                             {"rect", num(B.left()) + " " + num(B.top()) + " " + num(B.width()) +
                                          " " + num(B.height())}});
  constexpr int kBands = 64;
  for (int i = 0; i < kBands; ++i) {
    const auto rgb = heatColour((i + 0.5) / kBands);
    const double y1 = B.bottom() - B.height() * i / kBands;
    const double y0 = B.bottom() - B.height() * (i + 1) / kBands;
    // Overlap the next band by a hair so that anti-aliasing leaves no seams.
    c.fillRect(QRectF(B.left(), y0 - 0.05, B.width(), y1 - y0 + 0.1), QColor(rgb[0], rgb[1], rgb[2]));
  }
  c.line(B.topLeft(), B.topRight(), frame);
  c.line(B.bottomLeft(), B.bottomRight(), frame);
  c.line(B.topLeft(), B.bottomLeft(), frame);
  c.line(B.topRight(), B.bottomRight(), frame);
  c.endGroup();
  for (const HeatTick& t : map.colour_ticks) {
    const double y = B.bottom() - map.colourFraction(t.value) * B.height();
    c.beginGroup("tick", {{"axis", "colour"}, {"value", num(t.value)}, {"label", t.label},
                          {"pos", num(y)}});
    c.line(QPointF(B.right(), y), QPointF(B.right() + kTick, y), frame);
    c.text(outline(qs(t.label), st.small, QPointF(B.right() + kTick + 2.0, y), HAlign::Left),
           kInk, qs(t.label));
    c.endGroup();
  }
  c.beginGroup("axis-title", {{"axis", "colour"}, {"text", map.value_title}});
  c.text(outline(qs(map.value_title), st.font,
                 QPointF(size.width() - 4.0, B.center().y()), HAlign::Center, false, true),
         kInk, qs(map.value_title));
  c.endGroup();
}

// The marked point: a green dot with a dark rim. Returns where it is drawn.
QPointF drawHeatMarker(const HeatMap& map, const QRectF& P, QSizeF size, Canvas& c) {
  auto xAt = [&](double f) { return heatX(P, f); };
  auto yAt = [&](double f) { return heatY(P, f); };
  const QPointF at(xAt(map.x.fraction((*map.marker)[0])), yAt(map.y.fraction((*map.marker)[1])));
  c.beginGroup("marker", {{"x", num((*map.marker)[0])},
                          {"y", num((*map.marker)[1])},
                          {"pos", num(at.x()) + " " + num(at.y())}});
  auto ring = [&](double radius) {
    QPolygonF poly;
    for (int i = 0; i <= 32; ++i) {
      const double a = 2.0 * 3.14159265358979323846 * i / 32;
      poly << at + QPointF(radius * std::cos(a), radius * std::sin(a));
    }
    return poly;
  };
  const QRectF all(QPointF(0, 0), size);
  c.polyline(ring(1.6), Stroke{QColor(0x00, 0xC0, 0x40), 3.2, {}}, all);
  c.polyline(ring(3.4), Stroke{kInk, 0.8, {}}, all);
  c.endGroup();
  return at;
}

}  // namespace

HeatMapLayout drawHeatMap(const HeatMap& map, Canvas& c, QSizeF size, const Style& st) {
  HeatMapLayout lay;
  c.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
  const double top = map.title.empty() ? 8.0 : 8.0 + st.title * 1.6;
  const double left = 16.0 + st.font + 4.0 + 34.0;  // y title, tick labels
  const double bottom = kTick + 3.0 + st.small * 1.4 + st.font * 1.6 + 4.0;
  const double bar_w = 10.0, bar_gap = 10.0;
  const double right = bar_gap + bar_w + kTick + 3.0 + 34.0 + st.font * 1.6 + 4.0;
  lay.plot = QRectF(left, top, std::max(10.0, size.width() - left - right),
                    std::max(10.0, size.height() - top - bottom));
  lay.bar = QRectF(lay.plot.right() + bar_gap, lay.plot.top(), bar_w, lay.plot.height());
  const QRectF& P = lay.plot;
  if (!map.title.empty()) {
    c.beginGroup("title", {{"text", map.title}});
    c.text(outline(qs(map.title), st.title, QPointF(size.width() / 2, 4.0 + st.title * 0.6),
                   HAlign::Center),
           kInk, qs(map.title));
    c.endGroup();
  }
  drawHeatCells(map, P, c, st);
  drawHeatAxes(map, P, size, c, st);
  drawColourBar(map, lay.bar, size, c, st);
  if (map.marker) lay.marker = drawHeatMarker(map, P, size, c);
  return lay;
}

void exportHeatMap(const HeatMap& map, const QString& path, const FigureSize& size, int dpi) {
  const double height_in = size.height_in > 0.0 ? size.height_in : 0.8 * size.width_in;
  const QSizeF pt(size.width_in * 72.0, height_in * 72.0);
  exportDrawing(path, pt, dpi, map.title,
                {{"width-in", num(size.width_in)}, {"height-in", num(height_in)}},
                [&](Canvas& canvas) { drawHeatMap(map, canvas, pt); });
}

}  // namespace handsim::plot
