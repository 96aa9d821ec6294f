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

std::optional<Box> LoadedModel::onlyBox() const {
  if (shapes.size() != 1) return std::nullopt;
  return shapes.front().box;
}

std::optional<Cylinder> LoadedModel::onlyCylinder() const {
  if (shapes.size() != 1) return std::nullopt;
  return shapes.front().cylinder;
}

namespace {

// The primitive frame `pose` mapped by `t`: when t keeps the frame's axes orthogonal, the new
// frame (a rotation: a reflected axis is turned back, the primitives being symmetric) and the
// scale along each axis in `scale`; false otherwise.
bool mapFrame(const Eigen::Affine3d& t, Eigen::Isometry3d& pose, Eigen::Vector3d& scale) {
  const Eigen::Matrix3d m = t.linear() * pose.linear();
  const Eigen::Matrix3d g = m.transpose() * m;
  const double size = g.trace();
  if (!(size > 0.0) || !std::isfinite(size)) return false;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (i != j && std::abs(g(i, j)) > 1e-9 * size) return false;
  Eigen::Matrix3d r;
  for (int i = 0; i < 3; ++i) {
    scale[i] = std::sqrt(g(i, i));
    if (!(scale[i] > 0.0)) return false;
    r.col(i) = m.col(i) / scale[i];
  }
  if (r.determinant() < 0.0) r.col(0) = -r.col(0);
  const Eigen::Vector3d centre = t * pose.translation();
  pose.linear() = r;
  pose.translation() = centre;
  return true;
}

void transformBox(MeshShape& shape, const Eigen::Affine3d& t) {
  if (!shape.box) return;
  Eigen::Vector3d scale;
  if (!mapFrame(t, shape.box->pose, scale)) {
    shape.box.reset();
    return;
  }
  shape.box->half_extent = shape.box->half_extent.cwiseProduct(scale);
}

void transformCylinder(MeshShape& shape, const Eigen::Affine3d& t) {
  if (!shape.cylinder) return;
  Eigen::Vector3d scale;
  if (!mapFrame(t, shape.cylinder->pose, scale) ||
      std::abs(scale.x() - scale.y()) > 1e-9 * (scale.x() + scale.y())) {
    shape.cylinder.reset();
    return;
  }
  shape.cylinder->radius *= 0.5 * (scale.x() + scale.y());
  shape.cylinder->half_length *= scale.z();
}

}  // namespace

void transformShape(MeshShape& shape, const Eigen::Affine3d& t) {
  shape.mesh.transform(t);
  transformBox(shape, t);
  transformCylinder(shape, t);
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
