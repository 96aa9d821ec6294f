// SPDX-License-Identifier: GPL-3.0-or-later
// Assimp in a child process (issue #12): the reproducers that crashed or hung Assimp 5.2.5 in
// our process are clean InputErrors; valid files of every format load the same triangles as
// when Assimp ran in-process; stand-in importers (shell scripts through $HANDSIM_MESH_IMPORTER)
// that crash, flood stderr, hang or reply garbage are errors too; the reply format refuses every
// truncation. All input files are written by the test.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "handsim/formats/mesh_loader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::geometry {
namespace {

namespace fs = std::filesystem;

class MeshImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           (std::string("handsim_import_") +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    ::unsetenv("HANDSIM_MESH_IMPORTER");
    fs::remove_all(dir_);
  }
  std::string write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return (dir_ / name).string();
  }
  // A stand-in importer: a shell script that replaces handsim-mesh-import.
  void useImporterScript(const std::string& body) {
    const std::string path = write("importer.sh", "#!/bin/sh\n" + body + "\n");
    ::chmod(path.c_str(), 0755);
    ::setenv("HANDSIM_MESH_IMPORTER", path.c_str(), 1);
  }
  // The problem loadMesh reports for `path`, checking that it is an InputError naming the file.
  static std::string refusal(const std::string& path, const MeshLoadOptions& options = {}) {
    try {
      loadMesh(path, options);
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.location().file, path);
      return e.problem();
    }
    ADD_FAILURE() << path << " loaded";
    return {};
  }
  fs::path dir_;
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const char* kPlyTriangleHeader =
    "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
    "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";

const char* kColladaTriangle = R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
  <library_effects>
    <effect id="red-fx"><profile_COMMON><technique sid="t"><lambert>
      <diffuse><color>0.8 0.1 0.1 1</color></diffuse>
    </lambert></technique></profile_COMMON></effect>
  </library_effects>
  <library_materials><material id="red" name="red"><instance_effect url="#red-fx"/></material></library_materials>
  <library_geometries>
    <geometry id="tri" name="tri"><mesh>
      <source id="tri-pos">
        <float_array id="tri-pos-array" count="COUNT">0 0 0 1 0 0 0 1 0</float_array>
        <technique_common><accessor source="#tri-pos-array" count="3" stride="3">
          <param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
        </accessor></technique_common>
      </source>
      <vertices id="tri-vtx"><input semantic="POSITION" source="#tri-pos"/></vertices>
      <triangles material="red" count="1"><input semantic="VERTEX" source="#tri-vtx" offset="0"/><p>0 1 2</p></triangles>
    </mesh></geometry>
  </library_geometries>
  <library_visual_scenes>
    <visual_scene id="scene"><node id="n" name="n"><translate>0 0 2</translate>
      <instance_geometry url="#tri"><bind_material><technique_common>
        <instance_material symbol="red" target="#red"/></technique_common></bind_material></instance_geometry>
    </node></visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
)";

std::string collada(const std::string& count) {
  std::string text = kColladaTriangle;
  return text.replace(text.find("COUNT"), 5, count);
}

// A triangle (0,0,0) (1,0,0) (0,1,0) lifted to z = 3, blue-grey, as glTF 2.0 with the buffer
// (three float positions, three u16 indices) inline.
const char* kGltfTriangle = R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
 "nodes": [{"mesh": 0, "name": "tri", "translation": [0, 0, 3]}],
 "meshes": [{"name": "tri", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1, "material": 0}]}],
 "materials": [{"pbrMetallicRoughness": {"baseColorFactor": [0.2, 0.4, 0.6, 1]}}],
 "buffers": [{"byteLength": 44, "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA="}],
 "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 6}],
 "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
  {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}]}
)";

const char* kTetOff =
    "OFF\n4 4 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n";

// The four files of issue #12, each of which took down the process running Assimp.

