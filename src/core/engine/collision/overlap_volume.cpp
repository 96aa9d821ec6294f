// SPDX-License-Identifier: GPL-3.0-or-later
// Exact overlap volume of two closed triangle meshes (seed 004, Sect. II-B: the intersection
// mesh, its centre c and the direction of eq. 3). The boundary of A ∩ B is the part of A's
// surface inside B plus the part of B's surface inside A; its volume and centroid follow from the
// divergence theorem, V = 1/3 ∮ x·n dS, computed as signed tetrahedra from a reference point.
// See docs/collision.md, "Overlap volume", for the method, the tolerances and the coplanar rule.
#include "handsim/collision/overlap_volume.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>

#include "handsim/collision/kdop.hpp"
#include "handsim/collision/tree_collision.hpp"

namespace handsim::collision {

namespace {

using Vec = Eigen::Vector3d;
constexpr double kPi = 3.14159265358979323846;

// Ray directions for the parity test: unit vectors with no simple rational relation to the
// axes or the k-DOP diagonals, so that axis-aligned meshes are never grazed by construction.
const std::array<Vec, 8>& rayDirections() {
  static const std::array<Vec, 8> dirs = [] {
    std::array<Vec, 8> d = {Vec(0.5773502691896257, 0.3141592653589793, 0.7536529064776351),
                            Vec(-0.2718281828459045, 0.8414709848078965, 0.4671235689012345),
                            Vec(0.6931471805599453, -0.5772156649015329, 0.4319676490823115),
                            Vec(-0.3819660112501051, -0.6180339887498949, -0.6875208367295315),
                            Vec(0.1234567890123457, 0.2345678901234568, -0.9643216789012345),
                            Vec(-0.9126795481629271, 0.1732050807568877, 0.3699864357912311),
                            Vec(0.4142135623730950, -0.7320508075688772, -0.5411961001461969),
                            Vec(-0.5527864045000421, 0.4472135954999579, -0.7029063352617011)};
    for (auto& v : d) v.normalize();
    return d;
  }();
  return dirs;
}

// One ray's crossings with the tree's triangles: the count, or -1 when the ray starts on the
// surface or passes within the tolerance of an edge, a vertex or a face's plane.
int rayCrossings(const KdopTree& tree, const Vec& p, const Vec& d,
                 std::vector<std::uint32_t>& stack) {
  const int h = tree.axisCount();
  const Vec* dirs = kdopDirections(tree.k());
  std::array<double, kMaxKdopAxes> o{}, r{};
  for (int j = 0; j < h; ++j) {
    o[static_cast<std::size_t>(j)] = dirs[j].dot(p);
    r[static_cast<std::size_t>(j)] = dirs[j].dot(d);
  }
  const double scale = tree.scale() + p.cwiseAbs().maxCoeff();
  const double tol_t = 1e-12 * scale;
  const double margin = 1e-9 * scale;
  constexpr double kBary = 1e-9;
  int crossings = 0;
  stack.clear();
  stack.push_back(0);
  while (!stack.empty()) {
    const std::uint32_t i = stack.back();
    stack.pop_back();
    const double* centre = tree.slabCentre(i);
    const double* half = tree.slabHalfWidth(i);
    double tmin = -margin, tmax = std::numeric_limits<double>::infinity();
    bool miss = false;
    for (int j = 0; j < h && !miss; ++j) {
      const auto js = static_cast<std::size_t>(j);
      const double lo = centre[j] - half[j] - 2 * margin, hi = centre[j] + half[j] + 2 * margin;
      if (r[js] == 0.0) {
        miss = o[js] < lo || o[js] > hi;
        continue;
      }
      double t1 = (lo - o[js]) / r[js], t2 = (hi - o[js]) / r[js];
      if (t1 > t2) std::swap(t1, t2);
      tmin = std::max(tmin, t1);
      tmax = std::min(tmax, t2);
      miss = tmin > tmax;
    }
    if (miss) continue;
    const KdopTree::Node& node = tree.node(i);
    if (!node.isLeaf()) {
      stack.push_back(static_cast<std::uint32_t>(node.first));
      stack.push_back(i + 1);
      continue;
    }
    for (int s = node.first; s < node.first + node.count; ++s) {
      const Vec* v = tree.slotVertices(static_cast<std::size_t>(s));
      const Vec e1 = v[1] - v[0], e2 = v[2] - v[0];
      const Vec n = e1.cross(e2);
      const double n_norm = n.norm();
      if (n_norm == 0.0) continue;  // a zero-area triangle bounds nothing
      const Vec tv = p - v[0];
      const double dist = n.dot(tv) / n_norm;
      const double cos_angle = d.dot(n) / n_norm;
      if (std::abs(cos_angle) < 1e-12) {
        if (std::abs(dist) <= tol_t) return -1;  // the ray runs in the face's plane
        continue;
      }
      const Vec pv = d.cross(e2);
      const double inv = 1.0 / e1.dot(pv);
      const double u = tv.dot(pv) * inv;
      const Vec qv = tv.cross(e1);
      const double w = d.dot(qv) * inv;
      const double t = -dist / cos_angle;
      if (u < -kBary || w < -kBary || u + w > 1.0 + kBary || t < -tol_t) continue;
      if (std::abs(t) <= tol_t) return -1;                           // starts on the surface
      if (u < kBary || w < kBary || u + w > 1.0 - kBary) return -1;  // edge or vertex
      ++crossings;
    }
  }
  return crossings;
}

// Signed solid angle of triangle (a, b, c) seen from the origin (Van Oosterom & Strackee).
double solidAngle(const Vec& a, const Vec& b, const Vec& c) {
  const double la = a.norm(), lb = b.norm(), lc = c.norm();
  const double num = a.dot(b.cross(c));
  const double den = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
  return 2.0 * std::atan2(num, den);
}

// Size-relative zero of the cutting tests for a triangle with these vertices.
double triangleEps(const Vec* v) {
  const double size = std::max({(v[1] - v[0]).norm(), (v[2] - v[1]).norm(), (v[0] - v[2]).norm()});
  const double coord = std::max(
      {v[0].cwiseAbs().maxCoeff(), v[1].cwiseAbs().maxCoeff(), v[2].cwiseAbs().maxCoeff()});
  return 1e-12 * size + 8 * std::numeric_limits<double>::epsilon() * coord;
}

// Everything one `computeOverlap` call shares between its two passes (A in B, B in A).
struct Pass {
  OverlapScratch& scratch;
  OverlapResult& result;
  Vec ref;                     // reference point of the divergence-theorem tetrahedra (A's frame)
  double volume6 = 0;          // six times the volume so far
  Vec moment24 = Vec::Zero();  // 24 times the first moment (about ref) so far

