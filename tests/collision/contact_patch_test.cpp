// SPDX-License-Identifier: GPL-3.0-or-later
// Contact patches on box-on-box overlaps worked out by hand, and the symmetry of a contact in
// its two meshes.
#include "handsim/collision/contact_patch.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "handsim/collision/primitives.hpp"
#include "narrow_phase_scenes.hpp"

using namespace handsim::collision;
using Eigen::Vector3d;
using handsim::geometry::TriangleMesh;

namespace {

// The object: a 2 x 2 x 1 box whose top face is the plane z = 0 of the reference frame W, so it
// fills [-1, 1]^2 x [-1, 0].
TriangleMesh objectBox() {
  return makeBox(Vector3d(2, 2, 1));
}
Eigen::Isometry3d objectInWorld() {
  return Eigen::Isometry3d(Eigen::Translation3d(0, 0, -0.5));
}

// A 0.4 x 0.2 x 0.51 link box standing on the object with its bottom 0.01 below z = 0,
// centred at (x, 0).
TriangleMesh linkBox(double x) {
  TriangleMesh m = makeBox(Vector3d(0.4, 0.2, 0.51));
  m.transform(Eigen::Affine3d(Eigen::Translation3d(x, 0, 0.245)));
  return m;
}

std::vector<ContactPatch> patchesInLinkFrame(const TriangleMesh& link_in_world,
                                             const Eigen::Isometry3d& world_in_link) {
  TriangleMesh link = link_in_world;
  link.transform(Eigen::Affine3d(world_in_link.matrix()));
  const TriangleMesh object = objectBox();
  const Eigen::Isometry3d object_in_link = world_in_link * objectInWorld();
  const KdopTree tl(link), to(object);
  return buildContactPatches(link, object, object_in_link, allContacts(tl, to, object_in_link));
}

}  // namespace

TEST(ContactPatch, BoxPressedIntoAFaceGivesOnePatchAtTheOverlapCentre) {
  // The link's side walls cut the object's top face along the rectangle
  // [-0.2, 0.2] x [-0.1, 0.1] at z = 0: centre (0, 0, 0), normal +z (the top face's outward
  // normal, pushing the link up), depth 0.01 (the link's bottom face).
  const auto patches = patchesInLinkFrame(linkBox(0.0), Eigen::Isometry3d::Identity());
  ASSERT_EQ(patches.size(), 1u);
  const ContactPatch& p = patches[0];
  EXPECT_LT((p.point - Vector3d(0, 0, 0)).norm(), 1e-12);
  EXPECT_LT((p.normal - Vector3d(0, 0, 1)).norm(), 1e-12);
  EXPECT_NEAR(p.depth_m, 0.01, 1e-12);
  EXPECT_LT((p.bounds.min - Vector3d(-0.2, -0.1, 0)).norm(), 1e-12);
  EXPECT_LT((p.bounds.max - Vector3d(0.2, 0.1, 0)).norm(), 1e-12);
  // Only the top face (two triangles, 4 m^2) of the object is involved.
  EXPECT_EQ(p.object_triangles.size(), 2u);
  EXPECT_NEAR(p.object_area_m2, 4.0, 1e-12);
}

TEST(ContactPatch, ResultsAreInTheLinkFrame) {
  // Same scene seen from a frame turned and moved arbitrarily: point and normal follow.
  Eigen::Isometry3d g = Eigen::Isometry3d::Identity();
  g.linear() = Eigen::AngleAxisd(0.7, Vector3d(1, 2, 3).normalized()).matrix();
  g.translation() = Vector3d(0.3, -0.2, 0.1);
  const auto patches = patchesInLinkFrame(linkBox(0.0), g);
  ASSERT_EQ(patches.size(), 1u);
  EXPECT_LT((patches[0].point - g * Vector3d(0, 0, 0)).norm(), 1e-12);
  EXPECT_LT((patches[0].normal - g.linear() * Vector3d(0, 0, 1)).norm(), 1e-12);
  EXPECT_NEAR(patches[0].depth_m, 0.01, 1e-12);
}

