// SPDX-License-Identifier: GPL-3.0-or-later
#include "figure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace handsim::plot {
namespace {

std::string suffixOf(const std::string& column) {
  const auto dot = column.find_last_of('.');
  return dot == std::string::npos ? column : column.substr(dot + 1);
}

std::string stem(const std::string& column) {
  const auto dot = column.find_last_of('.');
  return dot == std::string::npos ? column : column.substr(0, dot);
}

std::string axisTitle(const std::vector<std::string>& quantities, const std::string& unit) {
  std::string t;
  for (const std::string& q : quantities) t += (t.empty() ? "" : ", ") + q;
  return t + " [" + (unit.empty() ? std::string("-") : unit) + "]";
}

// Rows [first, last] of the time column that cover [t0, t1], one more on each side so that
// lines run to the edges of a zoomed view.
std::pair<std::size_t, std::size_t> rowsIn(const std::vector<double>& t, double t0, double t1) {
  const auto lo = std::lower_bound(t.begin(), t.end(), t0);
  const auto hi = std::upper_bound(t.begin(), t.end(), t1);
  std::size_t first = static_cast<std::size_t>(lo - t.begin());
  std::size_t last = static_cast<std::size_t>(hi - t.begin());
  if (first > 0) --first;
  if (last < t.size()) ++last;
  return {first, last};
}

// Keeps the first and last point and, per bucket, the smallest and largest value in time
// order: a decimated line still reaches every peak.
void decimate(const std::vector<double>& t, const std::vector<double>& y, std::size_t first,
              std::size_t last, std::size_t max_points, Trace& out) {
  const std::size_t n = last - first;
  if (max_points == 0 || n <= max_points) {
    out.t.assign(t.begin() + static_cast<std::ptrdiff_t>(first),
                 t.begin() + static_cast<std::ptrdiff_t>(last));
    out.y.assign(y.begin() + static_cast<std::ptrdiff_t>(first),
                 y.begin() + static_cast<std::ptrdiff_t>(last));
    return;
  }
  const std::size_t buckets = std::max<std::size_t>(1, max_points / 2);
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t i0 = first + n * b / buckets, i1 = first + n * (b + 1) / buckets;
    if (i0 >= i1) continue;
    std::size_t lo = i0, hi = i0;
    for (std::size_t i = i0; i < i1; ++i) {
      if (y[i] < y[lo]) lo = i;
      if (y[i] > y[hi]) hi = i;
    }
    for (std::size_t i : {std::min(lo, hi), std::max(lo, hi)}) {
      if (!out.t.empty() && out.t.back() == t[i]) continue;
      out.t.push_back(t[i]);
      out.y.push_back(y[i]);
    }
  }
}

}  // namespace

std::string quantityName(const std::string& column) {
  std::string q = suffixOf(column);
  std::replace(q.begin(), q.end(), '_', ' ');
  return q;
}

void requireColumns(const sim::Recorder& recorder, const std::vector<std::string>& columns) {
  std::vector<std::string> unknown;
  for (const std::string& c : columns)
    if (recorder.columnIndex(c) < 0) unknown.push_back(c);
  if (unknown.empty()) return;
  std::ostringstream msg;
  msg << "unknown signal";
  if (unknown.size() > 1) msg << 's';
  for (std::size_t i = 0; i < unknown.size(); ++i) msg << (i ? ", " : " ") << unknown[i];
  msg << "; known:";
  for (const std::string& c : recorder.columns()) msg << ' ' << c;
  throw std::invalid_argument(msg.str());
}