  // Adds a kept convex polygon (counter-clockwise about `normal`, A's frame) to the integrals
  // and, area permitting, to the pieces of the side it belongs to.
  void keep(const Vec* v, std::uint32_t count, const Vec& normal, double area, const Vec& centre,
            int triangle, bool of_a, bool store_vertices) {
    const Vec r0 = v[0] - ref;
    for (std::uint32_t i = 1; i + 1 < count; ++i) {
      const Vec r1 = v[i] - ref, r2 = v[i + 1] - ref;
      const double six_vol = r0.dot(r1.cross(r2));
      volume6 += six_vol;
      moment24 += six_vol * (r0 + r1 + r2);
    }
    OverlapPiece piece;
    piece.triangle = triangle;
    piece.area = area;
    piece.centre_world = centre;  // A's frame until the end of computeOverlap
    piece.normal_world = normal;
    if (store_vertices) {
      piece.first_vertex = static_cast<std::uint32_t>(result.vertices_world.size());
      piece.vertex_count = count;
      for (std::uint32_t i = 0; i < count; ++i) result.vertices_world.push_back(v[i]);
    }
    (of_a ? result.pieces_a : result.pieces_b).push_back(piece);
    (of_a ? result.area_a : result.area_b) += area;
  }
};

// Area and centroid of a convex polygon with unit normal n (fan from its first vertex).
double polygonArea(const Vec* v, std::uint32_t count, const Vec& n, Vec& centre) {
  double area = 0.0;
  Vec moment = Vec::Zero();
  for (std::uint32_t i = 1; i + 1 < count; ++i) {
    const double a = 0.5 * (v[i] - v[0]).cross(v[i + 1] - v[0]).dot(n);
    area += a;
    moment += a * (v[0] + v[i] + v[i + 1]) / 3.0;
  }
  centre = area > 0.0 ? Vec(moment / area) : v[0];
  return area;
}

// Splits every piece whose chord along the plane (m, d) overlaps the segment [s0, s1], so
// that afterwards no piece's interior meets that segment. m is a unit normal.
void cutPieces(OverlapScratch& s, const Vec& m, double d, const Vec& s0, const Vec& s1,
               double eps) {
  const Vec seg = s1 - s0;
  const double len = seg.norm();
  if (!(len > eps)) return;  // a point contact: neighbouring segments carry the surface
  const Vec u = seg / len;
  s.poly_next.clear();
  s.piece_range_next.clear();
  auto& dist = s.dist;
  auto& side = s.side;
  for (std::size_t k = 0; k < s.piece_range.size(); k += 2) {
    const std::uint32_t first = s.piece_range[k], count = s.piece_range[k + 1];
    const Vec* v = &s.poly[first];
    bool pos = false, neg = false;
    dist.resize(count);
    side.resize(count);
    for (std::uint32_t i = 0; i < count; ++i) {
      dist[i] = m.dot(v[i]) - d;
      side[i] = dist[i] > eps ? 1 : (dist[i] < -eps ? -1 : 0);
      pos = pos || side[i] > 0;
      neg = neg || side[i] < 0;
    }
    bool split = pos && neg;
    if (split) {
      // The chord of the piece on the cutting line, against the segment's extent.
      double cmin = std::numeric_limits<double>::infinity(), cmax = -cmin;
      for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t j = (i + 1) % count;
        if (side[i] == 0) {
          const double t = (v[i] - s0).dot(u);
          cmin = std::min(cmin, t);
          cmax = std::max(cmax, t);
        } else if (side[i] * side[j] < 0) {
          const Vec x = v[i] + (v[j] - v[i]) * (dist[i] / (dist[i] - dist[j]));
          const double t = (x - s0).dot(u);
          cmin = std::min(cmin, t);
          cmax = std::max(cmax, t);
        }
      }
      split = std::min(cmax, len) - std::max(cmin, 0.0) > -eps;
    }
    if (!split) {
      s.piece_range_next.push_back(static_cast<std::uint32_t>(s.poly_next.size()));
      s.piece_range_next.push_back(count);
      for (std::uint32_t i = 0; i < count; ++i) s.poly_next.push_back(v[i]);
      continue;
    }
    for (int want : {1, -1}) {
      const auto start = static_cast<std::uint32_t>(s.poly_next.size());
      for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t j = (i + 1) % count;
        if (side[i] * want >= 0) s.poly_next.push_back(v[i]);
        if (side[i] * side[j] < 0)
          s.poly_next.push_back(v[i] + (v[j] - v[i]) * (dist[i] / (dist[i] - dist[j])));
      }
      const auto n = static_cast<std::uint32_t>(s.poly_next.size()) - start;
      if (n >= 3) {
        s.piece_range_next.push_back(start);
        s.piece_range_next.push_back(n);
      } else {
        s.poly_next.resize(start);
      }
    }
  }
  std::swap(s.poly, s.poly_next);
  std::swap(s.piece_range, s.piece_range_next);
}

