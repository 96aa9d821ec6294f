// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/geometry/triangle_mesh.hpp"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

namespace handsim::geometry {

namespace {
Eigen::Vector3d rawNormal(const TriangleMesh& m, std::size_t t) {
  const auto& tri = m.triangles[t];
  const Eigen::Vector3d& a = m.vertices[static_cast<std::size_t>(tri[0])];
  const Eigen::Vector3d& b = m.vertices[static_cast<std::size_t>(tri[1])];
  const Eigen::Vector3d& c = m.vertices[static_cast<std::size_t>(tri[2])];
  return (b - a).cross(c - a);
}
}  // namespace

void TriangleMesh::updateNormals() {
  normals.resize(triangles.size());
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    const Eigen::Vector3d n = rawNormal(*this, t);
    const double len = n.norm();
    normals[t] = len > 0.0 ? Eigen::Vector3d(n / len) : Eigen::Vector3d::Zero();
  }
}

void TriangleMesh::append(const TriangleMesh& other) {
  const int base = static_cast<int>(vertices.size());
  vertices.insert(vertices.end(), other.vertices.begin(), other.vertices.end());
  for (const auto& t : other.triangles)
    triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
  if (other.normals.size() == other.triangles.size() &&
      normals.size() + other.normals.size() == triangles.size()) {
    normals.insert(normals.end(), other.normals.begin(), other.normals.end());
  } else {
    updateNormals();
  }
}

void TriangleMesh::transform(const Eigen::Affine3d& t) {
  for (auto& v : vertices) v = t * v;
  // A reflection (negative determinant) would turn the mesh inside out; keep it outward.
  if (t.linear().determinant() < 0.0)
    for (auto& tri : triangles) std::swap(tri[1], tri[2]);
  updateNormals();
}

double triangleArea(const TriangleMesh& mesh, std::size_t t) {
  return 0.5 * rawNormal(mesh, t).norm();
}

double surfaceArea(const TriangleMesh& mesh) {
  double a = 0.0;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) a += triangleArea(mesh, t);
  return a;
}

double signedVolume(const TriangleMesh& mesh) {
  // Sum of signed tetrahedra against the origin (divergence theorem).
  double v = 0.0;
  for (const auto& tri : mesh.triangles) {
    const Eigen::Vector3d& a = mesh.vertices[static_cast<std::size_t>(tri[0])];
    const Eigen::Vector3d& b = mesh.vertices[static_cast<std::size_t>(tri[1])];
    const Eigen::Vector3d& c = mesh.vertices[static_cast<std::size_t>(tri[2])];
    v += a.dot(b.cross(c));
  }
  return v / 6.0;
}

std::optional<double> closedVolume(const TriangleMesh& mesh) {
  if (!isWatertight(mesh)) return std::nullopt;
  return signedVolume(mesh);
}

bool isWatertight(const TriangleMesh& mesh) {
  if (mesh.triangles.empty()) return false;
  // Directed edge (a -> b) counts; closed and consistently oriented means each directed edge
  // appears once and its reverse appears once.
  std::unordered_map<std::uint64_t, int> directed;
  directed.reserve(mesh.triangles.size() * 3);
  auto key = [](int a, int b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
           static_cast<std::uint32_t>(b);
  };
  for (const auto& t : mesh.triangles)
    for (int e = 0; e < 3; ++e) ++directed[key(t[e], t[(e + 1) % 3])];
  for (const auto& [k, count] : directed) {
    if (count != 1) return false;
    const int a = static_cast<int>(k >> 32);
    const int b = static_cast<int>(k & 0xffffffffu);
    const auto rev = directed.find(key(b, a));
    if (rev == directed.end() || rev->second != 1) return false;
  }
  return true;
}

Aabb boundingBox(const TriangleMesh& mesh) {
  Aabb box;
  for (const auto& t : mesh.triangles)
    for (int i : t) box.extend(mesh.vertices[static_cast<std::size_t>(i)]);
  return box;
}

}  // namespace handsim::geometry
