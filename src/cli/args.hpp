// SPDX-License-Identifier: GPL-3.0-or-later
// Minimal strict option parsing for handsim-cli: unknown flags, missing values and malformed
// numbers are usage errors (exit code 2) that name the flag.
#pragma once

#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace handsim::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  /// `value_flags` take a value ("--hand barrett" or "--hand=barrett"); `switches` do not.
  Args(const std::vector<std::string>& args, std::set<std::string> value_flags,
       std::set<std::string> switches);
  bool has(const std::string& flag) const;
  std::optional<std::string> value(const std::string& flag) const;
  std::string required(const std::string& flag) const;
  /// Every value of a flag given more than once, in command-line order.
  std::vector<std::string> values(const std::string& flag) const;
  const std::vector<std::string>& positional() const { return positional_; }
  /// Checks that exactly `count` positional arguments were given; `what` names them for the
  /// message ("one scenario file", "no arguments"). Missing ones and extra ones (named) are
  /// usage errors.
  void requirePositional(std::size_t count, const std::string& what) const;
  bool help() const { return has("--help"); }

 private:
  std::vector<std::pair<std::string, std::string>> values_;
  std::set<std::string> switches_seen_;
  std::vector<std::string> positional_;
};

/// True when `text` is a plain decimal number: optional sign, digits with at most one point
/// (at least one digit), optional exponent `e`/`E` with optional sign and digits. Hexadecimal,
/// "inf", "nan", spaces and trailing characters are not.
bool isDecimalNumber(const std::string& text);
/// "1,2.5,-3" -> numbers; every item as parseNumber, and no empty items.
std::vector<double> parseNumbers(const std::string& text, const std::string& flag);
/// One decimal number (isDecimalNumber) that is finite as a double ("1e400" is out of range);
/// anything else is a UsageError naming `flag` and the text.
double parseNumber(const std::string& text, const std::string& flag);

}  // namespace handsim::cli
