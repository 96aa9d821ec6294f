// SPDX-License-Identifier: GPL-3.0-or-later
// Triangle-triangle intersection: cases worked by hand, and a randomised comparison with an
// independent brute force (each edge of one triangle against the other triangle, solved as a
// 3x3 linear system by Cramer's rule; coplanar pairs by 2-D edge crossings and containment).
#include "handsim/collision/triangle_intersection.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <cstring>
#include <random>

using Eigen::Vector3d;
using handsim::collision::intersectTriangles;
using handsim::collision::TriangleContactKind;
using handsim::collision::TriangleIntersection;

namespace {

struct Tri {
  Vector3d v[3];
};

// Barycentric containment of p in a non-degenerate triangle, plus distance to its plane.
bool onTriangle(const Vector3d& p, const Tri& t, double tol) {
  const Vector3d n = (t.v[1] - t.v[0]).cross(t.v[2] - t.v[0]);
  const double area2 = n.norm();
  if (std::abs(n.dot(p - t.v[0])) / area2 > tol) return false;
  for (int i = 0; i < 3; ++i) {
    const Vector3d& a = t.v[(i + 1) % 3];
    const Vector3d& b = t.v[(i + 2) % 3];
    const double w = (b - a).cross(p - a).dot(n) / (area2 * area2);
    if (w < -tol) return false;
  }
  return true;
}

bool finite(const TriangleIntersection& r) {
  if (!r.p0.allFinite() || !r.p1.allFinite()) return false;
  for (int i = 0; i < r.polygon_size; ++i)
    if (!r.polygon[static_cast<std::size_t>(i)].allFinite()) return false;
  return true;
}

TriangleIntersection run(const Tri& a, const Tri& b) {
  return intersectTriangles(a.v[0], a.v[1], a.v[2], b.v[0], b.v[1], b.v[2]);
}

bool sameSegment(const TriangleIntersection& r, const Vector3d& p, const Vector3d& q,
                 double tol = 1e-12) {
  return ((r.p0 - p).norm() < tol && (r.p1 - q).norm() < tol) ||
         ((r.p0 - q).norm() < tol && (r.p1 - p).norm() < tol);
}

const Tri kA{{Vector3d(0, 0, 0), Vector3d(2, 0, 0), Vector3d(0, 2, 0)}};

}  // namespace

TEST(TriangleIntersection, CrossingGivesTheCommonSegment) {
  // B stands in the plane y = 0.5 and cuts z = 0 at x in [0.4, 0.8]; A spans x in [0, 1.5] there.
  const Tri b{{Vector3d(0.2, 0.5, -1), Vector3d(1.0, 0.5, -1), Vector3d(0.6, 0.5, 1)}};
  const auto r = run(kA, b);
  ASSERT_EQ(r.kind, TriangleContactKind::Segment);
  EXPECT_TRUE(sameSegment(r, Vector3d(0.4, 0.5, 0), Vector3d(0.8, 0.5, 0)));
  // Moved right, B cuts z = 0 at [1.25, 1.75] and A's hypotenuse clips it at x = 1.5.
  const Tri c{{Vector3d(1.0, 0.5, -1), Vector3d(2.0, 0.5, -1), Vector3d(1.5, 0.5, 1)}};
  const auto s = run(kA, c);
  ASSERT_EQ(s.kind, TriangleContactKind::Segment);
  EXPECT_TRUE(sameSegment(s, Vector3d(1.25, 0.5, 0), Vector3d(1.5, 0.5, 0)));
  // Symmetric in the arguments.
  EXPECT_TRUE(sameSegment(run(c, kA), Vector3d(1.25, 0.5, 0), Vector3d(1.5, 0.5, 0)));
}

TEST(TriangleIntersection, TouchingAtAVertexGivesOnePoint) {
  const Tri b{{Vector3d(0.5, 0.5, 0), Vector3d(1, 0.5, 1), Vector3d(0.5, 1, 1)}};
  const auto r = run(kA, b);
  ASSERT_EQ(r.kind, TriangleContactKind::Segment);
  EXPECT_TRUE(sameSegment(r, Vector3d(0.5, 0.5, 0), Vector3d(0.5, 0.5, 0)));
  // Vertex against vertex.
  const Tri c{{Vector3d(2, 0, 0), Vector3d(3, 0, 1), Vector3d(3, 1, 1)}};
  EXPECT_TRUE(sameSegment(run(kA, c), Vector3d(2, 0, 0), Vector3d(2, 0, 0)));
}

