// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/formats/hand_loader.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <string>

#include "handsim/io/atomic_file.hpp"
#include "handsim/io/input_error.hpp"

using namespace handsim;
using namespace handsim::hand;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;

// A small valid hand; tests break one thing at a time.
std::string validHand() {
  return R"({
  "format": "handsim-hand", "version": 1, "id": "t",
  "fingers": [
    {"name": "F1",
     "joints": [
       {"name": "J1", "type": "revolute", "a_m": 0.05, "limits_deg": [0, 90],
        "inertial": {"mass_kg": 0.1, "com_m": [-0.025, 0, 0], "rod_radius_m": 0.01}},
       {"name": "J2", "type": "revolute", "a_m": 0.03, "limits_deg": [0, 90]}
     ]}
  ]
})";
}

void expectError(const std::string& text, int line, const std::string& pointer,
                 const std::string& phrase) {
  try {
    parseHandFile(text, "bad_hand.json");
    FAIL() << "expected an InputError containing '" << phrase << "'";
  } catch (const io::InputError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.location().file, "bad_hand.json") << msg;
    EXPECT_EQ(e.location().line, line) << msg;
    EXPECT_EQ(e.location().field, pointer) << msg;
    EXPECT_NE(msg.find(phrase), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("bad_hand.json:" + std::to_string(line) + ":", 0), 0u) << msg;
  }
}

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return s.replace(pos, from.size(), to);
}
}  // namespace

TEST(HandLoader, ValidHandLoadsWithDirectActuators) {
  const HandModel m = parseHandFile(validHand(), "t.json");
  ASSERT_EQ(m.fingers.size(), 1u);
  EXPECT_EQ(m.fingers[0].dof(), 2);
  EXPECT_NEAR(m.fingers[0].rows[0].upper, 90 * kDeg, 1e-15);
  // No actuators given: each movable joint gets a direct one named after it.
  ASSERT_EQ(m.actuators.size(), 2u);
  EXPECT_EQ(m.actuators[1].name, "F1.J2");
  EXPECT_EQ(m.actuators[1].unit, "rad");
  // Rod inertia about the frame origin: I_com + parallel axis, worked by hand.
  const double mass = 0.1, r = 0.01, len = 0.05;
  const double iyy_com = mass * (3 * r * r + len * len) / 12.0;
  EXPECT_NEAR(m.fingers[0].links[0].inertia(1, 1), iyy_com + mass * len * len / 4, 1e-15);
  EXPECT_NEAR(m.fingers[0].links[0].inertia(0, 0), mass * r * r / 2, 1e-15);
}

TEST(HandLoader, ErrorsNameFileLineAndField) {
  const std::string ok = validHand();
  expectError(replaced(ok, "\"a_m\": 0.03", "\"a_mm\": 0.03"), 8, "/fingers/0/joints/1/a_mm",
              "unknown field 'a_mm'");
  expectError(replaced(ok, "\"limits_deg\": [0, 90]}", "\"limits_deg\": [90, 0]}"), 8,
              "/fingers/0/joints/1/limits_deg", "lower limit is greater");
  try {
    parseHandFile(replaced(ok, "\"a_m\": 0.03", "\"a_m\": 1e999"), "bad_hand.json");
    FAIL();
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().line, 8) << e.what();
    EXPECT_NE(std::string(e.what()).find("finite"), std::string::npos) << e.what();
  }
  expectError(replaced(ok, "\"a_m\": 0.03", "\"a_m\": \"NaN\""), 8, "/fingers/0/joints/1/a_m",
              "cannot read 'NaN'");
  expectError(replaced(ok, "\"type\": \"revolute\", \"a_m\": 0.05",
                       "\"type\": \"spherical\", \"a_m\": 0.05"),
              6, "/fingers/0/joints/0/type", "expected \"revolute\"");
  expectError(replaced(ok, "\"mass_kg\": 0.1", "\"mass_kg\": -0.1"), 7,
              "/fingers/0/joints/0/inertial/mass_kg", "negative");
  expectError(replaced(ok, "\"id\": \"t\",", ""), 1, "", "missing required field 'id'");
  // Syntax error: a missing comma on line 8 is reported where the parser stops.
  try {
    parseHandFile(replaced(ok, "\"a_m\": 0.03,", "\"a_m\": 0.03"), "bad_hand.json");
    FAIL();
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().line, 8) << e.what();
    EXPECT_NE(std::string(e.what()).find("invalid JSON"), std::string::npos);
  }
}

