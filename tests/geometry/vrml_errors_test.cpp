// SPDX-License-Identifier: GPL-3.0-or-later
// Malformed and hostile input: every problem must be an InputError that points at the right
// line and column (counted by hand in each test), never a crash or a hang.
#include <gtest/gtest.h>

#include <fstream>

#include "handsim/geometry/triangle_mesh.hpp"
#include "vrml_test_util.hpp"

namespace handsim::geometry {
namespace {

using testing::parseError;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(VrmlErrors, TruncatedFileNamesTheUnclosedNode) {
  const auto e = parseError(
      "#VRML V2.0 utf8\nTransform {\n  children [\n    Shape {\n      geometry Box { size 1 2 3 "
      "}\n");
  EXPECT_EQ(e.location().file, "bad.wrl");
  EXPECT_EQ(e.location().line, 6);
  EXPECT_EQ(e.location().column, 1);
  EXPECT_TRUE(contains(e.problem(), "'}' to close Shape opened at line 4")) << e.what();
  EXPECT_TRUE(contains(e.what(), "bad.wrl:6:1: ")) << e.what();
}

TEST(VrmlErrors, BadNumber) {
  const auto e = parseError("#VRML V2.0 utf8\nTransform { translation 1 2x 3 }");
  EXPECT_EQ(e.location().line, 2);
  EXPECT_EQ(e.location().column, 27);
  EXPECT_TRUE(contains(e.problem(), "'2x'")) << e.what();
}

TEST(VrmlErrors, UnbalancedBrackets) {
  const auto e = parseError("#VRML V2.0 utf8\nGroup { children [ Shape { } }\n");
  EXPECT_EQ(e.location().line, 2);
  EXPECT_EQ(e.location().column, 30);
  EXPECT_TRUE(contains(e.problem(), "']' to close the list of 'children' opened at line 2"))
      << e.what();
  const auto f = parseError("#VRML V2.0 utf8\nGroup { }\n}");
  EXPECT_EQ(f.location().line, 3);
  EXPECT_EQ(f.location().column, 1);
}

TEST(VrmlErrors, NanAndInfinityAreRejected) {
  auto e = parseError("#VRML V2.0 utf8\nTransform {\n  translation 1 nan 3 }");
  EXPECT_EQ(e.location().line, 3);
  EXPECT_EQ(e.location().column, 17);
  EXPECT_TRUE(contains(e.problem(), "not finite")) << e.what();
  e = parseError("#VRML V2.0 utf8\nShape { geometry Sphere { radius -inf } }");
  EXPECT_EQ(e.location().column, 34);
  EXPECT_TRUE(contains(e.problem(), "not finite")) << e.what();
  e = parseError("#VRML V2.0 utf8\nShape { geometry Sphere { radius 1e999 } }");
  EXPECT_EQ(e.location().column, 34);
  EXPECT_TRUE(contains(e.problem(), "out of range")) << e.what();
}

TEST(VrmlErrors, OverflowAfterTransformIsAnError) {
  const auto e = parseError(
      "#VRML V2.0 utf8\nTransform { scale 1e300 1 1 children Transform { scale 1e300 1 1\n"
      "  children Shape { geometry Box { } } } }");
  EXPECT_EQ(e.location().line, 3);
  EXPECT_EQ(e.location().column, 29);
  EXPECT_TRUE(contains(e.problem(), "overflow")) << e.what();
}

TEST(VrmlErrors, WrongValueShapes) {
  auto e = parseError("#VRML V2.0 utf8\nTransform { translation 1 2 }");
  EXPECT_EQ(e.location().column, 25);
  EXPECT_EQ(e.location().field, "Transform.translation");
  e = parseError("#VRML V2.0 utf8\nShape { geometry Cone { bottom 1 } }");
  EXPECT_TRUE(contains(e.problem(), "SFBool")) << e.what();
  e = parseError(
      "#VRML V2.0 utf8\nShape { geometry IndexedFaceSet {\n coord Coordinate { point [ 0 0 0, 1 0 "
      "0 "
      "] }\n coordIndex [ 0 1 2 ] } }");
  EXPECT_EQ(e.location().line, 4);
  EXPECT_TRUE(contains(e.problem(), "index 2 is outside the 2 coordinates")) << e.what();
  e = parseError(
      "#VRML V2.0 utf8\nShape { geometry IndexedFaceSet { coord Coordinate { point "
      "[ 0 0 0, 1 0 ] } } }");
  EXPECT_TRUE(contains(e.problem(), "MFVec3f")) << e.what();
}

TEST(VrmlErrors, StringsAndCharacters) {
  auto e = parseError("#VRML V2.0 utf8\nWorldInfo { title \"never closed }\n");
  EXPECT_EQ(e.location().line, 2);
  EXPECT_EQ(e.location().column, 19);
  e = parseError("#VRML V2.0 utf8\nGroup { children [ 'x' ] }");
  EXPECT_TRUE(contains(e.problem(), "unexpected character")) << e.what();
}

TEST(VrmlErrors, StringEscapesAreDecoded) {
  const auto m = parseVrml(
      "#VRML V2.0 utf8\nWorldInfo { info [ \"a \\\"quoted\\\" \\\\ word\", \"x\" ] }\n"
      "Shape { geometry Box { } }",
      "ok.wrl");
  EXPECT_EQ(m.shapes.size(), 1u);
}

TEST(VrmlErrors, Vrml1IsRefused) {
  const auto e = parseError("#VRML V1.0 ascii\nSeparator { Cube { } }");
  EXPECT_EQ(e.location().line, 1);
  EXPECT_TRUE(contains(e.problem(), "VRML 1.0")) << e.what();
}

TEST(VrmlErrors, MissingHeaderIsAWarning) {
  const auto m = parseVrml("Shape { geometry Box { } }", "noheader.wrl");
  EXPECT_EQ(m.shapes.size(), 1u);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_TRUE(contains(m.warnings[0], "noheader.wrl:1:1: missing '#VRML V2.0 utf8' header"));
}

TEST(VrmlErrors, CrlfAndCommasAreWhitespace) {
  const auto m =
      parseVrml("#VRML V2.0 utf8\r\nShape {\r\n geometry Box { size 1,2,,3 }\r\n}\r\n", "crlf.wrl");
  ASSERT_EQ(m.shapes.size(), 1u);
  EXPECT_NEAR(surfaceArea(m.shapes[0].mesh), 22.0, 1e-12);
  // Line counting with CRLF: the error is on line 4.
  const auto e = parseError("#VRML V2.0 utf8\r\nShape {\r\n geometry Box {\r\n size 1 2 3x }\r\n}");
  EXPECT_EQ(e.location().line, 4);
  EXPECT_EQ(e.location().column, 11);
}

TEST(VrmlErrors, DeepNestingIsBounded) {
  std::string text = "#VRML V2.0 utf8\n";
  for (int i = 0; i < 100000; ++i) text += "Group { children [ ";
  const auto e = parseError(text);
  EXPECT_TRUE(contains(e.problem(), "nesting deeper than")) << e.what();
}

TEST(VrmlErrors, DefUseAmplificationIsBounded) {
  // Each level doubles the work: 2^60 visits without a bound.
  std::string text = "#VRML V2.0 utf8\nDEF L0 Group { }\n";
  for (int i = 1; i <= 60; ++i)
    text += "DEF L" + std::to_string(i) + " Group { children [ USE L" + std::to_string(i - 1) +
            " USE L" + std::to_string(i - 1) + " ] }\n";
  const auto e = parseError(text);
  // The visit bound, or (in a slow sanitizer build) the load's time budget, stops it first.
  EXPECT_TRUE(contains(e.problem(), "DEF/USE") || contains(e.problem(), "max_load_seconds"))
      << e.what();
}

TEST(VrmlErrors, TriangleBudgetIsEnforced) {
  VrmlOptions o;
  o.max_triangles = 1000;
  o.segments = 64;
  std::string text = "#VRML V2.0 utf8\nDEF S Shape { geometry Sphere { } }\n";
  for (int i = 0; i < 3; ++i) text += "USE S\n";
  try {
    parseVrml(text, "big.wrl", o);
    FAIL() << "expected the triangle limit";
  } catch (const io::InputError& e) {
    EXPECT_TRUE(contains(e.problem(), "limit of 1000 triangles")) << e.what();
  }
  // A huge extrusion is refused before it is allocated.
  o.max_triangles = 1'000'000;
  std::string spine, cs;
  for (int i = 0; i < 2000; ++i) spine += "0 " + std::to_string(i) + " 0 ";
  for (int i = 0; i < 2000; ++i) cs += std::to_string(i) + " 0 ";
  EXPECT_THROW(parseVrml("#VRML V2.0 utf8\nShape { geometry Extrusion { spine [" + spine +
                             "] crossSection [" + cs + "] } }",
                         "x.wrl", o),
               io::InputError);
}

TEST(VrmlErrors, RecursiveProtoCannotLoop) {
  // A PROTO is not visible inside its own body, so self-instantiation is an unknown node.
  const auto m = testing::parse("PROTO R [ ] { R { } }\nR { }");
  EXPECT_TRUE(m.shapes.empty());
}

TEST(VrmlErrors, GzipFile) {
  const std::string path = std::string(HANDSIM_TEST_DATA_DIR) + "/vrml/box_1x2x3.wrl.gz";
  const auto m = loadVrml(path);
  ASSERT_EQ(m.shapes.size(), 1u);
  EXPECT_NEAR(surfaceArea(m.shapes[0].mesh), 22.0, 1e-12);
  EXPECT_NEAR(*closedVolume(m.shapes[0].mesh), 6.0, 1e-12);
}

TEST(VrmlErrors, CorruptGzipIsAnError) {
  std::ifstream in(std::string(HANDSIM_TEST_DATA_DIR) + "/vrml/box_1x2x3.wrl.gz", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 20u);
  EXPECT_THROW(parseVrml(bytes.substr(0, bytes.size() / 2), "half.wrl.gz"), io::InputError);
  VrmlOptions o;
  o.max_file_bytes = 20;  // the decompressed text is longer than this
  EXPECT_THROW(parseVrml(bytes, "box.wrl.gz", o), io::InputError);
}

TEST(VrmlErrors, MissingFile) {
  EXPECT_THROW(loadVrml("/nonexistent/handsim/none.wrl"), io::InputError);
}

}  // namespace
}  // namespace handsim::geometry
