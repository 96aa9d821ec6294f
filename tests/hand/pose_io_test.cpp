// SPDX-License-Identifier: GPL-3.0-or-later
// Pose files and CSV: text worked out here, the hand loader reading what poseToJson writes,
// located errors for malformed files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/pose_io.hpp"
#include "handsim/io/atomic_file.hpp"
#include "handsim/io/input_error.hpp"

using namespace handsim::hand;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;

const HandModel& dexterous3() {
  static const HandModel h = loadHand("dexterous3");
  return h;
}

std::string tempPath(const std::string& name) {
  return ::testing::TempDir() + "/pose_io_" + std::to_string(getpid()) + "_" + name;
}

// dexterous3: F1 = wrist, J1, J2, J3; F2, F3 = wrist, base, J1, J2, J3.
NamedPose grasp(const std::string& name, double j2_deg) {
  return {name,
          {{0.0, 60 * kDeg, j2_deg * kDeg, 45 * kDeg},
           {0.0, 0.0, 60 * kDeg, 60 * kDeg, 45 * kDeg},
           {0.0, -30 * kDeg, 60 * kDeg, 60 * kDeg, 45 * kDeg}}};
}

const char* kGraspJson =
    R"({"name": "grip", "joints_deg": {"F1": [0, 60, 60, 45], "F2": [0, 0, 60, 60, 45], )"
    R"("F3": [0, -30, 60, 60, 45]}})";
}  // namespace

TEST(PoseIo, JsonEntryIsTheHandFileFormat) {
  EXPECT_EQ(poseToJson(dexterous3(), grasp("grip", 60)), kGraspJson);
  // The hand loader reads the entry back to the same radians.
  nlohmann::json hand =
      nlohmann::json::parse(handsim::io::readFile(assetDirectory() + "/hands/dexterous3.json"));
  hand["poses"] = nlohmann::json::array({nlohmann::json::parse(kGraspJson)});
  const HandModel loaded = parseHandFile(hand.dump(), assetDirectory() + "/hands/dexterous3.json");
  ASSERT_NE(loaded.pose("grip"), nullptr);
  const auto want = grasp("grip", 60).q;
  for (std::size_t f = 0; f < want.size(); ++f)
    for (std::size_t j = 0; j < want[f].size(); ++j)
      EXPECT_NEAR(loaded.pose("grip")->q[f][j], want[f][j], 1e-15);
  EXPECT_THROW(poseToJson(dexterous3(), NamedPose{"short", {{0.0}}}), std::invalid_argument);
  EXPECT_THROW(poseToJson(dexterous3(), NamedPose{"", grasp("x", 1).q}), std::invalid_argument);
}

TEST(PoseIo, RoundTripJsonPoseJson) {
  const std::string path = tempPath("roundtrip.json");
  handsim::io::writeFileAtomically(path, std::string("{\"poses\": [") + kGraspJson + "]}");
  const auto poses = readPoseFile(path, dexterous3());
  ASSERT_EQ(poses.size(), 1u);
  EXPECT_EQ(poseToJson(dexterous3(), poses[0]), kGraspJson);
  EXPECT_NEAR(poses[0].q[2][1], -30 * kDeg, 1e-16);
  std::remove(path.c_str());
}

TEST(PoseIo, CsvHeaderAndSiValues) {
  NamedPose odd = grasp("a,\"b\"", 30);
  const std::string csv = posesToCsv(dexterous3(), {grasp("grip", 60), odd});
  std::istringstream in(csv);
  std::string header, row1, row2, extra;
  std::getline(in, header);
  std::getline(in, row1);
  std::getline(in, row2);
  EXPECT_FALSE(std::getline(in, extra));
  EXPECT_EQ(header,
            "pose,F1.wrist,F1.J1,F1.J2,F1.J3,F2.wrist,F2.base,F2.J1,F2.J2,F2.J3,F3.wrist,"
            "F3.base,F3.J1,F3.J2,F3.J3");
  ASSERT_EQ(row1.substr(0, 5), "grip,");
  std::istringstream fields(row1.substr(5));
  std::vector<double> values;
  for (std::string f; std::getline(fields, f, ',');) values.push_back(std::stod(f));
  ASSERT_EQ(values.size(), 14u);
  // Exact round trip of the radians (17 significant digits).
  EXPECT_EQ(values[1], 60 * kDeg);
  EXPECT_EQ(values[3], 45 * kDeg);
  EXPECT_EQ(values[10], -30 * kDeg);
  EXPECT_EQ(row2.substr(0, 10), "\"a,\"\"b\"\"\",");
}