TEST(HandLoader, RejectsInertiaThatIsNotPositiveDefinite) {
  std::string text = replaced(validHand(), "\"rod_radius_m\": 0.01",
                              "\"inertia_kgm2\": [1e-5, 0, 0, 1e-5, 0, -1e-5]");
  expectError(text, 7, "/fingers/0/joints/0/inertial/inertia_kgm2", "not positive definite");
  // Triangle inequality: Izz > Ixx + Iyy is impossible for a real body.
  text = replaced(validHand(), "\"rod_radius_m\": 0.01",
                  "\"inertia_kgm2\": [1e-5, 0, 0, 1e-5, 0, 3e-5]");
  expectError(text, 7, "/fingers/0/joints/0/inertial/inertia_kgm2", "triangle inequality");
}

TEST(HandLoader, ShippedHandsLoad) {
  const auto ids = builtinHandIds();
  for (const char* id : {"anthro20", "barrett", "dexterous3"})
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
  for (const auto& id : ids) EXPECT_NO_THROW(loadHand(id)) << id;
  EXPECT_THROW(loadHand("no-such-hand"), io::InputError);
}

TEST(HandLoader, BarrettMatchesSeed000Tables) {
  const HandModel m = loadHand("barrett");
  ASSERT_EQ(m.fingers.size(), 3u);
  EXPECT_EQ(m.fingers[0].dof(), 3);
  EXPECT_EQ(m.fingers[2].dof(), 2);  // finger 3 has no spread (r = 0)
  ASSERT_EQ(m.actuators.size(), 4u);
  ASSERT_EQ(m.clutches.size(), 3u);
  for (const auto& f : m.fingers) {
    EXPECT_DOUBLE_EQ(f.rows[0].a, 0.050);
    EXPECT_DOUBLE_EQ(f.rows[1].a, 0.070);
    EXPECT_DOUBLE_EQ(f.rows[2].a, 0.056);
    EXPECT_NEAR(f.rows[0].alpha, 90 * kDeg, 1e-15);
    EXPECT_NEAR(f.rows[1].theta, 2.46 * kDeg, 1e-15);
    EXPECT_NEAR(f.rows[2].theta, 50 * kDeg, 1e-15);
    EXPECT_DOUBLE_EQ(f.links[2].mass, 0.03421781);
  }
  // Table III link 1, read as products of inertia about the origin of {k1}: tensor entry
  // (x, y) is -I1xy.
  EXPECT_DOUBLE_EQ(m.fingers[0].links[0].inertia(0, 1), -0.0000572);
  EXPECT_DOUBLE_EQ(m.fingers[0].links[0].inertia(0, 0), 0.0000658);
  // Every link's tensor about the origin is positive definite.
  for (const auto& f : m.fingers)
    for (const auto& l : f.links)
      EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(l.inertia).eigenvalues().minCoeff(),
                0.0);
}

// docs/design.md section 4: reading Table III's off-diagonals as tensor entries makes link 1 unphysical.
TEST(HandLoader, TheOtherInertiaReadingIsRejectedForBarrettLink1) {
  const std::string text = R"({"format": "handsim-hand", "version": 1, "id": "t",
  "fingers": [{"name": "F", "joints": [{"name": "J", "a_m": 0.05, "alpha_deg": 90,
    "limits_deg": [0, 90],
    "inertial": {"mass_kg": 0.16252678, "com_m": [-0.01798334, -0.01569925, 0.00086502],
      "inertia_kgm2": [0.0000658, 0.0000572, -0.0000011, 0.0001310, -0.0000013, 0.0001808],
      "inertia_about": "frame_origin", "off_diagonal": "tensor"}}]}]})";
  EXPECT_THROW(parseHandFile(text, "t.json"), io::InputError);
  std::string products = text;
  products.replace(products.find("\"tensor\""), 8, "\"products\"");
  EXPECT_NO_THROW(parseHandFile(products, "t.json"));
}

