// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/collision/primitives.hpp"

#include <array>
#include <cmath>
#include <map>
#include <stdexcept>

namespace handsim::collision {

geometry::TriangleMesh makeUvSphere(double radius_m, int stacks, int slices) {
  if (!(radius_m > 0.0) || stacks < 2 || slices < 3)
    throw std::invalid_argument("makeUvSphere needs radius > 0, stacks >= 2 and slices >= 3");
  constexpr double kPi = 3.14159265358979323846;
  geometry::TriangleMesh m;
  m.vertices.emplace_back(0.0, 0.0, radius_m);  // north pole
  for (int i = 1; i < stacks; ++i) {
    const double polar = kPi * i / stacks;
    for (int j = 0; j < slices; ++j) {
      const double azimuth = 2.0 * kPi * j / slices;
      m.vertices.emplace_back(radius_m * std::sin(polar) * std::cos(azimuth),
                              radius_m * std::sin(polar) * std::sin(azimuth),
                              radius_m * std::cos(polar));
    }
  }
  m.vertices.emplace_back(0.0, 0.0, -radius_m);  // south pole
  const int south = static_cast<int>(m.vertices.size()) - 1;
  auto ring = [&](int i, int j) { return 1 + (i - 1) * slices + (j % slices); };
  for (int j = 0; j < slices; ++j) m.triangles.push_back({0, ring(1, j), ring(1, j + 1)});
  for (int i = 1; i + 1 < stacks; ++i)
    for (int j = 0; j < slices; ++j) {
      m.triangles.push_back({ring(i, j), ring(i + 1, j), ring(i + 1, j + 1)});
      m.triangles.push_back({ring(i, j), ring(i + 1, j + 1), ring(i, j + 1)});
    }
  for (int j = 0; j < slices; ++j)
    m.triangles.push_back({south, ring(stacks - 1, j + 1), ring(stacks - 1, j)});
  m.updateNormals();
  return m;
}

geometry::TriangleMesh makeBox(const Eigen::Vector3d& size_m, int subdivisions) {
  if (!(size_m.minCoeff() > 0.0) || subdivisions < 1)
    throw std::invalid_argument("makeBox needs positive edge lengths and subdivisions >= 1");
  const int n = subdivisions;
  geometry::TriangleMesh m;
  // Vertices live on an integer lattice so that faces meeting at an edge share them.
  std::map<std::array<int, 3>, int> index;
  auto vertex = [&](const std::array<int, 3>& g) {
    const auto it = index.find(g);
    if (it != index.end()) return it->second;
    Eigen::Vector3d p;
    for (int c = 0; c < 3; ++c)
      p[c] = size_m[c] * (static_cast<double>(g[static_cast<std::size_t>(c)]) / n - 0.5);
    m.vertices.push_back(p);
    const int id = static_cast<int>(m.vertices.size()) - 1;
    index.emplace(g, id);
    return id;
  };
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;  // (u, v, axis) is right-handed
    for (int side = 0; side < 2; ++side)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          auto lattice = [&](int di, int dj) {
            std::array<int, 3> g{};
            g[static_cast<std::size_t>(axis)] = side * n;
            g[static_cast<std::size_t>(u)] = i + di;
            g[static_cast<std::size_t>(v)] = j + dj;
            return vertex(g);
          };
          const int p00 = lattice(0, 0), p10 = lattice(1, 0), p11 = lattice(1, 1),
                    p01 = lattice(0, 1);
          // u x v = +axis: counter-clockwise in (u, v) faces +axis, so flip on the min side.
          if (side == 1) {
            m.triangles.push_back({p00, p10, p11});
            m.triangles.push_back({p00, p11, p01});
          } else {
            m.triangles.push_back({p00, p11, p10});
            m.triangles.push_back({p00, p01, p11});
          }
        }
  }
  m.updateNormals();
  return m;
}

}  // namespace handsim::collision