// True when point x (in the plane of the coplanar triangle c) lies inside c.
bool insideCoplanar(const detail::OverlapCutter& c, const Vec& x) {
  for (int k = 0; k < 3; ++k) {
    const Vec& p = c.v[k];
    const Vec& q = c.v[(k + 1) % 3];
    const Vec e = q - p;
    if ((e.cross(x - p)).dot(c.normal) < -1e-12 * e.squaredNorm()) return false;
  }
  return true;
}

// Cuts triangle `tri` (A's frame, outward unit normal n) by `scratch.cutters`, classifies each
// piece and keeps those on the boundary of A ∩ B. `inside_other` answers for a point of A's
// frame. Coplanar pieces: kept for A when the orientations agree, never for B.
template <typename InsideOther>
void processCutTriangle(Pass& pass, const Vec* tri, const Vec& n, int triangle, bool of_a,
                        bool store_vertices, const InsideOther& inside_other) {
  OverlapScratch& s = pass.scratch;
  const double eps = triangleEps(tri);
  s.poly.clear();
  s.piece_range.clear();
  s.poly.insert(s.poly.end(), tri, tri + 3);
  s.piece_range.push_back(0);
  s.piece_range.push_back(3);
  for (const auto& c : s.cutters) {
    if (c.normal.isZero()) continue;
    if (c.coplanar) {
      for (int k = 0; k < 3; ++k) {
        const Vec& p = c.v[k];
        const Vec& q = c.v[(k + 1) % 3];
        Vec m = n.cross(q - p);
        const double mn = m.norm();
        if (!(mn > 0.0)) continue;
        m /= mn;
        cutPieces(s, m, m.dot(p), p, q, eps);
      }
    } else {
      cutPieces(s, c.normal, c.normal.dot(c.v[0]), c.p0, c.p1, eps);
    }
  }
  for (std::size_t k = 0; k < s.piece_range.size(); k += 2) {
    const Vec* v = &s.poly[s.piece_range[k]];
    const std::uint32_t count = s.piece_range[k + 1];
    Vec centre;
    const double area = polygonArea(v, count, n, centre);
    if (!(area > 0.0)) continue;
    ++pass.result.stats.pieces;
    int on_surface = 0;
    for (const auto& c : s.cutters) {
      if (c.coplanar && !c.normal.isZero() && insideCoplanar(c, centre)) {
        on_surface = c.normal.dot(n) > 0.0 ? 1 : -1;
        break;
      }
    }
    const bool keep = on_surface != 0 ? (of_a && on_surface > 0) : inside_other(centre);
    if (keep) pass.keep(v, count, n, area, centre, triangle, of_a, store_vertices);
  }
}

