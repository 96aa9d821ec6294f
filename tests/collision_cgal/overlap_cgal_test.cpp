// SPDX-License-Identifier: GPL-3.0-or-later
// The overlap volume and centroid (overlap_volume.hpp) against CGAL's exact corefinement
// (Polygon_mesh_processing::corefine_and_compute_intersection with an exact-constructions
// kernel) on random relative poses of closed, non-convex meshes: an L-shaped prism, a torus, and
// the shipped objects of assets/objects. CGAL is a test-only dependency (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <CGAL/Exact_predicates_exact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/corefinement.h>
#include <CGAL/Polygon_mesh_processing/measure.h>
#include <CGAL/Surface_mesh.h>

#include <Eigen/Geometry>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "handsim/collision/kdop_tree.hpp"
#include "handsim/collision/overlap_volume.hpp"
#include "handsim/collision/primitives.hpp"
#include "handsim/formats/vrml_reader.hpp"

namespace handsim::collision {
namespace {

using Eigen::Isometry3d;
using Eigen::Vector3d;
using geometry::TriangleMesh;
using Kernel = CGAL::Exact_predicates_exact_constructions_kernel;
using CgalMesh = CGAL::Surface_mesh<Kernel::Point_3>;
namespace PMP = CGAL::Polygon_mesh_processing;
constexpr double kPi = 3.14159265358979323846;

// L-shaped prism: the L polygon (0,0) (2,0) (2,1) (1,1) (1,2) (0,2) times `unit`, extruded by
// `height`; the caps are fans from the reflex corner (1,1), which sees the whole L.
TriangleMesh lPrism(double unit, double height) {
  const double xy[6][2] = {{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}};
  TriangleMesh m;
  for (int z = 0; z < 2; ++z)
    for (const auto& p : xy) m.vertices.emplace_back(p[0] * unit, p[1] * unit, z * height);
  const int fan[4][3] = {{3, 4, 5}, {3, 5, 0}, {3, 0, 1}, {3, 1, 2}};
  for (const auto& f : fan) {
    m.triangles.push_back({6 + f[0], 6 + f[1], 6 + f[2]});  // top, counter-clockwise from +z
    m.triangles.push_back({f[0], f[2], f[1]});              // bottom, reversed
  }
  for (int i = 0; i < 6; ++i) {
    const int j = (i + 1) % 6;
    m.triangles.push_back({i, j, 6 + j});
    m.triangles.push_back({i, 6 + j, 6 + i});
  }
  m.updateNormals();
  return m;
}

// Torus of major radius R and minor radius r about z, n x k quads, outward.
TriangleMesh torus(double R, double r, int n, int k) {
  TriangleMesh m;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) {
      const double u = 2 * kPi * i / n, v = 2 * kPi * j / k;
      m.vertices.emplace_back((R + r * std::cos(v)) * std::cos(u),
                              (R + r * std::cos(v)) * std::sin(u), r * std::sin(v));
    }
  auto id = [&](int i, int j) { return ((i % n) * k) + (j % k); };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < k; ++j) {
      m.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      m.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  if (geometry::signedVolume(m) < 0)
    for (auto& t : m.triangles) std::swap(t[1], t[2]);
  m.updateNormals();
  return m;
}

// The mesh placed by `pose`, vertices welded by their coordinates, as a CGAL surface mesh.
CgalMesh toCgal(const TriangleMesh& mesh, const Isometry3d& pose) {
  CgalMesh out;
  std::map<std::tuple<double, double, double>, CgalMesh::Vertex_index> weld;
  std::vector<CgalMesh::Vertex_index> id;
  for (const auto& v : mesh.vertices) {
    const auto key = std::make_tuple(v.x() + 0.0, v.y() + 0.0, v.z() + 0.0);
    auto it = weld.find(key);
    if (it == weld.end()) {
      const Vector3d p = pose * v;
      it = weld.emplace(key, out.add_vertex(Kernel::Point_3(p.x(), p.y(), p.z()))).first;
    }
    id.push_back(it->second);
  }
  for (const auto& t : mesh.triangles) {
    const auto f =
        out.add_face(id[static_cast<std::size_t>(t[0])], id[static_cast<std::size_t>(t[1])],
                     id[static_cast<std::size_t>(t[2])]);
    EXPECT_NE(f, CgalMesh::null_face());
  }
  return out;
}

struct Reference {
  double volume = 0.0;
  Vector3d centroid = Vector3d::Zero();
};

Reference cgalIntersection(const TriangleMesh& a, const Isometry3d& pa, const TriangleMesh& b,
                           const Isometry3d& pb) {
  CgalMesh ma = toCgal(a, pa), mb = toCgal(b, pb), out;
  EXPECT_TRUE(PMP::corefine_and_compute_intersection(ma, mb, out));
  Reference r;
  if (out.number_of_faces() == 0) return r;
  r.volume = CGAL::to_double(PMP::volume(out));
  if (r.volume > 0) {
    const auto c = PMP::centroid(out);
    r.centroid = Vector3d(CGAL::to_double(c.x()), CGAL::to_double(c.y()), CGAL::to_double(c.z()));
  }
  return r;
}

Isometry3d randomPose(std::mt19937& rng, const Vector3d& centre, double spread) {
  std::normal_distribution<double> g;
  Isometry3d x = Isometry3d::Identity();
  x.linear() = Eigen::Quaterniond(g(rng), g(rng), g(rng), g(rng)).normalized().toRotationMatrix();
  x.translation() = centre + spread * Vector3d(g(rng), g(rng), g(rng));
  return x;
}

struct Body {
  std::string name;
  TriangleMesh mesh;
};

// Compares on `poses` random relative poses where the bounding spheres overlap; returns how many
// poses had a non-empty intersection.
int compareOnRandomPoses(const Body& a, const Body& b, int poses, unsigned seed) {
  const KdopTree ta(a.mesh), tb(b.mesh);
  EXPECT_TRUE(checkMeshClosure(a.mesh).closed) << a.name;
  EXPECT_TRUE(checkMeshClosure(b.mesh).closed) << b.name;
  const auto box_a = geometry::boundingBox(a.mesh), box_b = geometry::boundingBox(b.mesh);
  const Vector3d ca = 0.5 * (box_a.min + box_a.max), cb = 0.5 * (box_b.min + box_b.max);
  const double ra = 0.5 * (box_a.max - box_a.min).norm(), rb = 0.5 * (box_b.max - box_b.min).norm();
  const double size = std::max(ra, rb);
  const double smaller_volume =
      std::min(geometry::signedVolume(a.mesh), geometry::signedVolume(b.mesh));
  std::mt19937 rng(seed);
  OverlapScratch scratch;
  OverlapResult mine;
  int non_empty = 0;
  for (int i = 0; i < poses; ++i) {
    // Centre B's box near A's centre (within 0.6 of the sum of the radii).
    Isometry3d pa = randomPose(rng, Vector3d(0.1, -0.2, 0.05), 0.0);
    Isometry3d pb = randomPose(rng, Vector3d::Zero(), 0.0);
    std::normal_distribution<double> g;
    const Vector3d offset = 0.35 * (ra + rb) * Vector3d(g(rng), g(rng), g(rng)).normalized() *
                            std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    pb.translation() = pa * ca + offset - pb.linear() * cb;
    computeOverlap(ta, pa, tb, pb, scratch, mine);
    const Reference ref = cgalIntersection(a.mesh, pa, b.mesh, pb);
    const std::string what = a.name + " vs " + b.name + " pose " + std::to_string(i);
    EXPECT_NEAR(mine.volume, ref.volume, 1e-9 * std::max(ref.volume, 1e-6 * smaller_volume))
        << what;
    if (ref.volume > 1e-6 * smaller_volume) {
      ++non_empty;
      EXPECT_NEAR((mine.centroid_world - ref.centroid).norm(), 0.0, 1e-9 * size) << what;
    }
  }
  return non_empty;
}

TEST(OverlapVersusCgal, LPrismAgainstTorus) {
  const Body l{"L prism", lPrism(0.02, 0.015)};
  const Body t{"torus", torus(0.025, 0.008, 24, 12)};
  EXPECT_GE(compareOnRandomPoses(l, t, 25, 1), 10);
  EXPECT_GE(compareOnRandomPoses(l, l, 15, 2), 8);
  EXPECT_GE(compareOnRandomPoses(t, t, 15, 3), 5);
}

TEST(OverlapVersusCgal, SphereAndBoxes) {
  const Body s{"sphere", makeUvSphere(0.03, 16, 24)};
  const Body b{"box", makeBox(Vector3d(0.04, 0.03, 0.02), 3)};
  EXPECT_GE(compareOnRandomPoses(s, b, 20, 4), 10);
}

TEST(OverlapVersusCgal, ShippedObjects) {
  const std::string dir = std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/";
  std::vector<Body> bodies;
  for (const char* name : {"cube.wrl", "sphere.wrl", "cylinder.wrl", "bottle.wrl", "mug.wrl"}) {
    const auto model = geometry::loadVrml(dir + name);
    // Each closed part on its own (the mug's parts interpenetrate, so their union is not a
    // single closed surface).
    for (const auto& shape : model.shapes)
      if (checkMeshClosure(shape.mesh).closed)
        bodies.push_back({std::string(name) + ":" + shape.name, shape.mesh});
  }
  ASSERT_GE(bodies.size(), 4u);
  unsigned seed = 10;
  for (std::size_t i = 0; i < bodies.size(); ++i)
    for (std::size_t j = i; j < bodies.size() && j < i + 2; ++j)
      compareOnRandomPoses(bodies[i], bodies[j], 4, seed++);
  const Body l{"L prism", lPrism(0.03, 0.02)};
  EXPECT_GE(compareOnRandomPoses(bodies[0], l, 8, 99), 3);
}

}  // namespace
}  // namespace handsim::collision
