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
  const std::vector<std::string>& positional() const { return positional_; }
  bool help() const { return has("--help"); }

 private:
  std::vector<std::pair<std::string, std::string>> values_;
  std::set<std::string> switches_seen_;
  std::vector<std::string> positional_;
};

/// "1,2.5,-3" -> numbers; rejects empty items, trailing garbage, NaN and infinities.
std::vector<double> parseNumbers(const std::string& text, const std::string& flag);
/// One finite number.
double parseNumber(const std::string& text, const std::string& flag);

}  // namespace handsim::cli
