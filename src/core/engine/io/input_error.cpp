// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/io/input_error.hpp"

#include <utility>

#include "handsim/io/utf8.hpp"

namespace handsim::io {

std::string excerpt(std::string_view text, std::size_t max_chars, bool keep_end) {
  const auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  std::string_view part = text;
  bool cut = false;
  if (text.size() > max_chars) {
    cut = true;
    std::size_t n = max_chars > 3 ? max_chars - 3 : max_chars;
    if (keep_end) {
      std::size_t start = text.size() - n;
      while (start < text.size() && continuation(text[start])) ++start;
      part = text.substr(start);
    } else {
      while (n > 0 && continuation(text[n])) --n;
      part = text.substr(0, n);
    }
  }
  std::string out;
  out.reserve(part.size() + 3);
  if (cut && keep_end) out += "...";
  for (char c : part) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u == 0x7F) ? '?' : c;
  }
  if (cut && !keep_end) out += "...";
  return out;
}

std::string formatLocation(const SourceLocation& where) {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) {
      out += ":" + std::to_string(where.line);
      if (where.column > 0) out += ":" + std::to_string(where.column);
    }
    out += ": ";
  }
  if (!where.field.empty()) out += excerpt(where.field, kMaxFieldChars) + ": ";
  return out;
}

InputError::InputError(SourceLocation where, const std::string& problem)
    : std::runtime_error(toValidUtf8(formatLocation(where) + problem)),
      where_(std::move(where)),
      problem_(toValidUtf8(problem)) {}

}  // namespace handsim::io
