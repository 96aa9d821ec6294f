// SPDX-License-Identifier: GPL-3.0-or-later
// The shipped hands' meshes load cleanly and sit where the kinematics put the links: a link
// mesh lies along its DH link, from the previous joint (x = -a in the link frame) to the
// link frame's origin, within a margin for knuckles and rounded ends.
#include <gtest/gtest.h>

#include "handsim/geometry/mesh_loader.hpp"
#include "handsim/hand/hand_loader.hpp"

using namespace handsim;

TEST(HandMeshes, EveryShippedMeshLoadsAndFollowsItsLink) {
  const double margin = 0.016;  // [m] knuckle spheres, housings, fingertip caps
  for (const auto& id : hand::builtinHandIds()) {
    const hand::HandModel h = hand::loadHand(id);
    ASSERT_FALSE(h.palm_mesh.empty()) << id;
    const auto palm = geometry::loadMesh(h.palm_mesh);
    EXPECT_TRUE(palm.warnings.empty()) << h.palm_mesh;
    EXPECT_GT(palm.triangleCount(), 0u) << h.palm_mesh;
    int links = 0;
    for (std::size_t f = 0; f < h.fingers.size(); ++f) {
      for (std::size_t r = 0; r < h.fingers[f].rows.size(); ++r) {
        const std::string& path = h.link_meshes[f][r];
        if (path.empty()) continue;
        ++links;
        const auto model = geometry::loadMesh(path);
        EXPECT_TRUE(model.warnings.empty()) << path;
        const auto mesh = model.merged();
        EXPECT_TRUE(geometry::isWatertight(mesh) || model.shapes.size() > 1) << path;
        const geometry::Aabb box = geometry::boundingBox(mesh);
        const double a = h.fingers[f].rows[r].a;
        EXPECT_LE(box.max.x(), margin) << path;
        EXPECT_GE(box.min.x(), -a - margin) << path;
        EXPECT_LE(box.min.x(), -a + margin) << path;  // reaches back to the previous joint
      }
    }
    EXPECT_GE(links, static_cast<int>(h.fingers.size()) * 2) << id;
  }
}

// The drawn-only meshes stay on their links too, each shape is closed, and they hug the
// collision meshes: every drawn vertex lies within 8 mm of the collision mesh's bounding box
// (what you see touching is what collides).
TEST(HandMeshes, VisualMeshesFollowTheirLinksAndTheirCollisionMeshes) {
  const double margin = 0.016;   // [m] as above
  const double hug = 0.008;      // [m]
  int checked = 0;
  for (const auto& id : hand::builtinHandIds()) {
    const hand::HandModel h = hand::loadHand(id);
    auto check = [&](const std::string& visual, const std::string& collision, double a,
                     bool link) {
      if (visual.empty()) return;
      ++checked;
      const auto model = geometry::loadMesh(visual);
      EXPECT_TRUE(model.warnings.empty()) << visual;
      for (const auto& shape : model.shapes)
        EXPECT_TRUE(geometry::isWatertight(shape.mesh)) << visual;
      const geometry::Aabb box = geometry::boundingBox(model.merged());
      const geometry::Aabb col = geometry::boundingBox(geometry::loadMesh(collision).merged());
      for (int i = 0; i < 3; ++i) {
        EXPECT_GE(box.min[i], col.min[i] - hug) << visual << " axis " << i;
        EXPECT_LE(box.max[i], col.max[i] + hug) << visual << " axis " << i;
      }
      if (link) {
        EXPECT_LE(box.max.x(), margin) << visual;
        EXPECT_LE(box.min.x(), -a + margin) << visual;
      }
    };
    check(h.palm_visual_mesh, h.palm_mesh, 0.0, false);
    for (std::size_t f = 0; f < h.fingers.size(); ++f)
      for (std::size_t r = 0; r < h.fingers[f].rows.size(); ++r)
        check(h.link_visual_meshes[f][r], h.link_meshes[f][r], h.fingers[f].rows[r].a, true);
  }
  EXPECT_GE(checked, 4 + 22);  // BarrettHand: palm + 3 link meshes x 3 fingers; anthro20: 22
}
