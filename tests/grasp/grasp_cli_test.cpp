// SPDX-License-Identifier: GPL-3.0-or-later
// `handsim-cli grasp` end to end: run the built binary on files written here, parse its JSON
// and compare with the library; the contacts file reader's located errors.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/cli_run.hpp"
#include "handsim/grasp/grasp_input.hpp"
#include "handsim/grasp/grasp_quality.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::grasp {
namespace {

using nlohmann::json;

using handsim::test::CliRun;

std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + "/handsim_grasp_" + std::to_string(getpid()) + "_" + name;
}

CliRun runCli(const std::string& arguments) {
  return handsim::test::runCli("grasp " + arguments);
}

std::string writeFile(const std::string& name, const std::string& text) {
  const std::string path = tempPath(name);
  std::ofstream(path) << text;
  return path;
}

// Three contacts at 0, 120, 240 degrees on the equator of a sphere of radius 0.04 m centred
// at (0.1, 0, 0.2); normals point INTO the object, as everywhere in handsim.
const char* kThreeFingers = R"({
  "contacts": [
    {"point": [0.14, 0.0, 0.2], "normal_into_object": [-1, 0, 0], "friction": 0.5},
    {"point": [0.08, 0.034641016151377546, 0.2], "normal_into_object": [0.5, -0.8660254037844386, 0],
     "friction": 0.5},
    {"point": [0.08, -0.034641016151377546, 0.2], "normal_into_object": [0.5, 0.8660254037844386, 0],
     "friction": 0.5}
  ],
  "object_centre": [0.1, 0.0, 0.2],
  "torque_radius_m": 0.04
})";

TEST(GraspCli, PrintsTheLibraryResult) {
  const std::string path = writeFile("three.json", kThreeFingers);
  const CliRun r = runCli(path);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;  // qhull must not print
  const json j = json::parse(r.out);
  const GraspInput in = loadGraspInput(path);
  const GraspQuality q = evaluateGrasp(in.contacts, in.options);
  ASSERT_TRUE(q.force_closure);
  EXPECT_EQ(j.at("force_closure").get<bool>(), true);
  EXPECT_DOUBLE_EQ(j.at("epsilon").get<double>(), q.epsilon);
  EXPECT_DOUBLE_EQ(j.at("volume").get<double>(), q.volume);
  EXPECT_EQ(j.at("facets").get<int>(), q.hull_facets);
  EXPECT_EQ(j.at("note").get<std::string>(), "");
  EXPECT_EQ(j.at("weakest_direction").size(), 6u);
  // The file's contacts are those of the unit-sphere case scaled by 0.04 about the centre,
  // with lambda = 0.04: every wrench, hence epsilon, equals the unit case's.
  std::vector<GraspContact> unit;
  for (const auto& c : in.contacts)
    unit.push_back({(c.point - in.options.torque_reference) / 0.04, c.normal, c.friction});
  EXPECT_NEAR(j.at("epsilon").get<double>(), evaluateGrasp(unit, {}).epsilon, 1e-12);

  // --edges and --radius override the file.
  const CliRun r4 = runCli(path + " --edges 4 --radius 0.08");
  ASSERT_EQ(r4.code, 0) << r4.err;
  GraspQualityOptions o = in.options;
  o.cone_edges = 4;
  o.torque_radius = 0.08;
  EXPECT_DOUBLE_EQ(json::parse(r4.out).at("epsilon").get<double>(),
                   evaluateGrasp(in.contacts, o).epsilon);
}

TEST(GraspCli, FileNormalsPointIntoTheObject) {
  const GraspInput in = parseGraspInput(kThreeFingers, "three.json");
  ASSERT_EQ(in.contacts.size(), 3u);
  EXPECT_EQ(in.contacts[0].normal, Eigen::Vector3d(-1, 0, 0));
  EXPECT_EQ(in.options.cone_edges, 8);
  EXPECT_EQ(in.options.torque_radius, 0.04);
  EXPECT_EQ(in.options.torque_reference, Eigen::Vector3d(0.1, 0.0, 0.2));
}

