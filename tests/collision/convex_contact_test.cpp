// SPDX-License-Identifier: GPL-3.0-or-later
// Convex hulls and the convex narrow phase against closed forms (boxes resting on faces and on
// edges, crossed edges, spheres), against brute force (hull inequalities, support points) and
// against the exact triangle-mesh pipeline on convex meshes; swap symmetry.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/contact_scratch.hpp"
#include "handsim/collision/convex_contact.hpp"
#include "handsim/collision/convex_hull.hpp"
#include "handsim/collision/kdop_tree.hpp"
#include "handsim/collision/primitives.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/geometry/primitives.hpp"

#include "../support/random_pose.hpp"

using namespace handsim;
using namespace handsim::collision;

namespace {

constexpr double kPi = 3.14159265358979323846;

Eigen::Isometry3d pose(const Eigen::Vector3d& t, const Eigen::Matrix3d& r) {
  Eigen::Isometry3d p = Eigen::Isometry3d::Identity();
  p.linear() = r;
  p.translation() = t;
  return p;
}

Eigen::Matrix3d rot(double angle, const Eigen::Vector3d& axis) {
  return Eigen::AngleAxisd(angle, axis.normalized()).toRotationMatrix();
}

using handsim::test::randomRotation;

// The manifold's points as a set of world points, for comparisons independent of order.
bool hasPoint(const ConvexManifold& m, const Eigen::Vector3d& p, double tol) {
  for (int k = 0; k < m.count; ++k)
    if ((m.points[static_cast<std::size_t>(k)] - p).norm() <= tol) return true;
  return false;
}

}  // namespace

TEST(ConvexHull, BoxMeshGivesEightVerticesAndSixQuads) {
  const geometry::TriangleMesh box = makeBox(Eigen::Vector3d(0.1, 0.2, 0.3), 3);  // 108 triangles
  const ConvexHull hull = buildConvexHull(box);
  EXPECT_EQ(hull.vertices.size(), 8u);
  ASSERT_EQ(hull.faces.size(), 6u);
  for (const ConvexFace& f : hull.faces) {
    EXPECT_EQ(f.count, 4);
    // Outward axis normal, offset = half the size along it.
    const Eigen::Vector3d half(0.05, 0.1, 0.15);
    int axis = 0;
    f.normal.cwiseAbs().maxCoeff(&axis);
    EXPECT_NEAR(std::abs(f.normal[axis]), 1.0, 1e-12);
    EXPECT_NEAR(f.offset, half[axis], 1e-12);
    for (int k = 0; k < f.count; ++k)
      EXPECT_NEAR(f.normal.dot(hull.vertices[static_cast<std::size_t>(
                      hull.face_vertices[static_cast<std::size_t>(f.first + k)])]),
                  f.offset, 1e-12);
  }
  EXPECT_EQ(hull.triangles.triangles.size(), 12u);
  EXPECT_TRUE(geometry::isWatertight(hull.triangles));
  EXPECT_NEAR(geometry::signedVolume(hull.triangles), 0.1 * 0.2 * 0.3, 1e-15);
  // Each vertex has three neighbours and three faces.
  for (std::size_t v = 0; v < 8; ++v) {
    EXPECT_EQ(hull.neighbour_first[v + 1] - hull.neighbour_first[v], 3);
    EXPECT_EQ(hull.vertex_face_first[v + 1] - hull.vertex_face_first[v], 3);
  }
}

