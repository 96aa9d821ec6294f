// SPDX-License-Identifier: GPL-3.0-or-later
// Contact surface generation (seed 000, section IV): intersection segments that share end
// points form one patch (union-find over a spatial hash of the end points); per patch the
// area-weighted normal and the bounding-box centre give a point contact.
#include "handsim/collision/contact_patch.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace handsim::collision {
namespace {

using Vec = Eigen::Vector3d;

struct DisjointSets {
  std::vector<int> parent;
  explicit DisjointSets(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  int find(int x) {
    while (parent[static_cast<std::size_t>(x)] != x) {
      auto& p = parent[static_cast<std::size_t>(x)];
      p = parent[static_cast<std::size_t>(p)];
      x = p;
    }
    return x;
  }
  void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
  }
};

// The points that represent a contact for chaining and for the patch's bounding box.
int contactPoints(const TriangleIntersection& x, const Vec** out) {
  if (x.kind == TriangleContactKind::Coplanar && x.polygon_size > 0) {
    for (int i = 0; i < x.polygon_size; ++i) out[i] = &x.polygon[static_cast<std::size_t>(i)];
    return x.polygon_size;
  }
  out[0] = &x.p0;
  out[1] = &x.p1;
  return 2;
}

struct CellHash {
  std::size_t operator()(const std::array<std::int64_t, 3>& c) const {
    return static_cast<std::size_t>(c[0] * 73856093LL ^ c[1] * 19349663LL ^ c[2] * 83492791LL);
  }
};

Vec rawNormal(const geometry::TriangleMesh& m, int t) {
  const auto& tri = m.triangles[static_cast<std::size_t>(t)];
  const Vec& a = m.vertices[static_cast<std::size_t>(tri[0])];
  return (m.vertices[static_cast<std::size_t>(tri[1])] - a)
      .cross(m.vertices[static_cast<std::size_t>(tri[2])] - a);
}

std::vector<int> distinct(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

std::vector<ContactPatch> buildContactPatches(const geometry::TriangleMesh& link,
                                              const geometry::TriangleMesh& object,
                                              const Eigen::Isometry3d& object_in_link,
                                              const std::vector<TrianglePairContact>& contacts,
                                              const ContactPatchOptions& options) {
  if (!(options.join_tolerance_m > 0.0))
    throw std::invalid_argument("join_tolerance_m must be positive");
  const double tol = options.join_tolerance_m;
  const std::size_t n = contacts.size();
  DisjointSets sets(n);

  // Spatial hash with cells of the join tolerance: points within tol of each other are in the
  // same or adjacent cells.
  std::unordered_map<std::array<std::int64_t, 3>, std::vector<std::pair<int, const Vec*>>, CellHash>
      cells;
  auto cellOf = [&](const Vec& p) {
    return std::array<std::int64_t, 3>{static_cast<std::int64_t>(std::floor(p.x() / tol)),
                                       static_cast<std::int64_t>(std::floor(p.y() / tol)),
                                       static_cast<std::int64_t>(std::floor(p.z() / tol))};
  };
  for (std::size_t i = 0; i < n; ++i) {
    const Vec* pts[6];
    const int count = contactPoints(contacts[i].intersection, pts);
    for (int k = 0; k < count; ++k) {
      const auto c = cellOf(*pts[k]);
      for (std::int64_t dx = -1; dx <= 1; ++dx)
        for (std::int64_t dy = -1; dy <= 1; ++dy)
          for (std::int64_t dz = -1; dz <= 1; ++dz) {
            const auto it = cells.find({c[0] + dx, c[1] + dy, c[2] + dz});
            if (it == cells.end()) continue;
            for (const auto& [other, q] : it->second)
              if ((*q - *pts[k]).norm() <= tol) sets.join(static_cast<int>(i), other);
          }
      cells[c].emplace_back(static_cast<int>(i), pts[k]);
    }
  }

  // Gather the patches in order of their smallest contact index.
  std::vector<int> patch_of_root(n, -1);
  std::vector<ContactPatch> patches;
  for (std::size_t i = 0; i < n; ++i) {
    const auto root = static_cast<std::size_t>(sets.find(static_cast<int>(i)));
    if (patch_of_root[root] < 0) {
      patch_of_root[root] = static_cast<int>(patches.size());
      patches.emplace_back();
    }
    ContactPatch& p = patches[static_cast<std::size_t>(patch_of_root[root])];
    p.contacts.push_back(static_cast<int>(i));
    p.link_triangles.push_back(contacts[i].triangle_a);
    p.object_triangles.push_back(contacts[i].triangle_b);
    const Vec* pts[6];
    const int count = contactPoints(contacts[i].intersection, pts);
    for (int k = 0; k < count; ++k) p.bounds.extend(*pts[k]);
  }

  const Eigen::Matrix3d rotation = object_in_link.linear();
  for (ContactPatch& p : patches) {
    p.link_triangles = distinct(std::move(p.link_triangles));
    p.object_triangles = distinct(std::move(p.object_triangles));
    p.point = 0.5 * (p.bounds.min + p.bounds.max);
    // |raw normal| is twice the area, so the raw sum is twice the area-weighted sum.
    Vec sum = Vec::Zero();
    double area2 = 0.0;
    for (int t : p.object_triangles) {
      const Vec raw = rawNormal(object, t);
      sum += raw;
      area2 += raw.norm();
    }
    p.object_area_m2 = 0.5 * area2;
    sum = rotation * sum;
    if (sum.norm() <= 1e-12 * area2) {
      // The object's faces cancel (e.g. a thin plate pierced through): the link's inward
      // normals are the next best evidence of the push direction.
      sum.setZero();
      for (int t : p.link_triangles) sum -= rawNormal(link, t);
    }
    const double len = sum.norm();
    p.normal = len > 0.0 ? Vec(sum / len) : Vec::Zero();
    for (int t : p.link_triangles)
      for (int c : link.triangles[static_cast<std::size_t>(t)])
        p.depth_m =
            std::max(p.depth_m, p.normal.dot(p.point - link.vertices[static_cast<std::size_t>(c)]));
  }
  return patches;
}

}  // namespace handsim::collision
