// SPDX-License-Identifier: GPL-3.0-or-later
// End-to-end tests of handsim-cli: run the built binary, parse its JSON, compare with numbers
// worked out here or with the core library.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../support/cli_run.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "handsim/formats/hand_loader.hpp"

using nlohmann::json;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;

using Result = handsim::test::CliRun;
using handsim::test::runCli;

Result cli(const std::string& arguments) {
  return runCli(arguments);
}

std::string asset(const std::string& rel) {
  return std::string(HANDSIM_SOURCE_DIR) + "/assets/" + rel;
}
}  // namespace

TEST(Cli, HandsListsTheShippedHands) {
  const Result r = cli("hands");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  bool found = false;
  for (const auto& h : j["hands"]) {
    if (h["id"] != "barrett") continue;
    found = true;
    EXPECT_EQ(h["fingers"].size(), 3u);
    EXPECT_EQ(h["joints"], 8);
    EXPECT_EQ(h["actuators"].size(), 4u);
    EXPECT_EQ(h["clutches"].size(), 3u);
  }
  EXPECT_TRUE(found);
}

// At zero counts finger 3 lies in the y-z plane of the palm: its base is 84 mm up the palm
// axis, turned 90 deg, and the DH offsets Phi2 = 2.46 deg, Phi3 = 50 deg bend it.
TEST(Cli, FkFromCountsMatchesHandWorkedBarrettPose) {
  const Result r = cli("fk --hand barrett --counts 0,0,0,0");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  const auto& f3 = j["fingers"][2];
  EXPECT_EQ(f3["name"], "F3");
  const double t2 = 2.46 * kDeg, t23 = t2 + 50 * kDeg;
  const double radial = 0.050 + 0.070 * std::cos(t2) + 0.056 * std::cos(t23);
  const double up = 0.070 * std::sin(t2) + 0.056 * std::sin(t23);
  EXPECT_NEAR(f3["tip_local"][0].get<double>(), radial, 1e-12);
  EXPECT_NEAR(f3["tip_local"][1].get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(f3["tip_local"][2].get<double>(), up, 1e-12);
  EXPECT_NEAR(f3["tip"][0].get<double>(), 0.0, 1e-12);
  EXPECT_NEAR(f3["tip"][1].get<double>(), radial, 1e-12);
  EXPECT_NEAR(f3["tip"][2].get<double>(), 0.084 + up, 1e-12);
  EXPECT_EQ(f3["frames"].size(), 4u);
  EXPECT_EQ(f3["frames"][3].size(), 16u);
  EXPECT_NEAR(f3["frames"][3][3].get<double>(), 0.0, 1e-12);  // row-major: (0,3) = x
  EXPECT_NEAR(f3["frames"][3][7].get<double>(), radial, 1e-12);
  EXPECT_TRUE(j["warnings"].empty());
}

TEST(Cli, FkReportsClampedCountsAndBadInput) {
  Result r = cli("fk --hand barrett --counts 20000,0,0,0");
  ASSERT_EQ(r.code, 0);
  const json j = json::parse(r.out);
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_NEAR(j["fingers"][0]["q"][1].get<double>(), 140 * kDeg, 1e-12);
  r = cli("fk --hand barrett --q 1,2,3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("has 8 joints, got 3"), std::string::npos) << r.err;
  r = cli("fk --hand barrett --q 0,0,0,0,0,0,0,nan");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not a"), std::string::npos) << r.err;
  r = cli("fk --hand nosuchhand --q 0");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("known: "), std::string::npos) << r.err;
  r = cli("fk --bogus");
  EXPECT_EQ(r.code, 2);
}

TEST(Cli, IkRoundTripsThroughFk) {
  const Result fk = cli("fk --hand barrett --q -20,60,30,10,70,40,50,20 --deg");
  ASSERT_EQ(fk.code, 0) << fk.err;
  const json f = json::parse(fk.out);
  const auto& tip = f["fingers"][1]["tip_local"];
  std::ostringstream target;
  target.precision(17);
  target << tip[0].get<double>() << "," << tip[1].get<double>() << "," << tip[2].get<double>();
  const Result ik = cli("ik --hand barrett --finger F2 --target " + target.str());
  ASSERT_EQ(ik.code, 0) << ik.err;
  const json j = json::parse(ik.out);
  EXPECT_LT(j["residual"].get<double>(), 1e-9);
  EXPECT_NEAR(j["q"][0].get<double>(), 10 * kDeg, 1e-9);
  EXPECT_NEAR(j["q"][1].get<double>(), 70 * kDeg, 1e-9);
  EXPECT_NEAR(j["q"][2].get<double>(), 40 * kDeg, 1e-9);
}

TEST(Cli, IkUnreachableExitsWith3AndTheMiss) {
  const Result r = cli("ik --hand dexterous3 --finger F1 --target 0.1,0.05 --phi 90 --deg");
  EXPECT_EQ(r.code, 3);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["error"], "unreachable");
  EXPECT_NEAR(j["miss"].get<double>(), std::hypot(0.1, 0.02) - 0.1, 1e-12);
  EXPECT_FALSE(j["message"].get<std::string>().empty());
}