TEST(ConvexHull, RandomCloudContainsEveryPointAndIsAClosedPolytope) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<Eigen::Vector3d> pts(200);
    for (auto& p : pts) p = Eigen::Vector3d(u(rng), 0.5 * u(rng), 0.2 * u(rng));
    const ConvexHull hull = buildConvexHull(pts);
    // Brute force: every input point on the inner side of every face plane.
    for (const ConvexFace& f : hull.faces)
      for (const auto& p : pts) ASSERT_LE(f.normal.dot(p), f.offset + 1e-12);
    // Every hull vertex is an input point, on at least three faces' planes.
    for (std::size_t v = 0; v < hull.vertices.size(); ++v) {
      EXPECT_TRUE(std::find(pts.begin(), pts.end(), hull.vertices[v]) != pts.end());
      int on = 0;
      for (const ConvexFace& f : hull.faces)
        if (std::abs(f.normal.dot(hull.vertices[v]) - f.offset) <= 1e-12) ++on;
      EXPECT_GE(on, 3);
    }
    EXPECT_TRUE(geometry::isWatertight(hull.triangles));
    const std::size_t edges = hull.neighbours.size() / 2;
    EXPECT_EQ(hull.vertices.size() + hull.faces.size(), edges + 2);  // Euler
    // Hill-climbing support equals the brute-force maximum.
    for (int k = 0; k < 50; ++k) {
      const Eigen::Vector3d d(u(rng), u(rng), u(rng));
      double top = -1e300;
      for (const auto& v : hull.vertices) top = std::max(top, d.dot(v));
      EXPECT_EQ(d.dot(hull.vertices[static_cast<std::size_t>(hull.support(d, k % 5))]), top);
    }
  }
}

// The support's start map (a cube map of directions): every cell holds the farthest vertex
// along its centre direction (brute force here), every direction falls in the cell whose
// centre is nearest among the cells of its cube face (within 20 deg), and the climb from any
// start still ends at the brute-force maximum on a finely tessellated ball (482 vertices).
TEST(ConvexHull, StartMapCellsHoldTheirCentresFarthestVertex) {
  const ConvexHull hull = buildConvexHull(geometry::makeSphere(0.01, 32));
  ASSERT_GT(hull.vertices.size(), 400u);
  constexpr int K = ConvexHull::kStartCells;
  auto centre = [](int cell) {
    const int face = cell / (K * K), i = (cell / K) % K, j = cell % K, axis = face / 2;
    Eigen::Vector3d c;
    c[axis] = face % 2 ? -1.0 : 1.0;
    c[(axis + 1) % 3] = -1.0 + (2.0 * i + 1.0) / K;
    c[(axis + 2) % 3] = -1.0 + (2.0 * j + 1.0) / K;
    return c;
  };
  std::set<int> seen;
  for (int cell = 0; cell < 6 * K * K; ++cell) {
    const Eigen::Vector3d c = centre(cell);
    EXPECT_EQ(ConvexHull::startCell(c), cell);
    seen.insert(ConvexHull::startCell(c));
    double top = -1e300;
    for (const auto& v : hull.vertices) top = std::max(top, c.dot(v));
    EXPECT_EQ(c.dot(hull.vertices[static_cast<std::size_t>(
                  hull.start_map[static_cast<std::size_t>(cell)])]),
              top);
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(6 * K * K));
  std::mt19937 rng(7);
  std::normal_distribution<double> n(0.0, 1.0);
  for (int k = 0; k < 2000; ++k) {
    const Eigen::Vector3d d(n(rng), n(rng), n(rng));
    const int cell = ConvexHull::startCell(d);
    EXPECT_LT(std::acos(std::clamp(d.normalized().dot(centre(cell).normalized()), -1.0, 1.0)),
              20.0 * 3.14159265358979 / 180.0);
    double top = -1e300;
    for (const auto& v : hull.vertices) top = std::max(top, d.dot(v));
    EXPECT_EQ(d.dot(hull.vertices[static_cast<std::size_t>(hull.support(d, k % 7))]), top);
  }
}

TEST(ConvexHull, FlatOrTooFewPointsAreErrors) {
  std::vector<Eigen::Vector3d> flat;
  for (int i = 0; i < 10; ++i) flat.emplace_back(std::cos(i), std::sin(i), 0.0);
  EXPECT_THROW(buildConvexHull(flat), std::invalid_argument);
  EXPECT_THROW(buildConvexHull(std::vector<Eigen::Vector3d>(3, Eigen::Vector3d::Zero())),
               std::invalid_argument);
}

