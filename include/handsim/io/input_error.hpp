// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace handsim::io {

/// Where in an input file a problem lies.
struct SourceLocation {
  std::string file;   ///< path as the user gave it (any bytes, as the file system takes them)
  int line = 0;       ///< 1-based line, 0 when unknown
  int column = 0;     ///< 1-based column, 0 when unknown
  std::string field;  ///< JSON pointer or field name ("/fingers/0/joints/1/a_m"), may be empty
};

/// Longest excerpt of an input's text a message quotes (kMaxExcerptChars) and longest field
/// (JSON pointer) a location shows: messages never echo a whole value, which may be large or
/// secret (a broken hand file's string holding a password).
inline constexpr std::size_t kMaxExcerptChars = 32;
inline constexpr std::size_t kMaxFieldChars = 64;

/// A short printable excerpt of input text for a message: at most `max_chars` bytes, control
/// characters shown as '?', cut with "..." (at the end, or at the start when `keep_end`: the
/// part next to an error found at the end of a token). Bytes from 0x80 are kept (UTF-8 names)
/// but never split inside a character.
std::string excerpt(std::string_view text, std::size_t max_chars = kMaxExcerptChars,
                    bool keep_end = false);

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