TEST(Cli, DynamicsMatchesNewtonEuler) {
  const Result r =
      cli("dynamics --hand barrett --finger F1 --q -0.3,0.8,0.4 --qd 0.5,-1,2 --qdd 3,1,-2 "
          "--gravity 0,0,-9.81");
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  const auto hand = handsim::hand::loadHand("barrett");
  const auto tau = handsim::dynamics::inverseDynamicsNewtonEuler(
      hand.fingers[0], Eigen::Vector3d(-0.3, 0.8, 0.4), Eigen::Vector3d(0.5, -1, 2),
      Eigen::Vector3d(3, 1, -2), Eigen::Vector3d(0, 0, -9.81));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(j["tau"][i].get<double>(), tau[i], 1e-12);
  EXPECT_EQ(j["D"].size(), 3u);
  EXPECT_NEAR(j["D"][0][1].get<double>(), j["D"][1][0].get<double>(), 1e-15);
}

TEST(Cli, SimulateWritesCsvAndReportsBadScenarios) {
  const std::string csv = ::testing::TempDir() + "/handsim_free.csv";
  const Result r =
      cli("simulate " + asset("scenarios/barrett_close_free.json") + " --quiet --csv " + csv);
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["steps"], 3000);
  std::ifstream in(csv);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("time,F1.J1.angle,", 0), 0u) << header;
  EXPECT_NE(header.find("F3.J2.torque"), std::string::npos);
  // Columns of finger 3's inner joint and its motor's reference.
  std::vector<std::string> names;
  {
    std::stringstream h(header);
    std::string name;
    while (std::getline(h, name, ',')) names.push_back(name);
  }
  auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return std::size_t{0};
  };
  const std::size_t angle = column("F3.J2.angle"), reference = column("M3.reference");
  int rows = 0;
  std::string line;
  while (std::getline(in, line)) {
    ++rows;
    // Until the fingers meet (1.97 s), the inner joint follows its motor's reference: 14000
    // counts close it to 112 deg, 0.008 deg per count (servo sag < 1 deg).
    if (rows == 1901) {  // t = 1.9 s
      std::vector<double> v;
      std::stringstream l(line);
      std::string cell;
      while (std::getline(l, cell, ',')) v.push_back(std::stod(cell));
      EXPECT_NEAR(v[angle], v[reference] * 0.008 * kDeg, 1 * kDeg);
    }
  }
  EXPECT_EQ(rows, 3001);
  // Then they meet (docs/free-objects.md, link-link contacts): fingers 1 and 2 stop short of
  // their 112 deg.
  EXPECT_LT(j["final"]["fingers"][0]["q"][1].get<double>(), 100 * kDeg);
  EXPECT_LT(j["final"]["fingers"][1]["q"][1].get<double>(), 100 * kDeg);

  const std::string bad = ::testing::TempDir() + "/handsim_bad_scenario.json";
  std::ofstream(bad) << "{\"format\": \"handsim-scenario\", \"version\": 1,\n"
                        " \"hand\": \"barrett\", \"duration_s\": 1,\n"
                        " \"trajectories\": [{\"actuator\": \"M9\", \"segments\": []}]}\n";
  const Result b = cli("simulate " + bad);
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find(bad + ":3:"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("no actuator named 'M9'"), std::string::npos) << b.err;
}

// Two 5 cm cubes, B shifted by (40, 10, 0) mm: they overlap in x in [15, 25] mm,
// y in [-15, 25] mm, all of z; the intersection curve's bounding box is centred at
// (20, 5, 0) mm. B 65 mm away and turned 45 deg does not touch A.
TEST(Cli, CollideTwoCubes) {
  const std::string cube = asset("objects/cube.wrl");
  Result r = cli("collide " + cube + " " + cube + " --pose-b 0.04,0.01,0,0,0,0");
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_TRUE(j["colliding"]);
  EXPECT_GT(j["triangle_pairs"].get<int>(), 0);
  ASSERT_EQ(j["contacts"].size(), 1u);
  EXPECT_NEAR(j["contacts"][0]["point"][0].get<double>(), 0.020, 1e-12);
  EXPECT_NEAR(j["contacts"][0]["point"][1].get<double>(), 0.005, 1e-12);
  EXPECT_NEAR(j["contacts"][0]["point"][2].get<double>(), 0.0, 1e-12);
  // The normal points out of B, i.e. towards -x and -y here.
  EXPECT_LT(j["contacts"][0]["normal"][0].get<double>(), 0.0);
  r = cli("collide " + cube + " " + cube + " --pose-b 0.065,0,0,0,0,45 --deg --k 26");
  ASSERT_EQ(r.code, 0) << r.err;
  j = json::parse(r.out);
  // Turned 45 deg about z, B reaches 25 sqrt(2) = 35.4 mm towards A: 65 - 35.4 > 25 mm.
  EXPECT_FALSE(j["colliding"]);
  EXPECT_EQ(cli("collide " + cube + " --k 18").code, 2);
  EXPECT_EQ(cli("collide " + cube + " " + cube + " --k 20").code, 2);
}

TEST(Cli, EveryCommandHasHelp) {
  for (const char* c : {"hands", "fk", "ik", "dynamics", "simulate", "collide", "mesh", "grasp",
                        "sweep", "workspace"}) {
    const Result r = cli(std::string(c) + " --help");
    EXPECT_EQ(r.code, 0) << c;
    EXPECT_NE(r.out.find("usage: handsim-cli"), std::string::npos) << c;
  }
  EXPECT_EQ(cli("--help").code, 0);
  EXPECT_EQ(cli("nosuchcommand").code, 2);
}
