// SPDX-License-Identifier: GPL-3.0-or-later
#include "json_document.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string_view>
#include <tuple>
#include <utility>

#include "handsim/io/input_file.hpp"

namespace handsim::io {

namespace {

std::pair<int, int> lineColumnOf(const std::string& text, std::size_t offset) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// Tokens are found the way nlohmann's lexer finds them: strings run to the next unescaped
// quote, comments are "//" to the end of the line and "/* ... */". Every scan below is a loop
// over the text, never a recursion, so no input can exhaust the stack.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  std::size_t pos() const { return pos_; }
  bool more() const { return pos_ < text_.size(); }
  char peek() const { return text_[pos_]; }
  void next() { ++pos_; }
  void seek(std::size_t pos) { pos_ = pos; }

  // Past whitespace and comments.
  void skipSpace() {
    while (more()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (startsComment()) {
        skipComment();
      } else {
        return;
      }
    }
  }
  bool startsComment() const {
    return text_[pos_] == '/' && pos_ + 1 < text_.size() &&
           (text_[pos_ + 1] == '/' || text_[pos_ + 1] == '*');
  }
  void skipComment() {
    if (text_[pos_ + 1] == '/') {
      while (more() && text_[pos_] != '\n') ++pos_;
    } else {
      const auto close = text_.find("*/", pos_ + 2);
      pos_ = close == std::string_view::npos ? text_.size() : close + 2;
    }
  }
  // From an opening quote to past the closing one; returns the raw token with its quotes.
  std::string_view skipString() {
    const std::size_t begin = pos_++;
    while (more() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
    pos_ = std::min(pos_ + 1, text_.size());
    return text_.substr(begin, pos_ - begin);
  }
  // Past one value of valid JSON: a container is skipped by counting its brackets.
  void skipValue() {
    if (!more()) return;
    const char c = text_[pos_];
    if (c == '"') {
      skipString();
    } else if (c == '[' || c == '{') {
      int depth = 0;
      do {
        const char d = text_[pos_];
        if (d == '"') {
          skipString();
          continue;
        }
        if (startsComment()) {
          skipComment();
          continue;
        }
        if (d == '[' || d == '{') ++depth;
        if (d == ']' || d == '}') --depth;
        ++pos_;
      } while (more() && depth > 0);
    } else {
      while (more() && std::string_view(",]} \t\r\n/").find(text_[pos_]) == std::string_view::npos)
        ++pos_;
    }
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// Refuses nesting deeper than kMaxJsonDepth before nlohmann sees the text: its parser and its
// destructor keep a stack of open containers, and readers walk the tree recursively. A linear
// scan that does not need the text to be valid JSON, so it also runs first on broken input.
void checkNesting(const std::string& text, const std::string& file) {
  Scanner scan(text);
  int depth = 0;
  while (scan.more()) {
    const char c = scan.peek();
    if (c == '"') {
      scan.skipString();
    } else if (scan.startsComment()) {
      scan.skipComment();
    } else {
      if (c == '[' || c == '{') {
        if (++depth > kMaxJsonDepth) {
          const auto [line, column] = lineColumnOf(text, scan.pos());
          throw InputError({file, line, column, ""},
                           "invalid JSON: arrays and objects nested deeper than " +
                               std::to_string(kMaxJsonDepth) + " levels");
        }
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
      }
      scan.next();
    }
  }
}

// The key a raw string token (with quotes) stands for; escapes are decoded only when present.
std::string decodeKey(std::string_view token) {
  if (token.size() < 2) return {};
  if (token.find('\\') == std::string_view::npos)
    return std::string(token.substr(1, token.size() - 2));
  try {
    return nlohmann::json::parse(token).get<std::string>();
  } catch (const nlohmann::json::exception&) {
    return std::string(token.substr(1, token.size() - 2));
  }
}

// Offset in `text` (valid JSON, as nlohmann accepted it) of the value at `pointer`, or of its
// deepest existing parent; npos for an empty text. For a key given twice the last one counts,
// as in nlohmann's tree.
std::size_t offsetOf(std::string_view text, const std::string& pointer) {
  Scanner scan(text);
  scan.skipSpace();
  if (!scan.more()) return std::string_view::npos;
  std::size_t found = scan.pos();
  std::size_t begin = 1;  // past the pointer's leading '/'
  while (begin <= pointer.size() && !pointer.empty()) {
    const std::size_t end = std::min(pointer.find('/', begin), pointer.size());
    // RFC 6901 reference token: "~1" stands for '/', then "~0" for '~'.
    std::string token;
    for (std::size_t i = begin; i < end; ++i) {
      if (pointer[i] == '~' && i + 1 < end && (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
        token += pointer[++i] == '0' ? '~' : '/';
      } else {
        token += pointer[i];
      }
    }
    begin = end + 1;

    std::size_t hit = std::string_view::npos;
    const char open = scan.peek();
    if (open != '{' && open != '[') return found;
    const bool is_object = open == '{';
    std::size_t wanted = 0;
    if (!is_object) {
      if (token.empty() || token.find_first_not_of("0123456789") != std::string::npos) return found;
      wanted = std::stoul(token);
    }
    scan.next();
    scan.skipSpace();
    for (std::size_t index = 0; scan.more() && scan.peek() != '}' && scan.peek() != ']'; ++index) {
      if (is_object) {
        if (scan.peek() != '"') return found;
        const bool match = decodeKey(scan.skipString()) == token;
        scan.skipSpace();
        if (scan.more() && scan.peek() == ':') scan.next();
        scan.skipSpace();
        if (match) hit = scan.pos();
      } else if (index == wanted) {
        hit = scan.pos();
        break;
      }
      scan.skipValue();
      scan.skipSpace();
      if (scan.more() && scan.peek() == ',') scan.next();
      scan.skipSpace();
    }
    if (hit == std::string_view::npos) return found;
    found = hit;
    scan.seek(hit);
  }
  return found;
}

// Empties every container below `v`, deepest first, so that destroying `v` finds only empty
// containers and allocates nothing. The recursion is bounded by kMaxJsonDepth.
void dismantle(nlohmann::json& v) noexcept {
  if (v.is_array()) {
    auto& items = v.get_ref<nlohmann::json::array_t&>();
    for (auto& item : items) dismantle(item);
    items.clear();
  } else if (v.is_object()) {
    auto& members = v.get_ref<nlohmann::json::object_t&>();
    for (auto& member : members) dismantle(member.second);
    members.clear();
  }
}

}  // namespace

JsonDocument::~JsonDocument() noexcept {
  dismantle(root_);
}

std::string JsonDocument::child(const std::string& pointer, const std::string& key) {
  std::string escaped;
  for (char c : key) {
    if (c == '~') {
      escaped += "~0";
    } else if (c == '/') {
      escaped += "~1";
    } else {
      escaped += c;
    }
  }
  return pointer + "/" + escaped;
}

std::string JsonDocument::child(const std::string& pointer, std::size_t index) {
  return pointer + "/" + std::to_string(index);
}

JsonDocument JsonDocument::parse(std::string text, const std::string& file) {
  checkNesting(text, file);
  JsonDocument doc;
  doc.file_ = file;
  try {
    doc.root_ = json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    const auto [line, column] = lineColumnOf(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line L, column C: ".
    const auto colon = what.find("syntax error");
    if (colon != std::string::npos) what = what.substr(colon);
    // "...; last read: 'TOKEN'": the token may be a whole string value (up to the limit of the
    // file, and possibly secret). Only its end, where the error is, is shown, and shortly.
    const std::string marker = "last read: '";
    const auto token = what.find(marker);
    const auto end = what.rfind('\'');
    if (token != std::string::npos && end != std::string::npos && end >= token + marker.size())
      what =
          what.substr(0, token + marker.size()) +
          excerpt(std::string_view(what).substr(token + marker.size(), end - token - marker.size()),
                  kMaxExcerptChars, /*keep_end=*/true) +
          what.substr(end);
    throw InputError({file, line, column, ""}, "invalid JSON: " + what);
  } catch (const json::exception& e) {
    // E.g. "number overflow parsing '1e999'": no byte offset is given, so point at the first
    // occurrence of the quoted token.
    std::string what = e.what();
    const auto open = what.find('\'');
    const auto close = open == std::string::npos ? open : what.find('\'', open + 1);
    int line = 0, column = 0;
    if (close != std::string::npos) {
      const std::string token = what.substr(open + 1, close - open - 1);
      const auto at = text.find(token);
      if (at != std::string::npos) std::tie(line, column) = lineColumnOf(text, at);
      what = what.substr(0, open + 1) + excerpt(token) + what.substr(close);
    }
    const auto bracket = what.find("] ");
    throw InputError(
        {file, line, column, ""},
        "invalid JSON: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)) +
            " (numbers must be finite doubles)");
  }
  doc.text_ = std::move(text);
  return doc;
}

JsonDocument JsonDocument::load(const std::string& path) {
  return parse(readInputFile(path, kMaxJsonInputBytes), path);
}

SourceLocation JsonDocument::locate(const std::string& pointer) const {
  const std::size_t offset = offsetOf(text_, pointer);
  if (offset == std::string_view::npos) return {file_, 0, 0, pointer};
  const auto [line, column] = lineColumnOf(text_, offset);
  return {file_, line, column, pointer};
}

void JsonDocument::fail(const std::string& pointer, const std::string& problem) const {
  throw InputError(locate(pointer), problem);
}

const JsonDocument::json& JsonDocument::require(const json& obj, const std::string& pointer,
                                                const std::string& key) const {
  if (!obj.is_object()) fail(pointer, "expected an object");
  const auto it = obj.find(key);
  if (it == obj.end()) fail(pointer, "missing required field '" + key + "'");
  return *it;
}

const JsonDocument::json* JsonDocument::optional(const json& obj, const std::string& key) const {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

double JsonDocument::number(const json& v, const std::string& pointer) const {
  if (!v.is_number()) fail(pointer, "expected a number, got " + std::string(v.type_name()));
  const double x = v.get<double>();
  if (!std::isfinite(x)) fail(pointer, "expected a finite number");
  return x;
}

double JsonDocument::rational(const json& v, const std::string& pointer) const {
  if (v.is_number()) return number(v, pointer);
  if (!v.is_string()) fail(pointer, "expected a number or a fraction string such as \"-2/35\"");
  const std::string s = v.get<std::string>();
  std::istringstream in(s);
  double num = 0.0, den = 1.0;
  char slash = 0;
  in >> num;
  if (in.fail()) fail(pointer, "cannot read '" + excerpt(s) + "' as a number or fraction");
  if (in >> slash) {
    if (slash != '/' || !(in >> den))
      fail(pointer, "cannot read '" + excerpt(s) + "' as a fraction a/b");
  }
  in >> std::ws;
  if (!in.eof()) fail(pointer, "trailing characters in '" + excerpt(s) + "'");
  if (den == 0.0) fail(pointer, "division by zero in '" + excerpt(s) + "'");
  const double x = num / den;
  if (!std::isfinite(x)) fail(pointer, "expected a finite number");
  return x;
}

int JsonDocument::integer(const json& v, const std::string& pointer) const {
  if (!v.is_number_integer()) fail(pointer, "expected an integer");
  return v.get<int>();
}

bool JsonDocument::boolean(const json& v, const std::string& pointer) const {
  if (!v.is_boolean()) fail(pointer, "expected true or false");
  return v.get<bool>();
}

std::string JsonDocument::string(const json& v, const std::string& pointer) const {
  if (!v.is_string()) fail(pointer, "expected a string, got " + std::string(v.type_name()));
  return v.get<std::string>();
}

std::vector<double> JsonDocument::numbers(const json& v, const std::string& pointer,
                                          int expected_size) const {
  if (!v.is_array()) fail(pointer, "expected an array of numbers");
  if (expected_size >= 0 && v.size() != static_cast<std::size_t>(expected_size))
    fail(pointer,
         "expected " + std::to_string(expected_size) + " numbers, got " + std::to_string(v.size()));
  std::vector<double> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(rational(v[i], child(pointer, i)));
  return out;
}

Eigen::Vector3d JsonDocument::vector3(const json& v, const std::string& pointer) const {
  const auto n = numbers(v, pointer, 3);
  return {n[0], n[1], n[2]};
}

const JsonDocument::json& JsonDocument::array(const json& v, const std::string& pointer) const {
  if (!v.is_array()) fail(pointer, "expected an array, got " + std::string(v.type_name()));
  return v;
}

const JsonDocument::json& JsonDocument::object(const json& v, const std::string& pointer) const {
  if (!v.is_object()) fail(pointer, "expected an object, got " + std::string(v.type_name()));
  return v;
}

void JsonDocument::allowOnly(const json& obj, const std::string& pointer,
                             std::initializer_list<const char*> keys) const {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string& k = it.key();
    if (k.rfind("_", 0) == 0 || k == "comment") continue;
    bool known = false;
    std::string list;
    for (const char* a : keys) {
      known = known || k == a;
      list += std::string(list.empty() ? "" : ", ") + a;
    }
    if (!known)
      fail(child(pointer, k), "unknown field '" + excerpt(k) + "' (expected one of: " + list + ")");
  }
}

Eigen::Isometry3d JsonDocument::pose(const json& value, const std::string& pointer) const {
  constexpr double kDeg = 3.14159265358979323846 / 180.0;
  const json& obj = object(value, pointer);
  allowOnly(obj, pointer, {"translation_m", "rpy_deg", "rotation"});
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  if (const json* tr = optional(obj, "translation_m"))
    t.translation() = vector3(*tr, child(pointer, "translation_m"));
  const json* rpy = optional(obj, "rpy_deg");
  const json* rot = optional(obj, "rotation");
  if (rpy && rot) fail(pointer, "give either 'rpy_deg' or 'rotation', not both");
  if (rpy) {
    const Eigen::Vector3d a = vector3(*rpy, child(pointer, "rpy_deg")) * kDeg;
    t.linear() = (Eigen::AngleAxisd(a.z(), Eigen::Vector3d::UnitZ()) *
                  Eigen::AngleAxisd(a.y(), Eigen::Vector3d::UnitY()) *
                  Eigen::AngleAxisd(a.x(), Eigen::Vector3d::UnitX()))
                     .toRotationMatrix();
  }
  if (rot) {
    const std::string rp = child(pointer, "rotation");
    const auto v = numbers(*rot, rp, 9);
    Eigen::Matrix3d r;
    r << v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8];
    if ((r.transpose() * r - Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff() > 1e-9 ||
        r.determinant() < 0.0)
      fail(rp, "rotation (row-major 3x3) is not a proper rotation matrix");
    t.linear() = r;
  }
  return t;
}

}  // namespace handsim::io
