// SPDX-License-Identifier: GPL-3.0-or-later
// The shipped hands' meshes load cleanly and sit where the kinematics put the links: a link
// mesh lies along its DH link, from the previous joint (x = -a in the link frame) to the
// link frame's origin, within a margin for knuckles and rounded ends.
#include <gtest/gtest.h>

#include <utility>

#include "handsim/collision/tree_collision.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/mesh_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/sim/model.hpp"

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

// anthro20's four fingers flex through the whole range of their MCP joints, at every abduction,
// without their links running into the palm (apart from the knuckle link on the palm and the
// pairs adjacent at rest, which the contact stage leaves out): the palm's collision box ends 10 mm
// short of the knuckles, more than the 8 mm rod radius of the proximal links. It used to end 6 mm
// short, so the proximal link's rod dug into the palm's distal face near its hinge from 48.6 deg of
// flexion (sin = 6/8): the cup grasp's 60 deg was never reached and the servo pushed 650 N into the
// palm at a lever arm of millimetres, with abducted fingers 15-60 kN.
TEST(HandMeshes, Anthro20FingersFlexWithoutRunningIntoThePalm) {
  const hand::HandModel h = hand::loadHand("anthro20");
  const auto geometry = sim::loadHandGeometry(h, 18);
  const sim::CollisionBody& palm = geometry->palm.collision;
  ASSERT_FALSE(palm.empty());
  constexpr double kDegree = 3.14159265358979323846 / 180.0;
  int poses = 0;
  for (std::size_t f = 0; f < h.fingers.size(); ++f) {
    const kinematics::Chain& chain = h.fingers[f];
    if (chain.name == "thumb") continue;
    const kinematics::DhRow& mcp = chain.rows[0];
    const kinematics::DhRow& abduction = chain.rows[1];
    for (double spread : {abduction.lower, 0.0, abduction.upper})
      for (double flex = mcp.lower; flex <= mcp.upper + 1e-9; flex += 2.0 * kDegree) {
        kinematics::JointVector q = kinematics::JointVector::Zero(chain.dof());
        q[0] = flex;
        q[1] = spread;
        const kinematics::ChainFrames frames = kinematics::forwardKinematics(chain, q);
        // The first link with a mesh sits on the palm (the contact stage leaves that pair out).
        bool first = true;
        for (std::size_t r = 0; r < geometry->links[f].size(); ++r) {
          const sim::CollisionBody& link = geometry->links[f][r].collision;
          if (link.empty()) continue;
          if (std::exchange(first, false) ||
              geometry->excluded(static_cast<int>(f), static_cast<int>(r), -1, -1))
            continue;
          const Eigen::Isometry3d link_pose = chain.base * frames.at(static_cast<int>(r) + 1);
          EXPECT_FALSE(collision::anyContact(link.tree, palm.tree, link_pose.inverse()))
              << chain.name << " link " << r << " at MCP " << flex / kDegree << " deg, spread "
              << spread / kDegree << " deg";
        }
        ++poses;
      }
  }
  EXPECT_GT(poses, 4 * 3 * 50);
}