Figure buildFigure(const sim::Recorder& recorder, const std::vector<std::string>& columns,
                   const FigureOptions& options, const std::vector<Event>& extra_events) {
  requireColumns(recorder, columns);
  Figure fig;
  fig.title = options.title;
  const std::vector<double> time =
      recorder.rowCount() > 0 ? recorder.series("time") : std::vector<double>{};
  // Time axis: the recorded span with round ticks, or exactly the zoomed range.
  double t0 = time.empty() ? 0.0 : time.front(), t1 = time.empty() ? 1.0 : time.back();
  if (!(t1 > t0)) t1 = t0 + 1.0;  // one row (a run not started): the first second
  if (options.zoom && options.t_max > options.t_min) {
    t0 = options.t_min;
    t1 = options.t_max;
  }
  fig.time.scale = chooseUnitScale("s", std::max(std::fabs(t0), std::fabs(t1)));
  fig.time.ticks = niceTicks(t0 / fig.time.scale.factor, t1 / fig.time.scale.factor, !options.zoom);
  fig.time.title = axisTitle({"time"}, fig.time.scale.display);
  if (columns.empty() || time.empty()) return fig;
  const double lo_s = fig.time.ticks.lo * fig.time.scale.factor;
  const double hi_s = fig.time.ticks.hi * fig.time.scale.factor;
  const auto [first, last] = rowsIn(time, lo_s, hi_s);

  // Group the columns by unit, in the order units first appear.
  std::vector<std::string> units;
  std::vector<std::vector<std::string>> groups;
  for (const std::string& c : columns) {
    const std::string u = recorder.unit(c);
    const auto it = std::find(units.begin(), units.end(), u);
    if (it == units.end()) {
      units.push_back(u);
      groups.push_back({c});
    } else {
      groups[static_cast<std::size_t>(it - units.begin())].push_back(c);
    }
  }
  if (options.overlay)
    fig.panels.resize(1);
  else
    fig.panels.resize(groups.size());
  std::size_t color = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    Panel& panel = fig.panels[options.overlay ? 0 : g];
    if (!options.overlay) color = 0;
    // Raw values in the shown rows decide the prefix and the range.
    std::vector<std::vector<double>> raw;
    double max_abs = 0.0, y_min = std::numeric_limits<double>::infinity(), y_max = -y_min;
    std::vector<std::string> quantities;
    for (const std::string& c : groups[g]) {
      raw.push_back(recorder.series(c));
      for (std::size_t r = first; r < last; ++r) {
        const double v = raw.back()[r];
        if (!std::isfinite(v)) continue;
        max_abs = std::max(max_abs, std::fabs(v));
        y_min = std::min(y_min, v);
        y_max = std::max(y_max, v);
      }
      const std::string q = quantityName(c);
      if (std::find(quantities.begin(), quantities.end(), q) == quantities.end())
        quantities.push_back(q);
    }
    Axis axis;
    axis.scale = chooseUnitScale(units[g], max_abs);
    axis.title = axisTitle(quantities, axis.scale.display);
    if (y_min > y_max) y_min = y_max = 0.0;  // nothing finite: an axis around zero
    axis.ticks = niceTicks(y_min / axis.scale.factor, y_max / axis.scale.factor, true);
    panel.axes.push_back(axis);
    for (std::size_t i = 0; i < groups[g].size(); ++i) {
      const std::string& c = groups[g][i];
      Trace tr;
      tr.column = c;
      // The axis title names the quantity; a panel of one quantity labels lines by the link.
      if (options.overlay)
        tr.label = c + " [" + (axis.scale.display.empty() ? "-" : axis.scale.display) + "]";
      else
        tr.label = quantities.size() == 1 && stem(c) != c ? stem(c) : c;
      tr.axis = panel.axes.size() - 1;
      tr.color = color++;
      decimate(time, raw[i], first, last, options.max_points, tr);
      for (double& v : tr.y) v /= axis.scale.factor;
      panel.traces.push_back(std::move(tr));
    }
  }
  if (options.events)
    for (const Event& e : detectEvents(recorder, extra_events))
      if (e.time >= lo_s && e.time <= hi_s) fig.events.push_back(e);
  return fig;
}

FigureSize parseFigureSize(const std::string& text) {
  if (text == "single") return {kSingleColumnIn, 0.0};
  if (text == "double") return {kDoubleColumnIn, 0.0};
  const std::string usage = "figure size \"" + text +
                            "\": use single (3.5 in wide), double (7 in) or WxH in inches, "
                            "e.g. 3.5x2.5 or 7xauto, with 1 <= W <= 20 and 1 <= H <= 30";
  const auto x = text.find('x');
  if (x == std::string::npos) throw std::invalid_argument(usage);
  const auto number = [&](const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
      throw std::invalid_argument(usage);
    return v;
  };
  FigureSize size;
  size.width_in = number(text.substr(0, x));
  const std::string h = text.substr(x + 1);
  size.height_in = h == "auto" ? 0.0 : number(h);
  if (size.width_in < 1.0 || size.width_in > 20.0 ||
      (h != "auto" && (size.height_in < 1.0 || size.height_in > 30.0)))
    throw std::invalid_argument(usage);
  return size;
}

double panelHeight(double width_in, bool overlay) {
  return (width_in < 5.0 ? 0.8 : 1.0) * (overlay ? 2.0 : 1.0);
}

std::vector<std::string> presetNames() {
  return {"seed000"};
}

Preset presetFor(const std::string& name, const sim::Recorder& recorder) {
  if (name != "seed000")
    throw std::invalid_argument("unknown preset \"" + name + "\"; known: seed000");
  // The finger whose clutch column reaches 1, else the first finger with a clutch.
  std::string finger;
  for (const std::string& c : recorder.columns()) {
    if (c.size() <= 7 || c.compare(c.size() - 7, 7, ".clutch") != 0) continue;
    const std::string f = c.substr(0, c.size() - 7);
    if (finger.empty()) finger = f;
    const std::vector<double> v = recorder.series(c);
    if (std::any_of(v.begin(), v.end(), [](double x) { return x > 0.5; })) {
      finger = f;
      break;
    }
  }
  // Its last two joints: the inner and outer links of the clutch (seed 000's j2 and j3).
  std::vector<std::string> joints;
  for (const std::string& c : recorder.columns())
    if (c.rfind(finger + ".", 0) == 0 && c.size() > 6 && c.compare(c.size() - 6, 6, ".angle") == 0)
      joints.push_back(c.substr(0, c.size() - 6));
  if (finger.empty() || joints.size() < 2)
    throw std::invalid_argument(
        "preset seed000 needs a hand with a breakaway clutch (a <finger>.clutch column and the "
        "finger's joint columns); this recorder has none");
  const std::string inner = joints[joints.size() - 2], outer = joints.back();
  Preset p;
  p.name = name;
  for (const char* q : {"angle", "velocity", "acceleration", "torque"})
    for (const std::string& j : {inner, outer}) p.columns.push_back(j + "." + q);
  p.columns.push_back(inner + ".contact_force");
  p.size = {kSingleColumnIn, 0.0};
  return p;
}

}  // namespace handsim::plot
