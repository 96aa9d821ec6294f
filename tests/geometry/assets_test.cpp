// SPDX-License-Identifier: GPL-3.0-or-later
// The shipped objects in assets/objects: each must load without warnings, be closed with
// outward faces (positive volume) and have the real-world size its header states.
#include <gtest/gtest.h>

#include <cmath>

#include "handsim/formats/vrml_reader.hpp"

namespace handsim::geometry {
namespace {

constexpr double kPi = 3.14159265358979323846;

LoadedModel load(const std::string& name) {
  return loadVrml(std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/" + name);
}

void expectClosedParts(const LoadedModel& m) {
  EXPECT_TRUE(m.warnings.empty()) << ::testing::PrintToString(m.warnings);
  EXPECT_EQ(m.dropped_degenerate_faces, 0);
  for (const auto& s : m.shapes) {
    ASSERT_TRUE(isWatertight(s.mesh)) << s.name;
    EXPECT_GT(*closedVolume(s.mesh), 0.0) << s.name;
  }
}

TEST(Assets, Cube) {
  const auto m = load("cube.wrl");
  expectClosedParts(m);
  EXPECT_NEAR(*closedVolume(m.merged()), 0.05 * 0.05 * 0.05, 1e-15);
}

TEST(Assets, SphereAndCylinderMatchTheirFormulas) {
  // 32 segments: the relative volume error stays below 2 pi^2 / 32^2 (about 2 %).
  const double tol = 2 * kPi * kPi / (32 * 32);
  const auto s = load("sphere.wrl");
  expectClosedParts(s);
  EXPECT_NEAR(*closedVolume(s.merged()) / (4.0 / 3.0 * kPi * 0.03 * 0.03 * 0.03), 1.0, tol);
  const auto c = load("cylinder.wrl");
  expectClosedParts(c);
  EXPECT_NEAR(*closedVolume(c.merged()) / (kPi * 0.025 * 0.025 * 0.1), 1.0, tol);
}

TEST(Assets, MugAndBottleSizes) {
  const auto mug = load("mug.wrl");
  expectClosedParts(mug);
  EXPECT_EQ(mug.shapes.size(), 3u);
  const Aabb a = boundingBox(mug.merged());
  EXPECT_NEAR(a.max.y() - a.min.y(), 0.095, 1e-9);
  EXPECT_NEAR(a.max.z() - a.min.z(), 0.08, 1e-3);
  const auto bottle = load("bottle.wrl");
  expectClosedParts(bottle);
  const Aabb b = boundingBox(bottle.merged());
  EXPECT_NEAR(b.max.y() - b.min.y(), 0.26, 1e-9);
  EXPECT_NEAR(b.max.x() - b.min.x(), 0.07, 1e-9);
}

}  // namespace
}  // namespace handsim::geometry
