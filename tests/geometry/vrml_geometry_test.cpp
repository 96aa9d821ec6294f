// SPDX-License-Identifier: GPL-3.0-or-later
// Geometry nodes built from explicit data: IndexedFaceSet (concave faces, winding, degenerate
// faces), ElevationGrid and Extrusion, against areas and volumes computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "handsim/geometry/polygon_triangulation.hpp"
#include "handsim/geometry/triangle_mesh.hpp"
#include "vrml_test_util.hpp"

namespace handsim::geometry {
namespace {

using testing::parse;
constexpr double kPi = 3.14159265358979323846;

std::string faceSet(const std::string& points, const std::string& index,
                    const std::string& extra = "") {
  return "Shape { geometry IndexedFaceSet { " + extra + " coord Coordinate { point [ " + points +
         " ] } coordIndex [ " + index + " ] } }";
}

// A U-shaped octagon, 3 x 3 with a 1 x 2 notch: area 9 - 2 = 7. Listed from (2 3), a vertex
// that does not see the whole polygon, so a fan from the first vertex would fold over itself.
const char* kU = "2 3 0, 2 1 0, 1 1 0, 1 3 0, 0 3 0, 0 0 0, 3 0 0, 3 3 0";

TEST(VrmlGeometry, ConcavePolygonKeepsExactAreaAndOrientation) {
  const auto m = parse(faceSet(kU, "0 1 2 3 4 5 6 7 -1", "convex FALSE"));
  ASSERT_EQ(m.shapes.size(), 1u);
  const auto& mesh = m.shapes[0].mesh;
  EXPECT_EQ(mesh.triangles.size(), 6u);  // n - 2
  EXPECT_NEAR(surfaceArea(mesh), 7.0, 1e-12);
  // The polygon runs counter-clockwise seen from +z (shoelace sum +14), so every triangle
  // must face +z; a folded fan would give some -z triangles.
  for (const auto& n : mesh.normals) EXPECT_NEAR(n.z(), 1.0, 1e-12);
}

TEST(VrmlGeometry, TriangulationWorksInTheFacePlane) {
  // The same U tilted into a general plane: rotate about (1 1 1) and check the area again.
  std::vector<Eigen::Vector3d> pts = {{2, 3, 0}, {2, 1, 0}, {1, 1, 0}, {1, 3, 0},
                                      {0, 3, 0}, {0, 0, 0}, {3, 0, 0}, {3, 3, 0}};
  const Eigen::Matrix3d r =
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 1, 1).normalized()).toRotationMatrix();
  for (auto& p : pts) p = r * p + Eigen::Vector3d(5, -2, 1);
  const auto tris = triangulatePolygon(pts, {0, 1, 2, 3, 4, 5, 6, 7});
  ASSERT_EQ(tris.size(), 6u);
  TriangleMesh m;
  m.vertices = pts;
  m.triangles = tris;
  EXPECT_NEAR(surfaceArea(m), 7.0, 1e-12);
}

TEST(VrmlGeometry, StarPolygonArea) {
  // Five-pointed star with outer radius 1 and inner radius 0.4: 10 triangles from the centre,
  // each of area 0.5 * 1 * 0.4 * sin(36 deg).
  std::string pts;
  for (int k = 0; k < 10; ++k) {
    const double a = kPi / 2 + k * kPi / 5, r = k % 2 ? 0.4 : 1.0;
    pts += std::to_string(r * std::cos(a)) + " " + std::to_string(r * std::sin(a)) + " 0, ";
  }
  const auto m = parse(faceSet(pts, "0 1 2 3 4 5 6 7 8 9", "convex FALSE"));
  ASSERT_EQ(m.shapes.size(), 1u);
  EXPECT_NEAR(surfaceArea(m.shapes[0].mesh), 10 * 0.5 * 0.4 * std::sin(kPi / 5), 1e-5);
}

