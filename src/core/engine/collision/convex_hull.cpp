// SPDX-License-Identifier: GPL-3.0-or-later
// Convex hulls of collision meshes with qhull (docs/collision.md, "Convex hulls").
#include "handsim/collision/convex_hull.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "../geometry/qhull_session.hpp"

namespace handsim::collision {
namespace {

/// Counter-clockwise convex hull (Andrew's monotone chain) of 2-D points, indices into `pts`;
/// points on an edge within `eps` (a cross product [m^2]) are dropped.
std::vector<int> hull2d(const std::vector<Eigen::Vector2d>& pts, double eps) {
  std::vector<int> order(pts.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const Eigen::Vector2d& p = pts[static_cast<std::size_t>(a)];
    const Eigen::Vector2d& q = pts[static_cast<std::size_t>(b)];
    return p.x() < q.x() || (p.x() == q.x() && p.y() < q.y());
  });
  const auto turn = [&](int o, int a, int b) {
    const Eigen::Vector2d u = pts[static_cast<std::size_t>(a)] - pts[static_cast<std::size_t>(o)];
    const Eigen::Vector2d v = pts[static_cast<std::size_t>(b)] - pts[static_cast<std::size_t>(o)];
    return u.x() * v.y() - u.y() * v.x();
  };
  std::vector<int> chain(2 * order.size());
  std::size_t k = 0;
  for (int i : order) {  // lower chain
    while (k >= 2 && turn(chain[k - 2], chain[k - 1], i) <= eps) --k;
    chain[k++] = i;
  }
  for (std::size_t j = order.size() - 1, lower = k + 1; j-- > 0;) {  // upper chain
    const int i = order[j];
    while (k >= lower && turn(chain[k - 2], chain[k - 1], i) <= eps) --k;
    chain[k++] = i;
  }
  chain.resize(k > 1 ? k - 1 : k);
  return chain;
}

/// Compressed rows of `lists` (each sorted, duplicates dropped) into `first` and `items`.
void compress(std::vector<std::vector<int>>& lists, std::vector<int>& first,
              std::vector<int>& items) {
  first.assign(1, 0);
  items.clear();
  for (std::vector<int>& l : lists) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
    items.insert(items.end(), l.begin(), l.end());
    first.push_back(static_cast<int>(items.size()));
  }
}

}  // namespace

int ConvexHull::support(const Eigen::Vector3d& d, int start) const {
  const int n = static_cast<int>(vertices.size());
  if (n <= 24) {
    int best = 0;
    double top = d.dot(vertices[0]);
    for (int i = 1; i < n; ++i) {
      const double s = d.dot(vertices[static_cast<std::size_t>(i)]);
      if (s > top) top = s, best = i;
    }
    return best;
  }
  // The caller's start (often the last answer of a nearby direction) or the start map's,
  // whichever is higher along d.
  int best = start;
  double top = d.dot(vertices[static_cast<std::size_t>(best)]);
  const int mapped = supportStart(d);
  if (const double m = d.dot(vertices[static_cast<std::size_t>(mapped)]); m > top)
    top = m, best = mapped;
  for (bool moved = true; moved;) {
    moved = false;
    const auto v = static_cast<std::size_t>(best);
    for (int k = neighbour_first[v]; k < neighbour_first[v + 1]; ++k) {
      const int nb = neighbours[static_cast<std::size_t>(k)];
      const double s = d.dot(vertices[static_cast<std::size_t>(nb)]);
      if (s > top) top = s, best = nb, moved = true;
    }
  }
  return best;
}

