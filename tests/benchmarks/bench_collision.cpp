// SPDX-License-Identifier: GPL-3.0-or-later
// handsim's k-DOP hierarchy against FCL 0.7 (every mesh BVH it offers: AABB, KDOP<18>, OBB, RSS,
// OBBRSS) in one program: hierarchy build time, first-contact and all-contacts queries on
// sphere-sphere (1k, 10k, 100k triangles), box-sphere, near misses and a BarrettHand-like link
// against a sphere. Before timing, each case checks once that both libraries agree on
// colliding / not colliding. Results: docs/performance.md.
#include <benchmark/benchmark.h>

#include <fcl/fcl.h>

#include <filesystem>

#include <Eigen/Geometry>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../support/corpus.hpp"
#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/contact_scratch.hpp"
#include "handsim/collision/convex_contact.hpp"
#include "handsim/collision/convex_hull.hpp"
#include "handsim/collision/kdop_tree.hpp"
#include "handsim/collision/primitives.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/formats/mesh_loader.hpp"

namespace hc = handsim::collision;
using handsim::geometry::TriangleMesh;

namespace {

struct Shape {
  std::string name;
  TriangleMesh mesh;
};

// UV spheres whose triangle counts are about 1k, 10k and 100k (2 n (n - 1) for n x n).
const Shape& sphere(int approx_triangles) {
  static std::map<int, Shape> cache;
  auto it = cache.find(approx_triangles);
  if (it == cache.end()) {
    const int n = approx_triangles == 1000 ? 23 : (approx_triangles == 10000 ? 71 : 224);
    it = cache
             .emplace(approx_triangles,
                      Shape{"sphere" + std::to_string(approx_triangles / 1000) + "k",
                            hc::makeUvSphere(0.05, n, n)})
             .first;
  }
  return it->second;
}

const Shape& box() {
  static const Shape s{"box1k", hc::makeBox(Eigen::Vector3d(0.08, 0.08, 0.08), 9)};  // 972
  return s;
}

const Shape& fingerLink() {
  // BarrettHand-like link: a 70 x 20 x 15 mm box, faces cut into 4 x 4 squares (192 triangles).
  static const Shape s{"link", hc::makeBox(Eigen::Vector3d(0.070, 0.020, 0.015), 4)};
  return s;
}

Eigen::Isometry3d pose(double x, double y, double z, double angle) {
  Eigen::Isometry3d p = Eigen::Isometry3d::Identity();
  p.linear() = Eigen::AngleAxisd(angle, Eigen::Vector3d(1, 2, 3).normalized()).matrix();
  p.translation() = Eigen::Vector3d(x, y, z);
  return p;
}

struct Case {
  std::string name;
  const Shape* a;
  const Shape* b;
  Eigen::Isometry3d b_in_a;
  bool colliding;  // expected answer, checked against both libraries
};

std::vector<Case> cases() {
  // Sphere radius 50 mm. Overlapping: centres 60 mm apart. Near miss: along the diagonal (a slab
  // direction of the 14- and 26-DOP, not of the 18-DOP) or a generic direction, where the
  // bounding boxes overlap deeply, the spheres (and so their inscribed meshes) are 0.2 mm
  // apart; the box's corner is 0.2 mm from the sphere.
  const double r = 0.05;
  const double diagonal = 1.0 / std::sqrt(3.0);
  // A direction close to none of the k-DOP slab directions.
  const Eigen::Vector3d generic = Eigen::Vector3d(1.0, 0.55, 0.3).normalized();
  const double inscribed_gap = 0.0002;
  return {
      {"sphere1k_sphere1k", &sphere(1000), &sphere(1000), pose(0.06, 0.01, 0.005, 0.4), true},
      {"sphere10k_sphere10k", &sphere(10000), &sphere(10000), pose(0.06, 0.01, 0.005, 0.4), true},
      {"sphere100k_sphere100k", &sphere(100000), &sphere(100000), pose(0.06, 0.01, 0.005, 0.4),
       true},
      {"box1k_sphere10k", &box(), &sphere(10000), pose(0.07, 0.02, 0.01, 0.3), true},
      {"nearmiss_sphere10k_sphere10k", &sphere(10000), &sphere(10000),
       pose(diagonal * (2 * r + inscribed_gap), diagonal * (2 * r + inscribed_gap),
            diagonal * (2 * r + inscribed_gap), 0.4),
       false},
      {"nearmiss_generic_sphere10k_sphere10k", &sphere(10000), &sphere(10000),
       pose(generic.x() * (2 * r + inscribed_gap), generic.y() * (2 * r + inscribed_gap),
            generic.z() * (2 * r + inscribed_gap), 0.4),
       false},
      {"nearmiss_box1k_sphere10k", &box(), &sphere(10000),
       pose(0.04 + diagonal * (r + inscribed_gap), 0.04 + diagonal * (r + inscribed_gap),
            0.04 + diagonal * (r + inscribed_gap), 0.3),
       false},
      {"link_sphere10k", &fingerLink(), &sphere(10000), pose(0.0, 0.0, 0.0075 + r - 0.002, 0.0),
       true},
  };
}

// ---------------------------------------------------------------- handsim
std::shared_ptr<hc::KdopTree> ourTree(const Shape& s, int k) {
  static std::map<std::pair<const Shape*, int>, std::shared_ptr<hc::KdopTree>> cache;
  auto& t = cache[{&s, k}];
  if (!t) t = std::make_shared<hc::KdopTree>(s.mesh, hc::KdopTreeOptions{k, 8});
  return t;
}

// ---------------------------------------------------------------- FCL
template <class BV>
std::shared_ptr<fcl::BVHModel<BV>> fclModel(const TriangleMesh& m) {
  auto model = std::make_shared<fcl::BVHModel<BV>>();
  std::vector<fcl::Vector3d> points(m.vertices.begin(), m.vertices.end());
  std::vector<fcl::Triangle> tris;
  tris.reserve(m.triangles.size());
  for (const auto& t : m.triangles)
    tris.emplace_back(static_cast<std::size_t>(t[0]), static_cast<std::size_t>(t[1]),
                      static_cast<std::size_t>(t[2]));
  model->beginModel(static_cast<int>(tris.size()), static_cast<int>(points.size()));
  model->addSubModel(points, tris);
  model->endModel();
  return model;
}

// FCL's own memUsage() returns a status code (BVH_OK) rather than the byte count it computes,
// so count the same arrays here: nodes, triangles and vertices.
template <class BV>
std::size_t fclBytes(const fcl::BVHModel<BV>& m) {
  return sizeof(fcl::BVNode<BV>) * static_cast<std::size_t>(m.getNumBVs()) +
         sizeof(fcl::Triangle) * static_cast<std::size_t>(m.num_tris) +
         sizeof(fcl::Vector3d) * static_cast<std::size_t>(m.num_vertices);
}

template <class BV>
std::shared_ptr<fcl::BVHModel<BV>> fclCached(const Shape& s) {
  static std::map<const Shape*, std::shared_ptr<fcl::BVHModel<BV>>> cache;
  auto& m = cache[&s];
  if (!m) m = fclModel<BV>(s.mesh);
  return m;
}

template <class BV>
std::size_t fclCollide(const Case& c, std::size_t max_contacts, bool enable_contact) {
  const auto a = fclCached<BV>(*c.a);
  const auto b = fclCached<BV>(*c.b);
  fcl::CollisionRequestd request(max_contacts, enable_contact);
  fcl::CollisionResultd result;
  fcl::collide(a.get(), fcl::Transform3d::Identity(), b.get(), fcl::Transform3d(c.b_in_a.matrix()),
               request, result);
  return result.numContacts();
}

constexpr std::size_t kAll = 100000000;

template <class BV>
void registerFcl(const std::string& bv, const std::vector<Case>& all) {
  for (const Case& c : all) {
    // Build (and cache) the hierarchies now so that no timed iteration includes a build.
    fclCached<BV>(*c.a);
    fclCached<BV>(*c.b);
    benchmark::RegisterBenchmark(("First/" + c.name + "/fcl_" + bv).c_str(),
                                 [c](benchmark::State& st) {
                                   for (auto _ : st)
                                     benchmark::DoNotOptimize(fclCollide<BV>(c, 1, false));
                                 });
    benchmark::RegisterBenchmark(("All/" + c.name + "/fcl_" + bv).c_str(),
                                 [c](benchmark::State& st) {
                                   std::size_t n = 0;
                                   for (auto _ : st)
                                     benchmark::DoNotOptimize(n = fclCollide<BV>(c, kAll, false));
                                   st.counters["pairs"] = static_cast<double>(n);
                                 });
    benchmark::RegisterBenchmark(("AllPoints/" + c.name + "/fcl_" + bv).c_str(),
                                 [c](benchmark::State& st) {
                                   std::size_t n = 0;
                                   for (auto _ : st)
                                     benchmark::DoNotOptimize(n = fclCollide<BV>(c, kAll, true));
                                   st.counters["pairs"] = static_cast<double>(n);
                                 });
  }
  for (int tris : {1000, 10000, 100000})
    benchmark::RegisterBenchmark(("Build/" + sphere(tris).name + "/fcl_" + bv).c_str(),
                                 [tris](benchmark::State& st) {
                                   const TriangleMesh& m = sphere(tris).mesh;
                                   std::size_t bytes = 0;
                                   for (auto _ : st) bytes = fclBytes(*fclModel<BV>(m));
                                   st.counters["bytes"] = static_cast<double>(bytes);
                                 });
}

void registerOurs(int k, const std::vector<Case>& all) {
  const std::string tag = "/handsim_k" + std::to_string(k);
  for (const Case& c : all) {
    ourTree(*c.a, k);
    ourTree(*c.b, k);
    benchmark::RegisterBenchmark(("First/" + c.name + tag).c_str(), [c, k](benchmark::State& st) {
      const auto a = ourTree(*c.a, k);
      const auto b = ourTree(*c.b, k);
      hc::CollisionStats stats;
      for (auto _ : st) benchmark::DoNotOptimize(hc::anyContact(*a, *b, c.b_in_a, &stats));
      st.counters["node_tests"] = benchmark::Counter(static_cast<double>(stats.node_tests),
                                                     benchmark::Counter::kAvgIterations);
      st.counters["tri_tests"] = benchmark::Counter(static_cast<double>(stats.triangle_tests),
                                                    benchmark::Counter::kAvgIterations);
    });
    for (const char* kind : {"All/", "AllPoints/"})
      benchmark::RegisterBenchmark((kind + c.name + tag).c_str(), [c, k](benchmark::State& st) {
        const auto a = ourTree(*c.a, k);
        const auto b = ourTree(*c.b, k);
        hc::CollisionStats stats;
        std::size_t n = 0;
        for (auto _ : st) {
          const auto contacts = hc::allContacts(*a, *b, c.b_in_a, &stats);
          n = contacts.size();
          benchmark::DoNotOptimize(contacts.data());
        }
        st.counters["pairs"] = static_cast<double>(n);
        st.counters["node_tests"] = benchmark::Counter(static_cast<double>(stats.node_tests),
                                                       benchmark::Counter::kAvgIterations);
        st.counters["tri_tests"] = benchmark::Counter(static_cast<double>(stats.triangle_tests),
                                                      benchmark::Counter::kAvgIterations);
      });
  }
  for (int tris : {1000, 10000, 100000})
    benchmark::RegisterBenchmark(("Build/" + sphere(tris).name + tag).c_str(),
                                 [tris, k](benchmark::State& st) {
                                   const TriangleMesh& m = sphere(tris).mesh;
                                   std::size_t bytes = 0;
                                   for (auto _ : st) {
                                     const hc::KdopTree t(m, {k, 8});
                                     bytes = t.memoryBytes();
                                   }
                                   st.counters["bytes"] = static_cast<double>(bytes);
                                 });
}

// Both libraries must give the expected answer before any timing is trusted.
bool verify(const std::vector<Case>& all) {
  bool ok = true;
  for (const Case& c : all) {
    const bool ours = hc::anyContact(*ourTree(*c.a, 18), *ourTree(*c.b, 18), c.b_in_a);
    const bool fcl = fclCollide<fcl::OBBRSSd>(c, 1, false) > 0;
    const std::size_t our_pairs =
        hc::allContacts(*ourTree(*c.a, 18), *ourTree(*c.b, 18), c.b_in_a).size();
    const std::size_t fcl_pairs = fclCollide<fcl::OBBRSSd>(c, kAll, false);
    std::printf("verify %-30s expected %-9s handsim %-9s (%zu pairs)  fcl %-9s (%zu pairs)\n",
                c.name.c_str(), c.colliding ? "collide" : "separate", ours ? "collide" : "separate",
                our_pairs, fcl ? "collide" : "separate", fcl_pairs);
    ok = ok && ours == c.colliding && fcl == c.colliding;
  }
  return ok;
}

}  // namespace

