// SPDX-License-Identifier: GPL-3.0-or-later
#include "ticks.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace handsim::plot {
namespace {

double pow10(int e) {
  // Exact for the powers of ten doubles hold exactly (|e| <= 22), and 10^-e by division so
  // that k * mantissa / 10^n is the double nearest to the decimal number.
  double p = 1.0;
  for (int i = 0; i < std::abs(e); ++i) p *= 10.0;
  return e >= 0 ? p : 1.0 / p;
}

// "rad/s^2" as printed: "rad/s²".
std::string displayUnit(std::string unit) {
  const auto caret = unit.find("^2");
  if (caret != std::string::npos) unit.replace(caret, 2, "\u00b2");
  return unit;
}

struct Candidate {
  Ticks ticks;
  double span = 0.0;
};

}  // namespace

double Ticks::step() const {
  return exponent >= 0 ? mantissa * pow10(exponent) : mantissa / pow10(-exponent);
}

double Ticks::value(std::size_t i) const {
  const long long n = (k_first + static_cast<long long>(i)) * mantissa;
  return exponent >= 0 ? static_cast<double>(n) * pow10(exponent)
                       : static_cast<double>(n) / pow10(-exponent);
}

std::string Ticks::label(std::size_t i) const {
  const long long n = (k_first + static_cast<long long>(i)) * mantissa;
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  if (exponent >= 0) {
    out = n == 0 ? digits : digits + std::string(static_cast<std::size_t>(exponent), '0');
  } else {
    const auto shift = static_cast<std::size_t>(-exponent);
    if (digits.size() <= shift) digits.insert(0, shift + 1 - digits.size(), '0');
    const std::string whole = digits.substr(0, digits.size() - shift);
    // The dropped fraction digits are zeros: `decimals` covers every nonzero digit of the step.
    const std::string fraction =
        digits.substr(digits.size() - shift, static_cast<std::size_t>(decimals));
    out = decimals > 0 ? whole + "." + fraction : whole;
  }
  return n < 0 ? "-" + out : out;
}

std::vector<double> Ticks::values() const {
  std::vector<double> v;
  for (std::size_t i = 0; i < count(); ++i) v.push_back(value(i));
  return v;
}

std::vector<std::string> Ticks::labels() const {
  std::vector<std::string> v;
  for (std::size_t i = 0; i < count(); ++i) v.push_back(label(i));
  return v;
}

Ticks niceTicks(double min, double max, bool extend) {
  if (!std::isfinite(min) || !std::isfinite(max)) {
    min = 0.0;
    max = 1.0;
  }
  if (min > max) std::swap(min, max);
  if (max - min <= 1e-12 * std::max(1.0, std::max(std::fabs(min), std::fabs(max)))) {
    const double half = min == 0.0 ? 1.0 : 0.1 * std::fabs(min);
    min -= half;
    max += half;
    extend = true;
  }
  const int e0 = static_cast<int>(std::floor(std::log10(max - min)));
  const std::array<int, 4> mantissas{10, 20, 25, 50};
  const int min_count = extend ? 4 : 2;
  bool found = false;
  Candidate best;
  int best_count = 0;
  for (int e = e0 - 3; e <= e0 + 1; ++e)
    for (int m : mantissas) {
      Ticks t;
      t.mantissa = m;
      t.exponent = e - 1;
      const double step = t.step();
      // A relative tolerance so that 0.3 / 0.1 counts as 3, not 2.9999999999999996.
      const double eps = 1e-9;
      // Beyond 1e15 steps from zero the integer tick numbers would lose exactness.
      if (std::fabs(min) / step > 1e15 || std::fabs(max) / step > 1e15) continue;
      if (extend) {
        t.k_first = static_cast<long long>(std::floor(min / step + eps));
        t.k_last = static_cast<long long>(std::ceil(max / step - eps));
      } else {
        t.k_first = static_cast<long long>(std::ceil(min / step - eps));
        t.k_last = static_cast<long long>(std::floor(max / step + eps));
      }
      const long long count = t.k_last - t.k_first + 1;
      if (count < min_count || count > 8) continue;
      const double span = static_cast<double>(t.k_last - t.k_first) * step;
      bool better;
      if (!found) {
        better = true;
      } else if (extend) {
        // Tightest range; then 1, 2, 5 before 2.5; then a count nearer 6.
        const double tol = 1e-9 * span;
        if (std::fabs(span - best.span) > tol)
          better = span < best.span;
        else if ((m == 25) != (best.ticks.mantissa == 25))
          better = m != 25;
        else
          better = std::llabs(count - 6) < std::llabs(best_count - 6);
      } else {
        // As many ticks as fit; then 1, 2, 5 before 2.5.
        if (count != best_count)
          better = count > best_count;
        else
          better = m != 25 && best.ticks.mantissa == 25;
      }
      if (better) {
        best.ticks = t;
        best.span = span;
        best_count = static_cast<int>(count);
        found = true;
      }
    }
  Ticks t = best.ticks;
  if (!found) {
    // Only for ranges tiny against their offset: one tick-free axis over the data.
    t.mantissa = 10;
    t.exponent = e0 - 1;
    t.k_first = 1;
    t.k_last = 0;
    t.lo = min;
    t.hi = max;
    return t;
  }
  if (extend) {
    t.lo = t.value(0);
    t.hi = t.value(t.count() - 1);
  } else {
    t.lo = min;
    t.hi = max;
  }
  // Decimals: those of the step (2.5 needs one more than 2 or 5 at the same exponent).
  const int trailing_zero = t.mantissa % 10 == 0 ? 1 : 0;
  t.decimals = std::max(0, -(t.exponent + trailing_zero));
  return t;
}

UnitScale chooseUnitScale(const std::string& unit, double max_abs) {
  UnitScale s;
  s.unit = unit;
  s.display = displayUnit(unit);
  static const std::array<const char*, 6> prefixable{"N m", "N", "m", "m/s", "m/s^2", "s"};
  bool ok = false;
  for (const char* p : prefixable) ok = ok || unit == p;
  if (!ok || !std::isfinite(max_abs) || max_abs == 0.0) return s;
  if (max_abs >= 0.1 && max_abs < 1000.0) return s;
  int e3 = static_cast<int>(std::floor(std::log10(max_abs) / 3.0)) * 3;
  e3 = std::max(-9, std::min(6, e3));
  static const std::array<const char*, 6> names{"n", "\u00b5", "m", "", "k", "M"};
  s.prefix = names[static_cast<std::size_t>((e3 + 9) / 3)];
  s.factor = pow10(e3);
  s.display = displayUnit(s.prefix + unit);
  return s;
}

}  // namespace handsim::plot
