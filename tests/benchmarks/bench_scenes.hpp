// SPDX-License-Identifier: GPL-3.0-or-later
// Scenes and measurements shared by the benchmark programs (bench_sim, bench_lift, bench_bullet,
// bench_hands), so that a case timed in two programs is the same case.
#pragma once

#include <sys/resource.h>

#include <array>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include "../support/box_objects.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/model.hpp"

namespace handsim::bench {

/// CPU time of the process [s].
inline double cpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// Peak resident set size of the process so far [kB] (getrusage).
inline long peakRssKb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

/// A cube of edge `edge` centred at the origin, each face an n x n grid of squares cut into two
/// triangles, vertices shared along the edges (watertight), outward.
inline geometry::TriangleMesh makeGridCube(double edge, int n) {
  geometry::TriangleMesh m;
  std::map<std::array<int, 3>, int> index;
  auto vertex = [&](const std::array<int, 3>& g) {
    const auto it = index.find(g);
    if (it != index.end()) return it->second;
    const int i = static_cast<int>(m.vertices.size());
    m.vertices.emplace_back(edge * (g[0] / double(n) - 0.5), edge * (g[1] / double(n) - 0.5),
                            edge * (g[2] / double(n) - 0.5));
    index.emplace(g, i);
    return i;
  };
  for (int a = 0; a < 3; ++a)
    for (int side : {0, 1}) {
      // (u, v, normal) right-handed for the outward normal.
      const int u = side ? (a + 1) % 3 : (a + 2) % 3;
      const int v = side ? (a + 2) % 3 : (a + 1) % 3;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          std::array<int, 4> c{};
          const int di[4] = {0, 1, 1, 0}, dj[4] = {0, 0, 1, 1};
          for (int k = 0; k < 4; ++k) {
            std::array<int, 3> g{};
            g[static_cast<std::size_t>(a)] = side * n;
            g[static_cast<std::size_t>(u)] = i + di[k];
            g[static_cast<std::size_t>(v)] = j + dj[k];
            c[static_cast<std::size_t>(k)] = vertex(g);
          }
          m.triangles.push_back({c[0], c[1], c[2]});
          m.triangles.push_back({c[0], c[2], c[3]});
        }
    }
  m.updateNormals();
  return m;
}

/// The lift of issue #9: assets/scenarios/barrett_lift_cube.json (the BarrettHand closes on a
/// free 0.2 kg, 50 mm object on the ground, lifts it 10 cm and holds it; 14 s at 1 ms) with its
/// object `object`: "cube12" (the shipped 12-triangle cube.wrl), "cube10k" (every face a 29 x 29
/// grid, 10 092 triangles) or "sphere10k" (a UV sphere of 100 segments, 9 800 triangles), of the
/// same size and mass. No recording.
inline sim::Scenario liftScenario(const std::string& object) {
  constexpr double kEdge = 0.05;  // [m]
  constexpr double kMass = 0.2;   // [kg]
  sim::Scenario sc =
      sim::loadScenario(hand::assetDirectory() + "/scenarios/barrett_lift_cube.json");
  sc.plan.record_every = std::numeric_limits<int>::max();  // time the engine, not the recorder
  if (object == "cube12") return sc;
  geometry::TriangleMesh mesh;
  if (object == "cube10k")
    mesh = makeGridCube(kEdge, 29);
  else if (object == "sphere10k")
    mesh = geometry::makeSphere(0.5 * kEdge, 100);
  else
    throw std::invalid_argument("liftScenario: unknown object " + object);
  if (!geometry::isWatertight(mesh)) throw std::runtime_error(object + " is not watertight");
  sim::ObjectModel& obj = sc.objects.at(0);
  auto body = std::make_shared<sim::BodyGeometry>();
  body->collision = sim::makeCollisionBody(std::move(mesh), sc.options.contact.kdop_k);
  obj.geometry = body;
  obj.name = "object";
  sim::computeMassProperties(obj, 1000.0);
  sim::computeMassProperties(obj, kMass / obj.mass.volume_m3);
  if (std::abs(obj.mass.mass_kg - kMass) > 1e-9) throw std::runtime_error("mass");
  return sc;
}

/// A free 5 cm cube and a fixed 60 x 60 x 5 cm table box beside the open BarrettHand
/// (docs/free-objects.md, contacts between bodies); cubeOnTablePlan places them.
inline std::shared_ptr<const sim::Model> cubeOnTableModel() {
  return sim::compileModel(test::barrettHand(),
                           {test::boxObject("table", {0.6, 0.6, 0.05}, false, 1000.0),
                            test::boxObject("cube", {0.05, 0.05, 0.05}, true, 1000.0)});
}

/// A plan of cubeOnTableModel that starts the cube 0.1 mm above the table: it falls and comes
/// to rest on four corner contacts with friction. No recording.
inline sim::RunPlan cubeOnTablePlan() {
  sim::RunPlan plan;
  plan.object_pose_world = {test::at({0.3, 0.0, -0.2}), test::at({0.3, 0.0, -0.175 - 1e-4 + 0.05})};
  plan.record_every = std::numeric_limits<int>::max();
  return plan;
}

}  // namespace handsim::bench
