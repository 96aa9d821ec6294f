// SPDX-License-Identifier: GPL-3.0-or-later
// End-to-end tests of `handsim-cli workspace` and `handsim-cli pose`: run the built binary and
// compare with numbers worked out here or computed independently through the core library.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/cli_run.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/pose_io.hpp"
#include "handsim/io/atomic_file.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

using nlohmann::json;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;

using Result = handsim::test::CliRun;

std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + "/ws_pose_cli_" + std::to_string(getpid()) + "_" + name;
}

Result cli(const std::string& arguments) {
  return handsim::test::runCli(arguments);
}
}  // namespace

TEST(WorkspaceCli, PlanarFingerFromJ1) {
  const Result r =
      cli("workspace --hand dexterous3 --finger F1 --from-joint J1 --samples 7 "
          "--task planar-position");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["points"], 343);  // 7^3
  // Seed 003 finger within 0-90 deg: reach 50 mm (all at 90 deg) to 130 mm (stretched).
  EXPECT_NEAR(j["reach_m"]["min"].get<double>(), 0.05, 1e-12);
  EXPECT_NEAR(j["reach_m"]["max"].get<double>(), 0.13, 1e-12);
  // Hand-worked box (mm): x = 60 c1 + 40 c12 + 30 c123 is 130 when stretched and at least
  // 0 - 40 - 30 = -70, reached at (90, 90, 0) deg; y = 60 s1 + 40 s12 + 30 s123 is 130 at
  // (90, 0, 0) and 0 when stretched along x; z = 0 (planar).
  EXPECT_NEAR(j["bbox_m"]["min"][0].get<double>(), -0.07, 1e-12);
  EXPECT_NEAR(j["bbox_m"]["max"][0].get<double>(), 0.13, 1e-12);
  EXPECT_NEAR(j["bbox_m"]["min"][1].get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(j["bbox_m"]["max"][1].get<double>(), 0.13, 1e-12);
  EXPECT_NEAR(j["bbox_m"]["max"][2].get<double>(), 0.0, 1e-12);
  // The stretched samples (theta2 = theta3 = 0, any theta1) are singular.
  EXPECT_TRUE(j["condition"]["worst"].is_null());
  EXPECT_EQ(j["condition"]["singular_samples"], 7);
  EXPECT_TRUE(j["condition"]["worst_finite"].is_number());
}

TEST(WorkspaceCli, CsvRowsAreForwardKinematics) {
  const std::string csv = tempPath("ws.csv");
  const Result r = cli("workspace --hand barrett --finger F3 --samples 4 --csv " + csv);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["points"], 16);
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "x,y,z,condition");
  const auto h = handsim::hand::loadHand("barrett");
  const auto& f3 = h.fingers[2];
  int rows = 0;
  while (std::getline(in, line)) {
    // Row i: J2 index i / 4, J3 index i % 4 over [0, 140] deg.
    Eigen::VectorXd q(2);
    q << (rows / 4) * 140.0 / 3 * kDeg, (rows % 4) * 140.0 / 3 * kDeg;
    const Eigen::Vector3d p = handsim::kinematics::fingertipPosition(f3, q);
    double x, y, z;
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf,%lf,%lf", &x, &y, &z), 3) << line;
    EXPECT_LT((Eigen::Vector3d(x, y, z) - p).norm(), 1e-12) << line;
    ++rows;
  }
  EXPECT_EQ(rows, 16);
  std::remove(csv.c_str());
}

TEST(WorkspaceCli, HeldJoints) {
  // F2 = wrist, base, J1, J2, J3: holding the wrist leaves 4^4 grid points.
  Result r = cli("workspace --hand dexterous3 --finger F2 --samples 4 --hold wrist=0");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["points"], 256);
  // Planar finger with J2 held at 0: the tip circles J3 at 100 mm from the J1 axis, so the
  // reach is |100 + 30 e^{i theta3}| mm: sqrt(100^2 + 30^2) = 104.403 at theta3 = 90 deg, and
  // 130 stretched.
  r =
      cli("workspace --hand dexterous3 --finger F2 --from-joint J1 --hold base=90,J2=0 --deg "
          "--samples 5");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["points"], 25);
  EXPECT_NEAR(j["reach_m"]["min"].get<double>(), std::hypot(0.1, 0.03), 1e-12);
  EXPECT_NEAR(j["reach_m"]["max"].get<double>(), 0.13, 1e-12);
  EXPECT_NEAR(j["held"]["base"].get<double>(), 90 * kDeg, 1e-15);
  r = cli("workspace --hand dexterous3 --finger F2 --hold wrist=400 --deg");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("outside the limits of F2.wrist [-180, 180]"), std::string::npos) << r.err;
  r = cli("workspace --hand dexterous3 --finger F2 --hold wrist");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("JOINT=VALUE"), std::string::npos) << r.err;
}

