// SPDX-License-Identifier: GPL-3.0-or-later
// The core is three libraries that depend one way (docs/development.md, "Libraries"): the engine
// on nothing of ours, formats on the engine, tools on the engine and formats; and no core file
// on a front end. A file's layer is its folder:
//
//   engine   src/core/engine/, include/handsim/{collision,contact,dynamics,geometry,hand,io,
//            kinematics,sim}/
//   formats  src/core/formats/, include/handsim/formats/
//   tools    src/core/tools/, include/handsim/{grasp,planner,tools}/
//
// (The seed-002 hybrid grasp controller, sim/hybrid_grasp_controller.hpp, is engine by choice,
// not by exception: the run loop runs it between steps, RunPlan::controller.)
//
// Anything else an include reaches (src/app, src/cli, src/python, src/plot, src/render,
// src/tools, tests) is outside the core and never included by it; a new folder under
// include/handsim or src/core needs a line in kLayerOfFolder below before this test passes.
// This scans every core source and header, resolving "handsim/..." includes against include/
// and the others against the including file's folder, as the compiler does.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

enum class Layer { Engine = 0, Formats = 1, Tools = 2, Outside, Unknown };

const char* layerName(Layer l) {
  switch (l) {
    case Layer::Engine:
      return "engine";
    case Layer::Formats:
      return "formats";
    case Layer::Tools:
      return "tools";
    case Layer::Outside:
      return "outside the core";
    case Layer::Unknown:
      return "a folder without a layer";
  }
  return "?";
}

// The mapping of the header comment: first folder below include/handsim or src/core.
const std::map<std::string, Layer> kLayerOfFolder = {
    {"include/handsim/collision", Layer::Engine},
    {"include/handsim/contact", Layer::Engine},
    {"include/handsim/dynamics", Layer::Engine},
    {"include/handsim/geometry", Layer::Engine},
    {"include/handsim/hand", Layer::Engine},
    {"include/handsim/io", Layer::Engine},
    {"include/handsim/kinematics", Layer::Engine},
    {"include/handsim/sim", Layer::Engine},
    {"include/handsim/formats", Layer::Formats},
    {"include/handsim/grasp", Layer::Tools},
    {"include/handsim/planner", Layer::Tools},
    {"include/handsim/tools", Layer::Tools},
    {"src/core/engine", Layer::Engine},
    {"src/core/formats", Layer::Formats},
    {"src/core/tools", Layer::Tools},
};

// Includes that break the rule on purpose, each with its reason: "file -> included file", both
// relative to the source root. None today; an entry that no longer matches an include fails
// ExceptionsAreStillNeeded, so the list cannot outlive its reasons.
const std::map<std::string, std::string> kExceptions = {};

// The layer of a path relative to the source root (generic form, no "..").
Layer layerOf(const std::string& path) {
  for (const char* core : {"include/handsim/", "src/core/"}) {
    if (path.rfind(core, 0) != 0) continue;
    const std::size_t slash = path.find('/', std::string(core).size());
    if (slash == std::string::npos) return Layer::Unknown;  // a file directly in the root
    const auto it = kLayerOfFolder.find(path.substr(0, slash));
    return it == kLayerOfFolder.end() ? Layer::Unknown : it->second;
  }
  return Layer::Outside;
}

struct Include {
  std::string from;  // including file, relative to the root
  int line = 0;
  std::string to;  // included file, relative to the root ("" for a system header)
};