TEST_F(MeshImport, OffWithMissingFaceIsAnErrorNotAnAbort) {
  const auto path = write("t.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(refusal(path), "the importer crashed (SIGABRT): Assimp cannot read this file");
  EXPECT_LT(secondsSince(start), 5.0);
}

TEST_F(MeshImport, PlyFaceIndexOutOfRangeIsAnErrorNotASegfault) {
  if (kDefaultImportMemoryLimit == 0)
    GTEST_SKIP() << "under AddressSanitizer's allocator Assimp's stray read finds other memory";
  const auto path =
      write("t.ply", std::string(kPlyTriangleHeader) + "0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n");
  const auto start = std::chrono::steady_clock::now();
  // Assimp reads past its vertex array here: it crashes, or hands over whatever it found there
  // as an index, which the importer refuses.
  const std::string problem = refusal(path);
  // (An AddressSanitizer importer reports the bad read and aborts: SIGABRT.)
  EXPECT_TRUE(problem.rfind("the importer crashed (SIG", 0) == 0 ||
              problem.find("uses vertex") != std::string::npos)
      << problem;
  EXPECT_LT(secondsSince(start), 5.0);
}

TEST_F(MeshImport, ColladaNegativeArrayCountIsAnErrorNotASegfault) {
  const auto path = write("t.dae", collada("-2147483649"));
  const auto start = std::chrono::steady_clock::now();
  const std::string problem = refusal(path);
  EXPECT_EQ(problem, kDefaultImportMemoryLimit != 0
                         ? "the importer crashed (SIGSEGV): Assimp cannot read this file"
                         : "the importer crashed (SIGABRT): Assimp cannot read this file")
      << problem;
  EXPECT_LT(secondsSince(start), 5.0);
}

TEST_F(MeshImport, TruncatedPlyHeaderHitsTheTimeLimit) {
  const auto path = write("t.ply", "ply\nformat ascii 1.0\nel");
  MeshLoadOptions o;
  o.import_time_limit_s = 2.0;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(refusal(path, o), "the importer took longer than 2 s and was stopped");
  const double took = secondsSince(start);
  EXPECT_GE(took, 2.0);
  EXPECT_LT(took, 4.0);
}

TEST_F(MeshImport, HugeVertexCountHitsTheMemoryLimit) {
  if (kDefaultImportMemoryLimit == 0)
    GTEST_SKIP() << "an AddressSanitizer importer cannot run under an address-space limit";
  const auto path = write("t.off", "OFF\n300000000 1 0\n0 0 0\n");
  MeshLoadOptions o;
  o.import_memory_limit_bytes = std::size_t{256} << 20;
  EXPECT_EQ(refusal(path, o), "the importer ran out of memory (limit 256 MiB)");
}

TEST_F(MeshImport, TimeLimitIsChecked) {
  const auto path = write("t.off", kTetOff);
  MeshLoadOptions o;
  for (double bad : {0.0, -1.0, std::nan("")}) {
    o.import_time_limit_s = bad;
    EXPECT_THROW(loadMesh(path, o), io::InputError) << bad;
  }
  o.import_time_limit_s = 1e300;  // as good as none
  EXPECT_EQ(loadMesh(path, o).triangleCount(), 4u);
}

// The same shapes, vertices, triangles and colours as Assimp gave in-process (recorded before
// the import moved to the child process).

TEST_F(MeshImport, ValidFilesLoadAsBefore) {
  const auto off = loadMesh(write("tet.off", kTetOff));
  ASSERT_EQ(off.shapes.size(), 1u);
  EXPECT_EQ(off.shapes[0].name, "<OFFRoot>");
  EXPECT_EQ(off.shapes[0].mesh.vertices,
            (std::vector<Eigen::Vector3d>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}));
  EXPECT_EQ(off.shapes[0].mesh.triangles,
            (std::vector<std::array<int, 3>>{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}));
  EXPECT_NEAR(*closedVolume(off.shapes[0].mesh), 1.0 / 6.0, 1e-15);
  ASSERT_EQ(off.shapes[0].mesh.normals.size(), 4u);
  EXPECT_TRUE(off.shapes[0].mesh.normals[0].isApprox(Eigen::Vector3d(0, 0, -1)));

  // COLLADA's Z_UP becomes Assimp's y-up: the lift along z lands on y, y on -z.
  const auto dae = loadMesh(write("tri.dae", collada("9")));
  ASSERT_EQ(dae.shapes.size(), 1u);
  EXPECT_EQ(dae.shapes[0].name, "tri");
  EXPECT_EQ(dae.shapes[0].mesh.vertices,
            (std::vector<Eigen::Vector3d>{{0, 2, 0}, {1, 2, 0}, {0, 2, -1}}));
  EXPECT_EQ(dae.shapes[0].mesh.triangles, (std::vector<std::array<int, 3>>{{0, 1, 2}}));
  EXPECT_EQ(dae.shapes[0].diffuse_color, Eigen::Vector3f(0.8f, 0.1f, 0.1f));

  MeshLoadOptions mm;
  mm.scale = 0.5;
  const auto gltf = loadMesh(write("tri.gltf", kGltfTriangle), mm);
  ASSERT_EQ(gltf.shapes.size(), 1u);
  EXPECT_EQ(gltf.shapes[0].name, "tri");
  EXPECT_EQ(gltf.shapes[0].mesh.vertices,
            (std::vector<Eigen::Vector3d>{{0, 0, 1.5}, {0.5, 0, 1.5}, {0, 0.5, 1.5}}));
  EXPECT_EQ(gltf.shapes[0].diffuse_color, Eigen::Vector3f(0.2f, 0.4f, 0.6f));
  EXPECT_TRUE(gltf.warnings.empty());
}

