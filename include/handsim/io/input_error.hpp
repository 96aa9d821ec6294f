// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <stdexcept>
#include <string>

namespace handsim::io {

/// Where in an input file a problem lies.
struct SourceLocation {
  std::string file;   ///< path as the user gave it (any bytes, as the file system takes them)
  int line = 0;       ///< 1-based line, 0 when unknown
  int column = 0;     ///< 1-based column, 0 when unknown
  std::string field;  ///< JSON pointer or field name ("/fingers/0/joints/1/a_m"), may be empty
};

/// "file:line:column: field: " prefix for messages (parts that are unknown are left out).
std::string formatLocation(const SourceLocation& where);

/// A bad input file or argument. The message always starts with formatLocation(location()).
/// Message and problem are valid UTF-8 whatever bytes the file name or the quoted input held
/// (invalid bytes become U+FFFD, see toValidUtf8), so they can be printed and put in JSON.
class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, const std::string& problem);
  const SourceLocation& location() const noexcept { return where_; }
  /// The problem without the location prefix (valid UTF-8).
  const std::string& problem() const noexcept { return problem_; }

 private:
  SourceLocation where_;
  std::string problem_;
};

}  // namespace handsim::io