ConvexHull buildConvexHull(const std::vector<Eigen::Vector3d>& points) {
  if (points.size() < 4)
    throw std::invalid_argument("convex hull: " + std::to_string(points.size()) +
                                " point(s) span no volume");
  std::vector<double> coords;
  coords.reserve(3 * points.size());
  for (const Eigen::Vector3d& p : points) {
    if (!p.allFinite()) throw std::invalid_argument("convex hull: a point is not finite");
    coords.insert(coords.end(), {p.x(), p.y(), p.z()});
  }
  // Declared first, destroyed last: qhull may still report leaks while it frees its memory.
  geometry::detail::CapturedStream messages;
  geometry::detail::Qhull qhull(messages.file());
  qhT* qh = qhull.get();
  // Default options: facets coplanar within qhull's rounding are merged (C-0), no joggling.
  char flags[] = "qhull";
  const int status = qh_new_qhull(qh, 3, static_cast<int>(points.size()), coords.data(), False,
                                  flags, nullptr, messages.file());
  if (status != 0) {
    const std::string msg = messages.firstLine();
    throw std::invalid_argument("convex hull failed (" + (msg.empty() ? "qhull error" : msg) +
                                "): the points are flat or degenerate");
  }

  double extent = 0.0;
  for (const Eigen::Vector3d& p : points) extent = std::max(extent, p.cwiseAbs().maxCoeff());
  const double collinear = 1e-12 * extent * extent;

  ConvexHull hull;
  std::vector<int> hull_index(points.size(), -1);  // input point -> hull vertex
  std::vector<int> loop;
  std::vector<Eigen::Vector2d> planar;
  std::vector<int> ids;
  for (facetT* facet = qh->facet_list; facet && facet->next; facet = facet->next) {
    const Eigen::Vector3d n(facet->normal[0], facet->normal[1], facet->normal[2]);
    // The facet's vertices in its plane; their 2-D hull drops points inside or on an edge.
    Eigen::Vector3d u = n.unitOrthogonal();
    const Eigen::Vector3d v = n.cross(u);
    ids.clear();
    planar.clear();
    vertexT* vertex = nullptr;
    vertexT** vertexp = nullptr;
    FOREACHvertex_(facet->vertices) {
      const int id = qh_pointid(qh, vertex->point);
      ids.push_back(id);
      const Eigen::Vector3d& p = points[static_cast<std::size_t>(id)];
      planar.emplace_back(u.dot(p), v.dot(p));
    }
    const std::vector<int> ring = hull2d(planar, collinear);
    if (ring.size() < 3) continue;  // a sliver facet qhull kept: its neighbours close the hull
    ConvexFace face;
    face.normal = n.normalized();
    face.offset = -facet->offset;
    face.first = static_cast<int>(hull.face_vertices.size());
    face.count = static_cast<int>(ring.size());
    for (int r : ring) {
      const auto id = static_cast<std::size_t>(ids[static_cast<std::size_t>(r)]);
      if (hull_index[id] < 0) {
        hull_index[id] = static_cast<int>(hull.vertices.size());
        hull.vertices.push_back(points[id]);
      }
      hull.face_vertices.push_back(hull_index[id]);
    }
    hull.faces.push_back(face);
  }
  if (hull.faces.size() < 4) throw std::invalid_argument("convex hull has fewer than 4 faces");

  // Adjacency, the triangulation, the interior point and the fingerprint.
  const std::size_t nv = hull.vertices.size();
  std::vector<std::vector<int>> around(nv), faces_of(nv);
  hull.triangles.vertices = hull.vertices;
  for (std::size_t f = 0; f < hull.faces.size(); ++f) {
    const ConvexFace& face = hull.faces[f];
    const int* ring = &hull.face_vertices[static_cast<std::size_t>(face.first)];
    for (int i = 0; i < face.count; ++i) {
      const int a = ring[i], b = ring[(i + 1) % face.count];
      around[static_cast<std::size_t>(a)].push_back(b);
      around[static_cast<std::size_t>(b)].push_back(a);
      faces_of[static_cast<std::size_t>(a)].push_back(static_cast<int>(f));
      if (i >= 2) hull.triangles.triangles.push_back({ring[0], ring[i - 1], ring[i]});
    }
  }
  compress(around, hull.neighbour_first, hull.neighbours);
  compress(faces_of, hull.vertex_face_first, hull.vertex_faces);
  hull.triangles.updateNormals();
  for (const Eigen::Vector3d& p : hull.vertices) hull.interior += p;
  hull.interior /= static_cast<double>(nv);
  std::uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (const Eigen::Vector3d& p : hull.vertices) {
    hull.radius = std::max(hull.radius, (p - hull.interior).norm());
    for (int i = 0; i < 3; ++i) {
      unsigned char bytes[sizeof(double)];
      std::memcpy(bytes, &p[i], sizeof(double));
      for (unsigned char c : bytes) hash = (hash ^ c) * 1099511628211ull;
    }
  }
  hull.fingerprint = hash;
  // The start map: every cell's centre direction, its farthest vertex by brute force.
  constexpr int kCells = ConvexHull::kStartCells;
  for (int face = 0; face < 6; ++face)
    for (int i = 0; i < kCells; ++i)
      for (int j = 0; j < kCells; ++j) {
        const int axis = face / 2;
        Eigen::Vector3d d;
        d[axis] = face % 2 ? -1.0 : 1.0;
        d[(axis + 1) % 3] = -1.0 + (2.0 * i + 1.0) / kCells;
        d[(axis + 2) % 3] = -1.0 + (2.0 * j + 1.0) / kCells;
        int best = 0;
        for (std::size_t v = 1; v < nv; ++v)
          if (d.dot(hull.vertices[v]) > d.dot(hull.vertices[static_cast<std::size_t>(best)]))
            best = static_cast<int>(v);
        hull.start_map[static_cast<std::size_t>(ConvexHull::startCell(d))] = best;
      }
  return hull;
}

ConvexHull buildConvexHull(const geometry::TriangleMesh& mesh) {
  std::vector<char> used(mesh.vertices.size(), 0);
  for (const auto& t : mesh.triangles)
    for (int i : t) used[static_cast<std::size_t>(i)] = 1;
  std::vector<Eigen::Vector3d> points;
  for (std::size_t i = 0; i < used.size(); ++i)
    if (used[i]) points.push_back(mesh.vertices[i]);
  return buildConvexHull(points);
}

bool isBoundaryOfHull(const geometry::TriangleMesh& mesh, const ConvexHull& hull) {
  if (hull.empty() || mesh.triangles.empty()) return false;
  const double tol = 1e-9 * hull.radius;
  int start = 0;
  for (const auto& t : mesh.triangles) {
    const Eigen::Vector3d& p = mesh.vertices[static_cast<std::size_t>(t[0])];
    const Eigen::Vector3d n = (mesh.vertices[static_cast<std::size_t>(t[1])] - p)
                                  .cross(mesh.vertices[static_cast<std::size_t>(t[2])] - p);
    const double len = n.norm();
    if (!(len > 1e-12 * hull.radius * hull.radius)) continue;  // degenerate
    const Eigen::Vector3d u = n / len;
    start = hull.support(u, start);
    if (u.dot(hull.vertices[static_cast<std::size_t>(start)] - p) > tol) return false;
  }
  const double hull_volume = geometry::signedVolume(hull.triangles);
  return std::abs(geometry::signedVolume(mesh) - hull_volume) <= 1e-9 * std::abs(hull_volume);
}

}  // namespace handsim::collision