TEST(TriangleIntersection, DisjointPairsDoNotIntersect) {
  const Tri b{{Vector3d(0.5, 0.5, 0.1), Vector3d(1, 0.5, 1), Vector3d(0.5, 1, 1)}};
  EXPECT_EQ(run(kA, b).kind, TriangleContactKind::None);
  // Crosses A's plane but outside A (beyond the hypotenuse x + y = 2).
  const Tri c{{Vector3d(1.6, 1.6, -1), Vector3d(2.5, 1.6, -1), Vector3d(2.0, 1.6, 1)}};
  EXPECT_EQ(run(kA, c).kind, TriangleContactKind::None);
}

TEST(TriangleIntersection, CoplanarOverlapGivesTheOverlapPolygon) {
  // A shifted by (0.5, 0.5): the overlap is the triangle (0.5,0.5), (1.5,0.5), (0.5,1.5).
  Tri b = kA;
  for (auto& v : b.v) v += Vector3d(0.5, 0.5, 0);
  const auto r = run(kA, b);
  ASSERT_EQ(r.kind, TriangleContactKind::Coplanar);
  ASSERT_GE(r.polygon_size, 3);
  double area2 = 0.0;
  for (int i = 0; i < r.polygon_size; ++i) {
    const Vector3d& p = r.polygon[static_cast<std::size_t>(i)];
    const Vector3d& q = r.polygon[static_cast<std::size_t>((i + 1) % r.polygon_size)];
    area2 += p.x() * q.y() - q.x() * p.y();
    EXPECT_TRUE(onTriangle(p, kA, 1e-12) && onTriangle(p, b, 1e-12));
  }
  EXPECT_NEAR(std::abs(area2) / 2, 0.5, 1e-12);
  // The representative chord is the overlap's longest side, the hypotenuse.
  EXPECT_TRUE(sameSegment(r, Vector3d(1.5, 0.5, 0), Vector3d(0.5, 1.5, 0)));
}

TEST(TriangleIntersection, CoplanarDisjointPairsDoNotIntersect) {
  Tri b = kA;
  for (auto& v : b.v) v += Vector3d(2.5, 0.0, 0);
  EXPECT_EQ(run(kA, b).kind, TriangleContactKind::None);
  // Just beyond the hypotenuse, mirrored.
  const Tri c{{Vector3d(2.01, 0.5, 0), Vector3d(2.01, 2.5, 0), Vector3d(0.5, 2.5, 0)}};
  EXPECT_EQ(run(kA, c).kind, TriangleContactKind::None);
}

TEST(TriangleIntersection, SharedEdgeIsTheSegment) {
  const Tri a{{Vector3d(0, 0, 0), Vector3d(1, 0, 0), Vector3d(0, 1, 0)}};
  const Tri b{{Vector3d(1, 0, 0), Vector3d(0, 0, 0), Vector3d(0, 0, 1)}};
  const auto r = run(a, b);
  ASSERT_EQ(r.kind, TriangleContactKind::Segment);
  EXPECT_TRUE(sameSegment(r, Vector3d(0, 0, 0), Vector3d(1, 0, 0)));
  // Flat neighbours in one mesh touch along their common diagonal.
  const Tri c{{Vector3d(1, 0, 0), Vector3d(1, 1, 0), Vector3d(0, 1, 0)}};
  const auto s = run(a, c);
  ASSERT_EQ(s.kind, TriangleContactKind::Coplanar);
  EXPECT_TRUE(sameSegment(s, Vector3d(1, 0, 0), Vector3d(0, 1, 0)));
}