// A file of an earlier version ("normal", out of the object) is refused with the fix, never
// read inside out.
TEST(GraspCli, TheOldOutwardNormalKeyIsRefusedWithTheFix) {
  try {
    parseGraspInput(R"({"contacts": [
    {"point": [0, 0, 1], "normal": [0, 0, 1], "friction": 0.4}],
    "object_centre": [0, 0, 0], "torque_radius_m": 1})",
                    "old.json");
    FAIL() << "the old key was read";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().line, 2);
    EXPECT_NE(std::string(e.what()).find("normal_into_object"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/contacts/0/normal"), std::string::npos) << e.what();
  }
}

TEST(GraspCli, DegenerateGraspIsReportedNotFailed) {
  const CliRun r = runCli(writeFile("one.json", R"({"contacts": [
    {"point": [0, 0, 1], "normal_into_object": [0, 0, -1], "friction": 0.4}],
    "object_centre": [0, 0, 0], "torque_radius_m": 1})"));
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_FALSE(j.at("force_closure").get<bool>());
  EXPECT_EQ(j.at("epsilon").get<double>(), 0.0);
  EXPECT_NE(j.at("note").get<std::string>(), "");
}

TEST(GraspCli, QhullNeverPrints) {
  // Numerically 6-D but 1e-9 thin in tau_x: qhull either fails on it or builds a sliver;
  // either way the command must answer in JSON and keep the terminal clean.
  const CliRun r = runCli(writeFile("thin.json", R"({"contacts": [
    {"point": [1, 0, 0], "normal_into_object": [-1, 0, 0], "friction": 0.5},
    {"point": [-1, 0, 0], "normal_into_object": [1, 0, 0], "friction": 0.5},
    {"point": [0, 1, 0], "normal_into_object": [0, -1, 1e-9], "friction": 0}],
    "object_centre": [0, 0, 0], "torque_radius_m": 1})"));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_FALSE(json::parse(r.out).at("force_closure").get<bool>());
}

TEST(GraspCli, BadInputExitsTwoWithFileAndLine) {
  const std::string path = writeFile("bad.json", R"({"contacts": [
    {"point": [0, 0, 1], "normal_into_object": [0, 0, -1], "friction": -0.4}],
    "object_centre": [0, 0, 0], "torque_radius_m": 1})");
  const CliRun r = runCli(path);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(path + ":2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/contacts/0/friction"), std::string::npos) << r.err;

  EXPECT_EQ(runCli(path + " --edges 2").code, 2);
  EXPECT_EQ(runCli("").code, 2);
  EXPECT_EQ(runCli(tempPath("missing.json")).code, 2);
  const CliRun help = runCli("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("CONTACTS.json"), std::string::npos);
}

TEST(GraspCli, ReaderLocatesErrors) {
  const auto error = [](const std::string& text) {
    try {
      parseGraspInput(text, "g.json");
    } catch (const io::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(R"({"contacts": [], "object_centre": [0, 0], "torque_radius_m": 1})")
                .find("/object_centre"),
            std::string::npos);
  EXPECT_NE(error("{\"contacts\": [],\n \"object_centre\": [0, 0, 0],\n \"torque_radius_m\": 0}")
                .find("g.json:3:"),
            std::string::npos);
  EXPECT_NE(
      error(R"({"contacts": [{"point": [0,0,0], "normal_into_object": [0, 0, -2], "friction": 0}],
                     "object_centre": [0, 0, 0], "torque_radius_m": 1})")
          .find("unit vector"),
      std::string::npos);
  EXPECT_NE(error(R"({"contacts": [], "object_centre": [0, 0, 0], "torque_radius_m": 1,
                     "edges": 4})")
                .find("unknown field"),
            std::string::npos);
}

}  // namespace
}  // namespace handsim::grasp