TEST(ConvexContact, BoxOnBoxFaceGivesFourCornersAtTheExactDepth) {
  const ConvexHull plate = buildConvexHull(makeBox(Eigen::Vector3d(0.2, 0.2, 0.02)));
  const ConvexHull cube = buildConvexHull(makeBox(Eigen::Vector3d(0.04, 0.04, 0.04)));
  ConvexScratch scratch;
  for (const double depth : {1e-6, 1e-4, 2e-3}) {
    const Eigen::Isometry3d a = pose(Eigen::Vector3d(0.3, -0.1, 0.5), rot(0.4, {1, 2, 3}));
    const Eigen::Matrix3d yaw = rot(0.5, Eigen::Vector3d::UnitZ());
    const Eigen::Isometry3d b_local =
        pose(Eigen::Vector3d(0.013, -0.021, 0.01 + 0.02 - depth), yaw);
    const Eigen::Isometry3d b = a * b_local;
    for (const bool swap : {false, true}) {
      ConvexManifold m;
      ASSERT_TRUE(swap ? convexContact(cube, b, plate, a, scratch, m)
                       : convexContact(plate, a, cube, b, scratch, m));
      const Eigen::Vector3d up = a.linear() * Eigen::Vector3d::UnitZ();
      EXPECT_NEAR((m.normal - (swap ? -up : up)).norm(), 0.0, 1e-12);
      EXPECT_NEAR(m.depth, depth, 1e-12);
      ASSERT_EQ(m.count, 4);
      for (int sx : {-1, 1})
        for (int sy : {-1, 1}) {
          // The cube's bottom corner, moved half the depth up (half way between the surfaces).
          const Eigen::Vector3d corner =
              a * (b_local * Eigen::Vector3d(0.02 * sx, 0.02 * sy, -0.02) +
                   Eigen::Vector3d(0, 0, 0.5 * depth));
          EXPECT_TRUE(hasPoint(m, corner, 1e-12)) << sx << " " << sy << " depth " << depth;
        }
      for (int k = 0; k < 4; ++k) EXPECT_NEAR(m.depths[static_cast<std::size_t>(k)], depth, 1e-12);
    }
  }
}

TEST(ConvexContact, TiltedBoxRestsOnItsEdgeWithTwoPoints) {
  // A cube tilted 20 deg about y, its lowest edge (along y) 0.5 mm into the plate's top face.
  const ConvexHull plate = buildConvexHull(makeBox(Eigen::Vector3d(0.2, 0.2, 0.02)));
  const ConvexHull cube = buildConvexHull(makeBox(Eigen::Vector3d(0.04, 0.04, 0.04)));
  const double tilt = 20.0 * kPi / 180.0, depth = 5e-4;
  const Eigen::Matrix3d r = rot(tilt, Eigen::Vector3d::UnitY());
  // The lowest corner of the tilted cube along z relative to its centre.
  double lowest = 0.0;
  for (int sx : {-1, 1})
    for (int sz : {-1, 1})
      lowest = std::min(lowest, (r * Eigen::Vector3d(0.02 * sx, 0, 0.02 * sz)).z());
  const Eigen::Isometry3d b = pose(Eigen::Vector3d(0.0, 0.0, 0.01 - lowest - depth), r);
  ConvexScratch scratch;
  ConvexManifold m;
  ASSERT_TRUE(convexContact(plate, Eigen::Isometry3d::Identity(), cube, b, scratch, m));
  EXPECT_NEAR((m.normal - Eigen::Vector3d::UnitZ()).norm(), 0.0, 1e-12);
  EXPECT_NEAR(m.depth, depth, 1e-12);
  ASSERT_EQ(m.count, 2);
  for (int k = 0; k < 2; ++k) {
    EXPECT_NEAR(m.depths[static_cast<std::size_t>(k)], depth, 1e-12);
    EXPECT_NEAR(m.points[static_cast<std::size_t>(k)].z(), 0.01 - 0.5 * depth, 1e-12);
    EXPECT_NEAR(std::abs(m.points[static_cast<std::size_t>(k)].y()), 0.02, 1e-12);
  }
}

