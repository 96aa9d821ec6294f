// SPDX-License-Identifier: GPL-3.0-or-later
// Hand files far larger than real ones load in time linear in their size (issue 24, round two):
// 200,000 named poses took minutes while each name was searched among the ones before it.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim {
namespace {

std::string readAsset(const std::string& rel) {
  std::ifstream in(std::string(HANDSIM_SOURCE_DIR) + "/assets/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(HandHostile, ManyPosesLoadInLinearTime) {
  nlohmann::json hand = nlohmann::json::parse(readAsset("hands/barrett.json"), nullptr, true, true);
  const nlohmann::json entry = hand["poses"][0];
  constexpr int kPoses = 100000;
  for (int i = 0; i < kPoses; ++i) {
    nlohmann::json p = entry;
    p["name"] = "p" + std::to_string(i);
    hand["poses"].push_back(p);
  }
  const std::string text = hand.dump();
  const auto start = std::chrono::steady_clock::now();
  const hand::HandModel h = hand::parseHandFile(text, "many_poses.json");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(h.poses.size(), hand["poses"].size());
  EXPECT_LT(seconds, 10.0);
  // A repeated name is still found.
  hand["poses"].push_back(entry);
  try {
    hand::parseHandFile(hand.dump(), "dup.json");
    ADD_FAILURE() << "a duplicate pose name was accepted";
  } catch (const io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("duplicate pose name"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace handsim
