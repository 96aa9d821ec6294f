// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A heat map of a scalar over a two-parameter grid (seed 004's Fig. 5-6: the kinetic-energy
// ratio over g1 and gi, or the admissible depth and gi), laid out without Qt: cell edges on
// linear or logarithmic axes, the colour range and its bar's ticks, the colours, refused cells
// and a marked point. render.hpp draws it.

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace handsim::plot {

/// One tick of a heat map axis or colour bar: its value and its exact label.
struct HeatTick {
  double value = 0.0;
  std::string label;
};

/// Ticks for [lo, hi] (lo <= hi, both > 0 when `log`). Logarithmic: the powers of ten inside,
/// and their 2 and 5 multiples when the range spans less than three decades; when that gives
/// fewer than two ticks, round linear ticks inside the range (niceTicks without extension).
/// Linear: niceTicks(lo, hi, false). Labels: plain decimals from 0.001 to 9999, else
/// "m×10ⁿ" (m omitted when 1), e.g. "10⁵", "2×10⁻³".
std::vector<HeatTick> heatTicks(double lo, double hi, bool log);

/// The label heatTicks gives a value (exact for 1, 2, 5 times a power of ten).
std::string heatLabel(double value);

struct HeatAxis {
  std::string title;           ///< e.g. "g1 [N/m]"
  bool log = false;            ///< logarithmic (all values > 0)
  std::vector<double> values;  ///< the grid's values, increasing
  /// Cell edges in axis units (values.size() + 1): half-way between neighbours (geometric
  /// means on a log axis), the outer ones as far out as the neighbouring half-gap (one decade
  /// wide, or +-0.5, for a single value).
  std::vector<double> edges;
  std::vector<HeatTick> ticks;  ///< inside [edges.front(), edges.back()]
  /// Position of a value along the axis as a fraction of [edges.front(), edges.back()] (log
  /// axes in log10).
  double fraction(double value) const;
};

struct HeatCell {
  std::size_t ix = 0, iy = 0;  ///< indices into the x and y values
  double value = 0.0;          ///< NaN: no value (a refused cell, or the metric was undefined)
  bool refused = false;        ///< the scenario loader refused the cell's parameters
  bool lost = false;           ///< the run lost the object (stopped by the numerical guards)
};

struct HeatMap {
  std::string title;
  std::string value_title;  ///< the colour bar's title
  HeatAxis x, y;
  std::vector<HeatCell> cells;
  bool log_colour = false;           ///< the colour scale is logarithmic
  double colour_lo = 0.0, colour_hi = 1.0;  ///< the colour bar's range (data units)
  std::vector<HeatTick> colour_ticks;
  std::optional<std::array<double, 2>> marker;  ///< a marked (x, y) point (the green dot)
  /// Fraction of the colour range of a value, clamped to [0, 1]; NaN for NaN.
  double colourFraction(double value) const;
};

/// Lays out a heat map. `x_values`, `y_values`: the grid (sorted here, duplicates refused);
/// `cells` one per grid point at most. The colour range is that of the finite cell values
/// (log colour only when all are > 0), widened around a single value. Throws
/// std::invalid_argument for an empty or non-finite grid, a non-positive value on a log axis or
/// a cell outside the grid.
HeatMap buildHeatMap(HeatAxis x, HeatAxis y, std::vector<HeatCell> cells,
                     const std::string& value_title, bool log_colour);

/// sRGB of a colour fraction in [0, 1] on a perceptually ordered map (dark blue to yellow,
/// in the manner of viridis; anchors chosen here), each channel 0-255.
std::array<int, 3> heatColour(double fraction);

}  // namespace handsim::plot