TEST(ContactPatch, TwoSeparateOverlapsGiveTwoPatches) {
  TriangleMesh link = linkBox(-0.5);
  link.append(linkBox(0.5));
  const auto patches = patchesInLinkFrame(link, Eigen::Isometry3d::Identity());
  ASSERT_EQ(patches.size(), 2u);
  const double x0 = patches[0].point.x(), x1 = patches[1].point.x();
  EXPECT_NEAR(std::min(x0, x1), -0.5, 1e-12);
  EXPECT_NEAR(std::max(x0, x1), 0.5, 1e-12);
  for (const auto& p : patches) {
    EXPECT_NEAR(p.point.y(), 0.0, 1e-12);
    EXPECT_NEAR(p.point.z(), 0.0, 1e-12);
    EXPECT_LT((p.normal - Vector3d(0, 0, 1)).norm(), 1e-12);
    EXPECT_NEAR(p.depth_m, 0.01, 1e-12);
  }
}

TEST(ContactPatch, NoContactsNoPatches) {
  const TriangleMesh m = makeBox(Vector3d(1, 1, 1));
  EXPECT_TRUE(buildContactPatches(m, m, Eigen::Isometry3d::Identity(), {}).empty());
}

namespace {

// Patches of mesh A (pose a) against mesh B (pose b), in A's frame.
std::vector<ContactPatch> patchesOf(const TriangleMesh& a, const Eigen::Isometry3d& a_pose,
                                    const TriangleMesh& b, const Eigen::Isometry3d& b_pose) {
  const Eigen::Isometry3d b_in_a = a_pose.inverse() * b_pose;
  const KdopTree ta(a), tb(b);
  return buildContactPatches(a, b, b_in_a, allContacts(ta, tb, b_in_a));
}

Eigen::Isometry3d at(const Vector3d& p, double yaw = 0.0) {
  Eigen::Isometry3d g = Eigen::Isometry3d::Identity();
  g.linear() = Eigen::AngleAxisd(yaw, Vector3d::UnitZ()).matrix();
  g.translation() = p;
  return g;
}

}  // namespace

// A 5 cm cube turned 45 deg about z pokes its vertical edge 0.1 mm into the -x face of an
// upright 5 cm cube; their top and bottom faces lie flush. The penetration is 0.1 mm along x,
// whichever cube is A. (The one-sided estimate read 11.3 mm from the far vertices of the
// turned cube's 5 cm triangles, with a normal 27 deg off towards the flush bottom faces.)
TEST(ContactPatch, AnEdgeIntoAFaceGivesTheFaceNormalAndTheTrueDepthInEitherOrder) {
  const TriangleMesh cube = makeBox(Vector3d(0.05, 0.05, 0.05));
  const double depth = 1e-4;
  const Eigen::Isometry3d upright = at(Vector3d::Zero());
  const Eigen::Isometry3d turned =
      at(Vector3d(-0.025 - 0.025 * std::sqrt(2.0) + depth, 0.0, 0.0), 0.78539816339744830962);
  // A = turned: out of the upright cube's face into the turned one, -x in the world.
  auto p = patchesOf(cube, turned, cube, upright);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_LT((turned.linear() * p[0].normal - Vector3d(-1, 0, 0)).norm(), 1e-9);
  EXPECT_NEAR(p[0].depth_m, depth, 1e-9);
  // A = upright: out of the turned cube into the upright one, +x.
  p = patchesOf(cube, upright, cube, turned);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_LT((p[0].normal - Vector3d(1, 0, 0)).norm(), 1e-9);
  EXPECT_NEAR(p[0].depth_m, depth, 1e-9);
}

