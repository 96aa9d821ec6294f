// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// Axis ticks and unit prefixes for figures. Plain C++ (no Qt), so the layout rules are unit
// tested on their own.
//
// Ticks follow the "nice numbers" idea (Heckbert, "Nice numbers for graph labels", Graphics
// Gems, 1990): steps of 1, 2, 2.5 or 5 times a power of ten. Here every tick is an integer k
// times the step, and its label is printed from integers, so the printed text is exact.

#include <string>
#include <vector>

namespace handsim::plot {

/// Ticks of one axis: value = k * step for k in [k_first, k_last], step = mantissa * 10^exponent
/// with mantissa in {10, 20, 25, 50} (i.e. 1, 2, 2.5 or 5 times a power of ten).
struct Ticks {
  double lo = 0.0;    ///< axis range start (a tick when extended)
  double hi = 1.0;    ///< axis range end
  int mantissa = 10;  ///< 10, 20, 25 or 50
  int exponent = -1;  ///< step = mantissa * 10^exponent
  long long k_first = 0;
  long long k_last = 0;
  int decimals = 0;  ///< decimals every label prints with (the same for all ticks)

  double step() const;
  std::size_t count() const { return static_cast<std::size_t>(k_last - k_first + 1); }
  /// Value of tick i (0-based), the double nearest to the label's decimal number.
  double value(std::size_t i) const;
  /// Exact decimal label of tick i, e.g. "-2.5", "0.0", "12.5".
  std::string label(std::size_t i) const;
  std::vector<double> values() const;
  std::vector<std::string> labels() const;
};

/// Round ticks for data in [min, max]. `extend`: the axis range grows to the enclosing tick
/// multiples and there are 4 to 8 ticks (the tightest such range; among equals, steps of 1, 2
/// or 5 before 2.5, then a count nearer 6). Without `extend` (a zoomed view) the range stays
/// [min, max] and holds 2 to 8 ticks, as many as fit. A degenerate range (min == max) widens
/// around the value; non-finite input gives the range [0, 1].
Ticks niceTicks(double min, double max, bool extend = true);

/// A unit with an SI prefix: values in the base unit are divided by `factor` for drawing.
struct UnitScale {
  std::string unit;     ///< recorder unit, e.g. "N m" ("" for a pure number)
  std::string prefix;   ///< "", "m", "\u00b5", "k"... (UTF-8)
  double factor = 1.0;  ///< 10^(3n)
  std::string display;  ///< prefix + unit as printed, e.g. "mN m", "rad/s\u00b2"
};

/// Chooses an SI prefix for data whose largest magnitude is `max_abs` [unit]: none while
/// 0.1 <= max_abs < 1000 (a 25 N force stays in N, 0.35 N m in N m), else the prefix that
/// brings max_abs into [1, 1000) (0.012 N m becomes 12 mN m). Only for units that take a
/// prefix on their first symbol: "N m", "N", "m", "m/s", "m/s^2", "s". Angles (rad...), counts,
/// pure numbers and unknown units never get one. A "^2" prints as a superscript two.
UnitScale chooseUnitScale(const std::string& unit, double max_abs);

}  // namespace handsim::plot