TEST(ConvexContact, CrossedEdgesGiveOnePointBetweenTheEdges) {
  // Two unit-half-size cubes: A turned 45 deg about y (top edge along y at z = sqrt 2), B turned
  // 45 deg about x with its bottom edge along x, `depth` below A's edge.
  const ConvexHull cube = buildConvexHull(makeBox(Eigen::Vector3d(2, 2, 2)));
  const ConvexHull other = buildConvexHull(makeBox(Eigen::Vector3d(2, 2, 2), 2));
  const double s2 = std::sqrt(2.0), depth = 1e-3;
  const Eigen::Isometry3d a = pose(Eigen::Vector3d::Zero(), rot(kPi / 4, Eigen::Vector3d::UnitY()));
  const Eigen::Isometry3d b =
      pose(Eigen::Vector3d(0.1, -0.2, 2 * s2 - depth), rot(kPi / 4, Eigen::Vector3d::UnitX()));
  ConvexScratch scratch;
  for (const bool swap : {false, true}) {
    ConvexManifold m;
    ASSERT_TRUE(swap ? convexContact(other, b, cube, a, scratch, m)
                     : convexContact(cube, a, other, b, scratch, m));
    EXPECT_NEAR((m.normal - (swap ? -1.0 : 1.0) * Eigen::Vector3d::UnitZ()).norm(), 0.0, 1e-9);
    EXPECT_NEAR(m.depth, depth, 1e-12);
    ASSERT_EQ(m.count, 1);
    // A's edge at (0, y, sqrt 2), B's at (x, -0.2, sqrt 2 - depth): they cross at (0, -0.2).
    EXPECT_NEAR((m.points[0] - Eigen::Vector3d(0.0, -0.2, s2 - 0.5 * depth)).norm(), 0.0, 1e-9);
  }
}

TEST(ConvexContact, SphereHullsPenetrateBetweenTheirInscribedAndCircumscribedBalls) {
  // The hull of a UV sphere lies between the ball of its radius and the ball through its faces'
  // nearest points (the largest face offset is r, the smallest bounds the inscribed ball).
  const double r1 = 0.03, r2 = 0.02;
  const ConvexHull s1 = buildConvexHull(makeUvSphere(r1, 24, 48));
  const ConvexHull s2 = buildConvexHull(makeUvSphere(r2, 16, 32));
  auto inscribed = [](const ConvexHull& h) {
    double in = 1e300;
    for (const ConvexFace& f : h.faces) in = std::min(in, f.offset);
    return in;
  };
  const double in1 = inscribed(s1), in2 = inscribed(s2);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ConvexScratch scratch;
  for (int trial = 0; trial < 200; ++trial) {
    const Eigen::Vector3d dir =
        Eigen::Vector3d(u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5).normalized();
    const double dist = in1 + in2 - 0.004 * u(rng) - 1e-5;  // the hulls overlap
    const Eigen::Isometry3d a = pose(Eigen::Vector3d(0.1, 0.2, 0.3), randomRotation(rng));
    const Eigen::Isometry3d b = pose(a.translation() + dist * dir, randomRotation(rng));
    ConvexManifold m;
    ASSERT_TRUE(convexContact(s1, a, s2, b, scratch, m)) << trial;
    EXPECT_GE(m.depth, in1 + in2 - dist - 1e-12);
    EXPECT_LE(m.depth, r1 + r2 - dist + 1e-12);
    // The normal is within the facets' angular size of the centre line (about 8 deg here).
    EXPECT_GT(m.normal.dot(dir), std::cos(8.0 * kPi / 180.0)) << trial;
    ASSERT_GE(m.count, 1);
    for (int k = 0; k < m.count; ++k) {
      const Eigen::Vector3d& p = m.points[static_cast<std::size_t>(k)];
      EXPECT_LE((p - a.translation()).norm(), r1 + 1e-12);
      EXPECT_LE((p - b.translation()).norm(), r2 + 1e-12);
    }
    // Separated by a millimetre: no contact.
    const Eigen::Isometry3d far = pose(a.translation() + (r1 + r2 + 1e-3) * dir, b.linear());
    EXPECT_FALSE(convexContact(s1, a, s2, far, scratch, m));
    EXPECT_EQ(m.count, 0);
  }
}

