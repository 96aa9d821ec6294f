// SPDX-License-Identifier: GPL-3.0-or-later
// Scale-out on a real cluster: tests/planner/slurm_cluster.sh starts a single-node Slurm
// (munged, slurmctld, slurmd on localhost, in a temporary folder), runs a 4-task job array of
// `plan --shard i/4`, merges, and compares with one process. Skipped with the script's reason
// when Slurm cannot start here (not root, slurm-wlm or munge not installed).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

TEST(PlannerSlurm, AJobArrayOfShardsMergesIntoTheOneProcessFile) {
  namespace fs = std::filesystem;
  const fs::path work = fs::temp_directory_path() / ("handsim_slurm_" + std::to_string(getpid()));
  fs::remove_all(work);
  fs::create_directories(work);
  const fs::path err = work / "script.err";
  const std::string command = std::string("bash '") + HANDSIM_SOURCE_DIR +
                              "/tests/planner/slurm_cluster.sh' '" + HANDSIM_CLI_PATH + "' '" +
                              (work / "cluster").string() + "' 2>'" + err.string() + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status)) << command;
  const int code = WEXITSTATUS(status);
  std::ifstream in(err);
  std::stringstream text;
  text << in.rdbuf();
  std::string last, line;
  while (std::getline(text, line))
    if (!line.empty()) last = line;
  if (code == 77) {
    fs::remove_all(work);
    GTEST_SKIP() << last;
  }
  EXPECT_EQ(code, 0) << text.str();
  if (code == 0) fs::remove_all(work);
}