TEST(WorkspaceCli, BadInputExitsTwoNamingTheProblem) {
  Result r = cli("workspace --hand dexterous3 --finger F9");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("F9"), std::string::npos) << r.err;
  r = cli("workspace --hand dexterous3 --finger F1 --samples 1");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--samples"), std::string::npos) << r.err;
  r = cli("workspace --hand dexterous3 --finger F2 --samples 100 --max-points 1000");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("budget"), std::string::npos) << r.err;
  r = cli("workspace --hand dexterous3 --finger F1 --task twist");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--task"), std::string::npos) << r.err;
  r = cli("workspace --hand dexterous3 --finger F1 --from-joint J7");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("J7"), std::string::npos) << r.err;
  r = cli("workspace --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("usage: handsim-cli workspace"), std::string::npos);
}

TEST(PoseCli, SaveReplaceAndList) {
  const std::string out = tempPath("poses.json"), csv = tempPath("poses.csv");
  std::remove(out.c_str());
  const std::string q = "0,60,60,45,0,0,60,60,45,0,-30,60,60,45";
  Result r = cli("pose save --hand dexterous3 --name grip --deg --q " + q + " --out " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["replaced"], false);
  r = cli("pose save --hand dexterous3 --name grip --deg --q " + q + " --out " + out + " --csv " +
          csv);
  ASSERT_EQ(r.code, 0) << r.err;
  const json saved = json::parse(r.out);
  EXPECT_EQ(saved["replaced"], true);
  EXPECT_EQ(saved["count"], 1);
  EXPECT_EQ(saved["entry"]["joints_deg"]["F3"], json::parse("[0, -30, 60, 60, 45]"));
  // Read back through the core library: degrees became radians.
  const auto h = handsim::hand::loadHand("dexterous3");
  const auto poses = handsim::hand::readPoseFile(out, h);
  ASSERT_EQ(poses.size(), 1u);
  EXPECT_NEAR(poses[0].q[2][1], -30 * kDeg, 1e-15);
  const std::string csv_text = handsim::io::readFile(csv);
  EXPECT_EQ(csv_text.substr(0, 20), "pose,F1.wrist,F1.J1,");

  r = cli("pose list --hand dexterous3 --file " + out);
  ASSERT_EQ(r.code, 0) << r.err;
  const json listed = json::parse(r.out);
  ASSERT_EQ(listed["poses"].size(), 3u);  // "open", "power grasp" from the hand file + grip
  EXPECT_EQ(listed["poses"][0]["name"], "open");
  EXPECT_EQ(listed["poses"][1]["name"], "power grasp");
  EXPECT_EQ(listed["poses"][1]["joints_deg"]["F1"], json::parse("[0, 60, 60, 45]"));
  EXPECT_EQ(listed["poses"][2]["source"], out);
  std::remove(out.c_str());
  std::remove(csv.c_str());
}

TEST(PoseCli, BadInputExitsTwoNamingTheProblem) {
  const std::string out = tempPath("bad.json");
  std::remove(out.c_str());
  Result r = cli("pose save --hand dexterous3 --name x --q 0,0 --out " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("14 joints"), std::string::npos) << r.err;
  r = cli("pose save --hand dexterous3 --name x --deg --q 0,95,0,0,0,0,0,0,0,0,0,0,0,0 --out " +
          out);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("F1.J1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("limits"), std::string::npos) << r.err;
  handsim::io::writeFileAtomically(out, "{\"poses\": [\n  {\"name\": 1}]}");
  r = cli("pose list --hand dexterous3 --file " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(out + ":2:"), std::string::npos) << r.err;
  r = cli("pose fly --hand dexterous3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("fly"), std::string::npos) << r.err;
  r = cli("pose save --hand dexterous3 --q 0 --out " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--name"), std::string::npos) << r.err;
  for (const char* help : {"pose --help", "pose save --help", "pose list --help"}) {
    r = cli(help);
    EXPECT_EQ(r.code, 0) << help;
    EXPECT_NE(r.out.find("usage: handsim-cli pose save"), std::string::npos) << help;
  }
  std::remove(out.c_str());
}
