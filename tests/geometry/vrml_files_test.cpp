// SPDX-License-Identifier: GPL-3.0-or-later
// Files the VRML reader touches and what it does with them (project issue #12): Inline urls
// stay inside the folder of the top-level file and the given search paths, one budget of
// bytes, triangles and time bounds the whole load however many times files are inlined, tiny
// models keep their faces, and damaged fields handsim does not use are warnings.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "handsim/geometry/triangle_mesh.hpp"
#include "vrml_test_util.hpp"

namespace handsim::geometry {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kSecret = "SECRET_7f3a_not_for_messages";

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

bool hasWarning(const LoadedModel& m, const std::string& part) {
  for (const auto& w : m.warnings)
    if (contains(w, part)) return true;
  return false;
}

double secondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

class VrmlFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() /
            ("handsim_files_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    fs::create_directories(base_ / "model" / "sub");
    fs::create_directories(base_ / "outside");
    // A file outside the model folder whose text would show up in a parse error.
    std::ofstream(base_ / "outside" / "secret.txt") << "root:" << kSecret << ":0:0\n";
    std::ofstream(base_ / "outside" / "secret.wrl")
        << "#VRML V2.0 utf8\nShape { geometry Box { } } " << kSecret << " {\n";
  }
  void TearDown() override { fs::remove_all(base_); }
  void write(const std::string& rel, const std::string& text) {
    std::ofstream(base_ / rel) << "#VRML V2.0 utf8\n" << text;
  }
  std::string path(const std::string& rel) const { return (base_ / rel).string(); }

  /// Loads model/main.wrl (which must not fail) and checks that no warning quotes the secret.
  LoadedModel loadMain(const VrmlOptions& options = {}) {
    LoadedModel m;
    try {
      m = loadVrml(path("model/main.wrl"), options);
    } catch (const io::InputError& e) {
      ADD_FAILURE() << "load failed: " << e.what();
      EXPECT_FALSE(contains(e.what(), kSecret)) << "the error quotes another file";
      return m;
    }
    for (const auto& w : m.warnings) EXPECT_FALSE(contains(w, kSecret)) << w;
    return m;
  }

  fs::path base_;
};

TEST_F(VrmlFiles, InlineOutsideTheModelFolderIsRefusedWithoutReadingIt) {
  const std::string urls[] = {
      path("outside/secret.txt"),
      "file://" + path("outside/secret.wrl"),
      "../outside/secret.txt",
      "sub/../../outside/secret.wrl",
      "../../../../../../../../../../etc/passwd",
      "/etc/passwd",
      "file:///etc/shadow",
  };
  for (const auto& url : urls) {
    SCOPED_TRACE(url);
    write("model/main.wrl", "Shape { geometry Box { } }\nInline { url \"" + url + "\" }");
    const auto m = loadMain();
    EXPECT_EQ(m.shapes.size(), 1u);
    EXPECT_TRUE(hasWarning(m, path("model/main.wrl") + ":3:1: Inline url '" + url + "'"))
        << ::testing::PrintToString(m.warnings);
    EXPECT_TRUE(hasWarning(m, "outside")) << ::testing::PrintToString(m.warnings);
    EXPECT_FALSE(hasWarning(m, "root:"));
  }
}

TEST_F(VrmlFiles, SymlinkLeadingOutsideCountsAsOutside) {
  std::error_code ec;
  fs::create_symlink(base_ / "outside" / "secret.wrl", base_ / "model" / "link.wrl", ec);
  fs::create_directory_symlink(base_ / "outside", base_ / "model" / "linkdir", ec);
  if (ec) GTEST_SKIP() << "cannot create symlinks here: " << ec.message();
  for (const std::string url : {"link.wrl", "linkdir/secret.wrl", "linkdir/secret.txt"}) {
    SCOPED_TRACE(url);
    write("model/main.wrl", "Inline { url \"" + url + "\" }");
    const auto m = loadMain();
    EXPECT_TRUE(m.shapes.empty());
    EXPECT_TRUE(hasWarning(m, "Inline url '" + url + "'")) << ::testing::PrintToString(m.warnings);
  }
}

TEST_F(VrmlFiles, NonVrmlFileInsideTheFolderIsNotQuoted) {
  std::ofstream(base_ / "model" / "notes.txt") << "root:" << kSecret << ":0:0\n";
  write("model/main.wrl", "Inline { url \"notes.txt\" }");
  const auto m = loadMain();
  EXPECT_TRUE(m.shapes.empty());
  EXPECT_TRUE(hasWarning(m, "Inline url 'notes.txt'")) << ::testing::PrintToString(m.warnings);
  EXPECT_TRUE(hasWarning(m, "not a VRML97 file")) << ::testing::PrintToString(m.warnings);
}