// Axis-aligned box of a tree's root in its own frame (the first three k-DOP directions are the
// axes), mapped by `to` into another frame.
geometry::Aabb rootBox(const KdopTree& tree, const Eigen::Isometry3d& to) {
  const double* c = tree.slabCentre(0);
  const double* h = tree.slabHalfWidth(0);
  geometry::Aabb box;
  for (int corner = 0; corner < 8; ++corner) {
    Vec p;
    for (int j = 0; j < 3; ++j) p[j] = c[j] + ((corner >> j) & 1 ? h[j] : -h[j]);
    box.extend(to * p);
  }
  return box;
}

bool boxesOverlap(const Vec& min_a, const Vec& max_a, const geometry::Aabb& b) {
  return (min_a.array() <= b.max.array()).all() && (b.min.array() <= max_a.array()).all();
}

// Keeps every triangle of `tree` that meets no triangle of the other mesh (no stamp) and lies
// inside it: those within `other_box` (in this tree's frame) are classified by their centroid.
template <typename ToPassFrame, typename InsideOther>
void processWholeTriangles(Pass& pass, const KdopTree& tree,
                           const std::vector<std::uint32_t>& stamp, const geometry::Aabb& other_box,
                           bool of_a, bool store_vertices, const ToPassFrame& to_pass,
                           const InsideOther& inside_other) {
  auto& stack = pass.scratch.box_stack;
  stack.clear();
  stack.push_back(0);
  const std::uint32_t query = pass.scratch.query;
  while (!stack.empty()) {
    const std::uint32_t i = stack.back();
    stack.pop_back();
    const double* c = tree.slabCentre(i);
    const double* h = tree.slabHalfWidth(i);
    const Vec lo(c[0] - h[0], c[1] - h[1], c[2] - h[2]), hi(c[0] + h[0], c[1] + h[1], c[2] + h[2]);
    if (!boxesOverlap(lo, hi, other_box)) continue;
    const KdopTree::Node& node = tree.node(i);
    if (!node.isLeaf()) {
      stack.push_back(static_cast<std::uint32_t>(node.first));
      stack.push_back(i + 1);
      continue;
    }
    for (int slot = node.first; slot < node.first + node.count; ++slot) {
      const int t = tree.slotTriangle(static_cast<std::size_t>(slot));
      if (stamp[static_cast<std::size_t>(t)] == query) continue;
      const Vec* v = tree.slotVertices(static_cast<std::size_t>(slot));
      const Vec tmin = v[0].cwiseMin(v[1]).cwiseMin(v[2]),
                tmax = v[0].cwiseMax(v[1]).cwiseMax(v[2]);
      if (!boxesOverlap(tmin, tmax, other_box)) continue;
      const std::array<Vec, 3> w = {to_pass(v[0]), to_pass(v[1]), to_pass(v[2])};
      Vec n = (w[1] - w[0]).cross(w[2] - w[0]);
      const double area2 = n.norm();
      if (!(area2 > 0.0)) continue;
      n /= area2;
      const Vec centre = (w[0] + w[1] + w[2]) / 3.0;
      ++pass.result.stats.pieces;
      if (inside_other(centre))
        pass.keep(w.data(), 3, n, 0.5 * area2, centre, t, of_a, store_vertices);
    }
  }
}

