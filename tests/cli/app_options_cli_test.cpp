// SPDX-License-Identifier: GPL-3.0-or-later
// The application's number flags (src/app/app_options.cpp) take plain, finite, bounded
// decimals. Argument errors are reported before a display is needed, so the built `handsim`
// beside handsim-cli runs here without one; the test is skipped when the GUI is not built.
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace {

struct AppRun {
  int code = -1;
  std::string output;  // stdout and stderr
};

std::string appPath() {
  return (std::filesystem::path(HANDSIM_CLI_PATH).parent_path() / "app" / "handsim").string();
}

AppRun runApp(const std::string& arguments) {
  AppRun r;
  FILE* p = popen((appPath() + " " + arguments + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace

TEST(AppOptions, NumberFlagsAreFinitePositiveBoundedDecimals) {
  if (!std::filesystem::exists(appPath())) GTEST_SKIP() << "no GUI built at " << appPath();
  for (const char* bad : {"inf", "nan", "0x10", "1e400", "0", "-1", "86401", " 5", "5s"}) {
    const AppRun r = runApp(std::string("--quit-after '") + bad + "'");
    EXPECT_EQ(r.code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--quit-after needs"), std::string::npos) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("86400"), std::string::npos) << r.output;
  }
  for (const char* bad : {"0x4", "4.5", "inf", "1e400", "17"}) {
    const AppRun r = runApp(std::string("--samples '") + bad + "'");
    EXPECT_EQ(r.code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--samples needs"), std::string::npos) << bad << ": " << r.output;
  }
}