TEST_F(MeshImport, WeldOptionReachesTheImporter) {
  // Two triangles sharing an edge whose texture coordinates differ (a UV seam), so that Assimp
  // keeps the shared vertices apart.
  const std::string obj =
      "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nvt 0.5 0\nvt 0 0.5\n"
      "vt 1 1\nf 1/1 2/2 3/3\nf 2/4 4/6 3/5\n";
  const auto path = write("two.obj", obj);
  MeshLoadOptions o;
  o.weld_vertices = false;
  const auto apart = loadMesh(path, o);
  const auto welded = loadMesh(path);
  ASSERT_EQ(apart.shapes.size(), 1u);
  ASSERT_EQ(welded.shapes.size(), 1u);
  EXPECT_EQ(welded.shapes[0].mesh.vertices.size(), 4u);
  EXPECT_EQ(apart.shapes[0].mesh.vertices.size(), 6u);
  EXPECT_EQ(apart.triangleCount(), 2u);
  EXPECT_EQ(welded.triangleCount(), 2u);
}

TEST_F(MeshImport, ParallelLoadsFromThreadsAreIndependent) {
  const auto good = write("tet.off", kTetOff);
  const auto bad = write("bad.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n");
  // Even threads load the good file, odd ones the crashing one, five times each, all at once.
  std::vector<int> right(8, 0);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < right.size(); ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 5; ++k) {
        try {
          if (i % 2 == 0 && loadMesh(good).triangleCount() == 4u) ++right[i];
          if (i % 2 == 1) loadMesh(bad);
        } catch (const io::InputError&) {
          if (i % 2 == 1) ++right[i];
        }
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(right, std::vector<int>(8, 5));
}

// Stand-in importers.

TEST_F(MeshImport, MissingImporterIsNamed) {
  ::setenv("HANDSIM_MESH_IMPORTER", (dir_ / "no-such-program").c_str(), 1);
  const auto problem = refusal(write("tet.off", kTetOff));
  EXPECT_NE(problem.find("cannot run the mesh importer"), std::string::npos) << problem;
  EXPECT_NE(problem.find("no-such-program"), std::string::npos) << problem;
  EXPECT_EQ(meshImporterPath(), (dir_ / "no-such-program").string());
}

TEST_F(MeshImport, ImporterKilledBySignalIsACrash) {
  useImporterScript("kill -BUS $$");
  EXPECT_EQ(refusal(write("tet.off", kTetOff)),
            "the importer crashed (SIGBUS): Assimp cannot read this file");
}

TEST_F(MeshImport, GarbageReplyIsMalformed) {
  useImporterScript("printf 'HSMESH1\\nshort'");
  const auto problem = refusal(write("tet.off", kTetOff));
  EXPECT_EQ(problem.rfind("the mesh importer's reply is malformed", 0), 0u) << problem;
}

