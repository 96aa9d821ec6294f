// SPDX-License-Identifier: GPL-3.0-or-later
// VRML97 tokenizer and parser. Lexical rules: ISO/IEC 14772-1:1997 clause 5.1 (commas are
// whitespace, '#' starts a comment, identifiers may not start with a digit or + - .) and the
// grammar of annex A. Recursion is bounded by ParseLimits::max_nesting so that hostile nesting
// cannot overflow the stack.
#include "vrml_parser.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "handsim/io/input_error.hpp"

namespace handsim::geometry::vrml {

const FieldDecl* Proto::find(std::string_view field) const {
  for (const auto& f : fields)
    if (f.name == field) return &f;
  return nullptr;
}

const Value* Node::find(std::string_view field) const {
  for (auto it = fields.rbegin(); it != fields.rend(); ++it)
    if (it->first == field) return &it->second;
  return nullptr;
}

namespace {

enum class Tok { kEnd, kId, kNumber, kString, kLBracket, kRBracket, kLBrace, kRBrace };

struct Token {
  Tok kind = Tok::kEnd;
  Pos pos;
  std::string_view text;  ///< identifier or number spelling
  double number = 0.0;
  bool finite = true;  ///< false for NaN, infinity and overflow (kept, see Value)
  std::string str;     ///< decoded string literal
};

bool isSpace(unsigned char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',';
}

// Characters that may never appear in an identifier (clause 5.1.2 / annex A.2).
bool isIdForbidden(unsigned char c) {
  return c <= 0x20 || c == 0x7f || c == '"' || c == '#' || c == '\'' || c == ',' || c == '[' ||
         c == '\\' || c == ']' || c == '{' || c == '}';
}

bool isIdFirst(unsigned char c) {
  return !isIdForbidden(c) && !std::isdigit(c) && c != '+' && c != '-' && c != '.';
}

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}

// Spellings of NaN and infinity that strtod would accept; called for every number and field
// name, so it avoids allocating.
bool isNonFiniteWord(std::string_view word) {
  if (!word.empty() && (word.front() == '+' || word.front() == '-')) word.remove_prefix(1);
  if (word.empty() || word.size() > 8) return false;
  const char c = word.front();
  if (c != 'n' && c != 'N' && c != 'i' && c != 'I') return false;
  return equalsIgnoreCase(word, "nan") || equalsIgnoreCase(word, "inf") ||
         equalsIgnoreCase(word, "infinity");
}

double nonFiniteValue(std::string_view word) {
  const bool negative = !word.empty() && word.front() == '-';
  if (!word.empty() && (word.front() == '+' || word.front() == '-')) word.remove_prefix(1);
  if (!word.empty() && (word.front() == 'n' || word.front() == 'N'))
    return std::numeric_limits<double>::quiet_NaN();
  return negative ? -std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::infinity();
}

// Characters that may continue a number token (digits, letters for exponents and hex, signs).
bool isNumberChar(unsigned char d) {
  return (d >= '0' && d <= '9') || (d >= 'a' && d <= 'z') || (d >= 'A' && d <= 'Z') || d == '.' ||
         d == '+' || d == '-' || d == '_';
}

class Tokenizer {
 public:
  Tokenizer(std::string_view text, const std::string& file, const ParseLimits& limits)
      : text_(text), file_(file), limits_(limits) {}

  const Token& peek(std::size_t k = 0) {
    while (count_ <= k) {
      buffer_[(head_ + count_) % buffer_.size()] = scan();
      ++count_;
    }
    return buffer_[(head_ + k) % buffer_.size()];
  }

  Token next() {
    peek();
    Token t = std::move(buffer_[head_]);
    head_ = (head_ + 1) % buffer_.size();
    --count_;
    return t;
  }

  [[noreturn]] void fail(Pos pos, const std::string& what) const {
    throw io::InputError({file_, pos.line, pos.column, {}}, what);
  }

  /// Skips the first line (the header); called once before the first token.
  void skipLine() {
    while (i_ < text_.size() && text_[i_] != '\n' && text_[i_] != '\r') advance();
  }

