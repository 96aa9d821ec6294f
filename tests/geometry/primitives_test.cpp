// SPDX-License-Identifier: GPL-3.0-or-later
// Primitive tessellation against closed-form values. Two kinds of check: the tessellated
// polyhedron against its own exact formulas (regular n-gon prisms and pyramids), and
// convergence to the smooth solid at the O(1/n^2) rate of an inscribed polygon.
#include <gtest/gtest.h>

#include <cmath>

#include "handsim/geometry/primitives.hpp"
#include "handsim/geometry/triangle_mesh.hpp"
#include "vrml_test_util.hpp"

namespace handsim::geometry {
namespace {

constexpr double kPi = 3.14159265358979323846;

TEST(Primitives, BoxAreaVolumeWatertight) {
  const auto m = makeBox({0.1, 0.2, 0.3});
  EXPECT_EQ(m.triangles.size(), 12u);
  EXPECT_EQ(m.vertices.size(), 8u);
  EXPECT_NEAR(surfaceArea(m), 2 * (0.1 * 0.2 + 0.2 * 0.3 + 0.3 * 0.1), 1e-15);
  ASSERT_TRUE(isWatertight(m));
  EXPECT_NEAR(*closedVolume(m), 0.1 * 0.2 * 0.3, 1e-15);
}

TEST(Primitives, CylinderMatchesRegularPrism) {
  const double r = 0.03, h = 0.1;
  for (int n : {3, 7, 32, 100}) {
    const auto m = makeCylinder(r, h, n);
    const double cap = 0.5 * n * r * r * std::sin(2 * kPi / n);
    const double side = n * 2 * r * std::sin(kPi / n) * h;
    ASSERT_TRUE(isWatertight(m)) << n;
    EXPECT_NEAR(surfaceArea(m), side + 2 * cap, 1e-12) << n;
    EXPECT_NEAR(*closedVolume(m), cap * h, 1e-14) << n;
  }
}

TEST(Primitives, ConeMatchesRegularPyramid) {
  const double r = 0.05, h = 0.2;
  for (int n : {3, 16, 64}) {
    const auto m = makeCone(r, h, n);
    const double base = 0.5 * n * r * r * std::sin(2 * kPi / n);
    const double apothem = r * std::cos(kPi / n);
    const double side = n * 0.5 * (2 * r * std::sin(kPi / n)) * std::hypot(h, apothem);
    ASSERT_TRUE(isWatertight(m)) << n;
    EXPECT_NEAR(surfaceArea(m), side + base, 1e-12) << n;
    EXPECT_NEAR(*closedVolume(m), base * h / 3, 1e-14) << n;
  }
}

// Relative errors against the smooth solid fall like 1/n^2: doubling n divides them by ~4.
TEST(Primitives, SphereConvergesQuadratically) {
  const double r = 0.03;
  const double area = 4 * kPi * r * r, volume = 4.0 / 3.0 * kPi * r * r * r;
  double prev_a = 0, prev_v = 0;
  for (int n : {32, 64, 128, 256}) {
    const auto m = makeSphere(r, n);
    ASSERT_TRUE(isWatertight(m)) << n;
    const double ea = std::abs(surfaceArea(m) - area) / area;
    const double ev = std::abs(*closedVolume(m) - volume) / volume;
    // Inscribed: never larger than the sphere.
    EXPECT_LT(surfaceArea(m), area);
    // Chords of angle 2 pi / n around and 2 pi / n along the meridians lose a fraction of
    // order (pi / n)^2 each; the measured leading terms are 8.2 / n^2 (area) and 16.4 / n^2
    // (volume), under the 2 pi^2 / n^2 = 19.7 / n^2 asserted here.
    EXPECT_LT(ea, 2 * kPi * kPi / (n * n)) << n;
    EXPECT_LT(ev, 2 * kPi * kPi / (n * n)) << n;
    if (prev_a > 0) {
      EXPECT_NEAR(prev_a / ea, 4.0, 0.5) << n;
      EXPECT_NEAR(prev_v / ev, 4.0, 0.5) << n;
    }
    prev_a = ea;
    prev_v = ev;
  }
}

TEST(Primitives, CylinderAndConeConvergeToSmoothSolids) {
  const double r = 0.03, h = 0.1;
  const int n = 512;
  // Regular n-gon area = pi r^2 (1 - (2 pi^2 / 3) / n^2 + ...).
  const double tol = 2 * kPi * kPi / 3 / (n * n);
  const auto cyl = makeCylinder(r, h, n);
  EXPECT_NEAR(*closedVolume(cyl) / (kPi * r * r * h), 1.0, tol);
  EXPECT_NEAR(surfaceArea(cyl) / (2 * kPi * r * h + 2 * kPi * r * r), 1.0, tol);
  const auto cone = makeCone(r, h, n);
  const double slant = std::hypot(r, h);
  EXPECT_NEAR(*closedVolume(cone) / (kPi * r * r * h / 3), 1.0, tol);
  EXPECT_NEAR(surfaceArea(cone) / (kPi * r * slant + kPi * r * r), 1.0, tol);
}

TEST(Primitives, OpenPartsAreNotWatertight) {
  EXPECT_FALSE(isWatertight(makeCone(1, 1, 16, /*bottom=*/false)));
  EXPECT_FALSE(isWatertight(makeCylinder(1, 1, 16, true, true, /*top=*/false)));
  EXPECT_EQ(makeCylinder(1, 1, 16, false, false, true).triangles.size(), 16u);
}

TEST(Primitives, VrmlFieldsReachTheTessellator) {
  VrmlOptions o;
  o.segments = 64;
  const auto m =
      testing::parse("Shape { geometry Cone { bottomRadius 0.05 height 0.2 bottom FALSE } }", o);
  ASSERT_EQ(m.shapes.size(), 1u);
  const auto& mesh = m.shapes[0].mesh;
  EXPECT_EQ(mesh.triangles.size(), 64u);
  EXPECT_FALSE(isWatertight(mesh));
  const Aabb box = boundingBox(mesh);
  EXPECT_NEAR(box.max.y(), 0.1, 1e-15);
  EXPECT_NEAR(box.min.y(), -0.1, 1e-15);
  EXPECT_NEAR(box.max.x(), 0.05, 1e-15);

  const auto c =
      testing::parse("Shape { geometry Cylinder { radius 0.5 height 3 side FALSE top FALSE } }", o);
  ASSERT_EQ(c.shapes.size(), 1u);
  EXPECT_EQ(c.shapes[0].mesh.triangles.size(), 64u);
  EXPECT_NEAR(boundingBox(c.shapes[0].mesh).max.y(), -1.5, 1e-15);

  const auto s = testing::parse("Shape { geometry Sphere { radius 0.03 } }", o);
  EXPECT_NEAR(boundingBox(s.shapes[0].mesh).max.y(), 0.03, 1e-15);
  const auto b = testing::parse("Shape { geometry Box { } }");
  EXPECT_NEAR(surfaceArea(b.shapes[0].mesh), 24.0, 1e-12);  // default size 2 2 2
}

}  // namespace
}  // namespace handsim::geometry