TEST(TriangleIntersection, DegenerateTrianglesNeverGiveNaN) {
  // Collinear vertices piercing A at (0.5, 0.5, 0).
  const Tri needle{{Vector3d(0.5, 0.5, -1), Vector3d(0.5, 0.5, 0.2), Vector3d(0.5, 0.5, 1)}};
  auto r = run(kA, needle);
  ASSERT_EQ(r.kind, TriangleContactKind::Segment);
  EXPECT_TRUE(sameSegment(r, Vector3d(0.5, 0.5, 0), Vector3d(0.5, 0.5, 0)));
  EXPECT_TRUE(sameSegment(run(needle, kA), Vector3d(0.5, 0.5, 0), Vector3d(0.5, 0.5, 0)));
  // A single point on A and one off it.
  const Tri point{{Vector3d(0.3, 0.3, 0), Vector3d(0.3, 0.3, 0), Vector3d(0.3, 0.3, 0)}};
  r = run(kA, point);
  EXPECT_TRUE(sameSegment(r, Vector3d(0.3, 0.3, 0), Vector3d(0.3, 0.3, 0)));
  const Tri off{{Vector3d(0.3, 0.3, 1e-3), Vector3d(0.3, 0.3, 1e-3), Vector3d(0.3, 0.3, 1e-3)}};
  EXPECT_EQ(run(kA, off).kind, TriangleContactKind::None);
  // A degenerate triangle lying in A's plane is clipped to A.
  const Tri flat{{Vector3d(-1, 0.5, 0), Vector3d(0, 0.5, 0), Vector3d(3, 0.5, 0)}};
  r = run(kA, flat);
  ASSERT_EQ(r.kind, TriangleContactKind::Segment);
  EXPECT_TRUE(sameSegment(r, Vector3d(0, 0.5, 0), Vector3d(1.5, 0.5, 0)));
  // Two crossing needles, and two parallel ones.
  const Tri cross{{Vector3d(0, 0.5, 0.5), Vector3d(1, 0.5, 0.5), Vector3d(2, 0.5, 0.5)}};
  const Tri needle2{{Vector3d(0.5, 0.5, 0), Vector3d(0.5, 0.5, 0.5), Vector3d(0.5, 0.5, 1)}};
  r = run(cross, needle2);
  ASSERT_EQ(r.kind, TriangleContactKind::Segment);
  EXPECT_TRUE(sameSegment(r, Vector3d(0.5, 0.5, 0.5), Vector3d(0.5, 0.5, 0.5)));
  const Tri parallel{{Vector3d(0.6, 0.5, 0), Vector3d(0.6, 0.5, 0.5), Vector3d(0.6, 0.5, 1)}};
  EXPECT_EQ(run(needle2, parallel).kind, TriangleContactKind::None);
  EXPECT_TRUE(finite(run(point, point)));
  EXPECT_TRUE(run(point, point).intersects());
}

namespace {

// Does segment [p, q] cross non-degenerate triangle t? Parameters must lie in [m, 1 - m] for
// margin m: a positive m asks "clearly inside", a negative one "inside or nearly".
// Returns false for a segment parallel to the plane (handled by the coplanar brute force).
bool segmentHitsTriangle(const Vector3d& p, const Vector3d& q, const Tri& t, double m) {
  // p + s (q - p) = t0 + u e1 + v e2  ->  [e1 e2 (p - q)] (u v s)^T = p - t0.
  Eigen::Matrix3d a;
  a << t.v[1] - t.v[0], t.v[2] - t.v[0], p - q;
  const double det = a.determinant();
  const double scale = (t.v[1] - t.v[0]).cross(t.v[2] - t.v[0]).norm() * (q - p).norm();
  if (std::abs(det) <= 1e-9 * scale) return false;
  const Vector3d rhs = p - t.v[0];
  Eigen::Matrix3d a0 = a, a1 = a, a2 = a;
  a0.col(0) = rhs;
  a1.col(1) = rhs;
  a2.col(2) = rhs;
  const double u = a0.determinant() / det, v = a1.determinant() / det, s = a2.determinant() / det;
  return u >= m && v >= m && u + v <= 1 - m && s >= m && s <= 1 - m;
}

// -1: clearly disjoint, +1: clearly intersecting, 0: too close to call.
int bruteForce(const Tri& a, const Tri& b, bool use_edges_of_b) {
  const double margin = 1e-7;
  bool inner = false, outer = false;
  for (int i = 0; i < 3; ++i) {
    inner |= segmentHitsTriangle(a.v[i], a.v[(i + 1) % 3], b, margin);
    outer |= segmentHitsTriangle(a.v[i], a.v[(i + 1) % 3], b, -margin);
    if (use_edges_of_b) {
      inner |= segmentHitsTriangle(b.v[i], b.v[(i + 1) % 3], a, margin);
      outer |= segmentHitsTriangle(b.v[i], b.v[(i + 1) % 3], a, -margin);
    }
  }
  return inner ? 1 : (outer ? 0 : -1);
}

double orient2d(const Eigen::Vector2d& a, const Eigen::Vector2d& b, const Eigen::Vector2d& c) {
  return (b - a).x() * (c - a).y() - (b - a).y() * (c - a).x();
}

// Coplanar brute force in 2-D: overlap iff two edges cross or a vertex lies inside the other.
// Returns 0 when any orientation is within `m` of zero (too close to call).
int bruteForce2d(const Eigen::Vector2d* a, const Eigen::Vector2d* b, double m) {
  bool close = false;
  auto side = [&](const Eigen::Vector2d& p, const Eigen::Vector2d& q, const Eigen::Vector2d& r) {
    const double o = orient2d(p, q, r);
    if (std::abs(o) < m) close = true;
    return o > 0 ? 1 : -1;
  };
  bool hit = false;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const auto &p = a[i], &q = a[(i + 1) % 3], &r = b[j], &s = b[(j + 1) % 3];
      if (side(p, q, r) != side(p, q, s) && side(r, s, p) != side(r, s, q)) hit = true;
    }
  auto inside = [&](const Eigen::Vector2d& p, const Eigen::Vector2d* t) {
    const int s0 = side(t[0], t[1], p), s1 = side(t[1], t[2], p), s2 = side(t[2], t[0], p);
    return s0 == s1 && s1 == s2;
  };
  hit = hit || inside(a[0], b) || inside(b[0], a);
  if (close) return 0;
  return hit ? 1 : -1;
}

}  // namespace

