// SPDX-License-Identifier: GPL-3.0-or-later
// A scenario object whose mesh is millimetres read as metres (a 190 mm bottle becomes 190 m)
// is not guessed at: handsim-cli simulate warns, naming the mesh and suggesting "scale": 0.001.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "../support/cli_run.hpp"

namespace fs = std::filesystem;
using handsim::test::runCli;

namespace {

// A closed 60 x 60 x 190 box in the file's numbers (millimetres), far from the hand.
void writeBottle(const fs::path& path) {
  std::ofstream out(path);
  for (int i = 0; i < 8; ++i)
    out << "v " << ((i & 1) ? 30 : -30) << ' ' << ((i & 2) ? 30 : -30) << ' ' << ((i & 4) ? 190 : 0)
        << '\n';
  const int faces[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                           {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
  for (const auto& f : faces)
    out << "f " << f[0] + 1 << ' ' << f[1] + 1 << ' ' << f[2] + 1 << "\nf " << f[0] + 1 << ' '
        << f[2] + 1 << ' ' << f[3] + 1 << '\n';
}

void writeScenario(const fs::path& path, const std::string& scale) {
  std::ofstream out(path);
  out << R"({"format": "handsim-scenario", "version": 1, "hand": "barrett", "duration_s": 0.01,
  "objects": [{"name": "bottle", "mesh": "bottle_mm.obj", )"
      << scale << R"("pose": {"translation_m": [1000, 1000, 0]}}]})";
}

}  // namespace

TEST(CliMillimetres, ASceneObjectInMillimetresIsReportedWithTheScaleToUse) {
  const fs::path dir = fs::path(::testing::TempDir()) / "handsim_millimetres";
  fs::remove_all(dir);
  fs::create_directories(dir);
  writeBottle(dir / "bottle_mm.obj");
  writeScenario(dir / "mm.json", "");
  const auto r = runCli("simulate " + (dir / "mm.json").string() + " --quiet");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("bottle_mm.obj"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("\"scale\": 0.001"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("190 m"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/objects/0"), std::string::npos) << r.err;
  // With the scale given, nothing to say.
  writeScenario(dir / "m.json", "\"scale\": 0.001, ");
  const auto ok = runCli("simulate " + (dir / "m.json").string() + " --quiet");
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(ok.err.find("scale"), std::string::npos) << ok.err;
}
