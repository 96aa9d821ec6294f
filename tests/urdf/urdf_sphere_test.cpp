// SPDX-License-Identifier: GPL-3.0-or-later
// A URDF <sphere> collision shape stays a sphere (docs/collision.md, "Analytic spheres"): the
// link's collision shapes carry it, placed by the <origin> (checked against the tessellation's
// vertices, which lie on it), and the link's collision body collides as it; a link with two
// shapes does not.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/sim/model.hpp"

using namespace handsim;

namespace {

std::string urdf(const std::string& shapes) {
  return "<?xml version=\"1.0\"?>\n<robot name=\"h\">\n<link name=\"base\"/>\n"
         "<link name=\"a\"><inertial><mass value=\"0.1\"/><inertia ixx=\"1e-5\" ixy=\"0\" "
         "ixz=\"0\" iyy=\"1e-5\" iyz=\"0\" izz=\"1e-5\"/></inertial>" +
         shapes +
         "</link>\n<joint name=\"j1\" type=\"continuous\"><origin xyz=\"0 0 0.05\"/>"
         "<parent link=\"base\"/><child link=\"a\"/></joint>\n</robot>\n";
}

const std::string kTip =
    "<collision><origin xyz=\"0.01 0.002 0.03\" rpy=\"0.3 0.2 0.1\"/>"
    "<geometry><sphere radius=\"0.012\"/></geometry></collision>";

}  // namespace

TEST(UrdfSphere, ASphereCollisionShapeCollidesAsASphere) {
  const hand::HandModel h = hand::parseUrdfHand(urdf(kTip), "tip.urdf");
  ASSERT_EQ(h.link_shapes.size(), 1u);
  const hand::BodyShapes* body = nullptr;
  std::size_t row = 0;
  for (std::size_t r = 0; r < h.link_shapes[0].size(); ++r)
    if (!h.link_shapes[0][r].collision.shapes.empty()) body = &h.link_shapes[0][r], row = r;
  ASSERT_NE(body, nullptr);
  const auto sphere = body->collision.onlySphere();
  ASSERT_TRUE(sphere.has_value());
  EXPECT_NEAR(sphere->radius, 0.012, 1e-15);
  for (const Eigen::Vector3d& v : body->collision.shapes[0].mesh.vertices)
    ASSERT_NEAR((v - sphere->centre).norm(), 0.012, 1e-14);
  const auto geometry = sim::loadHandGeometry(h, 18);
  const sim::CollisionBody& link = geometry->links[0][row].collision;
  ASSERT_TRUE(link.sphere.has_value());
  EXPECT_EQ(link.sphere->centre, sphere->centre);
  EXPECT_EQ(link.radius, 0.012);
}

TEST(UrdfSphere, ALinkOfTwoShapesIsNotASphere) {
  const hand::HandModel h = hand::parseUrdfHand(
      urdf(kTip + "<collision><geometry><box size=\"0.01 0.01 0.01\"/></geometry></collision>"),
      "two.urdf");
  for (const auto& row : h.link_shapes[0]) EXPECT_FALSE(row.collision.onlySphere().has_value());
  const auto geometry = sim::loadHandGeometry(h, 18);
  for (const auto& link : geometry->links[0]) EXPECT_FALSE(link.collision.sphere.has_value());
}
