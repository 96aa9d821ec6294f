// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/geometry/loaded_model.hpp"

#include <cmath>

namespace handsim::geometry {

TriangleMesh LoadedModel::merged() const {
  TriangleMesh out;
  for (const auto& s : shapes) {
    const int base = static_cast<int>(out.vertices.size());
    out.vertices.insert(out.vertices.end(), s.mesh.vertices.begin(), s.mesh.vertices.end());
    for (const auto& t : s.mesh.triangles)
      out.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
  }
  out.updateNormals();
  return out;
}

std::size_t LoadedModel::triangleCount() const {
  std::size_t n = 0;
  for (const auto& s : shapes) n += s.mesh.triangles.size();
  return n;
}

std::optional<Sphere> LoadedModel::onlySphere() const {
  if (shapes.size() != 1) return std::nullopt;
  return shapes.front().sphere;
}

void transformShape(MeshShape& shape, const Eigen::Affine3d& t) {
  shape.mesh.transform(t);
  if (!shape.sphere) return;
  // A similarity has L^T L = s^2 I; test it relative to s^2 so the answer does not depend on
  // the units.
  const Eigen::Matrix3d l = t.linear();
  const Eigen::Matrix3d g = l.transpose() * l;
  const double s2 = g.trace() / 3.0;
  const double off = (g - s2 * Eigen::Matrix3d::Identity()).cwiseAbs().maxCoeff();
  if (!(s2 > 0.0) || !std::isfinite(s2) || off > 1e-9 * s2) {
    shape.sphere.reset();
    return;
  }
  shape.sphere->centre = t * shape.sphere->centre;
  shape.sphere->radius *= std::sqrt(s2);
}

}  // namespace handsim::geometry
