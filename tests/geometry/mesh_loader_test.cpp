// SPDX-License-Identifier: GPL-3.0-or-later
// loadMesh: dispatch by extension, Assimp formats with node transforms, and the scale option.
// The input files are written by the test itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "handsim/formats/mesh_loader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::geometry {
namespace {

namespace fs = std::filesystem;

class MeshLoader : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           (std::string("handsim_mesh_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

// A closed unit cube as an OBJ with quads (Assimp triangulates them), in millimetres.
const char* kCubeObj = R"(# unit cube, 10 mm
v 0 0 0
v 10 0 0
v 0 10 0
v 10 10 0
v 0 0 10
v 10 0 10
v 0 10 10
v 10 10 10
f 2 4 8 6
f 1 5 7 3
f 3 7 8 4
f 1 2 6 5
f 5 6 8 7
f 1 3 4 2
)";

TEST_F(MeshLoader, ObjWithScaleIsInMetres) {
  const auto path = write("cube.obj", kCubeObj);
  MeshLoadOptions o;
  o.scale = 0.001;
  const auto m = loadMesh(path, o);
  const TriangleMesh mesh = m.merged();
  EXPECT_EQ(mesh.triangles.size(), 12u);
  ASSERT_TRUE(isWatertight(mesh));
  EXPECT_NEAR(surfaceArea(mesh), 6e-4, 1e-15);
  EXPECT_NEAR(*closedVolume(mesh), 1e-6, 1e-18);
  EXPECT_TRUE(boundingBox(mesh).max.isApprox(Eigen::Vector3d(0.01, 0.01, 0.01)));
}

TEST_F(MeshLoader, AsciiStlLoads) {
  const auto path = write("tri.stl", R"(solid t
facet normal 0 0 1
 outer loop
  vertex 0 0 0
  vertex 2 0 0
  vertex 0 3 0
 endloop
endfacet
endsolid t
)");
  const auto m = loadMesh(path);
  ASSERT_EQ(m.triangleCount(), 1u);
  EXPECT_NEAR(surfaceArea(m.merged()), 3.0, 1e-12);
}

TEST_F(MeshLoader, ColladaNodeTransformIsApplied) {
  // One triangle under a node translated by (5 0 0) and scaled by 2.
  const auto path = write("t.dae", R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
  <library_geometries>
    <geometry id="tri" name="tri"><mesh>
      <source id="pos"><float_array id="pos-a" count="9">0 0 0 1 0 0 0 1 0</float_array>
        <technique_common><accessor source="#pos-a" count="3" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common></source>
      <vertices id="v"><input semantic="POSITION" source="#pos"/></vertices>
      <triangles count="1"><input semantic="VERTEX" source="#v" offset="0"/><p>0 1 2</p></triangles>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes><visual_scene id="s">
    <node id="n"><translate>5 0 0</translate><scale>2 2 2</scale>
      <instance_geometry url="#tri"/></node>
  </visual_scene></library_visual_scenes>
  <scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
)");
  const auto m = loadMesh(path);
  ASSERT_EQ(m.triangleCount(), 1u);
  const Aabb b = boundingBox(m.merged());
  EXPECT_TRUE(b.min.isApprox(Eigen::Vector3d(5, 0, 0), 1e-6)) << b.min.transpose();
  EXPECT_TRUE(b.max.isApprox(Eigen::Vector3d(7, 2, 0), 1e-6)) << b.max.transpose();
}

TEST_F(MeshLoader, VrmlGoesToOurReaderWithScale) {
  const auto path = write("b.wrl", "#VRML V2.0 utf8\nShape { geometry Box { size 10 20 30 } }");
  MeshLoadOptions o;
  o.scale = 0.01;
  const auto m = loadMesh(path, o);
  EXPECT_NEAR(*closedVolume(m.merged()), 0.1 * 0.2 * 0.3, 1e-15);
}

TEST_F(MeshLoader, BadFilesAreInputErrors) {
  EXPECT_THROW(loadMesh((dir_ / "missing.obj").string()), io::InputError);
  EXPECT_THROW(loadMesh(write("junk.obj", "this is not an obj\n\x01\x02")), io::InputError);
  MeshLoadOptions o;
  o.scale = -1;
  EXPECT_THROW(loadMesh(write("c.obj", kCubeObj), o), io::InputError);
}

TEST_F(MeshLoader, ErrorsSayWhere) {
  // A face past the file's last vertex: Assimp names no line, the face's line is added.
  try {
    loadMesh(write("face.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 -4 3\n"));
    FAIL() << "no error";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().line, 5) << e.what();
    EXPECT_NE(std::string(e.what()).find("face vertex -4 does not exist"), std::string::npos)
        << e.what();
  }
  std::filesystem::create_directory(dir_ / "folder.wrl");
  try {
    loadMesh((dir_ / "folder.wrl").string());
    FAIL() << "no error";
  } catch (const io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace handsim::geometry