// Sorts the pair indices by triangle of A (by_a) or of B, then calls `fn(first, last)` per
// group of pairs sharing that triangle.
template <typename Fn>
void forEachTriangleGroup(OverlapScratch& s, bool by_a, const Fn& fn) {
  const auto& pairs = s.contacts.pairs;
  s.order.resize(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) s.order[i] = static_cast<std::uint32_t>(i);
  std::sort(s.order.begin(), s.order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const int kx = by_a ? pairs[x].triangle_a : pairs[x].triangle_b;
    const int ky = by_a ? pairs[y].triangle_a : pairs[y].triangle_b;
    return kx != ky ? kx < ky : x < y;
  });
  std::size_t first = 0;
  while (first < s.order.size()) {
    const auto key = [&](std::size_t k) {
      return by_a ? pairs[s.order[k]].triangle_a : pairs[s.order[k]].triangle_b;
    };
    std::size_t last = first + 1;
    while (last < s.order.size() && key(last) == key(first)) ++last;
    fn(first, last);
    first = last;
  }
}

}  // namespace

std::string MeshClosure::describe() const {
  if (closed) return "closed";
  std::ostringstream out;
  out << "not closed:";
  if (boundary_edges) out << ' ' << boundary_edges << " boundary edge(s)";
  if (non_manifold_edges) out << ' ' << non_manifold_edges << " edge(s) shared by 3+ triangles";
  if (inconsistent_edges) out << ' ' << inconsistent_edges << " edge(s) with flipped neighbours";
  if (!boundary_edges && !non_manifold_edges && !inconsistent_edges) out << " no triangles";
  return out.str();
}

MeshClosure checkMeshClosure(const geometry::TriangleMesh& mesh) {
  MeshClosure out;
  // Weld vertices with identical coordinates (+0 and -0 alike).
  std::map<std::tuple<double, double, double>, int> weld;
  std::vector<int> id(mesh.vertices.size());
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {
    const Vec& v = mesh.vertices[i];
    const auto key = std::make_tuple(v.x() + 0.0, v.y() + 0.0, v.z() + 0.0);
    id[i] = weld.emplace(key, static_cast<int>(weld.size())).first->second;
  }
  // Undirected edge (lo, hi) -> (traversals lo->hi, traversals hi->lo).
  std::map<std::pair<int, int>, std::pair<int, int>> edges;
  std::size_t used = 0;
  for (const auto& t : mesh.triangles) {
    bool valid = true;
    for (int c : t) valid = valid && c >= 0 && static_cast<std::size_t>(c) < id.size();
    if (!valid) {
      ++out.degenerate_triangles;
      continue;
    }
    const int a = id[static_cast<std::size_t>(t[0])], b = id[static_cast<std::size_t>(t[1])],
              c = id[static_cast<std::size_t>(t[2])];
    if (a == b || b == c || c == a) {
      ++out.degenerate_triangles;
      continue;
    }
    ++used;
    for (const auto& [p, q] : {std::pair{a, b}, std::pair{b, c}, std::pair{c, a}}) {
      auto& e = edges[{std::min(p, q), std::max(p, q)}];
      (p < q ? e.first : e.second) += 1;
    }
  }
  for (const auto& [key, count] : edges) {
    const int total = count.first + count.second;
    if (total == 1)
      ++out.boundary_edges;
    else if (total > 2)
      ++out.non_manifold_edges;
    else if (count.first != 1)
      ++out.inconsistent_edges;
  }
  out.closed = used > 0 && out.boundary_edges == 0 && out.non_manifold_edges == 0 &&
               out.inconsistent_edges == 0;
  return out;
}

