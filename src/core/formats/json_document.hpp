// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to the core: a JSON file (comments allowed) that can find the line and column of any
// value, so loaders can report "file:line:column: /json/pointer: problem". It keeps the text and
// looks a value up only when an error is reported, so its memory stays linear in the input.
#pragma once

#include <Eigen/Geometry>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "handsim/io/input_error.hpp"

namespace handsim::io {

class JsonDocument {
 public:
  using json = nlohmann::json;

  /// Parses `text`; a syntax error, or arrays and objects nested deeper than kMaxJsonDepth
  /// (handsim/io/input_file.hpp), throws InputError with the line and column.
  static JsonDocument parse(std::string text, const std::string& file);
  /// Reads and parses a file; a file that cannot be read, is not a regular file or is larger
  /// than kMaxJsonInputBytes throws InputError naming it.
  static JsonDocument load(const std::string& path);

  JsonDocument(JsonDocument&&) noexcept = default;
  JsonDocument(const JsonDocument&) = delete;
  JsonDocument& operator=(const JsonDocument&) = delete;
  JsonDocument& operator=(JsonDocument&&) = delete;
  /// Takes the tree apart from the leaves up, so that nothing allocates (nlohmann's own
  /// destructor allocates a stack for every non-empty array or object).
  ~JsonDocument() noexcept;

  const json& root() const { return root_; }
  const std::string& file() const { return file_; }

  /// Location of the value at `pointer` (or of its nearest located parent); scans the text.
  SourceLocation locate(const std::string& pointer) const;
  [[noreturn]] void fail(const std::string& pointer, const std::string& problem) const;

  // Typed access with located errors. `pointer` is the JSON pointer of `value`.
  const json& require(const json& object, const std::string& pointer, const std::string& key) const;
  const json* optional(const json& object, const std::string& key) const;
  double number(const json& value, const std::string& pointer) const;
  /// A number, or a string holding an exact fraction such as "-2/35".
  double rational(const json& value, const std::string& pointer) const;
  int integer(const json& value, const std::string& pointer) const;
  bool boolean(const json& value, const std::string& pointer) const;
  std::string string(const json& value, const std::string& pointer) const;
  std::vector<double> numbers(const json& value, const std::string& pointer,
                              int expected_size = -1) const;
  Eigen::Vector3d vector3(const json& value, const std::string& pointer) const;
  const json& array(const json& value, const std::string& pointer) const;
  const json& object(const json& value, const std::string& pointer) const;

  /// Fails on keys other than `keys` (keys starting with '_' and "comment" are annotations).
  void allowOnly(const json& object, const std::string& pointer,
                 std::initializer_list<const char*> keys) const;
  /// A rigid transform {"translation_m": [x,y,z], "rpy_deg": [r,p,y]} or with "rotation" (a
  /// row-major 3x3 rotation matrix instead of rpy_deg). Roll, pitch, yaw are fixed-axis
  /// rotations about x, y, z: R = Rz(yaw) Ry(pitch) Rx(roll).
  Eigen::Isometry3d pose(const json& value, const std::string& pointer) const;

  /// The parsed text as read.
  const std::string& text() const noexcept { return text_; }

  static std::string child(const std::string& pointer, const std::string& key);
  static std::string child(const std::string& pointer, std::size_t index);

 private:
  JsonDocument() = default;

  json root_;
  std::string file_;
  std::string text_;  ///< the parsed text, for locate()
};

}  // namespace handsim::io