TEST(TriangleIntersection, RandomPairsAgreeWithBruteForce) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  auto point = [&] { return Vector3d(u(rng), u(rng), u(rng)); };
  int compared = 0, hits = 0, skipped = 0;
  for (int trial = 0; trial < 200000; ++trial) {
    Tri a{{point(), point(), point()}};
    Tri b{{point(), point(), point()}};
    bool thin_b = false;
    if (trial % 4 == 1) {
      // Near-degenerate B: third vertex within 1e-9 (or 1e-14, i.e. degenerate) of the first
      // two's line.
      const double w = u(rng);
      const double off = trial % 8 == 1 ? 1e-9 : 1e-14;
      b.v[2] = (1 - w) * b.v[0] + w * b.v[1] + off * point();
      thin_b = true;
    } else if (trial % 4 == 2) {
      // Shrink B so that touching configurations are common.
      for (auto& v : b.v) v = a.v[0] + 0.3 * (v - a.v[0]);
    }
    const auto r = run(a, b);
    ASSERT_TRUE(finite(r));
    // Thin B: only A's... edges of B against A are well conditioned.
    const int expected = thin_b ? [&] {
      const double margin = 1e-7;
      bool inner = false, outer = false;
      for (int i = 0; i < 3; ++i) {
        inner |= segmentHitsTriangle(b.v[i], b.v[(i + 1) % 3], a, margin);
        outer |= segmentHitsTriangle(b.v[i], b.v[(i + 1) % 3], a, -margin);
      }
      return inner ? 1 : (outer ? 0 : -1);
    }()
                                : bruteForce(a, b, true);
    if (expected == 0) {
      ++skipped;
      continue;
    }
    ++compared;
    ASSERT_EQ(r.intersects(), expected == 1) << "trial " << trial;
    if (r.intersects() && !thin_b) {
      ++hits;
      ASSERT_TRUE(onTriangle(r.p0, a, 1e-9) && onTriangle(r.p0, b, 1e-9)) << "trial " << trial;
      ASSERT_TRUE(onTriangle(r.p1, a, 1e-9) && onTriangle(r.p1, b, 1e-9)) << "trial " << trial;
    }
  }
  EXPECT_GT(hits, 10000);
  EXPECT_LT(skipped, compared / 100);
}