double windingNumber(const KdopTree& tree, const Eigen::Vector3d& point) {
  double sum = 0.0;
  for (std::size_t s = 0; s < tree.triangleCount(); ++s) {
    const Vec* v = tree.slotVertices(s);
    sum += solidAngle(v[0] - point, v[1] - point, v[2] - point);
  }
  return sum / (4.0 * kPi);
}

bool pointInsideMesh(const KdopTree& tree, const Eigen::Vector3d& point, bool closed,
                     std::vector<std::uint32_t>& node_stack, OverlapStats* stats) {
  if (tree.empty()) return false;
  if (closed) {
    const auto& dirs = rayDirections();
    for (std::size_t k = 0; k < dirs.size(); ++k) {
      if (stats) ++(k == 0 ? stats->ray_casts : stats->recasts);
      const int crossings = rayCrossings(tree, point, dirs[k], node_stack);
      if (crossings >= 0) return crossings % 2 == 1;
    }
  }
  if (stats) ++stats->winding_queries;
  return windingNumber(tree, point) >= 0.5;
}

void computeOverlap(const KdopTree& a, const Eigen::Isometry3d& a_to_world, const KdopTree& b,
                    const Eigen::Isometry3d& b_to_world, OverlapScratch& scratch,
                    OverlapResult& result, const OverlapOptions& options) {
  result.volume = 0.0;
  result.centroid_world.setZero();
  result.direction_world.setZero();
  result.area_a = result.area_b = 0.0;
  result.pieces_a.clear();
  result.pieces_b.clear();
  result.vertices_world.clear();
  result.exact = options.a_closed && options.b_closed;
  result.stats = OverlapStats{};
  if (a.empty() || b.empty()) return;

  const Eigen::Isometry3d b_in_a = a_to_world.inverse() * b_to_world;
  const Eigen::Isometry3d a_in_b = b_in_a.inverse();
  const geometry::Aabb box_b_in_a = rootBox(b, b_in_a);
  const geometry::Aabb box_a_in_b = rootBox(a, a_in_b);
  const geometry::Aabb box_a = rootBox(a, Eigen::Isometry3d::Identity());
  const Vec lo = box_a.min.cwiseMax(box_b_in_a.min), hi = box_a.max.cwiseMin(box_b_in_a.max);
  if ((lo.array() > hi.array()).any()) return;  // disjoint boxes: no overlap

  allContacts(a, b, b_in_a, scratch.contacts, scratch.contacts.pairs);
  const auto& pairs = scratch.contacts.pairs;
  result.stats.triangle_pairs = pairs.size();

  // Per-triangle marks "meets the other surface" for this query.
  if (++scratch.query == 0) {
    std::fill(scratch.stamp_a.begin(), scratch.stamp_a.end(), 0u);
    std::fill(scratch.stamp_b.begin(), scratch.stamp_b.end(), 0u);
    scratch.query = 1;
  }
  if (scratch.stamp_a.size() < a.triangleCount()) scratch.stamp_a.resize(a.triangleCount(), 0u);
  if (scratch.stamp_b.size() < b.triangleCount()) scratch.stamp_b.resize(b.triangleCount(), 0u);

  Pass pass{scratch, result, 0.5 * (lo + hi)};
  const bool store = options.keep_pieces;
  OverlapStats& stats = result.stats;
  const auto inside_b = [&](const Vec& x_a) {
    return pointInsideMesh(b, a_in_b * x_a, options.b_closed, scratch.node_stack, &stats);
  };
  const auto inside_a = [&](const Vec& x_a) {
    return pointInsideMesh(a, x_a, options.a_closed, scratch.node_stack, &stats);
  };

  // Triangles of A that meet B's surface: cut, classify in B.
  forEachTriangleGroup(scratch, true, [&](std::size_t first, std::size_t last) {
    const auto& p0 = pairs[scratch.order[first]];
    const auto ta = static_cast<std::size_t>(p0.triangle_a);
    scratch.stamp_a[ta] = scratch.query;
    const Vec* tri = a.slotVertices(static_cast<std::size_t>(a.triangleSlot(ta)));
    Vec n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
    if (!(n.norm() > 0.0)) return;
    n.normalize();
    scratch.cutters.clear();
    for (std::size_t k = first; k < last; ++k) {
      const auto& pr = pairs[scratch.order[k]];
      const Vec* vb = b.slotVertices(
          static_cast<std::size_t>(b.triangleSlot(static_cast<std::size_t>(pr.triangle_b))));
      detail::OverlapCutter c;
      for (int j = 0; j < 3; ++j) c.v[j] = b_in_a * vb[j];
      c.normal = (c.v[1] - c.v[0]).cross(c.v[2] - c.v[0]);
      if (c.normal.norm() > 0.0) c.normal.normalize();
      c.p0 = pr.intersection.p0;
      c.p1 = pr.intersection.p1;
      c.coplanar = pr.intersection.kind == TriangleContactKind::Coplanar;
      scratch.cutters.push_back(c);
    }
    processCutTriangle(pass, tri, n, p0.triangle_a, true, store, inside_b);
  });
  // Triangles of B that meet A's surface (in A's frame): cut, classify in A.
  forEachTriangleGroup(scratch, false, [&](std::size_t first, std::size_t last) {
    const auto& p0 = pairs[scratch.order[first]];
    const auto tb = static_cast<std::size_t>(p0.triangle_b);
    scratch.stamp_b[tb] = scratch.query;
    const Vec* vb = b.slotVertices(static_cast<std::size_t>(b.triangleSlot(tb)));
    const std::array<Vec, 3> tri = {b_in_a * vb[0], b_in_a * vb[1], b_in_a * vb[2]};
    Vec n = (tri[1] - tri[0]).cross(tri[2] - tri[0]);
    if (!(n.norm() > 0.0)) return;
    n.normalize();
    scratch.cutters.clear();
    for (std::size_t k = first; k < last; ++k) {
      const auto& pr = pairs[scratch.order[k]];
      const Vec* va = a.slotVertices(
          static_cast<std::size_t>(a.triangleSlot(static_cast<std::size_t>(pr.triangle_a))));
      detail::OverlapCutter c;
      for (int j = 0; j < 3; ++j) c.v[j] = va[j];
      c.normal = (c.v[1] - c.v[0]).cross(c.v[2] - c.v[0]);
      if (c.normal.norm() > 0.0) c.normal.normalize();
      c.p0 = pr.intersection.p0;
      c.p1 = pr.intersection.p1;
      c.coplanar = pr.intersection.kind == TriangleContactKind::Coplanar;
      scratch.cutters.push_back(c);
    }
    processCutTriangle(pass, tri.data(), n, p0.triangle_b, false, store, inside_a);
  });
  // Triangles meeting no triangle of the other mesh lie wholly inside or outside it.
  processWholeTriangles(
      pass, a, scratch.stamp_a, box_b_in_a, true, store, [](const Vec& x) { return x; }, inside_b);
  processWholeTriangles(
      pass, b, scratch.stamp_b, box_a_in_b, false, store, [&](const Vec& x) { return b_in_a * x; },
      inside_a);

  // Volume and centroid (divergence theorem), then eq. 3's direction about the centroid.
  const double volume = pass.volume6 / 6.0;
  Vec centroid = Vec::Zero(), direction = Vec::Zero();
  if (volume > 0.0) {
    centroid = pass.ref + pass.moment24 / (4.0 * pass.volume6);
    for (const auto& p : result.pieces_a)
      direction += (p.area * (p.centre_world - centroid).norm() / 3.0) * p.normal_world;
    for (const auto& p : result.pieces_b)
      direction -= (p.area * (p.centre_world - centroid).norm() / 3.0) * p.normal_world;
    result.volume = volume;
    result.centroid_world = a_to_world * centroid;
    result.direction_world = a_to_world.linear() * direction;
  }
  const Eigen::Matrix3d rot = a_to_world.linear();
  for (auto* pieces : {&result.pieces_a, &result.pieces_b}) {
    for (auto& p : *pieces) {
      p.centre_world = a_to_world * p.centre_world;
      p.normal_world = rot * p.normal_world;
    }
  }
  for (auto& v : result.vertices_world) v = a_to_world * v;
}

OverlapResult computeOverlap(const KdopTree& a, const Eigen::Isometry3d& a_to_world,
                             const KdopTree& b, const Eigen::Isometry3d& b_to_world,
                             const OverlapOptions& options) {
  OverlapScratch scratch;
  OverlapResult result;
  computeOverlap(a, a_to_world, b, b_to_world, scratch, result, options);
  return result;
}

}  // namespace handsim::collision
