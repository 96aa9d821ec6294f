// SPDX-License-Identifier: GPL-3.0-or-later
// Real-world files from public projects (the reference corpus, found through
// $HANDSIM_CORPUS_DIR, tests/support/corpus.hpp). They are not part of the project: every test here skips when
// the folder is absent. Each VRML file must either load or fail with an InputError; VRML 1.0
// files must be refused. Triangle counts are printed for the record.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "../support/corpus.hpp"
#include "handsim/formats/mesh_loader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::geometry {
namespace {

namespace fs = std::filesystem;

fs::path corpusDir() { return handsim::test::corpusDir(); }

std::string firstLine(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(Corpus, EveryVrmlFileLoadsOrFailsCleanly) {
  const fs::path dir = corpusDir() / "vrml";
  if (!fs::is_directory(dir))
    GTEST_SKIP() << "corpus folder " << dir << " absent (set HANDSIM_CORPUS_DIR to use it)";
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".wrl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  int loaded = 0;
  for (const auto& f : files) {
    const bool vrml1 = firstLine(f).rfind("#VRML V1.0", 0) == 0;
    try {
      const LoadedModel m = loadMesh(f.string());
      EXPECT_FALSE(vrml1) << f << " is VRML 1.0 but was not refused";
      ++loaded;
      std::cout << "[corpus] " << f.filename().string() << ": " << m.triangleCount()
                << " triangles, " << m.shapes.size() << " shapes, " << m.warnings.size()
                << " warnings, " << m.dropped_degenerate_faces << " degenerate faces dropped\n";
    } catch (const io::InputError& e) {
      std::cout << "[corpus] " << f.filename().string() << ": refused: " << e.what() << "\n";
      // A refusal must say where.
      EXPECT_EQ(e.location().file, f.string());
      EXPECT_GT(e.location().line, 0) << e.what();
    }
  }
  EXPECT_GT(loaded, static_cast<int>(files.size()) / 2);
}

TEST(Corpus, Vrml1FileIsRefused) {
  const fs::path f = corpusDir() / "vrml" / "graspit_harvard_proximal_vrml1.wrl";
  if (!fs::exists(f)) GTEST_SKIP() << f << " absent";
  try {
    loadVrml(f.string());
    FAIL() << "VRML 1.0 accepted";
  } catch (const io::InputError& e) {
    EXPECT_NE(e.problem().find("VRML 1.0"), std::string::npos);
  }
}

TEST(Corpus, InlineBoxResolvesSiblingFiles) {
  // pit_box.wrl holds only two Inline nodes; its triangles are those of the two files.
  const fs::path d = corpusDir() / "vrml" / "openhrp_pit_box_inline";
  if (!fs::is_directory(d)) GTEST_SKIP() << d << " absent";
  const auto box = loadVrml((d / "pit_box.wrl").string());
  const auto panel = loadVrml((d / "pit_panel.wrl").string());
  const auto pit = loadVrml((d / "pit.wrl").string());
  EXPECT_GT(panel.triangleCount(), 0u);
  EXPECT_EQ(box.triangleCount(), panel.triangleCount() + pit.triangleCount());
  EXPECT_TRUE(box.warnings.empty()) << ::testing::PrintToString(box.warnings);
}

TEST(Corpus, GzipTerrainLoads) {
  const fs::path f = corpusDir() / "vrml" / "pathfinder_terrain_full_80k_gzip.wrl";
  if (!fs::exists(f)) GTEST_SKIP() << f << " absent";
  const auto m = loadVrml(f.string());
  EXPECT_GT(m.triangleCount(), 10000u);
}

TEST(Corpus, ObjFilesLoadThroughAssimp) {
  const fs::path dir = corpusDir() / "meshes";
  if (!fs::is_directory(dir)) GTEST_SKIP() << "corpus folder " << dir << " absent";
  int count = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".obj") continue;
    const LoadedModel m = loadMesh(e.path().string());
    const TriangleMesh merged = m.merged();
    const Aabb box = boundingBox(merged);
    std::cout << "[corpus] " << e.path().filename().string() << ": " << merged.triangles.size()
              << " triangles, watertight " << isWatertight(merged) << ", extent "
              << (box.max - box.min).transpose() << "\n";
    EXPECT_GT(merged.triangles.size(), 100u) << e.path();
    ++count;
  }
  EXPECT_GT(count, 0);
}

}  // namespace
}  // namespace handsim::geometry