TEST(PoseIo, AppendingTwiceWithTheSameNameReplaces) {
  const std::string path = tempPath("append.json");
  std::remove(path.c_str());
  appendPoseToFile(path, dexterous3(), grasp("grip", 60));
  appendPoseToFile(path, dexterous3(), grasp("pinch", 20));
  appendPoseToFile(path, dexterous3(), grasp("grip", 80));
  const auto poses = readPoseFile(path, dexterous3());
  ASSERT_EQ(poses.size(), 2u);
  EXPECT_EQ(poses[0].name, "grip");  // replaced in place, order kept
  EXPECT_NEAR(poses[0].q[0][2], 80 * kDeg, 1e-15);
  EXPECT_EQ(poses[1].name, "pinch");
  EXPECT_NEAR(poses[1].q[0][2], 20 * kDeg, 1e-15);
  // The file is JSON with the hand id and one entry per line.
  const auto text = handsim::io::readFile(path);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["hand"], "dexterous3");
  EXPECT_EQ(j["poses"].size(), 2u);
  EXPECT_NE(text.find(R"("F1": [0, 60, 80, 45])"), std::string::npos) << text;
  std::remove(path.c_str());
}

TEST(PoseIo, ValuesOutsideTheLimitsAreRejected) {
  const std::string path = tempPath("limits.json");
  std::remove(path.c_str());
  appendPoseToFile(path, dexterous3(), grasp("grip", 60));
  const std::string before = handsim::io::readFile(path);
  try {
    appendPoseToFile(path, dexterous3(), grasp("bad", 95));  // J2 is limited to 0-90 deg
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("F1.J2 = 95 deg"), std::string::npos) << e.what();
  }
  EXPECT_EQ(handsim::io::readFile(path), before);  // untouched

  handsim::io::writeFileAtomically(path,
                                   "{\n  \"poses\": [\n    {\"name\": \"x\",\n"
                                   "     \"joints_deg\": {\"F1\": [0, 91, 0, 0]}}\n  ]\n}\n");
  try {
    readPoseFile(path, dexterous3());
    FAIL() << "no error";
  } catch (const handsim::io::InputError& e) {
    EXPECT_EQ(e.location().line, 4) << e.what();
    EXPECT_EQ(e.location().field, "/poses/0/joints_deg/F1/1");
    EXPECT_NE(std::string(e.what()).find(path + ":4:"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(PoseIo, MalformedFilesGiveFileAndLine) {
  const std::string path = tempPath("malformed.json");
  const auto expectError = [&](const std::string& text, int line, const std::string& what) {
    handsim::io::writeFileAtomically(path, text);
    try {
      readPoseFile(path, dexterous3());
      ADD_FAILURE() << "no error for: " << text;
    } catch (const handsim::io::InputError& e) {
      EXPECT_EQ(e.location().file, path);
      EXPECT_EQ(e.location().line, line) << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expectError("{\n  \"poses\": [\n    {\"name\": \"x\" \"joints\": {}}\n  ]\n}\n", 3, "");
  expectError("{\n  \"poses\": [\n    {\"name\": \"x\", \"joints_deg\": {\"F9\": [1]}}\n]}\n", 3,
              "no finger named 'F9'");
  expectError("{\"poses\": [\n {\"name\": \"x\", \"joints_deg\": {\"F1\": [0, 1]}}]}", 2, "");
  expectError(
      "{\"poses\": [{\"name\": \"x\", \"joints\": {}},\n {\"name\": \"x\", \"joints\": {}}]}", 2,
      "duplicate pose name");
  expectError("{\"hand\": \"barrett\",\n \"poses\": []}", 1, "recorded for hand 'barrett'");
  expectError("{\"poses\": [],\n \"extra\": 1}", 2, "extra");
  std::remove(path.c_str());
  EXPECT_THROW(readPoseFile(path, dexterous3()), handsim::io::InputError);  // missing file
}

TEST(PoseIo, PrismaticJointsStayInMetres) {
  // anthro20's thumb starts with a prismatic slot (0-20 mm) and the arc joint (0-90 deg).
  const HandModel h = loadHand("anthro20");
  ASSERT_EQ(h.fingers[0].name, "thumb");
  NamedPose p{"slot", {}};
  for (const auto& c : h.fingers) p.q.emplace_back(static_cast<std::size_t>(c.dof()), 0.0);
  p.q[0][0] = 0.015;
  p.q[0][1] = 30 * kDeg;
  const std::string entry = poseToJson(h, p);
  EXPECT_EQ(entry.rfind(R"({"name": "slot", "joints_deg": {"thumb": [0.015, 30, 0, 0, 0, 0], )", 0),
            0u)
      << entry;
  const std::string csv = posesToCsv(h, {p});
  EXPECT_EQ(csv.substr(0, 22), "pose,thumb.slot,thumb.");
  const std::string row = csv.substr(csv.find('\n') + 1);
  EXPECT_EQ(row.substr(0, 26), "slot,0.014999999999999999,") << csv;  // 0.015 to 17 digits
  EXPECT_EQ(std::stod(row.substr(26)), p.q[0][1]);
  const std::string path = tempPath("prismatic.json");
  std::remove(path.c_str());
  appendPoseToFile(path, h, p);
  EXPECT_EQ(readPoseFile(path, h)[0].q[0][0], 0.015);
  p.q[0][0] = 0.021;
  EXPECT_THROW(appendPoseToFile(path, h, p), std::invalid_argument);
  std::remove(path.c_str());
}
