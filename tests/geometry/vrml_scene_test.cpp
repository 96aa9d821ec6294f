// SPDX-License-Identifier: GPL-3.0-or-later
// Scene-graph semantics of the VRML97 reader (ISO/IEC 14772-1 clause 6): transforms,
// DEF/USE, Switch, LOD, PROTO, Inline, materials. Expected numbers are worked out by hand in
// the comments.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "handsim/geometry/triangle_mesh.hpp"
#include "vrml_test_util.hpp"

namespace handsim::geometry {
namespace {

using testing::parse;
namespace fs = std::filesystem;

bool hasWarning(const LoadedModel& m, const std::string& part) {
  for (const auto& w : m.warnings)
    if (w.find(part) != std::string::npos) return true;
  return false;
}

// One triangle with vertices (1 1 0), (1 0 0), (1 0 1) under a Transform with every field.
// By hand, P' = T C R SR S -SR -C P with C = (1 0 0), R = SR = 90 deg about z, S = (2 1 1),
// T = (0 0 5):
//   (1 1 0): -C (0 1 0), -SR (1 0 0), S (2 0 0), SR (0 2 0), R (-2 0 0), C (-1 0 0), T (-1 0 5)
//   (1 0 0): -C (0 0 0) ... C (1 0 0), T (1 0 5)
//   (1 0 1): -C (0 0 1), rotations about z and S keep it, C (1 0 1), T (1 0 6)
TEST(VrmlScene, TransformAppliesFullFieldOrder) {
  const auto m = parse(R"(
    Transform {
      translation 0 0 5  center 1 0 0  rotation 0 0 1 1.5707963267948966
      scale 2 1 1  scaleOrientation 0 0 1 1.5707963267948966
      children Shape { geometry IndexedFaceSet {
        coord Coordinate { point [ 1 1 0, 1 0 0, 1 0 1 ] } coordIndex [ 0 1 2 ] } }
    })");
  ASSERT_EQ(m.shapes.size(), 1u);
  const auto& v = m.shapes[0].mesh.vertices;
  ASSERT_EQ(v.size(), 3u);
  EXPECT_TRUE(v[0].isApprox(Eigen::Vector3d(-1, 0, 5), 1e-12)) << v[0].transpose();
  EXPECT_TRUE(v[1].isApprox(Eigen::Vector3d(1, 0, 5), 1e-12)) << v[1].transpose();
  EXPECT_TRUE(v[2].isApprox(Eigen::Vector3d(1, 0, 6), 1e-12)) << v[2].transpose();
}

TEST(VrmlScene, NestedTransformsComposeParentFirst) {
  // Inner translation (1 0 0) is rotated by the outer 90 deg about z into (0 1 0), then the
  // outer translation (0 0 2) is added: the unit box centre lands at (0 1 2).
  const auto m = parse(R"(
    Transform { translation 0 0 2 rotation 0 0 1 1.5707963267948966 children [
      Transform { translation 1 0 0 children Shape { geometry Box { size 1 1 1 } } } ] })");
  ASSERT_EQ(m.shapes.size(), 1u);
  const Aabb b = boundingBox(m.shapes[0].mesh);
  EXPECT_TRUE((0.5 * (b.min + b.max)).isApprox(Eigen::Vector3d(0, 1, 2), 1e-12));
}

TEST(VrmlScene, MirroringScaleKeepsFacesOutward) {
  const auto m = parse("Transform { scale -1 1 1 children Shape { geometry Box { } } }");
  ASSERT_EQ(m.shapes.size(), 1u);
  ASSERT_TRUE(isWatertight(m.shapes[0].mesh));
  EXPECT_NEAR(*closedVolume(m.shapes[0].mesh), 8.0, 1e-12);
}

TEST(VrmlScene, DefUseGivesTwoCopies) {
  const auto m = parse(R"(
    DEF B Shape { geometry Box { size 2 2 2 } }
    Transform { translation 10 0 0 children USE B })");
  ASSERT_EQ(m.shapes.size(), 2u);
  EXPECT_EQ(m.triangleCount(), 24u);
  const Aabb b = boundingBox(m.merged());
  EXPECT_DOUBLE_EQ(b.min.x(), -1.0);
  EXPECT_DOUBLE_EQ(b.max.x(), 11.0);
  EXPECT_EQ(m.shapes[0].name, "B");
}

TEST(VrmlScene, UseOfUndefinedNameIsAnError) {
  const auto e = testing::parseError("#VRML V2.0 utf8\nGroup { children [\n  USE Nope ] }");
  EXPECT_EQ(e.location().line, 3);
  EXPECT_EQ(e.location().column, 7);
  EXPECT_NE(e.problem().find("Nope"), std::string::npos);
}

TEST(VrmlScene, SwitchChoosesWhichChoice) {
  const std::string choices =
      "choice [ Shape { geometry Box { size 1 1 1 } } Shape { geometry Box { size 2 2 2 } } "
      "Shape { geometry Box { size 3 3 3 } } ] }";
  const auto one = parse("Switch { whichChoice 1 " + choices);
  ASSERT_EQ(one.shapes.size(), 1u);
  EXPECT_NEAR(surfaceArea(one.shapes[0].mesh), 24.0, 1e-12);
  EXPECT_TRUE(parse("Switch { whichChoice -1 " + choices).shapes.empty());
  EXPECT_TRUE(parse("Switch { " + choices).shapes.empty());  // default -1
  EXPECT_TRUE(parse("Switch { whichChoice 7 " + choices).shapes.empty());
}

TEST(VrmlScene, LodUsesFirstLevel) {
  const auto m = parse(R"(
    LOD { range [ 10 ] level [ Shape { geometry Box { size 1 2 3 } }
                               Shape { geometry Sphere { } } ] })");
  ASSERT_EQ(m.shapes.size(), 1u);
  EXPECT_NEAR(surfaceArea(m.shapes[0].mesh), 22.0, 1e-12);
}

TEST(VrmlScene, GroupingNodesAllContribute) {
  const auto m = parse(R"(
    Group { children [ Shape { geometry Box { } } ] }
    Collision { children Shape { geometry Box { } } proxy Shape { geometry Sphere { } } }
    Billboard { axisOfRotation 0 1 0 children [ Shape { geometry Box { } } ] }
    Anchor { url "http://example.org" children [ Shape { geometry Box { } } ] })");
  EXPECT_EQ(m.shapes.size(), 4u);
  EXPECT_EQ(m.triangleCount(), 48u);
}

TEST(VrmlScene, ProtoWithIsFieldsAndDefaults) {
  const auto m = parse(R"(
    PROTO Thing [ field SFVec3f size 1 1 1  exposedField SFVec3f where 0 0 0
                  field SFColor colour 0.1 0.2 0.3 eventIn SFBool poke ] {
      Transform { translation IS where
        children Shape { appearance Appearance { material Material { diffuseColor IS colour } }
                         geometry Box { size IS size } } }
    }
    Thing { size 1 2 3 }
    Thing { where 5 0 0 colour 1 0 0 })");
  ASSERT_EQ(m.shapes.size(), 2u);
  EXPECT_NEAR(surfaceArea(m.shapes[0].mesh), 22.0, 1e-12);  // 2 (2 + 6 + 3)
  EXPECT_TRUE(m.shapes[0].diffuse_color.isApprox(Eigen::Vector3f(0.1f, 0.2f, 0.3f)));
  EXPECT_NEAR(surfaceArea(m.shapes[1].mesh), 6.0, 1e-12);  // default unit box
  const Aabb b = boundingBox(m.shapes[1].mesh);
  EXPECT_TRUE((0.5 * (b.min + b.max)).isApprox(Eigen::Vector3d(5, 0, 0)));
  EXPECT_TRUE(m.shapes[1].diffuse_color.isApprox(Eigen::Vector3f(1, 0, 0)));
}

TEST(VrmlScene, NestedProtoPassesIsThrough) {
  const auto m = parse(R"(
    PROTO Inner [ field SFVec3f size 1 1 1 ] { Shape { geometry Box { size IS size } } }
    PROTO Outer [ field SFVec3f s 1 1 1 field MFNode extra [] ] {
      Group { children [ Inner { size IS s } Group { children IS extra } ] } }
    Outer { s 2 2 2 extra [ Shape { geometry Box { size 1 2 3 } } ] })");
  ASSERT_EQ(m.shapes.size(), 2u);
  EXPECT_NEAR(surfaceArea(m.shapes[0].mesh), 24.0, 1e-12);
  EXPECT_NEAR(surfaceArea(m.shapes[1].mesh), 22.0, 1e-12);
}

TEST(VrmlScene, ProtoExpansionDepthIsBounded) {
  // P1 wraps P0, P2 wraps P1, ...: 40 levels of expansion against the default limit of 32.
  std::string text = "PROTO P0 [ ] { Shape { geometry Box { } } }\n";
  for (int i = 1; i <= 40; ++i)
    text += "PROTO P" + std::to_string(i) + " [ ] { P" + std::to_string(i - 1) + " { } }\n";
  EXPECT_EQ(parse(text + "P30 { }").shapes.size(), 1u);
  try {
    parse(text + "P40 { }");
    FAIL() << "expected the PROTO depth limit";
  } catch (const io::InputError& e) {
    EXPECT_NE(e.problem().find("PROTO expansion deeper than 32"), std::string::npos) << e.what();
  }
}

TEST(VrmlScene, ProtoOnlyFirstBodyNodeIsRendered) {
  const auto m = parse(R"(
    PROTO P [ ] { Shape { geometry Box { } } Shape { geometry Sphere { } } }
    P { })");
  EXPECT_EQ(m.shapes.size(), 1u);
  EXPECT_EQ(m.triangleCount(), 12u);
}

TEST(VrmlScene, IsOutsideProtoAndUnknownIsFieldAreErrors) {
  auto e = testing::parseError("#VRML V2.0 utf8\nBox { size IS s }");
  EXPECT_EQ(e.location().line, 2);
  e = testing::parseError("#VRML V2.0 utf8\nPROTO P [ field SFFloat a 1 ] {\n Box { size IS b } }");
  EXPECT_EQ(e.location().line, 3);
  EXPECT_NE(e.problem().find("'b'"), std::string::npos);
}

TEST(VrmlScene, ExternProtoIsReportedAndSkipped) {
  const auto m = parse(R"(
    EXTERNPROTO Fancy [ field SFFloat x ] [ "fancy.wrl#Fancy" ]
    Fancy { x 1 }
    Shape { geometry Box { } })");
  EXPECT_EQ(m.shapes.size(), 1u);
  EXPECT_TRUE(hasWarning(m, "EXTERNPROTO Fancy"));
  EXPECT_TRUE(hasWarning(m, "test.wrl:4:5"));
}

TEST(VrmlScene, IgnoredNodesAreCountedAndUnknownOnesWarned) {
  const auto m = parse(R"(
    Viewpoint { position 0 0 10 }
    DirectionalLight { }
    DEF T TimeSensor { loop TRUE }
    DEF I PositionInterpolator { key [ 0 1 ] keyValue [ 0 0 0, 1 1 1 ] }
    Script { field SFNode n NULL eventIn SFFloat f url "javascript: function f(v) {}" }
    ROUTE T.fraction_changed TO I.set_fraction
    Shape { geometry IndexedLineSet { coord Coordinate { point [ 0 0 0, 1 1 1 ] } coordIndex [0 1] } }
    Shape { geometry Text { string [ "hi" ] } }
    Shape { geometry PointSet { } }
    Frobnicator { weird [ 1 2 3 ] nested Group { children [ Shape { geometry Box { } } ] } }
    Shape { geometry Box { } })");
  EXPECT_EQ(m.shapes.size(), 1u);
  EXPECT_EQ(m.ignored_nodes.at("IndexedLineSet"), 1);
  EXPECT_EQ(m.ignored_nodes.at("Text"), 1);
  EXPECT_EQ(m.ignored_nodes.at("Script"), 1);
  EXPECT_EQ(m.ignored_nodes.at("Viewpoint"), 1);
  EXPECT_EQ(m.ignored_nodes.at("Frobnicator"), 1);
  EXPECT_TRUE(hasWarning(m, "Frobnicator"));
  EXPECT_FALSE(hasWarning(m, "Viewpoint"));
}

TEST(VrmlScene, MaterialDiffuseColourPerShape) {
  const auto m = parse(R"(
    Shape { appearance Appearance { material Material { diffuseColor 0 0 1 } } geometry Box { } }
    Shape { appearance Appearance { material Material { } } geometry Box { } }
    Shape { geometry Box { } })");
  ASSERT_EQ(m.shapes.size(), 3u);
  EXPECT_TRUE(m.shapes[0].diffuse_color.isApprox(Eigen::Vector3f(0, 0, 1)));
  EXPECT_TRUE(m.shapes[1].diffuse_color.isApprox(Eigen::Vector3f(0.8f, 0.8f, 0.8f)));
  EXPECT_TRUE(m.shapes[2].diffuse_color.isApprox(Eigen::Vector3f(1, 1, 1)));
}

class VrmlInline : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("handsim_inline_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "sub");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& rel, const std::string& text) {
    std::ofstream(dir_ / rel) << "#VRML V2.0 utf8\n" << text;
  }
  std::string path(const std::string& rel) const { return (dir_ / rel).string(); }
  fs::path dir_;
};

TEST_F(VrmlInline, RelativePathIsResolvedAgainstTheIncludingFile) {
  write("main.wrl", "Transform { translation 0 3 0 children Inline { url \"sub/part.wrl\" } }");
  write("sub/part.wrl", "Shape { geometry Box { size 1 1 1 } }\nInline { url \"leaf.wrl\" }");
  write("sub/leaf.wrl", "Transform { translation 1 0 0 children Shape { geometry Box { } } }");
  const auto m = loadVrml(path("main.wrl"));
  ASSERT_EQ(m.shapes.size(), 2u);
  const Aabb a = boundingBox(m.shapes[0].mesh);
  EXPECT_TRUE((0.5 * (a.min + a.max)).isApprox(Eigen::Vector3d(0, 3, 0)));
  const Aabb b = boundingBox(m.shapes[1].mesh);
  EXPECT_TRUE((0.5 * (b.min + b.max)).isApprox(Eigen::Vector3d(1, 3, 0)));
  EXPECT_TRUE(m.warnings.empty()) << ::testing::PrintToString(m.warnings);
}

TEST_F(VrmlInline, CycleIsReportedWithLocation) {
  write("a.wrl", "Shape { geometry Box { } }\nInline { url \"b.wrl\" }");
  write("b.wrl", "Shape { geometry Box { } }\n\nInline { url \"a.wrl\" }");
  const auto m = loadVrml(path("a.wrl"));
  EXPECT_EQ(m.shapes.size(), 2u);
  ASSERT_TRUE(hasWarning(m, "cycle")) << ::testing::PrintToString(m.warnings);
  EXPECT_TRUE(hasWarning(m, path("b.wrl") + ":4:1"));
}

TEST_F(VrmlInline, MissingFileAndNetworkUrlAreWarnings) {
  write("main.wrl",
        "Shape { geometry Box { } }\n  Inline { url \"nothere.wrl\" }\n"
        "Inline { url \"http://example.org/x.wrl\" }");
  const auto m = loadVrml(path("main.wrl"));
  EXPECT_EQ(m.shapes.size(), 1u);
  EXPECT_TRUE(hasWarning(m, path("main.wrl") + ":3:3: Inline file not found"))
      << ::testing::PrintToString(m.warnings);
  EXPECT_TRUE(hasWarning(m, "not a local file"));
}

TEST_F(VrmlInline, DepthIsBounded) {
  // f0 -> f1 -> ... -> f11, each with one box: the default limit of 8 nested files keeps the
  // first 9 boxes (f0 plus 8 levels) and warns about the rest.
  for (int i = 0; i < 12; ++i)
    write("f" + std::to_string(i) + ".wrl",
          "Shape { geometry Box { } }\nInline { url \"f" + std::to_string(i + 1) + ".wrl\" }");
  const auto m = loadVrml(path("f0.wrl"));
  EXPECT_EQ(m.shapes.size(), 9u);
  EXPECT_TRUE(hasWarning(m, "Inline nesting deeper than 8"))
      << ::testing::PrintToString(m.warnings);
}

TEST_F(VrmlInline, ErrorsInInlinedFileNameThatFile) {
  write("main.wrl", "Inline { url \"broken.wrl\" }");
  write("broken.wrl", "Shape { geometry Box { size 1 2 } }");
  try {
    loadVrml(path("main.wrl"));
    FAIL() << "expected an InputError";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().file, path("broken.wrl"));
    EXPECT_EQ(e.location().line, 2);
  }
}

}  // namespace
}  // namespace handsim::geometry
