// SPDX-License-Identifier: GPL-3.0-or-later
// Geometry nodes of ISO/IEC 14772-1:1997: IndexedFaceSet (6.23), Extrusion (6.18, the SCP
// construction of 6.18.2 and figure 6.6), ElevationGrid (6.15).
#include "vrml_geometry.hpp"

#include <algorithm>
#include <utility>

#include "handsim/geometry/polygon_triangulation.hpp"

namespace handsim::geometry::vrml {

namespace {

void flip(TriangleMesh& m) {
  for (auto& t : m.triangles) std::swap(t[1], t[2]);
}

// Degeneracy tests are relative to the sizes involved, so that a model keeps its shape at any
// scale: a length is "zero" below kRelTol times the spine's extent, two segments are collinear
// when |a x b| <= kRelTol |a| |b| (the sine of their angle).
constexpr double kRelTol = 1e-10;

Eigen::Vector3d crossUnlessCollinear(const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
  const Eigen::Vector3d c = a.cross(b);
  return c.norm() > kRelTol * a.norm() * b.norm() ? c : Eigen::Vector3d::Zero();
}

// The rotation that takes +y onto direction d (used when the spine is straight).
Eigen::Matrix3d rotationFromY(const Eigen::Vector3d& d) {
  return Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitY(), d).toRotationMatrix();
}

}  // namespace

FaceSetResult buildIndexedFaceSet(const std::vector<Eigen::Vector3d>& points,
                                  const std::vector<int>& coord_index, bool ccw, bool convex,
                                  int max_ear_clipping) {
  FaceSetResult r;
  r.mesh.vertices = points;
  std::vector<int> face;
  const auto flush = [&]() {
    if (face.empty()) return;
    auto tris = triangulatePolygon(points, face, convex, max_ear_clipping);
    if (tris.empty()) ++r.degenerate_faces;
    r.mesh.triangles.insert(r.mesh.triangles.end(), tris.begin(), tris.end());
    face.clear();
  };
  for (int i : coord_index) {
    if (i < 0)
      flush();
    else
      face.push_back(i);
  }
  flush();
  if (!ccw) flip(r.mesh);
  return r;
}