TEST(TriangleIntersection, RandomCoplanarPairsAgreeWithBruteForce) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int hits = 0, misses = 0;
  for (int trial = 0; trial < 50000; ++trial) {
    Eigen::Vector2d a2[3], b2[3];
    for (auto& p : a2) p = Eigen::Vector2d(u(rng), u(rng));
    for (auto& p : b2) p = Eigen::Vector2d(u(rng), u(rng));
    const int expected = bruteForce2d(a2, b2, 1e-9);
    if (expected == 0 || std::abs(orient2d(a2[0], a2[1], a2[2])) < 1e-6 ||
        std::abs(orient2d(b2[0], b2[1], b2[2])) < 1e-6)
      continue;
    // Place the plane in a random pose: coordinates are then coplanar only up to rounding.
    const Eigen::Matrix3d rot =
        Eigen::Quaterniond(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5)
            .normalized()
            .toRotationMatrix();
    const Vector3d shift(u(rng), u(rng), u(rng));
    Tri a, b;
    for (int i = 0; i < 3; ++i) {
      a.v[i] = rot * Vector3d(a2[i].x(), a2[i].y(), 0) + shift;
      b.v[i] = rot * Vector3d(b2[i].x(), b2[i].y(), 0) + shift;
    }
    const auto r = run(a, b);
    ASSERT_EQ(r.intersects(), expected == 1) << "trial " << trial;
    if (expected == 1) {
      ++hits;
      ASSERT_EQ(r.kind, TriangleContactKind::Coplanar);
      for (int i = 0; i < r.polygon_size; ++i) {
        const Vector3d& p = r.polygon[static_cast<std::size_t>(i)];
        ASSERT_TRUE(onTriangle(p, a, 1e-9) && onTriangle(p, b, 1e-9)) << "trial " << trial;
      }
    } else {
      ++misses;
    }
  }
  EXPECT_GT(hits, 5000);
  EXPECT_GT(misses, 5000);
}

TEST(TriangleIntersection, PreparedTrianglesGiveTheSameResultBitForBit) {
  // The overload on PreparedTriangle (used by the tree traversal) against the six-vertex one,
  // compared bit for bit on random pairs of every kind: crossing, disjoint, coplanar (shared
  // plane, rounded by a random pose), touching at a shared vertex or edge, degenerate (points,
  // collinear) and nearly degenerate. Bit equality is what keeps the step's results unchanged.
  std::mt19937 rng(4242);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto point = [&] { return Vector3d(u(rng), u(rng), u(rng)); };
  auto same = [](const Vector3d& x, const Vector3d& y) {
    return std::memcmp(x.data(), y.data(), sizeof(double) * 3) == 0;
  };
  int kinds[3] = {0, 0, 0};
  for (int trial = 0; trial < 100000; ++trial) {
    Tri a{{point(), point(), point()}}, b{{point(), point(), point()}};
    switch (trial % 8) {
      case 1: {  // coplanar, in a random pose
        const Eigen::Matrix3d rot =
            Eigen::Quaterniond(u(rng), u(rng), u(rng), u(rng)).normalized().toRotationMatrix();
        for (Tri* t : {&a, &b})
          for (auto& v : t->v) v = rot * Vector3d(v.x(), v.y(), 0.0);
        break;
      }
      case 2:  // shared vertex
        b.v[0] = a.v[1];
        break;
      case 3:  // shared edge
        b.v[0] = a.v[2];
        b.v[1] = a.v[0];
        break;
      case 4:  // degenerate B: collinear, or a point
        b.v[2] = trial % 16 == 4 ? b.v[0] : 0.3 * b.v[0] + 0.7 * b.v[1];
        break;
      case 5:  // degenerate A, and nearly degenerate B
        a.v[1] = a.v[0];
        b.v[2] = 0.5 * (b.v[0] + b.v[1]) + 1e-13 * point();
        break;
      case 6:  // small B near A's plane: touching and barely crossing
        for (auto& v : b.v) v = a.v[0] + 0.2 * (v - a.v[0]);
        break;
      default:
        break;
    }
    const TriangleIntersection want = run(a, b);
    const TriangleIntersection got =
        intersectTriangles(handsim::collision::prepareTriangle(a.v[0], a.v[1], a.v[2]),
                           handsim::collision::prepareTriangle(b.v[0], b.v[1], b.v[2]));
    ASSERT_EQ(got.kind, want.kind) << "trial " << trial;
    ASSERT_TRUE(same(got.p0, want.p0) && same(got.p1, want.p1)) << "trial " << trial;
    ASSERT_EQ(got.polygon_size, want.polygon_size) << "trial " << trial;
    for (int i = 0; i < want.polygon_size; ++i)
      ASSERT_TRUE(
          same(got.polygon[static_cast<std::size_t>(i)], want.polygon[static_cast<std::size_t>(i)]))
          << "trial " << trial;
    ++kinds[static_cast<int>(want.kind)];
  }
  // Every kind of answer was compared many times.
  EXPECT_GT(kinds[0], 10000);
  EXPECT_GT(kinds[1], 10000);
  EXPECT_GT(kinds[2], 1000);
}