// Convex hulls against the exact mesh pipeline (docs/collision.md, "Convex narrow phase"): a
// fingertip collision mesh (the corpus Allegro and LEAP hands, skipped without the corpus) or a
// shipped object pressed 1 mm into a shipped object, tilted. "mesh": allContacts (plain descent)
// and buildContactPatches on the meshes; "hull": convexContact on their hulls.
void registerHulls() {
  struct Body {
    std::string name;
    TriangleMesh mesh;
  };
  const auto load = [](const std::string& name, const std::string& path, std::vector<Body>& out) {
    if (!std::filesystem::exists(path)) {
      std::fprintf(stderr, "hull benchmarks: %s not found, skipped\n", path.c_str());
      return;
    }
    out.push_back({name, handsim::geometry::loadMesh(path).merged()});
  };
  const std::string corpus = handsim::test::corpusPath("urdf") + "/";
  const std::string objects = std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/";
  std::vector<Body> movers, targets;
  load("allegro_tip", corpus + "allegro_hand/meshes/collision/link_tip.obj", movers);
  load("leap_tip", corpus + "leap_hand/meshes/collision/white_tip.obj", movers);
  load("cube", objects + "cube.wrl", movers);
  load("sphere", objects + "sphere.wrl", targets);
  load("cube", objects + "cube.wrl", targets);
  load("bottle", objects + "bottle.wrl", targets);
  for (const Body& mover : movers)
    for (const Body& target : targets) {
      auto m = std::make_shared<const TriangleMesh>(mover.mesh);
      auto t = std::make_shared<const TriangleMesh>(target.mesh);
      auto mh = std::make_shared<const hc::ConvexHull>(hc::buildConvexHull(*m));
      auto th = std::make_shared<const hc::ConvexHull>(hc::buildConvexHull(*t));
      auto mt = std::make_shared<const hc::KdopTree>(*m);
      auto tt = std::make_shared<const hc::KdopTree>(*t);
      // The mover tilted, its lowest point 1 mm below the target's top (target frame).
      Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
      pose.linear() =
          Eigen::AngleAxisd(0.6, Eigen::Vector3d(1, 2, 0.5).normalized()).toRotationMatrix();
      const Eigen::Vector3d down = pose.linear().transpose() * -Eigen::Vector3d::UnitZ();
      const Eigen::Vector3d low = mh->vertices[static_cast<std::size_t>(mh->support(down))];
      const double top =
          th->vertices[static_cast<std::size_t>(th->support(Eigen::Vector3d::UnitZ()))].z();
      pose.translation() = Eigen::Vector3d(0.002, -0.001, top - 1e-3) - pose.linear() * low;
      const std::string name = mover.name + "(" + std::to_string(m->triangles.size()) + "t," +
                               std::to_string(mh->vertices.size()) + "v)_on_" + target.name + "(" +
                               std::to_string(t->triangles.size()) + "t," +
                               std::to_string(th->vertices.size()) + "v)";
      benchmark::RegisterBenchmark(("Hull/" + name + "/mesh").c_str(), [=](benchmark::State& st) {
        hc::ContactScratch scratch;
        std::size_t patches = 0;
        for (auto _ : st) {
          hc::allContacts(*tt, *mt, pose, scratch, scratch.pairs);
          patches = hc::buildContactPatches(*t, *m, pose, scratch.pairs, scratch);
          benchmark::DoNotOptimize(patches);
        }
        st.counters["patches"] = static_cast<double>(patches);
        st.counters["pairs"] = static_cast<double>(scratch.pairs.size());
      });
      benchmark::RegisterBenchmark(("Hull/" + name + "/hull").c_str(), [=](benchmark::State& st) {
        hc::ConvexScratch scratch;
        hc::ConvexManifold manifold;
        for (auto _ : st) {
          hc::convexContact(*th, Eigen::Isometry3d::Identity(), *mh, pose, scratch, manifold);
          benchmark::DoNotOptimize(manifold.count);
        }
        st.counters["points"] = manifold.count;
        st.counters["depth_mm"] = 1e3 * manifold.depth;
      });
      // The peer: FCL's signed distance on fcl::Convex of the same hulls (libccd's GJK and EPA).
      const auto toFcl = [](const hc::ConvexHull& h) {
        auto v = std::make_shared<std::vector<fcl::Vector3d>>(h.vertices.begin(), h.vertices.end());
        auto f = std::make_shared<std::vector<int>>();
        for (const hc::ConvexFace& face : h.faces) {
          f->push_back(face.count);
          for (int k = 0; k < face.count; ++k)
            f->push_back(h.face_vertices[static_cast<std::size_t>(face.first + k)]);
        }
        return std::make_shared<fcl::Convexd>(v, static_cast<int>(h.faces.size()), f);
      };
      auto mf = toFcl(*mh), tf = toFcl(*th);
      benchmark::RegisterBenchmark(("Hull/" + name + "/fcl_libccd_epa").c_str(),
                                   [=](benchmark::State& st) {
                                     fcl::CollisionObjectd ot(tf, Eigen::Isometry3d::Identity());
                                     fcl::CollisionObjectd om(mf, pose);
                                     fcl::DistanceRequestd request(true, true);
                                     request.gjk_solver_type = fcl::GST_LIBCCD;
                                     double depth = 0.0;
                                     for (auto _ : st) {
                                       fcl::DistanceResultd result;
                                       fcl::distance(&ot, &om, request, result);
                                       depth = -result.min_distance;
                                       benchmark::DoNotOptimize(depth);
                                     }
                                     st.counters["depth_mm"] = 1e3 * depth;
                                   });
      benchmark::RegisterBenchmark(("Hull/" + name + "/build_hull").c_str(),
                                   [=](benchmark::State& st) {
                                     for (auto _ : st) {
                                       hc::ConvexHull h = hc::buildConvexHull(*m);
                                       benchmark::DoNotOptimize(h.faces.size());
                                     }
                                   })
          ->Unit(benchmark::kMicrosecond);
    }
}

