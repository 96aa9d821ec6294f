// SPDX-License-Identifier: GPL-3.0-or-later
// Runs the built handsim-cli (HANDSIM_CLI_PATH) for end-to-end tests and captures its exit
// code, standard output and standard error.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace handsim::test {

struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

/// Runs `program` with `arguments` appended as written (shell words): exit code, stdout,
/// stderr.
inline CliRun runProgram(const std::string& program, const std::string& arguments) {
  // ctest runs test cases in parallel processes: keep each one's stderr file apart.
  static int calls = 0;
  const std::string err_path = ::testing::TempDir() + "/handsim_cli_stderr_" +
                               std::to_string(getpid()) + "_" + std::to_string(calls++) + ".txt";
  const std::string cmd = program + " " + arguments + " 2>" + err_path;
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_path);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  std::remove(err_path.c_str());
  return r;
}

/// handsim-cli with `arguments`.
inline CliRun runCli(const std::string& arguments) {
  return runProgram(HANDSIM_CLI_PATH, arguments);
}

}  // namespace handsim::test
