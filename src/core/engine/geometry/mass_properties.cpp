// SPDX-License-Identifier: GPL-3.0-or-later
// Mass properties of a closed triangle mesh. The divergence theorem turns the volume integrals
// of 1, p and p p^T into surface integrals (as in Mirtich, "Fast and accurate computation of
// polyhedral mass properties", J. Graphics Tools 1(2), 1996); here each outward triangle
// (a, b, c) contributes the signed tetrahedron (o, a, b, c) over a reference point o, whose
// integrals are closed forms (Tonon, "Explicit exact formulas for the 3-D tetrahedron inertia
// tensor in terms of its vertex coordinates", J. Mathematics and Statistics 1(1), 2004).
//
// With p = x - o and the affine map p = A xi, A = [a b c] (columns relative to o), the unit
// tetrahedron xi >= 0, sum(xi) <= 1 has integral(1) = 1/6, integral(xi_i) = 1/24 and
// integral(xi_i xi_j) = (1 + delta_ij) / 120. With d = det A = a . (b x c):
//   volume        = d / 6
//   integral(p)   = d / 24 (a + b + c)
//   integral(p p^T) = d A (1 1^T + 1) A^T / 120 = d / 120 (a a^T + b b^T + c c^T + s s^T),
// s = a + b + c. The inertia about the centre of mass c_m (relative to o) is then
//   C = rho (integral(p p^T) - V c_m c_m^T),  I = tr(C) 1 - C.
#include "handsim/geometry/mass_properties.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace handsim::geometry {

namespace {

void checkFiniteVertices(const TriangleMesh& mesh) {
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i)
    if (!mesh.vertices[i].allFinite())
      throw std::invalid_argument("mesh vertex " + std::to_string(i) +
                                  " is not finite (NaN or infinite coordinate)");
}