TEST(VrmlGeometry, CcwFalseFlipsFaces) {
  const std::string tri = "0 0 0, 1 0 0, 0 1 0";
  const auto a = parse(faceSet(tri, "0 1 2"));
  const auto b = parse(faceSet(tri, "0 1 2", "ccw FALSE"));
  ASSERT_EQ(a.shapes.size(), 1u);
  ASSERT_EQ(b.shapes.size(), 1u);
  EXPECT_NEAR(a.shapes[0].mesh.normals[0].z(), 1.0, 1e-15);
  EXPECT_NEAR(b.shapes[0].mesh.normals[0].z(), -1.0, 1e-15);
}

TEST(VrmlGeometry, DegenerateFacesAreDroppedAndCounted) {
  // Faces: a good triangle; a repeated index (two distinct vertices); a collinear triple; a
  // two-index face; a quad with a closing repeat (valid); the last face has no -1.
  const auto m = parse(faceSet("0 0 0, 1 0 0, 0 1 0, 2 0 0, 1 1 0",
                               "0 1 2 -1 0 0 1 -1 0 1 3 -1 2 4 -1 0 1 4 2 0 -1 0 1 2"));
  ASSERT_EQ(m.shapes.size(), 1u);
  EXPECT_EQ(m.dropped_degenerate_faces, 3);
  EXPECT_EQ(m.shapes[0].mesh.triangles.size(), 4u);
  EXPECT_NEAR(surfaceArea(m.shapes[0].mesh), 0.5 + 1.0 + 0.5, 1e-12);
}

TEST(VrmlGeometry, ClosedFaceSetIsWatertightWithVolume) {
  // Unit tetrahedron (0 0 0) (1 0 0) (0 1 0) (0 0 1): volume 1/6.
  const auto m = parse(faceSet("0 0 0, 1 0 0, 0 1 0, 0 0 1", "0 2 1 -1 0 1 3 -1 0 3 2 -1 1 2 3"));
  ASSERT_TRUE(isWatertight(m.shapes[0].mesh));
  EXPECT_NEAR(*closedVolume(m.shapes[0].mesh), 1.0 / 6.0, 1e-15);
}

TEST(VrmlGeometry, ElevationGridFlatArea) {
  // 3 x 4 posts, spacing 0.5 x 0.25: a 1.0 x 0.75 sheet of 2 x 3 cells = 12 triangles, facing +y.
  const auto m = parse(R"(Shape { geometry ElevationGrid {
      xDimension 3 zDimension 4 xSpacing 0.5 zSpacing 0.25
      height [ 0 0 0  0 0 0  0 0 0  0 0 0 ] } })");
  ASSERT_EQ(m.shapes.size(), 1u);
  const auto& mesh = m.shapes[0].mesh;
  EXPECT_EQ(mesh.triangles.size(), 12u);
  EXPECT_NEAR(surfaceArea(mesh), 0.75, 1e-15);
  for (const auto& n : mesh.normals) EXPECT_NEAR(n.y(), 1.0, 1e-15);
}

TEST(VrmlGeometry, ElevationGridSlopeArea) {
  // Heights rise by 1 per x post (spacing 1): each 1 x 1 cell is tilted 45 deg, area sqrt(2).
  const auto m = parse(R"(Shape { geometry ElevationGrid {
      xDimension 3 zDimension 2 height [ 0 1 2, 0 1 2 ] } })");
  EXPECT_NEAR(surfaceArea(m.shapes[0].mesh), 2 * std::sqrt(2.0), 1e-12);
}

TEST(VrmlGeometry, ElevationGridTooFewHeightsIsAnError) {
  const auto e = testing::parseError(
      "#VRML V2.0 utf8\nShape { geometry\n ElevationGrid { xDimension 3 zDimension 3 height [ 0 "
      "0 ] } }");
  EXPECT_EQ(e.location().line, 3);
  EXPECT_NE(e.problem().find("9"), std::string::npos);
}

TEST(VrmlGeometry, DefaultExtrusionIsTheTwoByOneByTwoBox) {
  // Default crossSection is the square of side 2, spine from (0 0 0) to (0 1 0).
  const auto m = parse("Shape { geometry Extrusion { } }");
  ASSERT_EQ(m.shapes.size(), 1u);
  const auto& mesh = m.shapes[0].mesh;
  ASSERT_TRUE(isWatertight(mesh));
  EXPECT_NEAR(surfaceArea(mesh), 2 * (2 * 1 + 1 * 2 + 2 * 2), 1e-12);
  EXPECT_NEAR(*closedVolume(mesh), 4.0, 1e-12);
}