TEST(HandLoader, Anthro20PosesAreSeed001Tables) {
  const HandModel m = loadHand("anthro20");
  ASSERT_EQ(m.fingers.size(), 5u);
  EXPECT_EQ(m.totalDof(), 22);  // 5 x 4 joints + thumb slot and arc
  const NamedPose* cup = m.pose("cup grasp");
  ASSERT_NE(cup, nullptr);
  // Table 3, columns thumb, index, middle, ring, little; thumb has slot and arc first.
  const double table3[4][5] = {
      {89, 0, 0, 83, 82}, {0, 0, 0, 0, 0}, {0, 84, 82, 88, 88}, {32, 77, 78, 55, 50}};
  for (int f = 0; f < 5; ++f) {
    const int first = f == 0 ? 2 : 0;
    for (int r = 0; r < 4; ++r)
      EXPECT_NEAR(cup->q[static_cast<std::size_t>(f)][static_cast<std::size_t>(first + r)],
                  table3[r][f] * kDeg, 1e-12);
  }
  const NamedPose* v = m.pose("victory");
  ASSERT_NE(v, nullptr);
  EXPECT_NEAR(v->q[1][1], -15 * kDeg, 1e-12);  // index abducts opposite the middle finger
  EXPECT_NEAR(v->q[2][1], 15 * kDeg, 1e-12);
  EXPECT_NE(m.pose("victory (seed table)"), nullptr);
}

TEST(HandLoader, GraspKeyNamesTheClosingActuatorsAndTendons) {
  const HandModel none = parseHandFile(validHand(), "t.json");
  EXPECT_TRUE(none.closing_actuators.empty());
  EXPECT_TRUE(none.closing_tendons.empty());
  const std::string with = replaced(validHand(), "\"id\": \"t\",",
                                    "\"id\": \"t\", \"grasp\": {\"closing_actuators\": "
                                    "[\"F1.J2\", \"F1.J1\"], \"closing_tendons\": []},");
  const HandModel m = parseHandFile(with, "t.json");
  EXPECT_EQ(m.closing_actuators,
            (std::vector<int>{m.actuatorIndex("F1.J2"), m.actuatorIndex("F1.J1")}));
  EXPECT_TRUE(m.closing_tendons.empty());

  // The shipped hands name what the GUI's Auto Grasp closed before the key existed.
  const HandModel barrett = loadHand("barrett");
  EXPECT_EQ(barrett.closing_actuators,
            (std::vector<int>{barrett.actuatorIndex("M1"), barrett.actuatorIndex("M2"),
                              barrett.actuatorIndex("M3")}));
  const HandModel kthand = loadHand("kthand");
  EXPECT_TRUE(kthand.closing_actuators.empty());
  EXPECT_EQ(kthand.closing_tendons,
            (std::vector<int>{kthand.tendonIndex("T_thumb"), kthand.tendonIndex("T_index"),
                              kthand.tendonIndex("T_middle")}));
  // dexterous3 closes J2 and J3 of every finger, anthro20 its flexions J1 (MCP), J3 and J4
  // (its J2 is the MCP abduction).
  for (const auto& [id, joints] :
       std::vector<std::pair<const char*, std::vector<const char*>>>{
           {"dexterous3", {"J2", "J3"}}, {"anthro20", {"J1", "J3", "J4"}}}) {
    const HandModel h = loadHand(id);
    std::vector<int> expected;
    for (const auto& chain : h.fingers)
      for (const char* joint : joints) expected.push_back(h.actuatorIndex(chain.name + "." + joint));
    EXPECT_EQ(h.closing_actuators, expected) << id;
  }
}

