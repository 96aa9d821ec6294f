// SPDX-License-Identifier: GPL-3.0-or-later
// Damaged files of every Assimp format we name (issue #12: 257 crashes and 123 hangs in 3000
// mutated files when Assimp ran in our process). Small valid OBJ, STL (ASCII and binary), PLY,
// OFF, COLLADA and glTF files written here are mutated with a fixed-seed generator (bytes
// flipped, cut short, lines duplicated or dropped, numbers made huge or negative); each result
// must load or throw io::InputError, nothing else, and this process must live through all of
// them. The importer's time limit is 2 s, so hangs cost at most that each.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "handsim/formats/mesh_loader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::geometry {
namespace {

namespace fs = std::filesystem;

struct Seed {
  std::string extension;
  std::string bytes;
};

std::string binaryStlTetrahedron() {
  const float corners[4][3][3] = {{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}},
                                  {{0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
                                  {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}},
                                  {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  std::string b = "binary tetrahedron";
  b.resize(80, ' ');
  const std::uint32_t n = 4;
  b.append(reinterpret_cast<const char*>(&n), sizeof n);
  for (const auto& tri : corners) {
    const float normal[3] = {0, 0, 0};
    b.append(reinterpret_cast<const char*>(normal), sizeof normal);
    b.append(reinterpret_cast<const char*>(tri), sizeof tri);
    b.append(2, '\0');
  }
  return b;
}

std::vector<Seed> seeds() {
  return {
      {".obj",
       "# cube\no cube\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1\n"
       "vt 0 0\nvt 1 0\nvt 0 1\nvn 0 0 1\nf 2/1 4/2 8/3 6/1\nf 1/1 5/2 7/3 3/1\nf 3 7 8 4\n"
       "f 1//1 2//1 6//1 5//1\nf 5 6 8 7\nf 1 3 4 2\n"},
      {".stl",
       "solid tet\nfacet normal 0 0 -1\n outer loop\n  vertex 0 0 0\n  vertex 0 1 0\n"
       "  vertex 1 0 0\n endloop\nendfacet\nfacet normal 0 -1 0\n outer loop\n  vertex 0 0 0\n"
       "  vertex 1 0 0\n  vertex 0 0 1\n endloop\nendfacet\nfacet normal 1 1 1\n outer loop\n"
       "  vertex 1 0 0\n  vertex 0 1 0\n  vertex 0 0 1\n endloop\nendfacet\nendsolid tet\n"},
      {".stl", binaryStlTetrahedron()},
      {".ply",
       "ply\nformat ascii 1.0\ncomment tetrahedron\nelement vertex 4\nproperty float x\n"
       "property float y\nproperty float z\nelement face 4\n"
       "property list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
       "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n"},
      {".off", "OFF\n4 4 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n4 1 2 3 0\n"},
      {".dae", R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><unit name="meter" meter="1"/><up_axis>Z_UP</up_axis></asset>
<library_geometries>
<geometry id="g" name="g"><mesh>
<source id="p"><float_array id="pa" count="12">0 0 0 1 0 0 0 1 0 0 0 1</float_array>
<technique_common><accessor source="#pa" count="4" stride="3">
<param name="X" type="float"/><param name="Y" type="float"/><param name="Z" type="float"/>
</accessor></technique_common></source>
<vertices id="v"><input semantic="POSITION" source="#p"/></vertices>
<polylist count="2"><input semantic="VERTEX" source="#v" offset="0"/>
<vcount>3 4</vcount><p>0 2 1 0 1 3 2</p></polylist>
</mesh></geometry>
</library_geometries>
<library_visual_scenes><visual_scene id="s">
<node id="a" name="a"><matrix>1 0 0 0 0 1 0 0 0 0 1 2 0 0 0 1</matrix>
<node id="b" name="b"><instance_geometry url="#g"/></node></node>
</visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#s"/></scene>
</COLLADA>
)"},
      {".gltf", R"({"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
"nodes": [{"mesh": 0, "name": "tri", "translation": [0, 0, 3], "children": [1]}, {"mesh": 0, "scale": [2, 2, 2]}],
"meshes": [{"name": "tri", "primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
"buffers": [{"byteLength": 44, "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA="}],
"bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 6}],
"accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 0]},
{"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}]}
)"},
  };
}

// Damage of the kinds that broke Assimp: flipped bytes, a file cut short, lines repeated or
// lost, and numbers (counts, indices, coordinates) replaced by extreme ones.
class Mutator {
 public:
  explicit Mutator(std::uint32_t seed) : rng_(seed) {}

  std::string mutate(std::string s) {
    const int steps = pick(1, 3);
    for (int k = 0; k < steps && !s.empty(); ++k) {
      switch (pick(0, 5)) {
        case 0:
          flipBytes(s);
          break;
        case 1:
          s.resize(static_cast<std::size_t>(pick(0, static_cast<int>(s.size()) - 1)));
          break;
        case 2:
          duplicateLine(s);
          break;
        case 3:
          dropLine(s);
          break;
        default:
          replaceNumber(s);
          break;
      }
    }
    return s;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  void flipBytes(std::string& s) {
    for (int n = pick(1, 4); n > 0; --n)
      s[static_cast<std::size_t>(pick(0, static_cast<int>(s.size()) - 1))] ^=
          static_cast<char>(1 << pick(0, 7));
  }

  // [begin, end) of a random line.
  std::pair<std::size_t, std::size_t> line(const std::string& s) {
    const auto at = static_cast<std::size_t>(pick(0, static_cast<int>(s.size()) - 1));
    const std::size_t begin = s.rfind('\n', at) == std::string::npos ? 0 : s.rfind('\n', at) + 1;
    const std::size_t nl = s.find('\n', begin);
    return {begin, nl == std::string::npos ? s.size() : nl + 1};
  }

  void duplicateLine(std::string& s) {
    const auto [begin, end] = line(s);
    const std::string copy = s.substr(begin, end - begin);
    for (int n = pick(1, 3); n > 0; --n) s.insert(end, copy);
  }

  void dropLine(std::string& s) {
    const auto [begin, end] = line(s);
    s.erase(begin, end - begin);
  }

  void replaceNumber(std::string& s) {
    static const char* kExtremes[] = {"-1",         "0",          "-2147483649", "2147483647",
                                      "4294967295", "4294967296", "99999999999", "-99999999",
                                      "1e38",       "-3.4e39",    "nan",         "inf",
                                      "65535",      "1e-45",      "7",           "-0"};
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (std::isdigit(static_cast<unsigned char>(s[i])) &&
          (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]))))
        starts.push_back(i);
    if (starts.empty()) return flipBytes(s);
    const std::size_t begin =
        starts[static_cast<std::size_t>(pick(0, static_cast<int>(starts.size()) - 1))];
    std::size_t end = begin;
    while (end < s.size() && (std::isdigit(static_cast<unsigned char>(s[end])) || s[end] == '.'))
      ++end;
    s.replace(begin, end - begin, kExtremes[pick(0, 15)]);
  }

  std::mt19937 rng_;
};

// What became of a file: "loaded" or the kind of refusal.
std::string outcomeKind(const std::string& problem) {
  for (const char* kind : {"crashed", "took longer", "CPU time", "out of memory",
                           "reply is malformed", "cannot load mesh", "no mesh data", "exit status"})
    if (problem.find(kind) != std::string::npos) return kind;
  return "other refusal";
}

TEST(MeshImportMutation, EveryDamagedFileLoadsOrIsAnInputError) {
  const fs::path dir =
      fs::temp_directory_path() / ("handsim_import_mutation_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  constexpr int kPerSeed = 50;
  Mutator mutator(12);
  std::vector<std::string> files;
  const auto all = seeds();
  for (std::size_t k = 0; k < all.size(); ++k) {
    // The valid seed itself first: it must load.
    for (int i = 0; i <= kPerSeed; ++i) {
      const std::string bytes = i == 0 ? all[k].bytes : mutator.mutate(all[k].bytes);
      const fs::path p =
          dir / ("m" + std::to_string(k) + "_" + std::to_string(i) + all[k].extension);
      std::ofstream(p, std::ios::binary) << bytes;
      files.push_back(p.string());
    }
  }

  MeshLoadOptions options;
  options.import_time_limit_s = 2.0;
  options.import_memory_limit_bytes = kDefaultImportMemoryLimit == 0 ? 0 : std::size_t{1} << 30;
  std::mutex mutex;
  std::map<std::string, int> outcomes;
  std::vector<std::string> failures;
  std::atomic<std::size_t> next{0};
  // Two workers: hangs wait on the time limit, so the run time stays bounded.
  auto work = [&] {
    for (std::size_t i = next++; i < files.size(); i = next++) {
      std::string kind;
      try {
        const LoadedModel m = loadMesh(files[i], options);
        for (const auto& s : m.shapes)
          for (const auto& t : s.mesh.triangles)
            for (int v : t)
              if (v < 0 || static_cast<std::size_t>(v) >= s.mesh.vertices.size())
                kind = "bad index";
        if (kind.empty()) kind = "loaded";
      } catch (const io::InputError& e) {
        kind = outcomeKind(e.problem());
        if (e.location().file != files[i]) kind = "error without the file";
      } catch (const std::exception& e) {
        kind = std::string("other exception: ") + e.what();
      } catch (...) {
        kind = "unknown exception";
      }
      const std::lock_guard<std::mutex> lock(mutex);
      ++outcomes[kind];
      const bool seed_file = files[i].find("_0.") != std::string::npos;
      // A malformed reply would be a fault of our importer, not of the file.
      if ((seed_file && kind != "loaded") || kind == "bad index" || kind == "reply is malformed" ||
          kind.rfind("other exception", 0) == 0 || kind == "unknown exception" ||
          kind == "error without the file")
        failures.push_back(files[i] + ": " + kind);
    }
  };
  const auto start = std::chrono::steady_clock::now();
  std::thread a(work), b(work);
  a.join();
  b.join();
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::cout << "[mutation] " << files.size() << " files in " << took << " s:";
  for (const auto& [kind, n] : outcomes) std::cout << " " << kind << " " << n << ";";
  std::cout << "\n";
  EXPECT_TRUE(failures.empty()) << failures.size() << " bad outcomes, first: " << failures[0];
  EXPECT_GT(outcomes["loaded"], 7);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace handsim::geometry