void checkIndices(const TriangleMesh& mesh) {
  const auto n = static_cast<long long>(mesh.vertices.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (int i : mesh.triangles[t])
      if (i < 0 || i >= n)
        throw std::invalid_argument("mesh triangle " + std::to_string(t) + " refers to vertex " +
                                    std::to_string(i) + " of " + std::to_string(n));
}

// Volume integrals of 1, p and p p^T over the solid, p relative to `origin`, unit density.
struct Moments {
  double volume = 0.0;
  Eigen::Vector3d first = Eigen::Vector3d::Zero();
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
};

Moments tetrahedronSums(const TriangleMesh& mesh, const Eigen::Vector3d& origin) {
  Moments m;
  for (const auto& tri : mesh.triangles) {
    const Eigen::Vector3d a = mesh.vertices[static_cast<std::size_t>(tri[0])] - origin;
    const Eigen::Vector3d b = mesh.vertices[static_cast<std::size_t>(tri[1])] - origin;
    const Eigen::Vector3d c = mesh.vertices[static_cast<std::size_t>(tri[2])] - origin;
    const double d = a.dot(b.cross(c));
    const Eigen::Vector3d s = a + b + c;
    m.volume += d / 6.0;
    m.first += (d / 24.0) * s;
    m.second += (d / 120.0) *
                (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  return m;
}

}  // namespace

MassProperties massProperties(const TriangleMesh& mesh, double density_kg_m3) {
  if (!std::isfinite(density_kg_m3) || density_kg_m3 <= 0.0)
    throw std::invalid_argument("density must be finite and positive [kg/m^3], got " +
                                std::to_string(density_kg_m3));
  checkFiniteVertices(mesh);
  checkIndices(mesh);
  if (mesh.triangles.empty())
    throw std::invalid_argument("mesh has no triangles: it encloses no volume");

  // Integrals are taken about the mean vertex rather than the frame origin so that a mesh far
  // from its origin does not lose digits to cancellation (C - V c c^T below).
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  for (const auto& v : mesh.vertices) origin += v;
  origin /= static_cast<double>(mesh.vertices.size());
  double reach = 0.0;
  for (const auto& v : mesh.vertices) reach = std::max(reach, (v - origin).norm());

  Moments m = tetrahedronSums(mesh, origin);

  // Each tetrahedron's determinant carries a rounding error of a few eps reach^3; a volume
  // within that bound of zero is flat (or cancels out) and has no meaningful centre or inertia.
  const double rounding = 4.0 * static_cast<double>(mesh.triangles.size()) *
                          std::numeric_limits<double>::epsilon() * reach * reach * reach;
  if (!(std::abs(m.volume) > rounding))
    throw std::invalid_argument("mesh encloses zero volume (signed volume " +
                                std::to_string(m.volume) +
                                " m^3): it is flat, open or its faces cancel out");

  MassProperties out;
  // Inward winding negates every signed tetrahedron, hence all three integrals.
  if (m.volume < 0.0) {
    out.winding_flipped = true;
    m.volume = -m.volume;
    m.first = -m.first;
    m.second = -m.second;
  }

  const Eigen::Vector3d com = m.first / m.volume;
  const Eigen::Matrix3d central = density_kg_m3 * (m.second - m.volume * com * com.transpose());
  const Eigen::Matrix3d inertia = central.trace() * Eigen::Matrix3d::Identity() - central;

  out.volume_m3 = m.volume;
  out.mass_kg = density_kg_m3 * m.volume;
  out.centre_of_mass = origin + com;
  out.inertia_com = 0.5 * (inertia + inertia.transpose());
  return out;
}

MassProperties massPropertiesForMass(const TriangleMesh& mesh, double mass_kg) {
  if (!std::isfinite(mass_kg) || mass_kg <= 0.0)
    throw std::invalid_argument("mass must be finite and positive [kg], got " +
                                std::to_string(mass_kg));
  // Every quantity is linear in the density, so compute at 1 kg/m^3 and scale.
  MassProperties out = massProperties(mesh, 1.0);
  const double density = mass_kg / out.volume_m3;
  out.mass_kg = mass_kg;
  out.inertia_com *= density;
  return out;
}

ClosednessReport checkClosed(const TriangleMesh& mesh, double weld_tolerance_m) {
  if (!std::isfinite(weld_tolerance_m) || weld_tolerance_m < 0.0)
    throw std::invalid_argument("weld tolerance must be finite and >= 0 [m], got " +
                                std::to_string(weld_tolerance_m));
  checkFiniteVertices(mesh);
  checkIndices(mesh);

  // Weld: hash vertices into cubic cells of the tolerance's size; a vertex joins the first
  // earlier representative within the tolerance (per coordinate) in its own or a neighbouring
  // cell. A zero tolerance merges exactly equal positions only.
  const double cell = weld_tolerance_m > 0.0 ? weld_tolerance_m : 1.0;
  using CellKey = std::array<std::int64_t, 3>;
  struct CellHash {
    std::size_t operator()(const CellKey& k) const {
      std::uint64_t h = 1469598103934665603ull;
      for (std::int64_t c : k) h = (h ^ static_cast<std::uint64_t>(c)) * 1099511628211ull;
      return static_cast<std::size_t>(h);
    }
  };
  constexpr double kMaxCellIndex = 4.0e18;
  auto cellOf = [&](const Eigen::Vector3d& v) {
    CellKey k{};
    for (int i = 0; i < 3; ++i) {
      const double q = std::floor(v[i] / cell);
      if (std::abs(q) > kMaxCellIndex)
        throw std::invalid_argument("weld tolerance " + std::to_string(weld_tolerance_m) +
                                    " m is too small for vertex coordinates of " +
                                    std::to_string(v[i]) + " m");
      k[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(q);
    }
    return k;
  };
  std::unordered_map<CellKey, std::vector<int>, CellHash> grid;
  std::vector<int> weld(mesh.vertices.size());
  ClosednessReport report;
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {
    const Eigen::Vector3d& v = mesh.vertices[i];
    const CellKey home = cellOf(v);
    int found = -1;
    for (std::int64_t dx = -1; dx <= 1 && found < 0; ++dx)
      for (std::int64_t dy = -1; dy <= 1 && found < 0; ++dy)
        for (std::int64_t dz = -1; dz <= 1 && found < 0; ++dz) {
          const auto it = grid.find({home[0] + dx, home[1] + dy, home[2] + dz});
          if (it == grid.end()) continue;
          for (int r : it->second) {
            const double gap =
                (mesh.vertices[static_cast<std::size_t>(r)] - v).cwiseAbs().maxCoeff();
            if (gap <= weld_tolerance_m) {
              found = r;
              break;
            }
          }
        }
    if (found < 0) {
      found = static_cast<int>(i);
      grid[home].push_back(found);
      ++report.welded_vertices;
    }
    weld[i] = found;
  }

  // Count every undirected edge's uses in each direction (low -> high, high -> low).
  struct Uses {
    int forward = 0;
    int backward = 0;
  };
  std::unordered_map<std::uint64_t, Uses> edges;
  edges.reserve(mesh.triangles.size() * 3);
  for (const auto& tri : mesh.triangles) {
    const std::array<int, 3> w{weld[static_cast<std::size_t>(tri[0])],
                               weld[static_cast<std::size_t>(tri[1])],
                               weld[static_cast<std::size_t>(tri[2])]};
    if (w[0] == w[1] || w[1] == w[2] || w[2] == w[0]) {
      ++report.collapsed_triangles;
      continue;
    }
    for (std::size_t e = 0; e < 3; ++e) {
      const int from = w[e];
      const int to = w[(e + 1) % 3];
      const auto lo = static_cast<std::uint32_t>(std::min(from, to));
      const auto hi = static_cast<std::uint32_t>(std::max(from, to));
      Uses& u = edges[(static_cast<std::uint64_t>(lo) << 32) | hi];
      if (from < to)
        ++u.forward;
      else
        ++u.backward;
    }
  }
  for (const auto& [key, u] : edges) {
    const int total = u.forward + u.backward;
    if (total == 1)
      ++report.boundary_edges;
    else if (total > 2)
      ++report.non_manifold_edges;
    else if (u.forward != u.backward)
      ++report.inconsistently_oriented_edges;
  }
  report.closed = !edges.empty() && report.boundary_edges == 0 && report.non_manifold_edges == 0 &&
                  report.inconsistently_oriented_edges == 0;
  return report;
}

}  // namespace handsim::geometry
