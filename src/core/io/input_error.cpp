// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/io/input_error.hpp"

#include <utility>

#include "handsim/io/utf8.hpp"

namespace handsim::io {

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
  if (!where.field.empty()) out += where.field + ": ";
  return out;
}

InputError::InputError(SourceLocation where, const std::string& problem)
    : std::runtime_error(toValidUtf8(formatLocation(where) + problem)),
      where_(std::move(where)),
      problem_(toValidUtf8(problem)) {}

}  // namespace handsim::io
