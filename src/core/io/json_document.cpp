// SPDX-License-Identifier: GPL-3.0-or-later
#include "json_document.hpp"

#include <cmath>
#include <fstream>
#include <sstream>
#include <tuple>

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

// Walks text that nlohmann already accepted and records where each value starts. It only has
// to be right for valid JSON-with-comments, so it does no error reporting of its own.
class Locator {
 public:
  Locator(const std::string& text, std::unordered_map<std::string, std::pair<int, int>>& out)
      : text_(text), out_(out) {}

  void run() {
    skip();
    value("");
  }

 private:
  void advance() {
    if (text_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
  bool more() const { return pos_ < text_.size(); }
  void skip() {
    while (more()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        while (more() && text_[pos_] != '\n') advance();
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '*') {
        advance();
        advance();
        while (more() && !(text_[pos_] == '*' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/'))
          advance();
        if (more()) advance();
        if (more()) advance();
      } else {
        return;
      }
    }
  }
  std::string stringToken() {
    std::string s;
    advance();  // opening quote
    while (more() && text_[pos_] != '"') {
      if (text_[pos_] == '\\') {
        advance();
        if (!more()) break;
      }
      s += text_[pos_];
      advance();
    }
    if (more()) advance();
    return s;
  }
  void value(const std::string& pointer) {
    if (!more()) return;
    out_.emplace(pointer, std::make_pair(line_, col_));
    const char c = text_[pos_];
    if (c == '{') {
      advance();
      skip();
      while (more() && text_[pos_] != '}') {
        const std::string key = stringToken();
        skip();
        if (more() && text_[pos_] == ':') advance();
        skip();
        value(JsonDocument::child(pointer, key));
        skip();
        if (more() && text_[pos_] == ',') advance();
        skip();
      }
      if (more()) advance();
    } else if (c == '[') {
      advance();
      skip();
      std::size_t index = 0;
      while (more() && text_[pos_] != ']') {
        value(JsonDocument::child(pointer, index++));
        skip();
        if (more() && text_[pos_] == ',') advance();
        skip();
      }
      if (more()) advance();
    } else if (c == '"') {
      stringToken();
    } else {
      while (more() && text_[pos_] != ',' && text_[pos_] != '}' && text_[pos_] != ']' &&
             text_[pos_] != ' ' && text_[pos_] != '\n' && text_[pos_] != '\r' &&
             text_[pos_] != '\t' && text_[pos_] != '/')
        advance();
    }
  }

  const std::string& text_;
  std::unordered_map<std::string, std::pair<int, int>>& out_;
  std::size_t pos_ = 0;
  int line_ = 1, col_ = 1;
};

}  // namespace

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

JsonDocument JsonDocument::parse(const std::string& text, const std::string& file) {
  JsonDocument doc;
  doc.file_ = file;
  try {
    doc.root_ = json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    const auto [line, column] = lineColumnOf(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    // nlohmann prefixes "[json.exception.parse_error.101] parse error at line L, column C: ".
    const auto colon = what.find("syntax error");
    throw InputError({file, line, column, ""},
                     "invalid JSON: " + (colon == std::string::npos ? what : what.substr(colon)));
  } catch (const json::exception& e) {
    // E.g. "number overflow parsing '1e999'": no byte offset is given, so point at the first
    // occurrence of the quoted token.
    const std::string what = e.what();
    const auto open = what.find('\'');
    const auto close = open == std::string::npos ? open : what.find('\'', open + 1);
    int line = 0, column = 0;
    if (close != std::string::npos) {
      const auto at = text.find(what.substr(open + 1, close - open - 1));
      if (at != std::string::npos) std::tie(line, column) = lineColumnOf(text, at);
    }
    const auto bracket = what.find("] ");
    throw InputError(
        {file, line, column, ""},
        "invalid JSON: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)) +
            " (numbers must be finite doubles)");
  }
  Locator(text, doc.where_).run();
  return doc;
}

JsonDocument JsonDocument::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, 0, ""}, "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path);
}

SourceLocation JsonDocument::locate(const std::string& pointer) const {
  std::string p = pointer;
  while (true) {
    const auto it = where_.find(p);
    if (it != where_.end()) return {file_, it->second.first, it->second.second, pointer};
    const auto slash = p.rfind('/');
    if (slash == std::string::npos) return {file_, 0, 0, pointer};
    p.resize(slash);
  }
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
  if (in.fail()) fail(pointer, "cannot read '" + s + "' as a number or fraction");
  if (in >> slash) {
    if (slash != '/' || !(in >> den)) fail(pointer, "cannot read '" + s + "' as a fraction a/b");
  }
  in >> std::ws;
  if (!in.eof()) fail(pointer, "trailing characters in '" + s + "'");
  if (den == 0.0) fail(pointer, "division by zero in '" + s + "'");
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
      fail(child(pointer, k), "unknown field '" + k + "' (expected one of: " + list + ")");
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