 private:
  void advance() {
    const char c = text_[i_++];
    if (c == '\n' || (c == '\r' && (i_ >= text_.size() || text_[i_] != '\n'))) {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
  }

  Token scan() {
    // The clock is read every few thousand tokens: cheap, and still well under a millisecond.
    if ((++scanned_ & 4095u) == 0 && std::chrono::steady_clock::now() > limits_.deadline)
      fail({line_, col_}, limits_.deadline_problem);
    for (;;) {
      while (i_ < text_.size() && isSpace(static_cast<unsigned char>(text_[i_]))) advance();
      if (i_ < text_.size() && text_[i_] == '#') {
        skipLine();
        continue;
      }
      break;
    }
    Token t;
    t.pos = {line_, col_};
    if (i_ >= text_.size()) return t;
    const auto c = static_cast<unsigned char>(text_[i_]);
    const std::size_t start = i_;
    switch (c) {
      case '[':
        advance();
        t.kind = Tok::kLBracket;
        return t;
      case ']':
        advance();
        t.kind = Tok::kRBracket;
        return t;
      case '{':
        advance();
        t.kind = Tok::kLBrace;
        return t;
      case '}':
        advance();
        t.kind = Tok::kRBrace;
        return t;
      case '"':
        return scanString(t);
      default:
        break;
    }
    if (std::isdigit(c) || c == '+' || c == '-' || c == '.') {
      // A run of characters that can belong to a number; anything else ends the token.
      while (i_ < text_.size()) {
        if (!isNumberChar(static_cast<unsigned char>(text_[i_]))) break;
        advance();
      }
      t.kind = Tok::kNumber;
      t.text = text_.substr(start, i_ - start);
      t.number = parseNumber(t.text, t.pos, t.finite);
      return t;
    }
    if (isIdFirst(c)) {
      while (i_ < text_.size() && !isIdForbidden(static_cast<unsigned char>(text_[i_]))) advance();
      t.kind = Tok::kId;
      t.text = text_.substr(start, i_ - start);
      return t;
    }
    fail(t.pos, "unexpected character '" + printable(c) + "'");
  }

  static std::string printable(unsigned char c) {
    if (c >= 0x20 && c < 0x7f) return std::string(1, static_cast<char>(c));
    static const char* kHex = "0123456789abcdef";
    return std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  }

  Token& scanString(Token& t) {
    advance();  // opening quote
    for (;;) {
      if (i_ >= text_.size()) fail(t.pos, "unterminated string (missing closing '\"')");
      const char c = text_[i_];
      if (c == '"') {
        advance();
        break;
      }
      if (c == '\\') {
        advance();
        if (i_ >= text_.size()) fail(t.pos, "unterminated string (missing closing '\"')");
      }
      t.str.push_back(text_[i_]);
      advance();
    }
    t.kind = Tok::kString;
    return t;
  }

  double parseNumber(std::string_view s, Pos pos, bool& finite) const {
    if (isNonFiniteWord(s)) {
      finite = false;
      return nonFiniteValue(s);
    }
    std::string_view body = s;
    bool negative = false;
    if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
      negative = body.front() == '-';
      body.remove_prefix(1);
    }
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
      // SFInt32 allows hexadecimal (clause 5.6).
      unsigned long long v = 0;
      const auto hex = body.substr(2);
      const auto r = std::from_chars(hex.data(), hex.data() + hex.size(), v, 16);
      if (r.ec != std::errc() || r.ptr != hex.data() + hex.size())
        fail(pos, "bad hexadecimal number '" + std::string(s) + "'");
      const double d = static_cast<double>(v);
      return negative ? -d : d;
    }
    double v = 0.0;
    const auto r = std::from_chars(body.data(), body.data() + body.size(), v);
    if (r.ptr != body.data() + body.size() || body.empty() ||
        (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
      fail(pos, "expected a number, found '" + std::string(s) + "'");
    if (r.ec == std::errc::result_out_of_range) {
      // from_chars reports both overflow and underflow; underflow is harmless (rounds to 0).
      v = std::strtod(std::string(body).c_str(), nullptr);
    }
    finite = std::isfinite(v);
    return negative ? -v : v;
  }

  std::string_view text_;
  const std::string& file_;
  const ParseLimits& limits_;
  unsigned scanned_ = 0;
  std::size_t i_ = 0;
  int line_ = 1;
  int col_ = 1;
  std::array<Token, 4> buffer_;
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

bool isId(const Token& t, std::string_view word) {
  return t.kind == Tok::kId && t.text == word;
}

// `nan` and `inf` scan as identifiers; in a value they are numbers.
bool isNumber(const Token& t) {
  return t.kind == Tok::kNumber || (t.kind == Tok::kId && isNonFiniteWord(t.text));
}

void appendNumber(Value& v, const Token& t) {
  const bool finite = t.kind == Tok::kNumber && t.finite;
  v.numbers.push_back(t.kind == Tok::kNumber ? t.number : nonFiniteValue(t.text));
  if (finite) return;
  if (v.nonfinite_count++ == 0) {
    v.nonfinite_pos = t.pos;
    v.nonfinite_problem = "number '" + std::string(t.text) + "' " +
                          (isNonFiniteWord(t.text) ? "is not finite" : "is out of range");
  }
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEnd:
      return "end of file";
    case Tok::kId:
      return "'" + std::string(t.text) + "'";
    case Tok::kNumber:
      return "number " + std::string(t.text);
    case Tok::kString:
      return "a string";
    case Tok::kLBracket:
      return "'['";
    case Tok::kRBracket:
      return "']'";
    case Tok::kLBrace:
      return "'{'";
    case Tok::kRBrace:
      return "'}'";
  }
  return "?";
}

bool isInterfaceKeyword(std::string_view w) {
  return w == "field" || w == "exposedField" || w == "eventIn" || w == "eventOut" ||
         w == "initializeOnly" || w == "inputOutput" || w == "inputOnly" || w == "outputOnly";
}

bool hasValue(std::string_view access) {
  return access == "field" || access == "exposedField" || access == "initializeOnly" ||
         access == "inputOutput";
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file, const ParseLimits& limits)
      : tok_(text, file, limits), file_(file), limits_(limits) {}