// Every include of our own files in the core's sources and headers under `root`.
std::vector<Include> coreIncludes(const fs::path& root) {
  // Quoted includes, and angle-bracket ones of our headers.
  static const std::regex kInclude(R"re(^\s*#\s*include\s*(?:"([^"]+)"|<(handsim/[^>]+)>))re");
  std::vector<Include> out;
  for (const char* dir : {"include/handsim", "src/core"}) {
    if (!fs::is_directory(root / dir)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (!entry.is_regular_file()) continue;
      const auto ext = entry.path().extension().string();
      if (ext != ".hpp" && ext != ".cpp" && ext != ".h" && ext != ".inl") continue;
      const std::string from = entry.path().lexically_relative(root).generic_string();
      std::ifstream in(entry.path());
      std::string text;
      int number = 0;
      while (std::getline(in, text)) {
        ++number;
        std::smatch m;
        if (!std::regex_search(text, m, kInclude)) continue;
        const std::string name = m[1].matched ? m[1].str() : m[2].str();
        const fs::path target = name.rfind("handsim/", 0) == 0
                                    ? fs::path("include") / name
                                    : (fs::path(from).parent_path() / name);
        out.push_back({from, number, target.lexically_normal().generic_string()});
      }
    }
  }
  return out;
}

bool allowed(Layer from, Layer to) {
  if (to == Layer::Outside || to == Layer::Unknown) return false;
  return static_cast<int>(to) <= static_cast<int>(from);
}

// "file:line: includes X (layer) from layer" for each include that breaks the rule and is not
// an exception; `used` collects the exceptions that matched.
std::vector<std::string> layeringViolations(const fs::path& root,
                                            std::vector<std::string>* used = nullptr) {
  std::vector<std::string> hits;
  for (const Include& inc : coreIncludes(root)) {
    const Layer from = layerOf(inc.from), to = layerOf(inc.to);
    if (from != Layer::Unknown && allowed(from, to)) continue;
    const std::string key = inc.from + " -> " + inc.to;
    if (kExceptions.count(key)) {
      if (used) used->push_back(key);
      continue;
    }
    hits.push_back(inc.from + ":" + std::to_string(inc.line) + ": " + layerName(from) +
                   " includes " + inc.to + " (" + layerName(to) + ")");
  }
  return hits;
}

TEST(Layering, EngineFormatsToolsDependOneWayAndNeverOnFrontEnds) {
  const fs::path root(HANDSIM_SOURCE_DIR);
  ASSERT_TRUE(fs::is_directory(root / "src/core/engine")) << root;
  const auto hits = layeringViolations(root);
  EXPECT_TRUE(hits.empty()) << "includes against the layering (docs/development.md, "
                            << "\"Libraries\"):\n"
                            << ::testing::PrintToString(hits);
}

TEST(Layering, EveryCoreFolderHasALayer) {
  const fs::path root(HANDSIM_SOURCE_DIR);
  for (const char* dir : {"include/handsim", "src/core"})
    for (const auto& entry : fs::directory_iterator(root / dir)) {
      const std::string rel = entry.path().lexically_relative(root).generic_string();
      EXPECT_TRUE(entry.is_directory() && kLayerOfFolder.count(rel))
          << rel << ": give it a layer (kLayerOfFolder, docs/development.md)";
    }
}

TEST(Layering, ExceptionsAreStillNeeded) {
  std::vector<std::string> used;
  layeringViolations(fs::path(HANDSIM_SOURCE_DIR), &used);
  for (const auto& [key, reason] : kExceptions)
    EXPECT_NE(std::find(used.begin(), used.end(), key), used.end())
        << "exception no longer needed: " << key << " (" << reason << ")";
}

TEST(Layering, DetectorRecognisesEveryKindOfViolation) {
  // Guard against a regex or a mapping that silently lets everything through: a probe tree with
  // one include of each forbidden kind and as many allowed ones.
  const fs::path root =
      fs::temp_directory_path() / ("handsim_layering_probe_" + std::to_string(getpid()));
  fs::remove_all(root);
  for (const char* d :
       {"include/handsim/sim", "include/handsim/formats", "include/handsim/tools",
        "src/core/engine/sim", "src/core/formats", "src/core/tools/grasp", "src/core/misc"})
    fs::create_directories(root / d);
  const auto write = [&root](const char* file, const char* text) {
    std::ofstream(root / file) << text;
  };
  // Forbidden: engine -> formats, engine -> tools (relative), formats -> tools, core -> front
  // end, a file in a folder without a layer.
  write("include/handsim/sim/a.hpp", "#include \"handsim/formats/b.hpp\"\n");
  write("src/core/engine/sim/c.cpp", "  #  include \"../../tools/grasp/d.hpp\"\n");
  write("src/core/formats/e.cpp", "#include <handsim/tools/f.hpp>\n");
  write("src/core/tools/grasp/g.cpp", "#include \"../../../app/main_window.hpp\"\n");
  write("src/core/misc/h.cpp", "#include \"handsim/sim/a.hpp\"\n");
  // Allowed: tools -> formats and engine, formats -> engine, a private header of the same
  // layer, system headers.
  write("src/core/tools/grasp/ok.cpp",
        "#include \"handsim/formats/b.hpp\"\n#include \"../../engine/sim/x.hpp\"\n"
        "#include <Eigen/Core>\n#include \"handsim/sim/a.hpp\"\n");
  write("src/core/formats/ok.cpp", "#include \"handsim/sim/a.hpp\"\n#include \"local.hpp\"\n");
  write("include/handsim/tools/ok.hpp", "#include \"handsim/formats/b.hpp\"\n#include <vector>\n");
  const auto hits = layeringViolations(root);
  EXPECT_EQ(hits.size(), 5u) << ::testing::PrintToString(hits);
  fs::remove_all(root);
}

}  // namespace