TEST(ConvexContact, SwappingTheHullsFlipsOnlyTheNormal) {
  const std::vector<ConvexHull> hulls = {
      buildConvexHull(makeBox(Eigen::Vector3d(0.04, 0.03, 0.02))),
      buildConvexHull(makeUvSphere(0.02, 8, 16)),
      buildConvexHull(makeBox(Eigen::Vector3d(0.05, 0.05, 0.05)))};
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-0.03, 0.03);
  ConvexScratch scratch;
  int hits = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const ConvexHull& ha = hulls[static_cast<std::size_t>(trial % 3)];
    const ConvexHull& hb = hulls[static_cast<std::size_t>((trial / 3) % 3)];
    const Eigen::Isometry3d a = pose(Eigen::Vector3d(u(rng), u(rng), u(rng)), randomRotation(rng));
    const Eigen::Isometry3d b = pose(Eigen::Vector3d(u(rng), u(rng), u(rng)), randomRotation(rng));
    ConvexManifold ab, ba;
    const bool hit = convexContact(ha, a, hb, b, scratch, ab);
    ASSERT_EQ(hit, convexContact(hb, b, ha, a, scratch, ba));
    if (!hit) continue;
    ++hits;
    EXPECT_EQ(ab.normal, Eigen::Vector3d(-ba.normal));
    EXPECT_EQ(ab.depth, ba.depth);
    ASSERT_EQ(ab.count, ba.count);
    for (int k = 0; k < ab.count; ++k) {
      EXPECT_EQ(ab.points[static_cast<std::size_t>(k)], ba.points[static_cast<std::size_t>(k)]);
      EXPECT_EQ(ab.depths[static_cast<std::size_t>(k)], ba.depths[static_cast<std::size_t>(k)]);
    }
  }
  EXPECT_GT(hits, 200);
}

// Convex meshes in random poses with a shallow overlap: the hull narrow phase and the exact
// triangle pipeline (one patch; its normal out of B into A, its two-sided depth) agree.
TEST(ConvexContact, AgreesWithTheExactMeshPipelineOnConvexMeshes) {
  const geometry::TriangleMesh plate_mesh = makeBox(Eigen::Vector3d(0.2, 0.2, 0.02), 2);
  const geometry::TriangleMesh cube_mesh = makeBox(Eigen::Vector3d(0.03, 0.03, 0.03), 2);
  const geometry::TriangleMesh ball_mesh = makeUvSphere(0.015, 12, 24);
  const ConvexHull plate = buildConvexHull(plate_mesh);
  const KdopTree plate_tree(plate_mesh);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  ConvexScratch scratch;
  ContactScratch mesh_scratch;
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const bool ball = trial % 2 == 1;
    const geometry::TriangleMesh& mesh = ball ? ball_mesh : cube_mesh;
    const ConvexHull hull = buildConvexHull(mesh);
    const KdopTree tree(mesh);
    const Eigen::Matrix3d r = randomRotation(rng);
    // Lowest point of B (turned by r) relative to its centre, then a shallow overlap.
    double lowest = 0.0;
    for (const auto& v : mesh.vertices) lowest = std::min(lowest, (r * v).z());
    const double depth = 1e-5 + 1e-3 * u(rng);
    const Eigen::Isometry3d a = pose(Eigen::Vector3d(0.1, 0.2, 0.3), randomRotation(rng));
    const Eigen::Isometry3d b_local =
        pose(Eigen::Vector3d(0.1 * (u(rng) - 0.5), 0.1 * (u(rng) - 0.5), 0.01 - lowest - depth), r);
    ConvexManifold m;
    ASSERT_TRUE(convexContact(plate, a, hull, a * b_local, scratch, m));
    allContacts(plate_tree, tree, b_local, mesh_scratch, mesh_scratch.pairs);
    const std::size_t patches =
        buildContactPatches(plate_mesh, mesh, b_local, mesh_scratch.pairs, mesh_scratch);
    ASSERT_EQ(patches, 1u) << trial;
    const ContactPatch& patch = mesh_scratch.patches[0];
    // Patch normal out of B into A (plate frame); ours from A into B (world).
    EXPECT_NEAR((m.normal + a.linear() * patch.normal).norm(), 0.0, 1e-9) << trial;
    EXPECT_NEAR(m.depth, depth, 1e-12) << trial;
    if (!ball) {
      EXPECT_NEAR(m.depth, patch.depth_m, 1e-12) << trial;
    } else {
      // The patch depth sees only the triangles crossing the surface: below the ring of them
      // (the ball's pole fan, 0.5 mm high here) it falls short of the deepest vertex.
      EXPECT_LE(patch.depth_m, m.depth + 1e-12) << trial;
      EXPECT_GE(patch.depth_m, 0.5 * m.depth) << trial;
    }
    ++compared;
  }
  EXPECT_EQ(compared, 300);
}
