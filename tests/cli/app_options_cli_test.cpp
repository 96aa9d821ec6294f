// SPDX-License-Identifier: GPL-3.0-or-later
// The application's number flags (src/app/app_options.cpp) take plain, finite, bounded
// decimals. Argument errors are reported before a display is needed, so the built `handsim`
// beside handsim-cli runs here without one; the test is skipped when the GUI is not built.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../support/cli_run.hpp"

namespace {

std::string appPath() {
  return (std::filesystem::path(HANDSIM_CLI_PATH).parent_path() / "app" / "handsim").string();
}

handsim::test::CliRun runApp(const std::string& arguments) {
  handsim::test::CliRun r = handsim::test::runProgram(appPath(), arguments);
  r.out += r.err;  // the messages may go to either stream
  return r;
}

}  // namespace

TEST(AppOptions, NumberFlagsAreFinitePositiveBoundedDecimals) {
  if (!std::filesystem::exists(appPath())) GTEST_SKIP() << "no GUI built at " << appPath();
  for (const char* bad : {"inf", "nan", "0x10", "1e400", "0", "-1", "86401", " 5", "5s"}) {
    const handsim::test::CliRun r = runApp(std::string("--quit-after '") + bad + "'");
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("--quit-after needs"), std::string::npos) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("86400"), std::string::npos) << r.out;
  }
  for (const char* bad : {"0x4", "4.5", "inf", "1e400", "17"}) {
    const handsim::test::CliRun r = runApp(std::string("--samples '") + bad + "'");
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_NE(r.out.find("--samples needs"), std::string::npos) << bad << ": " << r.out;
  }
}
