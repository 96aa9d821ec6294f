// SPDX-License-Identifier: GPL-3.0-or-later
// Exact overlap volume (overlap_volume.hpp) against cases worked by hand: boxes (axis-aligned,
// rotated, inside one another, touching and sharing a face plane), a sphere cap bracketed by the
// caps of the tessellated sphere's inscribed and circumscribed balls, additivity, and the mesh
// closure check. The comparison against CGAL's exact corefinement is in tests/collision_cgal.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <random>

#include "handsim/collision/kdop_tree.hpp"
#include "handsim/collision/overlap_volume.hpp"
#include "handsim/collision/primitives.hpp"

namespace handsim::collision {
namespace {

using Eigen::Isometry3d;
using Eigen::Vector3d;
constexpr double kPi = 3.14159265358979323846;

Isometry3d at(const Vector3d& t, const Eigen::Matrix3d& r = Eigen::Matrix3d::Identity()) {
  Isometry3d x = Isometry3d::Identity();
  x.linear() = r;
  x.translation() = t;
  return x;
}

Eigen::Matrix3d randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  Eigen::Quaterniond q(g(rng), g(rng), g(rng), g(rng));
  return q.normalized().toRotationMatrix();
}

TEST(OverlapVolume, AxisAlignedBoxesByHand) {
  // A = [-1, 1]^3 cm, B = [0, 2] x [-0.5, 1.5] x [-0.75, 1.25] cm: overlap
  // [0, 1] x [-0.5, 1] x [-0.75, 1], volume 1 * 1.5 * 1.75 cm^3, centre (0.5, 0.25, 0.125) cm.
  const double cm = 0.01;
  for (int sub : {1, 3}) {
    const KdopTree a(makeBox(Vector3d::Constant(2 * cm), sub));
    const KdopTree b(makeBox(Vector3d::Constant(2 * cm), sub + 1));
    const Vector3d tb(1 * cm, 0.5 * cm, 0.25 * cm);
    const OverlapResult r = computeOverlap(a, Isometry3d::Identity(), b, at(tb));
    EXPECT_NEAR(r.volume, 1.0 * 1.5 * 1.75 * cm * cm * cm, 1e-15 * cm * cm * cm);
    EXPECT_NEAR((r.centroid_world - Vector3d(0.5, 0.25, 0.125) * cm).norm(), 0.0, 1e-14);
    // Boundary: three faces of A (x = 1, y = 1, z = 1) and three of B; areas by hand.
    EXPECT_NEAR(r.area_a, (1.5 * 1.75 + 1.0 * 1.75 + 1.0 * 1.5) * cm * cm, 1e-15);
    EXPECT_NEAR(r.area_b, (1.5 * 1.75 + 1.0 * 1.75 + 1.0 * 1.5) * cm * cm, 1e-15);
    // Every piece of A faces +x, +y or +z; of B -x, -y or -z: s_d points from A into B.
    for (const auto& p : r.pieces_a) EXPECT_GT(p.normal_world.sum(), 0.99);
    for (const auto& p : r.pieces_b) EXPECT_LT(p.normal_world.sum(), -0.99);
    EXPECT_TRUE((r.direction_world.array() > 0).all());
    EXPECT_TRUE(r.exact);
  }
}

TEST(OverlapVolume, PlacementInTheWorldDoesNotMatter) {
  // The same relative pose under any common rigid motion gives the same volume and a centroid
  // carried by that motion.
  const KdopTree a(makeBox(Vector3d(0.02, 0.03, 0.04), 2));
  const KdopTree b(makeUvSphere(0.02, 12, 16));
  std::mt19937 rng(7);
  const Isometry3d rel = at(Vector3d(0.012, -0.004, 0.01), randomRotation(rng));
  const OverlapResult ref = computeOverlap(a, Isometry3d::Identity(), b, rel);
  ASSERT_GT(ref.volume, 1e-7);
  for (int i = 0; i < 5; ++i) {
    const Isometry3d w = at(Vector3d(0.3 * i, -0.2, 0.1 * i), randomRotation(rng));
    const OverlapResult r = computeOverlap(a, w, b, w * rel);
    EXPECT_NEAR(r.volume / ref.volume, 1.0, 1e-11);
    EXPECT_NEAR((r.centroid_world - w * ref.centroid_world).norm(), 0.0, 1e-13);
    EXPECT_NEAR((r.direction_world - w.linear() * ref.direction_world).norm(), 0.0,
                1e-9 * ref.direction_world.norm());
  }
}

TEST(OverlapVolume, BoxRotated45DegreesGivesARegularOctagonalPrism) {
  // Two cubes [-1, 1]^3, one turned 45 degrees about z: the overlap is a prism over the regular
  // octagon of inradius 1 (area 8 tan(pi / 8)) of height 2; its top and bottom faces lie in the
  // planes of both cubes with the same orientation (counted once).
  const KdopTree a(makeBox(Vector3d::Constant(2.0), 1));
  const KdopTree b(makeBox(Vector3d::Constant(2.0), 2));
  const Eigen::Matrix3d rz = Eigen::AngleAxisd(kPi / 4, Vector3d::UnitZ()).toRotationMatrix();
  const OverlapResult r = computeOverlap(a, Isometry3d::Identity(), b, at(Vector3d::Zero(), rz));
  const double octagon = 8 * std::tan(kPi / 8);
  EXPECT_NEAR(r.volume, 2 * octagon, 1e-12);
  EXPECT_NEAR(r.centroid_world.norm(), 0.0, 1e-12);
  // Caps counted from A only: A's pieces are the two octagons plus 4 side strips of A inside B.
  double cap_area = 0.0;
  for (const auto& p : r.pieces_a)
    if (std::abs(p.normal_world.z()) > 0.5) cap_area += p.area;
  EXPECT_NEAR(cap_area, 2 * octagon, 1e-12);
  for (const auto& p : r.pieces_b) EXPECT_LT(std::abs(p.normal_world.z()), 1e-12);
  // Side walls: each of the 8 octagon edges (length 2 tan(pi / 8)) times height 2.
  EXPECT_NEAR(r.area_a + r.area_b, 2 * octagon + 8 * 2 * std::tan(kPi / 8) * 2, 1e-11);
}

TEST(OverlapVolume, OneBoxInsideTheOther) {
  const KdopTree big(makeBox(Vector3d(0.1, 0.08, 0.06), 2));
  const KdopTree small(makeBox(Vector3d(0.02, 0.01, 0.03), 1));
  std::mt19937 rng(3);
  const Isometry3d pose = at(Vector3d(0.01, -0.005, 0.004), randomRotation(rng));
  const double v_small = 0.02 * 0.01 * 0.03;
  for (bool swap : {false, true}) {
    const OverlapResult r = swap ? computeOverlap(small, pose, big, Isometry3d::Identity())
                                 : computeOverlap(big, Isometry3d::Identity(), small, pose);
    EXPECT_NEAR(r.volume, v_small, 1e-18);
    EXPECT_NEAR((r.centroid_world - pose.translation()).norm(), 0.0, 1e-15);
    // The boundary is all of the small box and nothing of the big one.
    EXPECT_NEAR(swap ? r.area_a : r.area_b, 2 * (0.02 * 0.01 + 0.01 * 0.03 + 0.02 * 0.03), 1e-16);
    EXPECT_EQ(swap ? r.area_b : r.area_a, 0.0);
  }
}

TEST(OverlapVolume, CubesTouchingFaceToFaceHaveNoVolume) {
  // A cube resting on another: the touching faces lie in one plane with opposite orientations.
  const KdopTree a(makeBox(Vector3d::Constant(0.02), 1));
  const KdopTree b(makeBox(Vector3d::Constant(0.02), 3));
  std::mt19937 rng(11);
  for (const Vector3d& offset : {Vector3d(0, 0, 0.02), Vector3d(0.005, -0.0037, 0.02),
                                 Vector3d(0.02, 0.0, 0.0), Vector3d(0.013, 0.02, 0.004)}) {
    const OverlapResult r0 = computeOverlap(a, Isometry3d::Identity(), b, at(offset));
    EXPECT_EQ(r0.volume, 0.0) << offset.transpose();
    EXPECT_TRUE(r0.pieces_a.empty() && r0.pieces_b.empty());
    EXPECT_GT(r0.stats.triangle_pairs, 0u);  // they do touch
    // Under a common rigid motion the faces are coplanar only to rounding.
    const Isometry3d w = at(Vector3d(0.1, 0.2, -0.1), randomRotation(rng));
    const OverlapResult r = computeOverlap(a, w, b, w * at(offset));
    EXPECT_NEAR(r.volume, 0.0, 1e-19) << offset.transpose();
  }
}

TEST(OverlapVolume, SharedFacePlaneWithTheSameOrientation) {
  // B = A shifted by 0.5 along x (cube side 2): overlap [-0.5, 1] x [-1, 1]^2, volume 6, centre
  // (0.25, 0, 0). Four faces of the overlap lie in both cubes' planes with the same orientation.
  const KdopTree a(makeBox(Vector3d::Constant(2.0), 2));
  const KdopTree b(makeBox(Vector3d::Constant(2.0), 3));
  const OverlapResult r = computeOverlap(a, Isometry3d::Identity(), b, at(Vector3d(0.5, 0, 0)));
  EXPECT_NEAR(r.volume, 6.0, 1e-13);
  EXPECT_NEAR((r.centroid_world - Vector3d(0.25, 0, 0)).norm(), 0.0, 1e-13);
  // Shared faces from A (4 x 1.5 x 2), plus A's x = 1 face; B's x = -0.5 face only.
  EXPECT_NEAR(r.area_a, 4 * 1.5 * 2 + 4, 1e-12);
  EXPECT_NEAR(r.area_b, 4, 1e-12);
  EXPECT_GT(r.direction_world.x(), 0.0);
  // Identical cubes: the overlap is the cube, every face counted once.
  const OverlapResult same = computeOverlap(a, Isometry3d::Identity(), b, Isometry3d::Identity());
  EXPECT_NEAR(same.volume, 8.0, 1e-13);
  EXPECT_NEAR(same.area_a, 24.0, 1e-12);
  EXPECT_EQ(same.area_b, 0.0);
  EXPECT_NEAR(same.centroid_world.norm(), 0.0, 1e-13);
}

// Cap of a ball of radius r centred at the origin below the plane z = h: volume and centroid z.
double capVolume(double r, double h) {
  const double d = std::clamp(h + r, 0.0, 2 * r);  // cap height
  return kPi * d * d * (3 * r - d) / 3.0;
}

TEST(OverlapVolume, SphereCapIsBracketedByTheBallsAroundTheTessellation) {
  // A tessellated sphere (convex, vertices on the radius-R sphere) lies between the ball of
  // radius R and the ball of radius r_in = smallest distance from the centre to a face plane, so
  // its part below a plane lies between those balls' caps below that plane: a tolerance from the
  // mesh itself, not from a guess.
  const double R = 0.03;
  const auto mesh = makeUvSphere(R, 48, 64);
  double r_in = R;
  for (std::size_t t = 0; t < mesh.triangleCount(); ++t) {
    const Vector3d& v0 = mesh.vertices[static_cast<std::size_t>(mesh.triangles[t][0])];
    const Vector3d& v1 = mesh.vertices[static_cast<std::size_t>(mesh.triangles[t][1])];
    const Vector3d& v2 = mesh.vertices[static_cast<std::size_t>(mesh.triangles[t][2])];
    r_in = std::min(r_in, std::abs((v1 - v0).cross(v2 - v0).normalized().dot(v0)));
  }
  const KdopTree sphere(mesh);
  const KdopTree slab(makeBox(Vector3d(0.2, 0.2, 0.1), 2));
  const double full = std::abs(geometry::signedVolume(mesh));
  for (double h : {-0.021, -0.0073, 0.0011, 0.0187}) {
    // Box top at z = h (the box spans [h - 0.1, h]).
    const OverlapResult below =
        computeOverlap(sphere, Isometry3d::Identity(), slab, at(Vector3d(0, 0, h - 0.05)));
    EXPECT_LE(below.volume, capVolume(R, h) * (1 + 1e-12));
    EXPECT_GE(below.volume, capVolume(r_in, h) * (1 - 1e-12));
    // The UV sphere is symmetric under rotations about z: the centroid is on the axis.
    EXPECT_NEAR(below.centroid_world.head<2>().norm(), 0.0, 1e-12);
    // Additivity: the part above the plane completes the tessellated sphere exactly.
    const OverlapResult above =
        computeOverlap(sphere, Isometry3d::Identity(), slab, at(Vector3d(0, 0, h + 0.05)));
    EXPECT_NEAR((below.volume + above.volume) / full, 1.0, 1e-12);
    // ... and the centroids combine to the tessellated sphere's (at the origin by symmetry).
    const Vector3d moment =
        below.volume * below.centroid_world + above.volume * above.centroid_world;
    EXPECT_NEAR(moment.norm() / full, 0.0, 1e-14);
    // The overlap's direction pushes the sphere up out of the slab below: s_d points from A
    // (sphere) into B (slab), i.e. down.
    EXPECT_LT(below.direction_world.z(), 0.0);
    EXPECT_GT(above.direction_world.z(), 0.0);
  }
}

TEST(OverlapVolume, ScratchReuseGivesTheSameResult) {
  const KdopTree a(makeUvSphere(0.02, 10, 14));
  const KdopTree b(makeBox(Vector3d(0.03, 0.01, 0.05), 2));
  OverlapScratch scratch;
  OverlapResult r;
  std::mt19937 rng(5);
  for (int i = 0; i < 6; ++i) {
    const Isometry3d pose =
        at(Vector3d(0.01 * std::sin(i), 0.004 * i - 0.01, 0.0), randomRotation(rng));
    computeOverlap(a, Isometry3d::Identity(), b, pose, scratch, r);
    const OverlapResult fresh = computeOverlap(a, Isometry3d::Identity(), b, pose);
    EXPECT_EQ(r.volume, fresh.volume);
    EXPECT_EQ(r.centroid_world, fresh.centroid_world);
    EXPECT_EQ(r.pieces_a.size(), fresh.pieces_a.size());
  }
}

TEST(OverlapVolume, DisjointMeshesHaveNoOverlap) {
  const KdopTree a(makeBox(Vector3d::Constant(0.02), 1));
  const OverlapResult r = computeOverlap(a, Isometry3d::Identity(), a, at(Vector3d(0.05, 0, 0)));
  EXPECT_EQ(r.volume, 0.0);
  EXPECT_EQ(r.direction_world, Vector3d::Zero());
}

TEST(MeshClosure, ClosedOpenAndFlipped) {
  auto box = makeBox(Vector3d::Constant(1.0), 2);
  EXPECT_TRUE(checkMeshClosure(box).closed);
  // Per-face vertices (as VRML files often have) are welded by their coordinates.
  geometry::TriangleMesh soup;
  for (const auto& t : box.triangles) {
    const int base = static_cast<int>(soup.vertices.size());
    for (int c : t) soup.vertices.push_back(box.vertices[static_cast<std::size_t>(c)]);
    soup.triangles.push_back({base, base + 1, base + 2});
  }
  EXPECT_TRUE(checkMeshClosure(soup).closed);
  auto open = box;
  open.triangles.pop_back();
  const MeshClosure c_open = checkMeshClosure(open);
  EXPECT_FALSE(c_open.closed);
  EXPECT_EQ(c_open.boundary_edges, 3u);
  EXPECT_NE(c_open.describe().find("boundary"), std::string::npos);
  auto flipped = box;
  std::swap(flipped.triangles[0][1], flipped.triangles[0][2]);
  const MeshClosure c_flip = checkMeshClosure(flipped);
  EXPECT_FALSE(c_flip.closed);
  EXPECT_EQ(c_flip.inconsistent_edges, 3u);
}

TEST(OverlapVolume, OpenMeshFallsBackToTheWindingNumber) {
  // A box with one of its 2 x 2 x 6 x 2 triangles removed: the winding number still says inside
  // for points well inside, so a small box deep inside keeps (nearly) its volume, flagged inexact.
  auto open = makeBox(Vector3d::Constant(0.04), 2);
  open.triangles.pop_back();
  const KdopTree a(open);
  const KdopTree b(makeBox(Vector3d::Constant(0.01), 1));
  OverlapOptions opt;
  opt.a_closed = checkMeshClosure(open).closed;
  ASSERT_FALSE(opt.a_closed);
  const OverlapResult r =
      computeOverlap(a, Isometry3d::Identity(), b, at(Vector3d(0.002, 0.001, -0.003)), opt);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.volume, 1e-6, 1e-15);
  EXPECT_GT(r.stats.winding_queries, 0u);
}

TEST(PointInsideMesh, AgreesWithTheWindingNumber) {
  const KdopTree sphere(makeUvSphere(0.05, 9, 11));
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-0.06, 0.06);
  std::vector<std::uint32_t> stack;
  for (int i = 0; i < 300; ++i) {
    const Vector3d p(u(rng), u(rng), u(rng));
    const double w = windingNumber(sphere, p);
    EXPECT_TRUE(std::abs(w) < 1e-9 || std::abs(w - 1) < 1e-9) << w;
    EXPECT_EQ(pointInsideMesh(sphere, p, true, stack), w > 0.5) << p.transpose();
  }
}

}  // namespace
}  // namespace handsim::collision