TEST_F(MeshImport, FloodedStderrDoesNotDeadlock) {
  // 1 MB on stderr before anything on stdout: a reader blocked on stdout would wait forever.
  useImporterScript("head -c 1000000 /dev/zero | tr '\\0' x >&2; echo; exit 2");
  const auto start = std::chrono::steady_clock::now();
  const auto problem = refusal(write("tet.off", kTetOff));
  EXPECT_LT(secondsSince(start), 5.0);
  EXPECT_EQ(problem.size(), 65536u);
  EXPECT_EQ(problem.find_first_not_of('x'), std::string::npos);
}

TEST_F(MeshImport, ImporterThatClosesItsPipesAndLingersIsStopped) {
  useImporterScript("exec >&- 2>&-; sleep 30");
  MeshLoadOptions o;
  o.import_time_limit_s = 1.0;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(refusal(write("tet.off", kTetOff), o),
            "the importer took longer than 1 s and was stopped");
  EXPECT_LT(secondsSince(start), 3.0);
}

TEST_F(MeshImport, UnexpectedExitStatusIsReported) {
  useImporterScript("echo 'something odd' >&2; exit 7");
  EXPECT_EQ(refusal(write("tet.off", kTetOff)),
            "the importer failed (exit status 7): something odd");
}

// The reply format.

TEST(MeshReply, RoundTripsEveryField) {
  LoadedModel m;
  m.warnings = {"a", ""};
  m.dropped_degenerate_faces = 3;
  m.ignored_nodes = {{"PointSet", 2}};
  MeshShape s;
  s.name = "box";
  s.diffuse_color = Eigen::Vector3f(0.1f, 0.2f, 0.3f);
  s.mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1e-300, 0}};
  s.mesh.triangles = {{0, 1, 2}};
  s.mesh.updateNormals();
  m.shapes = {s, MeshShape{}};
  const LoadedModel back = decodeMeshReply(encodeMeshReply(m), "f");
  EXPECT_EQ(back.warnings, m.warnings);
  EXPECT_EQ(back.dropped_degenerate_faces, 3);
  EXPECT_EQ(back.ignored_nodes, m.ignored_nodes);
  ASSERT_EQ(back.shapes.size(), 2u);
  EXPECT_EQ(back.shapes[0].name, "box");
  EXPECT_EQ(back.shapes[0].diffuse_color, s.diffuse_color);
  EXPECT_EQ(back.shapes[0].mesh.vertices, s.mesh.vertices);
  EXPECT_EQ(back.shapes[0].mesh.triangles, s.mesh.triangles);
  EXPECT_EQ(back.shapes[0].mesh.normals, s.mesh.normals);
  EXPECT_TRUE(back.shapes[1].mesh.vertices.empty());
}

TEST(MeshReply, EveryTruncationAndBadIndexIsRefused) {
  LoadedModel m;
  MeshShape s;
  s.name = "t";
  s.mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  s.mesh.triangles = {{0, 1, 2}};
  m.shapes = {s};
  m.warnings = {"w"};
  const std::string reply = encodeMeshReply(m);
  for (std::size_t n = 0; n < reply.size(); ++n)
    EXPECT_THROW(decodeMeshReply(reply.substr(0, n), "f"), io::InputError) << n;
  EXPECT_THROW(decodeMeshReply(reply + "x", "f"), io::InputError);
  m.shapes[0].mesh.triangles = {{0, 1, 3}};
  EXPECT_THROW(decodeMeshReply(encodeMeshReply(m), "f"), io::InputError);
  m.shapes[0].mesh.triangles = {{0, -1, 2}};
  EXPECT_THROW(decodeMeshReply(encodeMeshReply(m), "f"), io::InputError);
  // A vertex count far beyond the bytes present is refused before any allocation.
  std::string huge = encodeMeshReply(m);
  const std::size_t at = huge.find('t') + 1 + 3 * sizeof(float);
  huge.replace(at, 8, std::string(7, '\xff') + '\x7f');
  EXPECT_THROW(decodeMeshReply(huge, "f"), io::InputError);
}

}  // namespace
}  // namespace handsim::geometry
