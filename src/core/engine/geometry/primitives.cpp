// SPDX-License-Identifier: GPL-3.0-or-later
// Tessellation of the VRML97 primitives (ISO/IEC 14772-1 clauses 6.4, 6.11, 6.17, 6.42).
// Rings share their vertices with the caps so that complete primitives are watertight; the
// triangle order makes (v1 - v0) x (v2 - v0) point outward.
#include "handsim/geometry/primitives.hpp"

#include <algorithm>
#include <cmath>

namespace handsim::geometry {

namespace {

constexpr double kPi = 3.14159265358979323846;

int clampSegments(int segments) {
  return std::clamp(segments, 3, 1024);
}

// Appends a ring of n points at height y and radius r; returns the index of its first point.
int addRing(TriangleMesh& m, double y, double r, int n) {
  const int first = static_cast<int>(m.vertices.size());
  for (int j = 0; j < n; ++j) {
    const double phi = 2.0 * kPi * j / n;
    m.vertices.emplace_back(r * std::cos(phi), y, r * std::sin(phi));
  }
  return first;
}

// Quads between an upper ring and a lower ring (same point count), outward facing.
void joinRings(TriangleMesh& m, int upper, int lower, int n) {
  for (int j = 0; j < n; ++j) {
    const int k = (j + 1) % n;
    const int a = upper + j, b = lower + j, c = lower + k, d = upper + k;
    m.triangles.push_back({a, c, b});
    m.triangles.push_back({a, d, c});
  }
}

// Fan from a point above the ring (normal +y side) or below it.
void capRing(TriangleMesh& m, int ring, int n, int apex, bool apex_above) {
  for (int j = 0; j < n; ++j) {
    const int k = (j + 1) % n;
    if (apex_above)
      m.triangles.push_back({apex, ring + k, ring + j});
    else
      m.triangles.push_back({ring + j, ring + k, apex});
  }
}

}  // namespace

TriangleMesh makeBox(const Eigen::Vector3d& size) {
  TriangleMesh m;
  const Eigen::Vector3d h = 0.5 * size;
  // Corner c has x from bit 0, y from bit 1, z from bit 2 (0 = minus side).
  for (int c = 0; c < 8; ++c)
    m.vertices.emplace_back((c & 1) ? h.x() : -h.x(), (c & 2) ? h.y() : -h.y(),
                            (c & 4) ? h.z() : -h.z());
  static const int kFaces[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                                   {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
  for (const auto& f : kFaces) {
    m.triangles.push_back({f[0], f[1], f[2]});
    m.triangles.push_back({f[0], f[2], f[3]});
  }
  m.updateNormals();
  return m;
}

TriangleMesh makeSphere(double radius, int segments) {
  const int n = clampSegments(segments);
  const int bands = std::max(2, n / 2);
  TriangleMesh m;
  m.vertices.emplace_back(0.0, radius, 0.0);
  const int north = 0;
  std::vector<int> rings;
  for (int k = 1; k < bands; ++k) {
    const double theta = kPi * k / bands;
    rings.push_back(addRing(m, radius * std::cos(theta), radius * std::sin(theta), n));
  }
  const int south = static_cast<int>(m.vertices.size());
  m.vertices.emplace_back(0.0, -radius, 0.0);
  capRing(m, rings.front(), n, north, true);
  for (std::size_t k = 0; k + 1 < rings.size(); ++k) joinRings(m, rings[k], rings[k + 1], n);
  capRing(m, rings.back(), n, south, false);
  m.updateNormals();
  return m;
}

TriangleMesh makeCylinder(double radius, double height, int segments, bool bottom, bool side,
                          bool top) {
  const int n = clampSegments(segments);
  TriangleMesh m;
  const int upper = addRing(m, 0.5 * height, radius, n);
  const int lower = addRing(m, -0.5 * height, radius, n);
  if (side) joinRings(m, upper, lower, n);
  if (top) {
    m.vertices.emplace_back(0.0, 0.5 * height, 0.0);
    capRing(m, upper, n, static_cast<int>(m.vertices.size()) - 1, true);
  }
  if (bottom) {
    m.vertices.emplace_back(0.0, -0.5 * height, 0.0);
    capRing(m, lower, n, static_cast<int>(m.vertices.size()) - 1, false);
  }
  m.updateNormals();
  return m;
}

TriangleMesh makeCone(double bottom_radius, double height, int segments, bool bottom, bool side) {
  const int n = clampSegments(segments);
  TriangleMesh m;
  const int ring = addRing(m, -0.5 * height, bottom_radius, n);
  if (side) {
    m.vertices.emplace_back(0.0, 0.5 * height, 0.0);
    capRing(m, ring, n, static_cast<int>(m.vertices.size()) - 1, true);
  }
  if (bottom) {
    m.vertices.emplace_back(0.0, -0.5 * height, 0.0);
    capRing(m, ring, n, static_cast<int>(m.vertices.size()) - 1, false);
  }
  m.updateNormals();
  return m;
}

}  // namespace handsim::geometry