  ParsedFile run(std::string_view text) {
    ParsedFile out;
    readHeader(text);
    scopes_.emplace_back();
    while (tok_.peek().kind != Tok::kEnd) parseStatement(&out.roots, "file");
    out.warnings = std::move(warnings_);
    out.nonfinite = std::move(nonfinite_);
    return out;
  }

 private:
  struct Scope {
    std::map<std::string, NodePtr, std::less<>> defs;
    std::map<std::string, std::shared_ptr<const Proto>, std::less<>> protos;
    const Proto* defining = nullptr;  ///< the PROTO whose body this is (for IS checks)
  };

  void readHeader(std::string_view text) {
    std::string_view first = text.substr(0, text.find_first_of("\r\n"));
    if (first.rfind("#VRML V2.0", 0) == 0) {
      tok_.skipLine();
      return;
    }
    if (first.rfind("#VRML V1.0", 0) == 0 || first.rfind("#Inventor", 0) == 0)
      tok_.fail({1, 1}, "this is a VRML 1.0 / Open Inventor file ('" +
                            std::string(first.substr(0, 40)) +
                            "'); only VRML97 ('#VRML V2.0 utf8') is supported, convert it first");
    if (first.rfind("#X3D", 0) == 0) {
      warn({1, 1}, "X3D classic encoding read as VRML97; X3D-only nodes are skipped");
      tok_.skipLine();
      return;
    }
    warn({1, 1}, "missing '#VRML V2.0 utf8' header; reading the file as VRML97");
  }

  void warn(Pos p, const std::string& what) {
    warnings_.push_back(io::formatLocation({file_, p.line, p.column, {}}) + what);
  }

  Token expect(Tok kind, const std::string& what) {
    const Token& t = tok_.peek();
    if (t.kind != kind) tok_.fail(t.pos, "expected " + what + ", found " + describe(t));
    return tok_.next();
  }

  Token expectId(const std::string& what) { return expect(Tok::kId, what); }

