// SPDX-License-Identifier: GPL-3.0-or-later
#include "heatmap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "ticks.hpp"

namespace handsim::plot {
namespace {

std::string superscript(int n) {
  static const char* digits[] = {"\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
                                 "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
  std::string out = n < 0 ? "\u207b" : "";
  const std::string d = std::to_string(std::abs(n));
  for (char c : d) out += digits[c - '0'];
  return out;
}

double axisUnit(double v, bool log) { return log ? std::log10(v) : v; }

}  // namespace

std::string heatLabel(double value) {
  if (value == 0.0) return "0";
  const double a = std::abs(value);
  char buf[64];
  if (a >= 1e-3 && a < 1e4) {
    std::snprintf(buf, sizeof buf, "%.6g", value);
    return buf;
  }
  int e = static_cast<int>(std::floor(std::log10(a)));
  double m = value / std::pow(10.0, e);
  if (std::abs(m) >= 10.0 - 1e-9) {
    m /= 10.0;
    ++e;
  }
  std::string out;
  if (std::abs(std::abs(m) - 1.0) > 1e-9) {
    std::snprintf(buf, sizeof buf, "%.4g", m);
    out = std::string(buf) + "\u00d7";
  } else if (m < 0) {
    out = "-";
  }
  return out + "10" + superscript(e);
}

std::vector<HeatTick> heatTicks(double lo, double hi, bool log) {
  std::vector<HeatTick> out;
  if (!(std::isfinite(lo) && std::isfinite(hi)) || hi < lo) return out;
  if (log && lo > 0.0) {
    const double eps = 1e-9;
    const int e0 = static_cast<int>(std::floor(std::log10(lo))) - 1;
    const int e1 = static_cast<int>(std::ceil(std::log10(hi))) + 1;
    const bool fine = std::log10(hi) - std::log10(lo) < 3.0;
    for (int e = e0; e <= e1; ++e)
      for (int m : {1, 2, 5}) {
        if (m != 1 && !fine) continue;
        const double v = m * std::pow(10.0, e);
        if (v >= lo * (1 - eps) && v <= hi * (1 + eps)) out.push_back({v, heatLabel(v)});
      }
    if (out.size() >= 2) return out;
    out.clear();
  }
  const Ticks t = niceTicks(lo, hi, false);
  const auto values = t.values();
  const auto labels = t.labels();
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!log || values[i] > 0.0) out.push_back({values[i], labels[i]});
  return out;
}

double HeatAxis::fraction(double value) const {
  const double u = axisUnit(value, log);
  return (u - edges.front()) / (edges.back() - edges.front());
}

double HeatMap::colourFraction(double value) const {
  if (std::isnan(value)) return value;
  double f;
  if (log_colour) {
    if (!(value > 0.0)) return 0.0;
    f = (std::log10(value) - std::log10(colour_lo)) /
        (std::log10(colour_hi) - std::log10(colour_lo));
  } else {
    f = (value - colour_lo) / (colour_hi - colour_lo);
  }
  return std::clamp(f, 0.0, 1.0);
}

namespace {

void layoutAxis(HeatAxis& a, const char* which) {
  if (a.values.empty()) throw std::invalid_argument(std::string(which) + " axis: no values");
  for (double v : a.values) {
    if (!std::isfinite(v))
      throw std::invalid_argument(std::string(which) + " axis: a value is not finite");
    if (a.log && !(v > 0.0))
      throw std::invalid_argument(std::string(which) +
                                  " axis: a logarithmic axis needs positive values, got " +
                                  heatLabel(v));
  }
  std::sort(a.values.begin(), a.values.end());
  if (std::adjacent_find(a.values.begin(), a.values.end()) != a.values.end())
    throw std::invalid_argument(std::string(which) + " axis: a value appears twice");
  std::vector<double> u;
  for (double v : a.values) u.push_back(axisUnit(v, a.log));
  a.edges.assign(u.size() + 1, 0.0);
  if (u.size() == 1) {
    a.edges[0] = u[0] - 0.5;
    a.edges[1] = u[0] + 0.5;
  } else {
    for (std::size_t i = 1; i < u.size(); ++i) a.edges[i] = 0.5 * (u[i - 1] + u[i]);
    a.edges.front() = u.front() - (a.edges[1] - u.front());
    a.edges.back() = u.back() + (u.back() - a.edges[u.size() - 1]);
  }
  const double lo = a.log ? std::pow(10.0, a.edges.front()) : a.edges.front();
  const double hi = a.log ? std::pow(10.0, a.edges.back()) : a.edges.back();
  a.ticks = heatTicks(lo, hi, a.log);
}

}  // namespace

HeatMap buildHeatMap(HeatAxis x, HeatAxis y, std::vector<HeatCell> cells,
                     const std::string& value_title, bool log_colour) {
  // Cells name grid indices of the values as given; keep them through the sort.
  const std::vector<double> x_given = x.values, y_given = y.values;
  layoutAxis(x, "x");
  layoutAxis(y, "y");
  auto reindex = [](const std::vector<double>& given, const std::vector<double>& sorted,
                    std::size_t i, const char* which) {
    if (i >= given.size())
      throw std::invalid_argument(std::string("a cell lies outside the grid (") + which + ")");
    return static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), given[i]) -
                                    sorted.begin());
  };
  double lo = INFINITY, hi = -INFINITY;
  bool all_positive = true;
  for (HeatCell& c : cells) {
    c.ix = reindex(x_given, x.values, c.ix, "x");
    c.iy = reindex(y_given, y.values, c.iy, "y");
    if (!std::isfinite(c.value)) continue;
    lo = std::min(lo, c.value);
    hi = std::max(hi, c.value);
    all_positive = all_positive && c.value > 0.0;
  }
  HeatMap map;
  map.value_title = value_title;
  map.log_colour = log_colour && all_positive;
  if (!(lo <= hi)) {
    lo = map.log_colour ? 1.0 : 0.0;
    hi = map.log_colour ? 10.0 : 1.0;
  } else if (lo == hi) {
    if (map.log_colour) {
      lo /= 1.1;
      hi *= 1.1;
    } else {
      const double w = lo == 0.0 ? 1.0 : 0.05 * std::abs(lo);
      lo -= w;
      hi += w;
    }
  }
  map.colour_lo = lo;
  map.colour_hi = hi;
  map.colour_ticks = heatTicks(lo, hi, map.log_colour);
  map.x = std::move(x);
  map.y = std::move(y);
  map.cells = std::move(cells);
  return map;
}

std::array<int, 3> heatColour(double f) {
  // Dark blue-violet through teal and green to yellow: lightness rises monotonically.
  static const double anchors[5][3] = {
      {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  if (std::isnan(f)) return {200, 200, 200};
  f = std::clamp(f, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(std::floor(f)));
  const double s = f - i;
  std::array<int, 3> out{};
  for (int c = 0; c < 3; ++c)
    out[static_cast<std::size_t>(c)] =
        static_cast<int>(std::lround(anchors[i][c] + s * (anchors[i + 1][c] - anchors[i][c])));
  return out;
}

}  // namespace handsim::plot