FaceSetResult buildExtrusion(const ExtrusionInput& in, int max_ear_clipping) {
  FaceSetResult r;
  const auto& sp = in.spine;
  const auto& cs = in.cross_section;
  const std::size_t n = sp.size();
  const std::size_t m = cs.size();
  if (n < 2 || m < 2) return r;
  const bool spine_closed = sp.front() == sp.back();
  const bool cs_closed = cs.front() == cs.back();
  const std::size_t rings = spine_closed ? n - 1 : n;
  const std::size_t per_ring = cs_closed ? m - 1 : m;
  if (rings < 1 || per_ring < 2) return r;

  // SCP axes per spine point: Y along the spine tangent, Z normal to the spine's local plane.
  std::vector<Eigen::Vector3d> Y(n), Z(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (spine_closed && (i == 0 || i == n - 1)) {
      Y[i] = sp[1] - sp[n - 2];
      Z[i] = crossUnlessCollinear(sp[1] - sp[0], sp[n - 2] - sp[0]);
    } else if (i == 0) {
      Y[i] = sp[1] - sp[0];
    } else if (i == n - 1) {
      Y[i] = sp[n - 1] - sp[n - 2];
    } else {
      Y[i] = sp[i + 1] - sp[i - 1];
      Z[i] = crossUnlessCollinear(sp[i + 1] - sp[i], sp[i - 1] - sp[i]);
    }
  }
  if (!spine_closed) {
    // Open ends take the Z of their neighbour (6.18.2).
    Z[0] = n > 2 ? Z[1] : Eigen::Vector3d::Zero();
    Z[n - 1] = n > 2 ? Z[n - 2] : Eigen::Vector3d::Zero();
  }
  double extent = 0.0;
  for (const auto& p : sp) extent = std::max(extent, (p - sp[0]).norm());
  const auto tiny = [&](const Eigen::Vector3d& y) { return !(y.norm() > kRelTol * extent); };
  const auto none = [](const Eigen::Vector3d& z) { return z.isZero(0.0); };
  // Coincident spine points: borrow the nearest defined tangent.
  for (std::size_t i = 1; i < n; ++i)
    if (tiny(Y[i])) Y[i] = Y[i - 1];
  for (std::size_t i = n - 1; i-- > 0;)
    if (tiny(Y[i])) Y[i] = Y[i + 1];
  bool any_z = false;
  for (const auto& z : Z) any_z = any_z || !none(z);
  std::vector<Eigen::Matrix3d> frame(n);
  if (!any_z) {
    // Straight spine: rotate the default frame so that +y follows the spine.
    for (std::size_t i = 0; i < n; ++i)
      frame[i] = tiny(Y[i]) ? Eigen::Matrix3d::Identity() : rotationFromY(Y[i].normalized());
  } else {
    // Collinear points reuse the previous Z; consecutive Z never flip sign.
    for (std::size_t i = 0; i < n; ++i)
      if (none(Z[i]) && i > 0) Z[i] = Z[i - 1];
    for (std::size_t i = n; i-- > 0;)
      if (none(Z[i]) && i + 1 < n) Z[i] = Z[i + 1];
    for (std::size_t i = 1; i < n; ++i)
      if (Z[i].dot(Z[i - 1]) < 0.0) Z[i] = -Z[i];
    for (std::size_t i = 0; i < n; ++i) {
      const Eigen::Vector3d y = tiny(Y[i]) ? Eigen::Vector3d::UnitY() : Y[i].normalized();
      const Eigen::Vector3d z = Z[i].normalized();
      frame[i].col(0) = y.cross(z);
      frame[i].col(1) = y;
      frame[i].col(2) = z;
    }
  }

  // Cross-section point (x, z) is scaled, rotated by orientation, then placed in the SCP.
  auto& verts = r.mesh.vertices;
  verts.reserve(rings * per_ring);
  for (std::size_t i = 0; i < rings; ++i) {
    const Eigen::Vector2d s =
        in.scale.empty() ? Eigen::Vector2d(1, 1) : in.scale[std::min(i, in.scale.size() - 1)];
    const Eigen::Matrix3d o =
        in.orientation.empty()
            ? Eigen::Matrix3d::Identity()
            : in.orientation[std::min(i, in.orientation.size() - 1)].toRotationMatrix();
    for (std::size_t j = 0; j < per_ring; ++j) {
      const Eigen::Vector3d local(cs[j].x() * s.x(), 0.0, cs[j].y() * s.y());
      verts.push_back(sp[i] + frame[i] * (o * local));
    }
  }
  const auto id = [&](std::size_t i, std::size_t j) {
    return static_cast<int>((i % rings) * per_ring + (j % per_ring));
  };
  const auto emit = [&](int a, int b, int c) {
    const Eigen::Vector3d& pa = verts[static_cast<std::size_t>(a)];
    if ((verts[static_cast<std::size_t>(b)] - pa)
            .cross(verts[static_cast<std::size_t>(c)] - pa)
            .squaredNorm() > 0.0)
      r.mesh.triangles.push_back({a, b, c});
  };
  for (std::size_t i = 0; i + 1 < n; ++i) {
    for (std::size_t j = 0; j + 1 < m; ++j) {
      const int a = id(i, j), b = id(i, j + 1), c = id(i + 1, j + 1), d = id(i + 1, j);
      emit(a, b, c);
      emit(a, c, d);
    }
  }
  if (!spine_closed) {
    // The cross-section runs counter-clockwise seen from +y in its own plane, so the end cap
    // keeps its order and the begin cap is reversed to face backwards along the spine.
    std::vector<int> cap(per_ring);
    const auto addCap = [&](std::size_t ring, bool reverse) {
      for (std::size_t j = 0; j < per_ring; ++j) cap[j] = id(ring, reverse ? per_ring - 1 - j : j);
      auto tris = triangulatePolygon(verts, cap, in.convex, max_ear_clipping);
      if (tris.empty()) ++r.degenerate_faces;
      r.mesh.triangles.insert(r.mesh.triangles.end(), tris.begin(), tris.end());
    };
    if (in.begin_cap) addCap(0, true);
    if (in.end_cap) addCap(rings - 1, false);
  }
  if (!in.ccw) flip(r.mesh);
  return r;
}

TriangleMesh buildElevationGrid(int x_dim, int z_dim, double x_spacing, double z_spacing,
                                const std::vector<double>& height, bool ccw) {
  TriangleMesh m;
  if (x_dim < 2 || z_dim < 2) return m;
  const auto xd = static_cast<std::size_t>(x_dim);
  const auto zd = static_cast<std::size_t>(z_dim);
  m.vertices.reserve(xd * zd);
  for (std::size_t j = 0; j < zd; ++j)
    for (std::size_t i = 0; i < xd; ++i)
      m.vertices.emplace_back(static_cast<double>(i) * x_spacing, height[i + j * xd],
                              static_cast<double>(j) * z_spacing);
  const auto id = [&](std::size_t i, std::size_t j) { return static_cast<int>(i + j * xd); };
  for (std::size_t j = 0; j + 1 < zd; ++j) {
    for (std::size_t i = 0; i + 1 < xd; ++i) {
      // (i, j) -> (i, j+1) -> (i+1, j+1) is counter-clockwise seen from +y.
      m.triangles.push_back({id(i, j), id(i, j + 1), id(i + 1, j + 1)});
      m.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i + 1, j)});
    }
  }
  if (!ccw) flip(m);
  return m;
}

}  // namespace handsim::geometry::vrml
