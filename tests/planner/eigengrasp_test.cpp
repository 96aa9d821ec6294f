// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/planner/eigengrasp.hpp"

using namespace handsim;

TEST(Eigengrasps, ShippedHandsCarryThem) {
  const hand::HandModel barrett = hand::loadHand("barrett");
  const planner::EigengraspBasis b = planner::eigengraspBasis(barrett);
  ASSERT_EQ(b.size(), 2);
  EXPECT_FALSE(b.computed);
  EXPECT_EQ(b.names[0], "spread");
  // Amplitude 1 of "flex" closes the three finger motors to the ends of their ranges.
  const Eigen::VectorXd p = planner::postureOf(barrett, b, Eigen::Vector2d(0.0, 1.0));
  EXPECT_DOUBLE_EQ(p[0], 17500.0);
  EXPECT_DOUBLE_EQ(p[3], 0.0);
  EXPECT_DOUBLE_EQ(b.lower[1], 0.0);
  EXPECT_DOUBLE_EQ(b.upper[1], 1.0);
  const hand::HandModel anthro = hand::loadHand("anthro20");
  EXPECT_EQ(planner::eigengraspBasis(anthro).size(), 6);
  EXPECT_FALSE(planner::eigengraspBasis(anthro).computed);
  // The other shipped hands: dexterous3 4 (close, flex, spread, wrist), the KTHand 2 (thumb
  // rotation, preshape), the seed-004 grippers 1 or 2.
  for (const auto& [id, n] : std::vector<std::pair<std::string, int>>{{"dexterous3", 4},
                                                                      {"kthand", 2},
                                                                      {"gripper2p", 1},
                                                                      {"gripper2r", 2},
                                                                      {"gripper3r", 2}}) {
    const planner::EigengraspBasis e = planner::eigengraspBasis(hand::loadHand(id));
    EXPECT_EQ(e.size(), n) << id;
    EXPECT_FALSE(e.computed) << id;
  }
  // gripper2r's "wrap" from mid-range (7.5, 45 deg) by (22.5, 45) deg per unit: amplitude 1
  // reaches both upper ends (30, 90 deg), -1 both lower ends (-15, 0 deg).
  const hand::HandModel g2r = hand::loadHand("gripper2r");
  const planner::EigengraspBasis w = planner::eigengraspBasis(g2r);
  EXPECT_NEAR(w.lower[0], -1.0, 1e-5);
  EXPECT_NEAR(w.upper[0], 1.0, 1e-5);
  const Eigen::VectorXd closed = planner::postureOf(g2r, w, Eigen::Vector2d(1.0, 0.0));
  EXPECT_NEAR(closed[0], 30.0 * M_PI / 180.0, 1e-5);
  EXPECT_NEAR(closed[1], M_PI / 2.0, 1e-5);
}

TEST(Eigengrasps, BadKeysAreLocated) {
  const std::string text = R"({"format": "handsim-hand", "version": 1, "id": "t", "name": "t",
    "fingers": [{"name": "F", "joints": [{"name": "J1", "type": "revolute", "a_m": 0.05,
      "limits_deg": [0, 90], "inertial": {"mass_kg": 0.1, "com_m": [0.02, 0, 0],
      "inertia_kgm2": [1e-5, 0, 0, 1e-5, 0, 1e-5]}}]}],
    "eigengrasps": {"origin": {"F.J1": 0}, "directions": [{"actuators": {"F.J9": 1}}]}})";
  try {
    hand::parseHandFile(text, "t.json");
    FAIL() << "accepted an unknown actuator";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().line, 5);
    EXPECT_EQ(e.location().field, "/eigengrasps/directions/0/actuators/F.J9");
  }
}

TEST(Eigengrasps, ComputedOnesAreThePrincipalComponentsOfClosingPostures) {
  // gripper3r without its shipped ones: two actuators ("close", "curl"), both closing.
  hand::HandModel h = hand::loadHand("gripper3r");
  h.eigengrasps.clear();
  h.eigengrasp_origin.clear();
  const planner::EigengraspBasis b = planner::eigengraspBasis(h, 5);
  ASSERT_TRUE(b.computed);
  ASSERT_EQ(b.size(), 2);
  // In range-scaled coordinates the directions are orthonormal.
  Eigen::MatrixXd scaled = b.directions;
  for (Eigen::Index a = 0; a < scaled.rows(); ++a)
    scaled.row(a) /= h.actuators[static_cast<std::size_t>(a)].upper -
                     h.actuators[static_cast<std::size_t>(a)].lower;
  EXPECT_TRUE((scaled.transpose() * scaled).isApprox(Eigen::Matrix2d::Identity(), 1e-9));
  // The closing actuators move together: the first component closes both.
  EXPECT_GT(b.directions(0, 0), 0.0);
  EXPECT_GT(b.directions(1, 0), 0.0);
  // The same seed gives the same basis; postures inside the ranges round-trip.
  const planner::EigengraspBasis again = planner::eigengraspBasis(h, 5);
  EXPECT_EQ(again.directions, b.directions);
  const Eigen::VectorXd p = b.origin + b.directions * Eigen::Vector2d(0.1, -0.05);
  EXPECT_TRUE(planner::postureOf(h, b, planner::amplitudesOf(b, p)).isApprox(p, 1e-12));
  // Saved as a hand-file block, it reads back as the same basis.
  const std::string file = hand::assetDirectory() + "/hands/gripper3r.json";
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, true, true);  // it has comments
  j["eigengrasps"] = nlohmann::json::parse(planner::eigengraspJson(h, b))["eigengrasps"];
  const planner::EigengraspBasis back =
      planner::eigengraspBasis(hand::parseHandFile(j.dump(), file));
  EXPECT_FALSE(back.computed);
  EXPECT_EQ(back.origin, b.origin);
  EXPECT_EQ(back.directions, b.directions);
}

TEST(Eigengrasps, AUrdfSidecarCarriesThemToo) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("handsim_eigengrasp_urdf_" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::copy_file(hand::assetDirectory() + "/hands/urdf/mimic_gripper.urdf", dir / "g.urdf",
                fs::copy_options::overwrite_existing);
  std::ofstream(dir / "g.handsim.json") << R"({"format": "handsim-urdf-sidecar", "version": 1,
    "eigengrasps": {"origin": {"hook_proximal": 0.2},
                    "directions": [{"name": "pinch", "actuators": {"jaw_left": 0.03}},
                                   {"actuators": {"hook_proximal": 1.0}}]}})";
  hand::UrdfOptions opt;
  opt.load_geometry = false;
  const hand::HandModel h = hand::loadUrdfHand((dir / "g.urdf").string(), opt);
  fs::remove_all(dir);
  const planner::EigengraspBasis b = planner::eigengraspBasis(h);
  ASSERT_EQ(b.size(), 2);
  EXPECT_FALSE(b.computed);
  EXPECT_EQ(b.names[1], "E2");
  const int hook = h.actuatorIndex("hook_proximal");
  ASSERT_GE(hook, 0);
  EXPECT_DOUBLE_EQ(b.origin[hook], 0.2);
  // The hook's range [0, 1.2] from 0.2 along +1: amplitudes [-0.2, 1.0].
  EXPECT_DOUBLE_EQ(b.lower[1], -0.2);
  EXPECT_DOUBLE_EQ(b.upper[1], 1.0);
}
