// SPDX-License-Identifier: GPL-3.0-or-later
// No function in the project's sources is longer than about 120 lines unless the comment above it
// says why (docs/development.md, "Code that reads"): a function one cannot hold in one's head
// hides its stages. This scans src/ and include/ for definitions that start in the first column
// (the code's style: namespaces are not indented) and counts their lines by brace matching,
// outside comments, strings and character literals.
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kMaxLines = 120;

// The line without its comment and with string and character literals emptied, so braces in
// them are not counted. `in_block` carries a /* comment across lines.
std::string codeOf(const std::string& line, bool& in_block) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (in_block) {
      if (line.compare(i, 2, "*/") == 0) {
        in_block = false;
        ++i;
      }
      continue;
    }
    if (line.compare(i, 2, "//") == 0) break;
    if (line.compare(i, 2, "/*") == 0) {
      in_block = true;
      ++i;
      continue;
    }
    const char c = line[i];
    if (c == '"' || c == '\'') {
      for (++i; i < line.size() && line[i] != c; ++i)
        if (line[i] == '\\') ++i;
      out += c;
      out += c;
      continue;
    }
    out += c;
  }
  return out;
}

struct LongFunction {
  std::string where;
  int lines = 0;
};

// Functions of `text` (a source file's lines) longer than kMaxLines whose comment block above
// does not give a reason ("Long because" or "Longer than").
std::vector<LongFunction> longFunctions(const std::vector<std::string>& text,
                                        const std::string& name) {
  // A definition: a first-column line that is not a type, namespace or preprocessor line and
  // ends with ") {" (optionally const / noexcept / override).
  static const std::regex kDefinition(
      R"(^[A-Za-z_][^;]*\)\s*(const)?\s*(noexcept)?\s*(override)?\s*\{\s*$)");
  static const std::regex kNotFunction(R"(^(namespace|struct|class|enum|union|if|for|while|switch)\b)");
  std::vector<LongFunction> out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (!std::regex_match(text[i], kDefinition) || std::regex_search(text[i], kNotFunction))
      continue;
    bool in_block = false;
    int depth = 0;
    std::size_t end = i;
    for (std::size_t j = i; j < text.size(); ++j) {
      for (char c : codeOf(text[j], in_block)) depth += c == '{' ? 1 : c == '}' ? -1 : 0;
      end = j;
      if (depth <= 0) break;
    }
    const int lines = static_cast<int>(end - i + 1);
    bool reason = false;
    for (std::size_t k = i; k-- > 0 && text[k].rfind("//", 0) == 0;)
      reason = reason || text[k].find("Long because") != std::string::npos ||
               text[k].find("Longer than") != std::string::npos;
    if (lines > kMaxLines && !reason)
      out.push_back({name + ":" + std::to_string(i + 1) + ": " + text[i], lines});
    i = end;
  }
  return out;
}

std::vector<std::string> linesOf(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST(FunctionLength, NoFunctionIsLongerThan120LinesWithoutAReason) {
  std::vector<LongFunction> all;
  int scanned = 0;
  for (const char* dir : {"src", "include"}) {
    const fs::path root = fs::path(HANDSIM_SOURCE_DIR) / dir;
    ASSERT_TRUE(fs::is_directory(root)) << root;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      const auto ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp")) continue;
      ++scanned;
      for (auto& f : longFunctions(linesOf(entry.path()), entry.path().string()))
        all.push_back(std::move(f));
    }
  }
  EXPECT_GT(scanned, 100);
  for (const LongFunction& f : all)
    ADD_FAILURE() << f.where << " is " << f.lines << " lines (at most " << kMaxLines
                  << "; split it by stage, or say at its top why not: \"Long because ...\")";
}

// The scanner finds a long function, counts braces in strings and comments out, and accepts a
// reason written above it.
TEST(FunctionLength, TheScannerFindsALongFunctionAndAcceptsAReason) {
  std::vector<std::string> text = {"int f(int x) {"};
  for (int i = 0; i < 130; ++i) text.push_back("  x += 1;  // }");
  text.push_back("  return x == '}' ? 1 : std::string(\"}}\").size();");
  text.push_back("}");
  text.push_back("void g() {");
  text.push_back("}");
  const auto found = longFunctions(text, "probe.cpp");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].lines, 133);
  EXPECT_NE(found[0].where.find("probe.cpp:1:"), std::string::npos);
  text.insert(text.begin(), "// Long because the probe says so.");
  EXPECT_TRUE(longFunctions(text, "probe.cpp").empty());
}
