// SPDX-License-Identifier: GPL-3.0-or-later
#include "args.hpp"

#include <cmath>
#include <cstdlib>

namespace handsim::cli {

Args::Args(const std::vector<std::string>& args, std::set<std::string> value_flags,
           std::set<std::string> switches) {
  switches.insert("--help");
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a.size() > 2 && a.rfind("--", 0) == 0) {
      std::string val;
      bool inline_value = false;
      if (const auto eq = a.find('='); eq != std::string::npos) {
        val = a.substr(eq + 1);
        a = a.substr(0, eq);
        inline_value = true;
      }
      if (switches.count(a)) {
        if (inline_value) throw UsageError(a + " takes no value");
        switches_seen_.insert(a);
      } else if (value_flags.count(a)) {
        if (!inline_value) {
          if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
          val = args[++i];
        }
        values_.emplace_back(a, val);
      } else {
        throw UsageError("unknown option " + a + " (see --help)");
      }
    } else {
      positional_.push_back(a);
    }
  }
}

bool Args::has(const std::string& flag) const {
  if (switches_seen_.count(flag)) return true;
  for (const auto& [k, v] : values_)
    if (k == flag) return true;
  return false;
}

std::optional<std::string> Args::value(const std::string& flag) const {
  std::optional<std::string> out;
  for (const auto& [k, v] : values_)
    if (k == flag) out = v;
  return out;
}

std::vector<std::string> Args::values(const std::string& flag) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : values_)
    if (k == flag) out.push_back(v);
  return out;
}

std::string Args::required(const std::string& flag) const {
  const auto v = value(flag);
  if (!v) throw UsageError("missing required option " + flag + " (see --help)");
  return *v;
}

void Args::requirePositional(std::size_t count, const std::string& what) const {
  if (positional_.size() < count) throw UsageError("expected " + what + " (see --help)");
  if (positional_.size() == count) return;
  std::string extra;
  for (std::size_t i = count; i < positional_.size(); ++i)
    extra += (extra.empty() ? "'" : ", '") + positional_[i] + "'";
  throw UsageError("unexpected argument" +
                   std::string(positional_.size() - count > 1 ? "s " : " ") + extra + ": takes " +
                   what + " (see --help)");
}

bool isDecimalNumber(const std::string& text) {
  std::size_t i = 0;
  const auto digits = [&]() {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

double parseNumber(const std::string& text, const std::string& flag) {
  // strtod alone would also take "0x10", "inf", "nan" and leading spaces.
  if (!isDecimalNumber(text)) throw UsageError(flag + ": '" + text + "' is not a decimal number");
  const double x = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(x))
    throw UsageError(flag + ": '" + text + "' is out of range (beyond +-1.8e308)");
  return x;
}

std::vector<double> parseNumbers(const std::string& text, const std::string& flag) {
  std::vector<double> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw UsageError(flag + ": empty item in '" + text + "'");
    out.push_back(parseNumber(item, flag));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace handsim::cli
