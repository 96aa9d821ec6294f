// SPDX-License-Identifier: GPL-3.0-or-later
// handsim-cli refuses bad numbers, extra arguments and unusable output files up front, and never
// prints a non-finite result as success (issue #12, "Numbers").
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../support/cli_run.hpp"

namespace fs = std::filesystem;
using handsim::test::runCli;

namespace {

std::string asset(const std::string& rel) {
  return std::string(HANDSIM_SOURCE_DIR) + "/assets/" + rel;
}

fs::path freshFolder(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("handsim_numbers_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool mentions(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

}  // namespace

// An unwritable output is found before the run (no progress printed), with exit 2 and the path.
TEST(CliNumbers, OutputPathsAreCheckedBeforeAnyWork) {
  const fs::path dir = freshFolder("outputs");
  const std::string missing = (dir / "no_such_folder" / "out.csv").string();
  const std::string scenario = asset("scenarios/barrett_close_free.json");
  auto r = runCli("simulate " + scenario + " --csv " + missing);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(mentions(r.err, missing)) << r.err;
  EXPECT_FALSE(mentions(r.err, "done")) << r.err;

  r = runCli("sweep " + asset("sweeps/does_not_matter.json") + " --quiet --out " + missing);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(mentions(r.err, "--out") && mentions(r.err, missing)) << r.err;

  r = runCli("pose save --hand barrett --name p --q 0,0,0,0,0,0,0,0 --out " + missing);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(mentions(r.err, missing)) << r.err;
  const std::string pose_file = (dir / "poses.json").string();
  r = runCli("pose save --hand barrett --name p --q 0,0,0,0,0,0,0,0 --out " + pose_file +
             " --csv " + missing);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(mentions(r.err, "--csv") && mentions(r.err, missing)) << r.err;
  EXPECT_FALSE(fs::exists(pose_file)) << "the pose file was written before the check";

  // A folder where a file should go.
  r = runCli("workspace --hand barrett --finger F1 --samples 2 --csv " + dir.string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(mentions(r.err, dir.string())) << r.err;
}

TEST(CliNumbers, OutputMayNotOverwriteAnInput) {
  const fs::path dir = freshFolder("same");
  const fs::path scenario = dir / "s.json";
  fs::copy_file(asset("scenarios/barrett_close_free.json"), scenario);
  const std::string before = contents(scenario);
  for (const std::string& out :
       std::vector<std::string>{scenario.string(), (dir / "." / "s.json").string()}) {
    const auto r = runCli("simulate " + scenario.string() + " --quiet --csv " + out);
    EXPECT_EQ(r.code, 2) << out << ": " << r.err;
    EXPECT_TRUE(mentions(r.err, "--csv")) << r.err;
  }
  // Through a symbolic link to the input.
  fs::create_symlink(scenario, dir / "link.json");
  auto r =
      runCli("simulate " + scenario.string() + " --quiet --csv " + (dir / "link.json").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(contents(scenario), before);

  // The pose CSV may not be the pose file itself.
  const std::string poses = (dir / "poses.json").string();
  r = runCli("pose save --hand barrett --name p --q 0,0,0,0,0,0,0,0 --out " + poses + " --csv " +
             poses);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_FALSE(fs::exists(poses));
}

TEST(CliNumbers, ExtraPositionalArgumentsAreUsageErrors) {
  for (const std::string& cmd : std::vector<std::string>{
           "fk --hand barrett --q 0,0,0,0,0,0,0,0 stray",
           "ik --hand barrett --finger F1 "
           "--target 0.1,0,0.05 stray",
           "dynamics --hand barrett --finger F1 --q 0,0,0 --qd 0,0,0 --qdd 0,0,0 stray",
           "hands stray", "workspace --hand barrett --finger F1 --samples 2 stray",
           "grasp a.json stray", "simulate a.json stray", "sweep a.json --out x.csv stray",
           "collide a.wrl b.wrl stray", "mesh " + asset("objects/cube.wrl") + " stray"}) {
    const auto r = runCli(cmd);
    EXPECT_EQ(r.code, 2) << cmd;
    EXPECT_TRUE(mentions(r.err, "'stray'")) << cmd << ": " << r.err;
  }
}

TEST(CliNumbers, NumbersAreDecimalFiniteAndComplete) {
  for (const std::string& bad : std::vector<std::string>{"0x10", "1e400", "inf", "nan", "-infinity",
                                                         "1.5x", " 1", "1e", ".", "+", "1,5"}) {
    const auto r = runCli("fk --hand barrett --q '" + bad + ",0,0,0,0,0,0,0'");
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_TRUE(mentions(r.err, "--q")) << bad << ": " << r.err;
  }
  auto r = runCli("fk --hand barrett --q 0x10,0,0,0,0,0,0,0");
  EXPECT_TRUE(mentions(r.err, "'0x10'")) << r.err;
  r = runCli("fk --hand barrett --q 1e400,0,0,0,0,0,0,0");
  EXPECT_TRUE(mentions(r.err, "'1e400'") && mentions(r.err, "range")) << r.err;
  for (const char* opt : {"--scale 0x10", "--scale inf", "--segments 0x10"}) {
    r = runCli("mesh " + asset("objects/cube.wrl") + " " + std::string(opt));
    EXPECT_EQ(r.code, 2) << opt;
  }
  // What is decimal passes.
  r = runCli("fk --hand barrett --q 1.,.5,-2e-3,+1E-1,0,0,0,0");
  EXPECT_EQ(r.code, 0) << r.err;
}

TEST(CliNumbers, NonFiniteResultFailsWithExit4) {
  const auto r = runCli(
      "dynamics --hand barrett --finger F1 --q 0,0.5,0.5 --qd 1e200,1e200,1e200 --qdd 0,0,0");
  EXPECT_EQ(r.code, 4) << r.out;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(mentions(r.err, "non-finite")) << r.err;
}

// 1000000 values per joint over four joints is 1e24 points: the budget error says so instead
// of a wrapped 64-bit count.
TEST(CliNumbers, WorkspaceGridCountDoesNotWrap) {
  auto r = runCli("workspace --hand anthro20 --finger index --samples 1000000");
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(mentions(r.err, "18446744073709551615")) << r.err;
  EXPECT_TRUE(mentions(r.err, "1e+24")) << r.err;
  r = runCli("workspace --hand anthro20 --finger index --samples 1000001");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(mentions(r.err, "from 2 to 1000000")) << r.err;
}