  void enter(Pos p) {
    if (++depth_ > limits_.max_nesting)
      tok_.fail(p, "nesting deeper than " + std::to_string(limits_.max_nesting) + " levels");
  }
  void leave() { --depth_; }

  // statement ::= nodeStatement | protoStatement | routeStatement
  void parseStatement(std::vector<NodePtr>* out, const char* where) {
    const Token& t = tok_.peek();
    if (isId(t, "PROTO")) return parseProto();
    if (isId(t, "EXTERNPROTO")) return parseExternProto();
    if (isId(t, "ROUTE")) return parseRoute();
    if (t.kind != Tok::kId)
      tok_.fail(t.pos, std::string("expected a node, PROTO or ROUTE in ") + where + ", found " +
                           describe(t));
    const Pos p = t.pos;
    NodePtr n = parseNodeStatement();
    if (!n) tok_.fail(p, "NULL is only allowed as a field value");
    out->push_back(std::move(n));
  }

  // nodeStatement ::= node | DEF nodeNameId node | USE nodeNameId ; NULL gives nullptr.
  NodePtr parseNodeStatement() {
    Token t = tok_.next();
    if (isId(t, "NULL")) return nullptr;
    if (isId(t, "USE")) {
      const Token name = expectId("a node name after USE");
      for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
        const auto found = it->defs.find(name.text);
        if (found != it->defs.end()) return found->second;
        if (it->defining) break;  // a PROTO body cannot see names outside it
      }
      tok_.fail(name.pos, "USE of undefined node name '" + std::string(name.text) + "'");
    }
    std::string def;
    if (isId(t, "DEF")) {
      def = std::string(expectId("a node name after DEF").text);
      t = expectId("a node type after DEF " + def);
    }
    auto node = parseNode(t, def);
    if (!def.empty()) scopes_.back().defs[def] = node;
    return node;
  }

