// SPDX-License-Identifier: GPL-3.0-or-later
// Contact patches on box-on-box overlaps worked out by hand.
#include "handsim/collision/contact_patch.hpp"

#include <gtest/gtest.h>

#include "handsim/collision/primitives.hpp"

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
