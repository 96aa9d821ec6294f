// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/collision/kdop_polytope.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

namespace handsim::collision {
namespace {

// One face of the polytope: its outward direction and its corners, counter-clockwise seen
// from outside.
struct Face {
  Eigen::Vector3d normal;
  std::vector<Eigen::Vector3d> loop;
};

// The six faces of the box [lo, hi].
std::vector<Face> boxFaces(const Eigen::Vector3d& lo, const Eigen::Vector3d& hi) {
  const auto corner = [&](int i) {
    return Eigen::Vector3d((i & 1) ? hi.x() : lo.x(), (i & 2) ? hi.y() : lo.y(),
                           (i & 4) ? hi.z() : lo.z());
  };
  // Corner indices per face, counter-clockwise seen from outside.
  const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                           {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
  const Eigen::Vector3d normals[6] = {-Eigen::Vector3d::UnitX(), Eigen::Vector3d::UnitX(),
                                      -Eigen::Vector3d::UnitY(), Eigen::Vector3d::UnitY(),
                                      -Eigen::Vector3d::UnitZ(), Eigen::Vector3d::UnitZ()};
  std::vector<Face> out;
  for (int f = 0; f < 6; ++f) {
    Face face{normals[f], {}};
    for (int c : faces[f]) face.loop.push_back(corner(c));
    out.push_back(std::move(face));
  }
  return out;
}

void addUnique(std::vector<Eigen::Vector3d>& points, const Eigen::Vector3d& p, double eps) {
  for (const Eigen::Vector3d& q : points)
    if ((q - p).norm() <= eps) return;
  points.push_back(p);
}

// Keeps the part of the polytope with n . x <= h and closes it with the cap face in that plane.
void clip(std::vector<Face>& faces, const Eigen::Vector3d& n, double h, double eps) {
  const double tol = eps * n.norm();
  std::vector<Face> kept;
  std::vector<Eigen::Vector3d> cap;
  bool cut = false;
  for (Face& face : faces) {
    std::vector<Eigen::Vector3d> loop;
    const std::size_t m = face.loop.size();
    for (std::size_t i = 0; i < m; ++i) {
      const Eigen::Vector3d& a = face.loop[i];
      const Eigen::Vector3d& b = face.loop[(i + 1) % m];
      const double da = n.dot(a) - h;
      const double db = n.dot(b) - h;
      if (da <= tol) loop.push_back(a);
      if (da > tol) cut = true;
      if (std::abs(da) <= tol) addUnique(cap, a, eps);
      if ((da < -tol && db > tol) || (da > tol && db < -tol)) {
        const Eigen::Vector3d p = a + (b - a) * (da / (da - db));
        loop.push_back(p);
        addUnique(cap, p, eps);
      }
    }
    std::vector<Eigen::Vector3d> clean;
    for (const Eigen::Vector3d& p : loop)
      if (clean.empty() || (clean.back() - p).norm() > eps) clean.push_back(p);
    while (clean.size() > 1 && (clean.back() - clean.front()).norm() <= eps) clean.pop_back();
    if (clean.size() >= 3) kept.push_back({face.normal, std::move(clean)});
  }
  if (!cut) return;  // the plane does not cut the polytope
  faces = std::move(kept);
  if (cap.size() < 3) return;
  // Order the cap's corners counter-clockwise about n.
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  for (const Eigen::Vector3d& p : cap) centre += p;
  centre /= static_cast<double>(cap.size());
  const Eigen::Vector3d w = n.normalized();
  const Eigen::Vector3d u = w.unitOrthogonal();
  const Eigen::Vector3d v = w.cross(u);
  std::sort(cap.begin(), cap.end(), [&](const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
    return std::atan2(v.dot(a - centre), u.dot(a - centre)) <
           std::atan2(v.dot(b - centre), u.dot(b - centre));
  });
  faces.push_back({n, std::move(cap)});
}

}  // namespace

geometry::TriangleMesh kdopPolytope(const Eigen::Vector3d* directions, const double* lower,
                                    const double* upper, int count) {
  if (count < 3) throw std::invalid_argument("kdopPolytope: needs at least 3 slabs");
  for (int i = 0; i < 3; ++i)
    if (directions[i] != Eigen::Vector3d::Unit(i))
      throw std::invalid_argument("kdopPolytope: the first three directions must be x, y, z");
  geometry::TriangleMesh mesh;
  double scale = 0.0;
  for (int i = 0; i < count; ++i) {
    if (lower[i] > upper[i]) return mesh;
    scale = std::max({scale, std::abs(lower[i]), std::abs(upper[i])});
  }
  const double eps = 1e-12 * std::max(scale, 1.0);
  std::vector<Face> faces = boxFaces(Eigen::Vector3d(lower[0], lower[1], lower[2]),
                                     Eigen::Vector3d(upper[0], upper[1], upper[2]));
  for (int i = 3; i < count && !faces.empty(); ++i) {
    clip(faces, directions[i], upper[i], eps);
    clip(faces, -directions[i], -lower[i], eps);
  }
  if (faces.size() < 4) return mesh;  // flat or empty: no solid left
  for (const Face& face : faces) {
    std::vector<int> ids;
    for (const Eigen::Vector3d& p : face.loop) {
      int id = -1;
      for (std::size_t k = 0; k < mesh.vertices.size() && id < 0; ++k)
        if ((mesh.vertices[k] - p).norm() <= eps) id = static_cast<int>(k);
      if (id < 0) {
        id = static_cast<int>(mesh.vertices.size());
        mesh.vertices.push_back(p);
      }
      ids.push_back(id);
    }
    for (std::size_t k = 1; k + 1 < ids.size(); ++k)
      mesh.triangles.push_back({ids[0], ids[k], ids[k + 1]});
  }
  mesh.updateNormals();
  return mesh;
}

geometry::TriangleMesh kdopNodePolytope(const KdopTree& tree, std::size_t node) {
  if (node >= tree.nodeCount()) throw std::out_of_range("kdopNodePolytope: no such node");
  const int n = tree.axisCount();
  const double* centre = tree.slabCentre(node);
  const double* half = tree.slabHalfWidth(node);
  std::vector<double> lower(static_cast<std::size_t>(n));
  std::vector<double> upper(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    lower[static_cast<std::size_t>(i)] = centre[i] - half[i];
    upper[static_cast<std::size_t>(i)] = centre[i] + half[i];
  }
  return kdopPolytope(kdopDirections(tree.k()), lower.data(), upper.data(), n);
}

}  // namespace handsim::collision
