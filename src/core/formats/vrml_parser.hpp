// SPDX-License-Identifier: GPL-3.0-or-later
// Internal to handsim_core: the VRML97 tokenizer and parser (ISO/IEC 14772-1:1997, part 1,
// clause 5 "Field and event reference" and annex A "Grammar"). The parser builds an untyped
// syntax tree: a field value is kept as numbers, strings, booleans or nodes exactly as written,
// and the evaluator (vrml_reader.cpp) interprets it with the node's semantics. Parsing without
// field types lets unknown nodes and PROTO instances be read with the same code, which keeps
// the grammar small and the skipping of unsupported nodes exact.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace handsim::geometry::vrml {

struct Node;
struct Proto;
using NodePtr = std::shared_ptr<const Node>;

/// 1-based position in the text.
struct Pos {
  int line = 0;
  int column = 0;
};

/// A field value as written. Exactly one of the vectors is used, or is_name for `IS name`.
struct Value {
  enum class Kind { kEmpty, kNumbers, kStrings, kBools, kNodes, kIs };
  Kind kind = Kind::kEmpty;
  Pos pos;
  std::vector<double> numbers;
  std::vector<std::string> strings;
  std::vector<bool> bools;
  std::vector<NodePtr> nodes;  ///< a null entry is `NULL`
  std::string is_name;
  /// NaN and infinite numbers are kept (as NaN or +-inf) so that a field nobody reads cannot
  /// refuse a file; whoever reads the numbers must refuse them with this message at this place.
  std::size_t nonfinite_count = 0;
  Pos nonfinite_pos;              ///< the first one
  std::string nonfinite_problem;  ///< "number '-nan' is not finite"
};

/// A field value holding NaN or infinite numbers, reported as a warning when it goes unused.
struct NonFiniteField {
  Pos pos;            ///< the first bad number
  std::string where;  ///< "Normal.vector"
  std::string problem;
  std::size_t count = 0;
};

/// One interface declaration of a PROTO, EXTERNPROTO or Script.
struct FieldDecl {
  std::string access;  ///< field, exposedField, eventIn, eventOut
  std::string type;    ///< SFVec3f, MFNode...
  std::string name;
  Value default_value;  ///< only for field and exposedField of a PROTO
};

struct Proto {
  std::string name;
  Pos pos;
  bool external = false;  ///< EXTERNPROTO: declared, never loaded
  std::vector<FieldDecl> fields;
  std::vector<NodePtr> body;  ///< the first node is what an instance turns into

  const FieldDecl* find(std::string_view field) const;
};

struct Node {
  std::string type;
  std::string def_name;  ///< empty unless DEF
  Pos pos;
  std::shared_ptr<const Proto> proto;  ///< set when `type` names a PROTO or EXTERNPROTO
  std::vector<std::pair<std::string, Value>> fields;

  /// The last value given for `field`, or nullptr.
  const Value* find(std::string_view field) const;
};

/// Bounds that keep hostile input from exhausting the stack or memory while parsing.
struct ParseLimits {
  int max_nesting = 64;  ///< node and PROTO nesting depth
  /// Parsing fails with `deadline_problem` once the clock passes this.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::string deadline_problem;
};

struct ParsedFile {
  std::vector<NodePtr> roots;
  std::vector<std::string> warnings;  ///< already prefixed with file:line:column
  std::vector<NonFiniteField> nonfinite;
};

/// Parses VRML97 text (already decompressed). Throws handsim::io::InputError with the
/// position and what was expected. `file` is used only in messages.
ParsedFile parse(std::string_view text, const std::string& file, const ParseLimits& limits);

}  // namespace handsim::geometry::vrml