TEST(HandLoader, GraspKeyErrorsAreLocated) {
  const std::string head = "\"id\": \"t\",";
  expectError(replaced(validHand(), head,
                       "\"id\": \"t\",\n\"grasp\": {\"closing_actuators\": [\"F1.J2\", \"M9\"]},"),
              3, "/grasp/closing_actuators/1", "no actuator named 'M9'");
  expectError(
      replaced(validHand(), head, "\"id\": \"t\",\n\"grasp\": {\"closing_tendons\": [\"T1\"]},"), 3,
      "/grasp/closing_tendons/0", "no tendon named 'T1'");
  expectError(replaced(validHand(), head, "\"id\": \"t\",\n\"grasp\": {\"closing_motors\": []},"),
              3, "/grasp/closing_motors", "closing_motors");
  expectError(
      replaced(validHand(), head,
               "\"id\": \"t\",\n\"grasp\": {\"closing_actuators\": [\"F1.J2\", \"F1.J2\"]},"),
      3, "/grasp/closing_actuators/1", "listed twice");
  try {
    parseHandFile(replaced(validHand(), head,
                           "\"id\": \"t\",\n\"grasp\": {\"closing_actuators\": [\"M9\"]},"),
                  "bad_hand.json");
    FAIL() << "no exception";
  } catch (const io::InputError& e) {
    EXPECT_GT(e.location().column, 0) << e.what();
  }
  // A tendon's joint has a passive actuator; the tendon is what closes it.
  const std::string kthand = io::readFile(assetDirectory() + "/hands/kthand.json");
  try {
    parseHandFile(
        replaced(kthand, "\"closing_actuators\": []", "\"closing_actuators\": [\"index.J2\"]"),
        "kthand.json");
    FAIL() << "no exception";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().field, "/grasp/closing_actuators/0") << e.what();
    EXPECT_NE(std::string(e.what()).find("closing_tendons"), std::string::npos) << e.what();
  }
}

TEST(HandLoader, ApproachAndVisualMeshesAreReadAndChecked) {
  const std::string head = "\"id\": \"t\",";
  // Defaults: +z out of the palm, through the mean of the finger bases (here the origin).
  const HandModel plain = parseHandFile(validHand(), "t.json");
  EXPECT_EQ(plain.approach_palm, Eigen::Vector3d::UnitZ());
  EXPECT_EQ(plain.approach_origin_palm, Eigen::Vector3d::Zero());
  EXPECT_EQ(plain.link_visual_meshes.size(), 1u);
  EXPECT_EQ(plain.link_visual_meshes[0], (std::vector<std::string>{"", ""}));
  const HandModel m = parseHandFile(
      replaced(replaced(validHand(), head,
                        "\"id\": \"t\", \"grasp\": {\"approach_palm\": [0, 3, 4], "
                        "\"approach_origin_palm_m\": [0.01, \"1/50\", 0]},"),
               "\"a_m\": 0.03,", "\"a_m\": 0.03, \"mesh\": \"l.wrl\", \"visual_mesh\": \"v.wrl\","),
      "/hands/t.json");
  EXPECT_TRUE(m.approach_palm.isApprox(Eigen::Vector3d(0, 0.6, 0.8), 1e-15));
  EXPECT_TRUE(m.approach_origin_palm.isApprox(Eigen::Vector3d(0.01, 0.02, 0), 1e-15));
  EXPECT_EQ(m.link_meshes[0][1], "/hands/l.wrl");
  EXPECT_EQ(m.link_visual_meshes[0][1], "/hands/v.wrl");
  expectError(replaced(validHand(), head, "\"id\": \"t\",\n\"grasp\": {\"approach_palm\": [0, 0, 0]},"),
              3, "/grasp/approach_palm", "must not be zero");
  expectError(replaced(validHand(), head, "\"id\": \"t\",\n\"grasp\": {\"approach_palm\": [0, 1]},"),
              3, "/grasp/approach_palm", "expected 3 numbers");
  expectError(replaced(validHand(), head,
                       "\"id\": \"t\",\n\"grasp\": {\"approach_origin_palm_m\": [0, 1, \"x\"]},"),
              3, "/grasp/approach_origin_palm_m/2", "");
  // Every shipped hand approaches out of its palm; the BarrettHand and anthro20 draw their
  // visual meshes, which exist.
  for (const std::string& id : builtinHandIds())
    EXPECT_EQ(loadHand(id).approach_palm, Eigen::Vector3d::UnitZ()) << id;
  for (const char* id : {"barrett", "anthro20"}) {
    const HandModel h = loadHand(id);
    EXPECT_FALSE(h.palm_visual_mesh.empty()) << id;
    for (const auto& finger : h.link_visual_meshes)
      for (const std::string& path : finger)
        EXPECT_TRUE(path.empty() || io::readFile(path).rfind("#VRML V2.0", 0) == 0) << path;
  }
}
