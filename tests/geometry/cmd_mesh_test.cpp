// SPDX-License-Identifier: GPL-3.0-or-later
// `handsim-cli mesh` end to end on the shipped 5 cm cube: 12 triangles, 8 vertices, area
// 6 * 0.05^2 = 0.015 m^2, volume 0.05^3 = 1.25e-4 m^3, box +-0.025 m.
#include <gtest/gtest.h>
#include <unistd.h>

#include <sys/wait.h>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include "../support/cli_run.hpp"

namespace {

struct CliResult {
  int status = -1;
  std::string out;
};

CliResult run(const std::string& args) {
  const auto r = handsim::test::runCli(args);
  return {r.code, r.out + r.err};
}

const std::string kCube = std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/cube.wrl";

TEST(CmdMesh, CubeNumbers) {
  const CliResult r = run("mesh " + kCube);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["triangles"], 12);
  EXPECT_EQ(j["vertices"], 8);
  EXPECT_NEAR(j["area"].get<double>(), 0.015, 1e-15);
  EXPECT_NEAR(j["volume"].get<double>(), 1.25e-4, 1e-18);
  EXPECT_TRUE(j["watertight"].get<bool>());
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(j["aabb"]["min"][k].get<double>(), -0.025, 1e-15);
    EXPECT_NEAR(j["aabb"]["max"][k].get<double>(), 0.025, 1e-15);
  }
  EXPECT_TRUE(j["warnings"].empty());
}

TEST(CmdMesh, ScaleOption) {
  const CliResult r = run("mesh " + kCube + " --scale 2");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["volume"].get<double>(), 1e-3, 1e-15);  // (0.1 m)^3
}

TEST(CmdMesh, OpenMeshHasNullVolume) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("handsim_cmd_mesh_cone_" + std::to_string(getpid()) + ".wrl");
  std::ofstream(path) << "#VRML V2.0 utf8\nShape { geometry Cone { bottom FALSE } }\n";
  const CliResult r = run("mesh " + path.string() + " --segments 8");
  std::filesystem::remove(path);
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["triangles"], 8);
  EXPECT_TRUE(j["volume"].is_null());
  EXPECT_FALSE(j["watertight"].get<bool>());
}

TEST(CmdMesh, BadInputExitsTwoWithLocation) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("handsim_cmd_mesh_bad_" + std::to_string(getpid()) + ".wrl");
  std::ofstream(path) << "#VRML V2.0 utf8\nShape {\n  geometry Box { size 1 2 }\n}\n";
  const CliResult r = run("mesh " + path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find(path.string() + ":3:23:"), std::string::npos) << r.out;
  EXPECT_EQ(run("mesh").status, 2);
  EXPECT_EQ(run("mesh " + kCube + " --segments 2").status, 2);
  EXPECT_EQ(run("mesh " + kCube + " --bogus").status, 2);
}

TEST(CmdMesh, Help) {
  const CliResult r = run("mesh --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--scale"), std::string::npos);
}

}  // namespace
