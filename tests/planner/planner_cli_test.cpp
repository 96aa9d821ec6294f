// SPDX-License-Identifier: GPL-3.0-or-later
// handsim-cli plan, merge and validate: sharded runs merge into the one-process file.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../support/cli_run.hpp"
#include "handsim/planner/grasp_records.hpp"

using handsim::test::runCli;

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST(PlannerCli, ShardsMergeIntoTheOneProcessFile) {
  const std::string dir = ::testing::TempDir() + "/handsim_plan_cli_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const std::string common =
      "plan sphere --hand barrett --grasps 2 --candidates 3 --seed 5 --quiet";
  auto one = runCli(common + " --threads 2 --out " + dir + "/one.jsonl");
  ASSERT_EQ(one.code, 0) << one.err;
  const std::string expected = slurp(dir + "/one.jsonl");
  ASSERT_FALSE(expected.empty());
  for (int i = 0; i < 2; ++i) {
    auto s = runCli(common + " --shard " + std::to_string(i) + "/2 --out " + dir + "/s" +
                    std::to_string(i) + ".jsonl");
    ASSERT_EQ(s.code, 0) << s.err;
  }
  auto m = runCli("merge " + dir + "/s1.jsonl " + dir + "/s0.jsonl --out " + dir + "/m.jsonl");
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(slurp(dir + "/m.jsonl"), expected);
  std::filesystem::remove_all(dir);
}

TEST(PlannerCli, BadInputIsAnErrorNotACrash) {
  auto r = runCli("plan cube --hand gripper2p --grasps -1 --out /tmp/x.jsonl");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--grasps"), std::string::npos) << r.err;
  r = runCli("plan cube --hand gripper2p --validate shake --out /tmp/x.jsonl");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("six-directions"), std::string::npos) << r.err;
  const std::string bad =
      ::testing::TempDir() + "/handsim_bad_" + std::to_string(getpid()) + ".jsonl";
  std::ofstream(bad) << "{\"format\": \"handsim-grasp\"}\n";
  r = runCli("validate " + bad + " --preset tug");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(":1:"), std::string::npos) << r.err;
  std::remove(bad.c_str());
}

TEST(PlannerCli, ConstraintAndHoldFlags) {
  const std::string dir = ::testing::TempDir() + "/handsim_plan_flags_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  // From above only: recorded with the run.
  auto r = runCli(
      "plan cube --hand barrett --grasps 1 --candidates 24 --quiet --approach-cone 0,0,-1,30 "
      "--out " +
      dir + "/top.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string text = slurp(dir + "/top.jsonl");
  EXPECT_NE(text.find("\"constraints\""), std::string::npos);
  EXPECT_NE(text.find("\"approach_cone\""), std::string::npos);
  r = runCli("plan cube --hand barrett --approach-cone 0,0,-1 --out " + dir + "/x.jsonl");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--approach-cone: expected 4 numbers"), std::string::npos) << r.err;
  r = runCli("plan cube --hand barrett --palm-region 0,0,0,1,1 --out " + dir + "/x.jsonl");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--palm-region"), std::string::npos) << r.err;
  r = runCli("plan cube --hand barrett --validate tug --hold servo --out " + dir + "/x.jsonl");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("drives, pd"), std::string::npos) << r.err;
  r = runCli("validate " + dir + "/top.jsonl --preset lift-shake --hold pd");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("lift-shake"), std::string::npos) << r.err;
  std::filesystem::remove_all(dir);
}

TEST(PlannerCli, SteadyHoldsEndEarlyWithTheWholeRunsVerdicts) {
  // BarrettHand grasps of the cube validated twice by two presets: directions ending once the
  // grasp holds steadily (default), and every direction run whole (--full-duration).
  const std::string dir = ::testing::TempDir() + "/handsim_plan_steady_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  auto r = runCli("plan cube --hand barrett --grasps 4 --seed 3 --quiet --out " + dir + "/g.jsonl");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const std::string preset : {"six-directions", "tug"}) {
    r = runCli("validate " + dir + "/g.jsonl --quiet --preset " + preset + " --out " + dir +
               "/early.jsonl");
    ASSERT_EQ(r.code, 0) << r.err;
    r = runCli("validate " + dir + "/g.jsonl --quiet --full-duration --preset " + preset +
               " --out " + dir + "/whole.jsonl");
    ASSERT_EQ(r.code, 0) << r.err;
    const auto early = handsim::planner::loadGraspRecords(dir + "/early.jsonl");
    const auto whole = handsim::planner::loadGraspRecords(dir + "/whole.jsonl");
    ASSERT_EQ(early.size(), whole.size());
    ASSERT_GE(early.size(), 2u);
    int ended = 0, directions = 0;
    for (std::size_t i = 0; i < early.size(); ++i) {
      ASSERT_EQ(early[i].validation.size(), 1u);
      ASSERT_EQ(whole[i].validation.size(), 1u);
      const auto &e = early[i].validation[0], &w = whole[i].validation[0];
      EXPECT_EQ(e.passed, w.passed) << preset << " grasp " << i;
      ASSERT_EQ(e.directions.size(), w.directions.size());
      for (std::size_t k = 0; k < e.directions.size(); ++k) {
        EXPECT_EQ(e.directions[k].passed, w.directions[k].passed)
            << preset << " grasp " << i << " direction " << k;
        EXPECT_FALSE(w.directions[k].steady_at.has_value());
        ended += e.directions[k].steady_at.has_value();
        ++directions;
      }
    }
    EXPECT_GT(ended, 0) << preset;
    std::printf("%s: %d of %d directions ended early\n", preset.c_str(), ended, directions);
  }
  std::filesystem::remove_all(dir);
}