TEST_F(VrmlFiles, InlinesInsideTheFolderAndTheSearchPathsLoad) {
  write("model/sub/part.wrl", "Shape { geometry Box { } }\nInline { url \"../leaf.wrl\" }");
  write("model/leaf.wrl", "Shape { geometry Sphere { } }");
  write("outside/lib.wrl", "Shape { geometry Cone { } }");
  write("model/main.wrl",
        "Inline { url \"sub/part.wrl\" }\nInline { url \"" + path("model/leaf.wrl") +
            "\" }\nInline { url \"lib.wrl\" }\nInline { url \"../outside/lib.wrl\" }");
  // Without a search path the library folder is outside.
  const auto alone = loadMain();
  EXPECT_EQ(alone.shapes.size(), 3u);
  EXPECT_TRUE(hasWarning(alone, "Inline url '../outside/lib.wrl'"));
  // With it, relative urls are also looked up there.
  VrmlOptions o;
  o.inline_search_paths = {path("outside")};
  const auto m = loadMain(o);
  EXPECT_EQ(m.shapes.size(), 5u) << ::testing::PrintToString(m.warnings);
  EXPECT_TRUE(m.warnings.empty()) << ::testing::PrintToString(m.warnings);
}

// 8 files of about 536 bytes, each inlining the next 20 times: 20^7 file loads if nothing
// stops it.
TEST_F(VrmlFiles, InlineAmplificationRunsOutOfTheBudgetQuickly) {
  for (int i = 0; i < 8; ++i) {
    std::string text;
    for (int k = 0; k < 20; ++k)
      text += i < 7 ? "Inline { url \"f" + std::to_string(i + 1) + ".wrl\" }\n" : "Group { }\n";
    text += "# " + std::string(536 - 16 - 3 - text.size(), 'x') + "\n";
    write("model/f" + std::to_string(i) + ".wrl", text);
  }
  ASSERT_EQ(fs::file_size(base_ / "model" / "f0.wrl"), 536u);
  const auto t0 = Clock::now();
  try {
    loadVrml(path("model/f0.wrl"));
    ADD_FAILURE() << "no InputError";
  } catch (const io::InputError& e) {
    EXPECT_TRUE(contains(e.problem(), "VrmlOptions::max_total_bytes")) << e.what();
    EXPECT_GT(e.location().line, 0) << e.what();
    EXPECT_TRUE(contains(e.location().file, "model")) << e.what();
  }
  EXPECT_LT(secondsSince(t0), 10.0);
}

TEST_F(VrmlFiles, WallClockBudgetStopsTheLoad) {
  for (int i = 0; i < 8; ++i) {
    std::string text;
    for (int k = 0; k < 20; ++k)
      text += "Inline { url \"f" + std::to_string(std::min(i + 1, 7)) + ".wrl\" }\n";
    write("model/f" + std::to_string(i) + ".wrl", i < 7 ? text : "Group { }");
  }
  VrmlOptions o;
  o.max_total_bytes = std::size_t{1} << 40;
  o.max_load_seconds = 0.2;
  const auto t0 = Clock::now();
  try {
    loadVrml(path("model/f0.wrl"), o);
    ADD_FAILURE() << "no InputError";
  } catch (const io::InputError& e) {
    EXPECT_TRUE(contains(e.problem(), "VrmlOptions::max_load_seconds")) << e.what();
    EXPECT_GT(e.location().line, 0) << e.what();
  }
  EXPECT_LT(secondsSince(t0), 5.0);
}

// Writes a gzip file holding a VRML header and `spaces` blanks (about 1000:1 compression).
void writeGzipBomb(const fs::path& p, std::size_t spaces) {
  z_stream zs{};
  ASSERT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out;
  std::vector<char> buf(1 << 16);
  const auto pump = [&](const std::string& in, int flush) {
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    do {
      zs.next_out = reinterpret_cast<Bytef*>(buf.data());
      zs.avail_out = static_cast<uInt>(buf.size());
      deflate(&zs, flush);
      out.append(buf.data(), buf.size() - zs.avail_out);
    } while (zs.avail_out == 0);
  };
  pump("#VRML V2.0 utf8\n", Z_NO_FLUSH);
  const std::string blanks(1 << 20, ' ');
  for (std::size_t done = 0; done < spaces; done += blanks.size()) pump(blanks, Z_NO_FLUSH);
  pump("Shape { geometry Box { } }\n", Z_FINISH);
  deflateEnd(&zs);
  std::ofstream(p, std::ios::binary) << out;
}

TEST_F(VrmlFiles, GzipBombInlinedManyTimesRunsOutOfTheBudget) {
  writeGzipBomb(base_ / "model" / "bomb.wrl.gz", std::size_t{200} << 20);
  ASSERT_LT(fs::file_size(base_ / "model" / "bomb.wrl.gz"), std::uintmax_t{1} << 20);
  std::string text;
  for (int k = 0; k < 50; ++k) text += "Inline { url \"bomb.wrl.gz\" }\n";
  write("model/main.wrl", text);
  const auto t0 = Clock::now();
  try {
    loadVrml(path("model/main.wrl"));
    ADD_FAILURE() << "no InputError";
  } catch (const io::InputError& e) {
    EXPECT_TRUE(contains(e.problem(), "VrmlOptions::max_total_bytes")) << e.what();
    EXPECT_EQ(e.location().file, path("model/main.wrl")) << e.what();
    EXPECT_EQ(e.location().line, 3) << e.what();  // the second Inline
  }
  EXPECT_LT(secondsSince(t0), 10.0);
}

