// SPDX-License-Identifier: GPL-3.0-or-later
// The core library must never include Qt or OpenSceneGraph (docs/design.md section 1): it is used
// headless by the CLI, tests and benchmarks. This scans every core source and header.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {
std::vector<std::string> forbiddenIncludes(const fs::path& root) {
  // Qt headers start with Q (QWidget, QtCore/...), OSG ones with osg (osg/, osgViewer/...).
  static const std::regex kForbidden(
      R"(^\s*#\s*include\s*[<"]\s*(Q[A-Za-z]|osg[A-Za-z]*/|OpenThreads/))");
  std::vector<std::string> hits;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const auto ext = entry.path().extension().string();
    if (ext != ".hpp" && ext != ".cpp" && ext != ".h" && ext != ".inl") continue;
    std::ifstream in(entry.path());
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (std::regex_search(line, kForbidden))
        hits.push_back(entry.path().string() + ":" + std::to_string(number) + ": " + line);
    }
  }
  return hits;
}
}  // namespace

TEST(CoreIsolation, CoreNeverIncludesQtOrOsg) {
  for (const char* dir : {"include/handsim", "src/core"}) {
    const fs::path root = fs::path(HANDSIM_SOURCE_DIR) / dir;
    ASSERT_TRUE(fs::is_directory(root)) << root;
    const auto hits = forbiddenIncludes(root);
    EXPECT_TRUE(hits.empty()) << "core files include Qt/OSG:\n" << ::testing::PrintToString(hits);
  }
}

TEST(CoreIsolation, DetectorRecognisesQtAndOsgIncludes) {
  // Guard against a regex that silently matches nothing.
  const fs::path dir =
      fs::temp_directory_path() / ("handsim_isolation_probe_" + std::to_string(getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "a.cpp") << "#include <QWidget>\n";
    std::ofstream(dir / "b.hpp") << "  #  include <osgViewer/Viewer>\n";
    std::ofstream(dir / "c.cpp") << "#include <Eigen/Core>\n#include \"handsim/x.hpp\"\n";
  }
  EXPECT_EQ(forbiddenIncludes(dir).size(), 2u);
  fs::remove_all(dir);
}