TEST(VrmlGeometry, ExtrusionAlongZIsABox) {
  // A 1 x 1 square along a straight spine of length 3 on +z: box 1 x 1 x 3, area 14,
  // volume 3; the spine direction rotates the cross-section plane to xy.
  const auto m = parse(R"(Shape { geometry Extrusion {
      crossSection [ 0.5 0.5, 0.5 -0.5, -0.5 -0.5, -0.5 0.5, 0.5 0.5 ]
      spine [ 0 0 0, 0 0 1.5, 0 0 3 ] } })");
  const auto& mesh = m.shapes[0].mesh;
  ASSERT_TRUE(isWatertight(mesh));
  EXPECT_NEAR(surfaceArea(mesh), 14.0, 1e-12);
  EXPECT_NEAR(*closedVolume(mesh), 3.0, 1e-12);
  const Aabb b = boundingBox(mesh);
  EXPECT_TRUE(b.min.isApprox(Eigen::Vector3d(-0.5, -0.5, 0), 1e-12)) << b.min.transpose();
  EXPECT_TRUE(b.max.isApprox(Eigen::Vector3d(0.5, 0.5, 3), 1e-12)) << b.max.transpose();
}

TEST(VrmlGeometry, ExtrusionScaleGivesFrustum) {
  // Square of side 2 scaled from 1 to 0.5 over height 1: frustum volume
  // h/3 (A1 + A2 + sqrt(A1 A2)) = (4 + 1 + 2) / 3.
  const auto m = parse("Shape { geometry Extrusion { scale [ 1 1, 0.5 0.5 ] } }");
  EXPECT_NEAR(*closedVolume(m.shapes[0].mesh), 7.0 / 3.0, 1e-12);
}

TEST(VrmlGeometry, ExtrusionOnClosedCircularSpineIsAnAnnulus) {
  // A square tube (side 0.2) swept around a closed 64-gon spine of radius 1 in the xz plane.
  // At each spine vertex the SCP X axis is radial and Z is the plane normal, so the tube is
  // the prism over a 64-gon annulus of radii 0.9 and 1.1 with height 0.2:
  // volume = 0.2 (n / 2) sin(2 pi / n) (1.1^2 - 0.9^2); no caps on a closed spine.
  const int n = 64;
  std::ostringstream spine;
  spine.precision(17);
  for (int k = 0; k <= n; ++k) {
    const double a = 2 * kPi * (k % n) / n;
    spine << std::cos(a) << " 0 " << std::sin(a) << ", ";
  }
  const auto m = parse(
      "Shape { geometry Extrusion { crossSection [ 0.1 0.1, 0.1 -0.1, "
      "-0.1 -0.1, -0.1 0.1, 0.1 0.1 ] spine [ " +
      spine.str() + " ] } }");
  const auto& mesh = m.shapes[0].mesh;
  ASSERT_TRUE(isWatertight(mesh));
  EXPECT_EQ(mesh.triangles.size(), 2u * 4u * n);
  const double expected = 0.2 * (n / 2.0) * std::sin(2 * kPi / n) * (1.1 * 1.1 - 0.9 * 0.9);
  EXPECT_NEAR(std::abs(*closedVolume(mesh)), expected, 1e-12);
}

TEST(VrmlGeometry, ExtrusionConcaveCapsUseEarClipping) {
  // An L-shaped cross-section (area 3) extruded by 2: volume 6 only if the caps are cut
  // correctly (convex FALSE).
  const auto m = parse(R"(Shape { geometry Extrusion { convex FALSE
      crossSection [ 0 0, 0 2, 1 2, 1 1, 2 1, 2 0, 0 0 ] spine [ 0 0 0, 0 2 0 ] } })");
  const auto& mesh = m.shapes[0].mesh;
  ASSERT_TRUE(isWatertight(mesh));
  EXPECT_NEAR(std::abs(*closedVolume(mesh)), 6.0, 1e-12);
}

}  // namespace
}  // namespace handsim::geometry