TEST(VrmlScaleFree, TinyCubeKeepsItsFacesAndVolume) {
  for (const double s : {1e-4, 1e-6}) {
    SCOPED_TRACE(s);
    const std::string k = std::to_string(s);
    const auto m = testing::parse("Transform { scale " + k + " " + k + " " + k + R"( children
      Shape { geometry IndexedFaceSet { convex FALSE
        coord Coordinate { point [ 0 0 0, 1 0 0, 1 1 0, 0 1 0, 0 0 1, 1 0 1, 1 1 1, 0 1 1 ] }
        coordIndex [ 0 3 2 1 -1, 4 5 6 7 -1, 0 1 5 4 -1, 1 2 6 5 -1, 2 3 7 6 -1, 3 0 4 7 ] } } })");
    ASSERT_EQ(m.shapes.size(), 1u);
    EXPECT_EQ(m.shapes[0].mesh.triangles.size(), 12u);
    EXPECT_EQ(m.dropped_degenerate_faces, 0);
    const auto v = closedVolume(m.shapes[0].mesh);
    ASSERT_TRUE(v.has_value());
    EXPECT_NEAR(*v / (s * s * s), 1.0, 1e-9);
  }
}

// An Extrusion along a helix written at scale s must be the same shape scaled by s: the
// collinearity tests of the spine are relative to its own segment lengths.
TEST(VrmlScaleFree, ExtrusionAlongAHelixScalesExactly) {
  const auto helix = [](double s) {
    char buf[128];
    std::string spine, cross;
    for (int i = 0; i <= 12; ++i) {
      const double a = 1.5 * 3.141592653589793 * i / 12.0;
      std::snprintf(buf, sizeof buf, "%.17g %.17g %.17g, ", s * std::cos(a), s * std::sin(a),
                    s * 0.3 * a);
      spine += buf;
    }
    const double c[] = {0.4, 0.1, 0.1, -0.1, -0.1, -0.1, -0.1, 0.1, 0.4, 0.1};
    for (double x : c) {
      std::snprintf(buf, sizeof buf, "%.17g ", s * x);
      cross += buf;
    }
    return testing::parse("Shape { geometry Extrusion { crossSection [ " + cross + "] spine [ " +
                          spine + "] } }");
  };
  const auto ref = helix(1.0);
  ASSERT_EQ(ref.shapes.size(), 1u);
  for (const double s : {1e-4, 1e-6, 1e-8}) {
    SCOPED_TRACE(s);
    const auto m = helix(s);
    ASSERT_EQ(m.shapes.size(), 1u);
    const auto& a = ref.shapes[0].mesh;
    const auto& b = m.shapes[0].mesh;
    ASSERT_EQ(a.triangles.size(), b.triangles.size());
    ASSERT_EQ(a.vertices.size(), b.vertices.size());
    for (std::size_t i = 0; i < a.vertices.size(); ++i)
      EXPECT_LT((b.vertices[i] / s - a.vertices[i]).norm(), 1e-9) << i;
  }
}

TEST(VrmlNonFinite, NanInNormalsIsAWarning) {
  const auto m = testing::parse(R"(Shape { geometry IndexedFaceSet {
    coord Coordinate { point [ 0 0 0, 1 0 0, 0 1 0 ] } coordIndex [ 0 1 2 ]
    normal Normal { vector [ 0 0 1,
                             -nan -nan -nan, nan inf -inf ] } } })");
  ASSERT_EQ(m.shapes.size(), 1u);
  EXPECT_EQ(m.shapes[0].mesh.triangles.size(), 1u);
  EXPECT_TRUE(hasWarning(m, "test.wrl:5:30: Normal.vector: "))
      << ::testing::PrintToString(m.warnings);
  EXPECT_TRUE(hasWarning(m, "'-nan'")) << ::testing::PrintToString(m.warnings);
}

TEST(VrmlNonFinite, NanInCoordinatesStaysAnError) {
  const auto e = testing::parseError(R"(#VRML V2.0 utf8
Shape { geometry IndexedFaceSet {
  coord Coordinate { point [ 0 0 0, 1 -nan 0, 0 1 0 ] } coordIndex [ 0 1 2 ] } })");
  EXPECT_EQ(e.location().line, 3);
  EXPECT_EQ(e.location().column, 39);
  EXPECT_TRUE(contains(e.problem(), "'-nan' is not finite")) << e.what();
  const auto f = testing::parseError(R"(#VRML V2.0 utf8
PROTO P [ field SFVec3f t 0 inf 0 ] { Transform { translation IS t } }
P { })");
  EXPECT_EQ(f.location().line, 2);
  EXPECT_EQ(f.location().column, 29);
}

}  // namespace
}  // namespace handsim::geometry