  std::shared_ptr<const Proto> findProto(std::string_view name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      const auto found = it->protos.find(name);
      if (found != it->protos.end()) return found->second;
    }
    return nullptr;
  }

  NodePtr parseNode(const Token& type, std::string def) {
    if (type.kind != Tok::kId || isId(type, "DEF") || isId(type, "USE") || isId(type, "IS"))
      tok_.fail(type.pos, "expected a node type, found " + describe(type));
    auto node = std::make_shared<Node>();
    node->type = std::string(type.text);
    node->def_name = std::move(def);
    node->pos = type.pos;
    node->proto = findProto(type.text);
    expect(Tok::kLBrace, "'{' after node type '" + node->type + "'");
    enter(type.pos);
    for (;;) {
      const Token& t = tok_.peek();
      if (t.kind == Tok::kRBrace) {
        tok_.next();
        break;
      }
      if (t.kind == Tok::kEnd || t.kind != Tok::kId)
        tok_.fail(t.pos, "expected a field name or '}' to close " + node->type +
                             " opened at line " + std::to_string(type.pos.line) + ", found " +
                             describe(t));
      if (isId(t, "PROTO")) {
        parseProto();
        continue;
      }
      if (isId(t, "EXTERNPROTO")) {
        parseExternProto();
        continue;
      }
      if (isId(t, "ROUTE")) {
        parseRoute();
        continue;
      }
      if (isInterfaceKeyword(t.text)) {
        // Script (and X3D-style) interface declarations inside a node body.
        parseInterfaceDecl(true);
        continue;
      }
      const Token name = tok_.next();
      if (isNonFiniteWord(name.text))
        tok_.fail(name.pos, "number '" + std::string(name.text) + "' is not finite");
      Value v = parseValue(std::string(name.text), *node, type.pos);
      node->fields.emplace_back(std::string(name.text), std::move(v));
    }
    leave();
    return node;
  }

  Value parseValue(const std::string& field, const Node& owner, Pos owner_pos) {
    Value v;
    const Token& t = tok_.peek();
    v.pos = t.pos;
    if (t.kind == Tok::kLBracket) {
      const Pos open = tok_.next().pos;
      for (;;) {
        const Token& e = tok_.peek();
        if (e.kind == Tok::kRBracket) {
          tok_.next();
          break;
        }
        if (e.kind == Tok::kEnd || e.kind == Tok::kLBracket || e.kind == Tok::kLBrace ||
            e.kind == Tok::kRBrace)
          tok_.fail(e.pos, "expected a value or ']' to close the list of '" + field +
                               "' opened at line " + std::to_string(open.line) + ", found " +
                               describe(e));
        appendElement(v, field);
      }
      noteNonFinite(v, owner, field);
      return v;
    }
    if (isId(t, "IS")) {
      const Pos is_pos = tok_.next().pos;
      const Token name = expectId("a PROTO field name after IS");
      const Proto* defining = currentProto();
      if (!defining) tok_.fail(is_pos, "IS is only allowed inside a PROTO body");
      if (!defining->find(name.text))
        tok_.fail(name.pos,
                  "PROTO " + defining->name + " has no field '" + std::string(name.text) + "'");
      v.kind = Value::Kind::kIs;
      v.is_name = std::string(name.text);
      return v;
    }
    if (isNumber(t)) {
      v.kind = Value::Kind::kNumbers;
      while (isNumber(tok_.peek())) appendNumber(v, tok_.next());
      noteNonFinite(v, owner, field);
      return v;
    }
    if (t.kind == Tok::kString || isId(t, "TRUE") || isId(t, "FALSE") || isNodeStart()) {
      appendElement(v, field);
      return v;
    }
    tok_.fail(t.pos, "expected a value for field '" + field + "' of " + owner.type +
                         " (opened at line " + std::to_string(owner_pos.line) + "), found " +
                         describe(t));
  }

  bool isNodeStart() {
    const Token& t = tok_.peek();
    if (t.kind != Tok::kId) return false;
    if (t.text == "DEF" || t.text == "USE" || t.text == "NULL") return true;
    return tok_.peek(1).kind == Tok::kLBrace;
  }

  // One element of a list (or a single-token value); all elements must be of one kind.
  void appendElement(Value& v, const std::string& field) {
    const Token& t = tok_.peek();
    Value::Kind kind;
    if (isNumber(t)) {
      kind = Value::Kind::kNumbers;
    } else if (t.kind == Tok::kString) {
      kind = Value::Kind::kStrings;
    } else if (isId(t, "TRUE") || isId(t, "FALSE")) {
      kind = Value::Kind::kBools;
    } else if (isNodeStart()) {
      kind = Value::Kind::kNodes;
    } else {
      tok_.fail(t.pos, "expected a value in '" + field + "', found " + describe(t));
    }
    if (v.kind != Value::Kind::kEmpty && v.kind != kind)
      tok_.fail(t.pos, "mixed value types in the list of '" + field + "'");
    v.kind = kind;
    switch (kind) {
      case Value::Kind::kNumbers:
        appendNumber(v, tok_.next());
        break;
      case Value::Kind::kStrings:
        v.strings.push_back(tok_.next().str);
        break;
      case Value::Kind::kBools:
        v.bools.push_back(tok_.next().text == "TRUE");
        break;
      default:
        v.nodes.push_back(parseNodeStatement());
        break;
    }
  }

  void noteNonFinite(const Value& v, const Node& owner, const std::string& field) {
    if (v.nonfinite_count > 0)
      nonfinite_.push_back(
          {v.nonfinite_pos, owner.type + "." + field, v.nonfinite_problem, v.nonfinite_count});
  }

  const Proto* currentProto() const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (it->defining) return it->defining;
    return nullptr;
  }

  // interfaceDeclaration ::= access fieldType id [value | IS id]
  FieldDecl parseInterfaceDecl(bool in_node_body) {
    FieldDecl d;
    d.access = std::string(tok_.next().text);
    d.type = std::string(expectId("a field type after " + d.access).text);
    const Token name = expectId("a field name after " + d.access + " " + d.type);
    d.name = std::string(name.text);
    if (isId(tok_.peek(), "IS")) {
      if (!in_node_body) tok_.fail(tok_.peek().pos, "IS is not allowed in a PROTO interface");
      Node dummy;
      dummy.type = "Script";
      parseValue(d.name, dummy, name.pos);
    } else if (hasValue(d.access)) {
      Node dummy;
      dummy.type = "PROTO interface";
      d.default_value = parseValue(d.name, dummy, name.pos);
    }
    return d;
  }

  void parseProto() {
    const Token kw = tok_.next();
    const Token name = expectId("a PROTO name");
    auto proto = std::make_shared<Proto>();
    proto->name = std::string(name.text);
    proto->pos = kw.pos;
    enter(kw.pos);
    const Pos open =
        expect(Tok::kLBracket, "'[' to start the interface of PROTO " + proto->name).pos;
    // Interface defaults are parsed outside the body scope: they cannot use IS.
    for (;;) {
      const Token& t = tok_.peek();
      if (t.kind == Tok::kRBracket) {
        tok_.next();
        break;
      }
      if (t.kind != Tok::kId || !isInterfaceKeyword(t.text))
        tok_.fail(t.pos,
                  "expected field/exposedField/eventIn/eventOut or ']' to close the "
                  "interface of PROTO " +
                      proto->name + " opened at line " + std::to_string(open.line) + ", found " +
                      describe(t));
      proto->fields.push_back(parseInterfaceDecl(false));
    }
    const Pos body_open = expect(Tok::kLBrace, "'{' to start the body of PROTO " + proto->name).pos;
    Scope body;
    body.defining = proto.get();
    scopes_.push_back(std::move(body));
    for (;;) {
      const Token& t = tok_.peek();
      if (t.kind == Tok::kRBrace) {
        tok_.next();
        break;
      }
      if (t.kind == Tok::kEnd)
        tok_.fail(t.pos, "expected '}' to close the body of PROTO " + proto->name +
                             " opened at line " + std::to_string(body_open.line));
      parseStatement(&proto->body, "a PROTO body");
    }
    scopes_.pop_back();
    leave();
    scopes_.back().protos[proto->name] = proto;
  }

  void parseExternProto() {
    const Token kw = tok_.next();
    const Token name = expectId("an EXTERNPROTO name");
    auto proto = std::make_shared<Proto>();
    proto->name = std::string(name.text);
    proto->pos = kw.pos;
    proto->external = true;
    expect(Tok::kLBracket, "'[' to start the interface of EXTERNPROTO " + proto->name);
    for (;;) {
      const Token& t = tok_.peek();
      if (t.kind == Tok::kRBracket) {
        tok_.next();
        break;
      }
      if (t.kind != Tok::kId || !isInterfaceKeyword(t.text))
        tok_.fail(t.pos, "expected an interface declaration or ']' in EXTERNPROTO " + proto->name +
                             ", found " + describe(t));
      FieldDecl d;
      d.access = std::string(tok_.next().text);
      d.type = std::string(expectId("a field type").text);
      d.name = std::string(expectId("a field name").text);
      proto->fields.push_back(std::move(d));
    }
    Node dummy;
    dummy.type = "EXTERNPROTO";
    parseValue("url", dummy, kw.pos);
    warn(kw.pos, "EXTERNPROTO " + proto->name + " is not loaded; its instances are skipped");
    scopes_.back().protos[proto->name] = proto;
  }

  // ROUTE a.b TO c.d: identifiers keep their '.', so this is four tokens.
  void parseRoute() {
    tok_.next();
    expectId("a node.eventOut after ROUTE");
    const Token to = expectId("TO in ROUTE");
    if (to.text != "TO") tok_.fail(to.pos, "expected TO in ROUTE, found " + describe(to));
    expectId("a node.eventIn after TO");
  }

  Tokenizer tok_;
  const std::string& file_;
  ParseLimits limits_;
  std::vector<Scope> scopes_;
  std::vector<std::string> warnings_;
  std::vector<NonFiniteField> nonfinite_;
  int depth_ = 0;
};

}  // namespace

ParsedFile parse(std::string_view text, const std::string& file, const ParseLimits& limits) {
  // A UTF-8 byte order mark is not part of the header.
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  Parser parser(text, file, limits);
  return parser.run(text);
}

}  // namespace handsim::geometry::vrml
