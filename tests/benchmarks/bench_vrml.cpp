// SPDX-License-Identifier: GPL-3.0-or-later
// VRML97 load + tessellate throughput. Writes a ~20 MB IndexedFaceSet (a wavy 600 x 600 quad
// grid) to the temp folder at start, and also reads the gzip terrain of the external corpus
// when the reference corpus ($HANDSIM_CORPUS_DIR) is present. Counters: input MB/s
// (bytes_per_second) and triangles per second.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "../support/corpus.hpp"
#include "handsim/formats/vrml_reader.hpp"

namespace {

namespace fs = std::filesystem;

const std::string& bigFile() {
  static const std::string path = [] {
    const fs::path p = fs::temp_directory_path() / "handsim_bench_vrml_grid.wrl";
    std::ofstream out(p);
    const int n = 600;
    out << "#VRML V2.0 utf8\nShape { geometry IndexedFaceSet {\n coord Coordinate { point [\n";
    char line[96];
    for (int j = 0; j <= n; ++j)
      for (int i = 0; i <= n; ++i) {
        std::snprintf(line, sizeof line, "%.6f %.6f %.6f,\n", i * 0.001,
                      0.01 * std::sin(i * 0.05) * std::cos(j * 0.05), j * 0.001);
        out << line;
      }
    out << "] }\n coordIndex [\n";
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const int a = j * (n + 1) + i;
        out << a << ' ' << a + n + 1 << ' ' << a + n + 2 << ' ' << a + 1 << " -1\n";
      }
    out << "] } }\n";
    return p.string();
  }();
  return path;
}

fs::path corpusTerrain() {
  return handsim::test::corpusPath("vrml/pathfinder_terrain_full_80k_gzip.wrl");
}

void loadFile(benchmark::State& state, const std::string& path) {
  if (!fs::exists(path)) {
    state.SkipWithError("input file absent");
    return;
  }
  const auto bytes = static_cast<std::int64_t>(fs::file_size(path));
  std::size_t triangles = 0;
  for (auto _ : state) {
    const auto model = handsim::geometry::loadVrml(path);
    triangles = model.triangleCount();
    benchmark::DoNotOptimize(triangles);
  }
  state.SetBytesProcessed(state.iterations() * bytes);
  state.counters["triangles"] = static_cast<double>(triangles);
  state.counters["triangles_per_second"] =
      benchmark::Counter(static_cast<double>(triangles) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
}

void BM_VrmlLargeIndexedFaceSet(benchmark::State& state) {
  loadFile(state, bigFile());
}
BENCHMARK(BM_VrmlLargeIndexedFaceSet)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VrmlCorpusTerrainGzip(benchmark::State& state) {
  loadFile(state, corpusTerrain().string());
}
BENCHMARK(BM_VrmlCorpusTerrainGzip)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_VrmlPrimitiveSphere(benchmark::State& state) {
  handsim::geometry::VrmlOptions o;
  o.segments = static_cast<int>(state.range(0));
  std::size_t triangles = 0;
  for (auto _ : state) {
    const auto m =
        handsim::geometry::parseVrml("#VRML V2.0 utf8\nShape { geometry Sphere { } }", "s.wrl", o);
    triangles = m.triangleCount();
    benchmark::DoNotOptimize(triangles);
  }
  state.counters["triangles_per_second"] =
      benchmark::Counter(static_cast<double>(triangles) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}
BENCHMARK(BM_VrmlPrimitiveSphere)->Arg(32)->Arg(256);

}  // namespace

BENCHMARK_MAIN();