// `bench_collision --memory=<what>` builds one hierarchy over the 100k-triangle sphere and exits,
// so that `/usr/bin/time -v` reports its peak memory; <what> is mesh (the mesh alone, the
// baseline), handsim (k = 18), fcl_OBBRSS, fcl_OBB or fcl_RSS.
int memoryProbe(const std::string& what) {
  const TriangleMesh& m = sphere(100000).mesh;
  std::size_t bytes = 0;
  if (what == "handsim")
    bytes = hc::KdopTree(m, {18, 8}).memoryBytes();
  else if (what == "fcl_OBBRSS")
    bytes = fclBytes(*fclModel<fcl::OBBRSSd>(m));
  else if (what == "fcl_OBB")
    bytes = fclBytes(*fclModel<fcl::OBBd>(m));
  else if (what == "fcl_RSS")
    bytes = fclBytes(*fclModel<fcl::RSSd>(m));
  else if (what != "mesh")
    return 2;
  std::printf("%s: %zu triangles, structure %zu bytes\n", what.c_str(), m.triangles.size(), bytes);
  return 0;
}

int main(int argc, char** argv) {
  const std::string probe = "--memory=";
  if (argc == 2 && std::string(argv[1]).rfind(probe, 0) == 0)
    return memoryProbe(std::string(argv[1]).substr(probe.size()));
  const std::vector<Case> all = cases();
  if (!verify(all)) {
    std::fprintf(stderr, "handsim and FCL disagree on a case; not timing\n");
    return 1;
  }
  for (int k : {14, 18, 26}) registerOurs(k, all);
  registerFcl<fcl::AABBd>("AABB", all);
  registerFcl<fcl::KDOPd<18>>("KDOP18", all);
  registerFcl<fcl::OBBd>("OBB", all);
  registerFcl<fcl::RSSd>("RSS", all);
  registerFcl<fcl::OBBRSSd>("OBBRSS", all);
  registerHulls();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
