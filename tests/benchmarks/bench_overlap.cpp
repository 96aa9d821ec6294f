// SPDX-License-Identifier: GPL-3.0-or-later
// Exact overlap volume (collision/overlap_volume.hpp) against CGAL's exact corefinement
// (Polygon_mesh_processing::corefine_and_compute_intersection, Epeck kernel, then volume) in one
// program: cube/cube (12 triangles each), cube/cube (972 each), sphere/sphere (~1k each) and a
// BarrettHand-like finger link against a ~1k-triangle sphere. Before timing, each case checks
// once that both agree on the volume to 1e-9. CGAL's time includes building its surface meshes
// from the same arrays (it corefines in place, so it needs fresh copies per query); handsim's
// trees are built once, as a simulation would. Results: docs/performance.md.
#include <benchmark/benchmark.h>

#include <CGAL/Exact_predicates_exact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/corefinement.h>
#include <CGAL/Polygon_mesh_processing/measure.h>
#include <CGAL/Surface_mesh.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "handsim/collision/kdop_tree.hpp"
#include "handsim/collision/overlap_volume.hpp"
#include "handsim/collision/primitives.hpp"

namespace hc = handsim::collision;
using handsim::geometry::TriangleMesh;
using Kernel = CGAL::Exact_predicates_exact_constructions_kernel;
using CgalMesh = CGAL::Surface_mesh<Kernel::Point_3>;
namespace PMP = CGAL::Polygon_mesh_processing;

namespace {

struct Case {
  std::string name;
  TriangleMesh a, b;
  Eigen::Isometry3d b_in_a;
};

Eigen::Isometry3d pose(double x, double y, double z, double angle) {
  Eigen::Isometry3d p = Eigen::Isometry3d::Identity();
  p.linear() = Eigen::AngleAxisd(angle, Eigen::Vector3d(1, 2, 3).normalized()).matrix();
  p.translation() = Eigen::Vector3d(x, y, z);
  return p;
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    const double r = 0.05;
    const TriangleMesh sphere1k = hc::makeUvSphere(r, 23, 23);  // 1012 triangles
    std::vector<Case> c;
    c.push_back({"cube12_cube12", hc::makeBox(Eigen::Vector3d::Constant(0.05), 1),
                 hc::makeBox(Eigen::Vector3d::Constant(0.05), 1), pose(0.03, 0.01, 0.005, 0.4)});
    c.push_back({"cube1k_cube1k", hc::makeBox(Eigen::Vector3d::Constant(0.05), 9),
                 hc::makeBox(Eigen::Vector3d::Constant(0.05), 9), pose(0.03, 0.01, 0.005, 0.4)});
    c.push_back({"sphere1k_sphere1k", sphere1k, sphere1k, pose(0.06, 0.01, 0.005, 0.4)});
    // Link 70 x 20 x 15 mm (192 triangles) pressing 2 mm into the sphere.
    c.push_back({"link_sphere1k", hc::makeBox(Eigen::Vector3d(0.070, 0.020, 0.015), 4), sphere1k,
                 pose(0.0, 0.0, 0.0075 + r - 0.002, 0.0)});
    return c;
  }();
  return all;
}

CgalMesh toCgal(const TriangleMesh& m, const Eigen::Isometry3d& pose) {
  CgalMesh out;
  std::vector<CgalMesh::Vertex_index> id;
  id.reserve(m.vertices.size());
  for (const auto& v : m.vertices) {
    const Eigen::Vector3d p = pose * v;
    id.push_back(out.add_vertex(Kernel::Point_3(p.x(), p.y(), p.z())));
  }
  for (const auto& t : m.triangles)
    out.add_face(id[static_cast<std::size_t>(t[0])], id[static_cast<std::size_t>(t[1])],
                 id[static_cast<std::size_t>(t[2])]);
  return out;
}

double cgalVolume(const Case& c) {
  CgalMesh a = toCgal(c.a, Eigen::Isometry3d::Identity()), b = toCgal(c.b, c.b_in_a), out;
  if (!PMP::corefine_and_compute_intersection(a, b, out)) return -1.0;
  return out.number_of_faces() == 0 ? 0.0 : CGAL::to_double(PMP::volume(out));
}

void checkAgreement(const Case& c) {
  const hc::KdopTree ta(c.a), tb(c.b);
  const double mine = hc::computeOverlap(ta, Eigen::Isometry3d::Identity(), tb, c.b_in_a).volume;
  const double ref = cgalVolume(c);
  if (!(std::abs(mine - ref) <= 1e-9 * ref) || ref <= 0.0) {
    std::fprintf(stderr, "%s: handsim %.17g vs CGAL %.17g\n", c.name.c_str(), mine, ref);
    std::exit(1);
  }
}

void BM_Overlap_Handsim(benchmark::State& state) {
  const Case& c = cases()[static_cast<std::size_t>(state.range(0))];
  checkAgreement(c);
  const hc::KdopTree ta(c.a), tb(c.b);
  hc::OverlapScratch scratch;
  hc::OverlapResult result;
  for (auto _ : state) {
    hc::computeOverlap(ta, Eigen::Isometry3d::Identity(), tb, c.b_in_a, scratch, result);
    benchmark::DoNotOptimize(result.volume);
  }
  state.SetLabel(c.name);
  state.counters["pieces"] = static_cast<double>(result.stats.pieces);
  state.counters["ray_casts"] = static_cast<double>(result.stats.ray_casts);
  state.counters["volume_mm3"] = result.volume * 1e9;
}

void BM_Overlap_Cgal(benchmark::State& state) {
  const Case& c = cases()[static_cast<std::size_t>(state.range(0))];
  double v = 0.0;
  for (auto _ : state) {
    v = cgalVolume(c);
    benchmark::DoNotOptimize(v);
  }
  state.SetLabel(c.name);
  state.counters["volume_mm3"] = v * 1e9;
}

}  // namespace

BENCHMARK(BM_Overlap_Handsim)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Overlap_Cgal)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