// A 4 cm cube sunk 0.1 mm into the top face of a 5 cm cube, in either order. Read from the
// pushing mesh's vertices alone the depth was 0 with the large cube as A (its top vertices lie
// on the plane), and a small cube on a free large one sank through.
TEST(ContactPatch, ASmallBoxSunkIntoALargeFaceHasItsDepthInEitherOrder) {
  const TriangleMesh large = makeBox(Vector3d(0.05, 0.05, 0.05));
  const TriangleMesh small = makeBox(Vector3d(0.04, 0.04, 0.04));
  const double depth = 1e-4;
  const Eigen::Isometry3d base = at(Vector3d::Zero());
  const Eigen::Isometry3d top = at(Vector3d(0.003, 0.002, 0.025 + 0.02 - depth), 0.3);
  auto p = patchesOf(large, base, small, top);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_LT((p[0].normal - Vector3d(0, 0, -1)).norm(), 1e-9);  // out of the small one, down
  EXPECT_NEAR(p[0].depth_m, depth, 1e-9);
  p = patchesOf(small, top, large, base);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_LT((top.linear() * p[0].normal - Vector3d(0, 0, 1)).norm(), 1e-9);
  EXPECT_NEAR(p[0].depth_m, depth, 1e-9);
}

// Two equal cubes stacked flush and sunk 0.1 mm into each other, their side faces coincident
// to rounding (as a stack settles in a simulation: turned by 1e-8 rad): the rim is found on
// either face of each edge or on the two nearly coincident side faces, and the normal is still
// the stacking axis. The area-weighted face normals of the rim's triangles tilted it by up to
// 55 deg with a depth of 58 mm, and the stack jumped apart.
TEST(ContactPatch, TwoEqualBoxesStackedFlushGiveTheStackingAxis) {
  const TriangleMesh cube = makeBox(Vector3d(0.05, 0.05, 0.05));
  const double depth = 1e-4;
  for (double tilt : {0.0, 1e-8, -3e-8}) {
    Eigen::Isometry3d top = at(Vector3d(1e-9, -1e-9, 0.05 - depth));
    top.linear() = Eigen::AngleAxisd(tilt, Vector3d(1, 2, 0).normalized()).matrix();
    const auto p = patchesOf(cube, at(Vector3d::Zero()), cube, top);
    ASSERT_FALSE(p.empty()) << "tilt " << tilt;
    for (const ContactPatch& patch : p) {
      EXPECT_LT((patch.normal - Vector3d(0, 0, -1)).norm(), 1e-6) << "tilt " << tilt;
      EXPECT_NEAR(patch.depth_m, depth, 1e-6) << "tilt " << tilt;
    }
  }
}

// Whichever mesh is A, a contact is the same: on random overlaps of the narrow-phase scenes
// that give one patch both ways, the depths agree and the normals are opposite (B's frame
// turned into A's).
TEST(ContactPatch, SwappingTheMeshesFlipsTheNormalAndKeepsTheDepth) {
  std::mt19937 rng(31);
  int checked = 0;
  for (const handsim::collision::test::Scene& s : handsim::collision::test::narrowPhaseScenes()) {
    const KdopTree tl(s.link), to(s.object);
    for (int round = 0; round < 40; ++round) {
      const Eigen::Isometry3d pose = handsim::collision::test::randomPose(s, rng);
      const auto ab = buildContactPatches(s.link, s.object, pose, allContacts(tl, to, pose));
      const auto ba = buildContactPatches(s.object, s.link, pose.inverse(),
                                          allContacts(to, tl, pose.inverse()));
      if (ab.size() != 1 || ba.size() != 1) continue;
      SCOPED_TRACE(s.name + ", round " + std::to_string(round));
      const double scale = 1e-9 * (1.0 + ab[0].bounds.max.norm());
      EXPECT_NEAR(ab[0].depth_m, ba[0].depth_m, scale);
      EXPECT_LT((ab[0].normal + pose.linear() * ba[0].normal).norm(), 1e-9);
      ++checked;
    }
  }
  EXPECT_GT(checked, 100);
}
