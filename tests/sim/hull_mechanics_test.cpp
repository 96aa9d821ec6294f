// SPDX-License-Identifier: GPL-3.0-or-later
// Bodies that collide as convex hulls (docs/collision.md, "Collision shapes") checked against
// mechanics like the exact meshes in contact_mechanics_test.cpp (whose stack and listing-order
// tests run for both shapes): free hull cubes colliding in random orientations never gain
// kinetic energy and keep momentum, and a cube dropped on a BarrettHand whose palm and links
// are hulls loses energy and comes to rest on the palm's top face. The references are
// worked here: kinetic energy 1/2 m v^2 + 1/2 w^T I w, potential m g z, the resting heights
// from the boxes' edges and the palm hull's highest vertex.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "../support/box_objects.hpp"
#include "../support/free_object_energy.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;
using collision::CollisionShape;

namespace {

ObjectModel hullCube(const std::string& name, double edge, double mass) {
  ObjectModel o = test::meshObject(name, geometry::makeBox(Eigen::Vector3d::Constant(edge)), mass);
  o.geometry = withCollisionShape(*o.geometry, CollisionShape::Hull, 18);
  return o;
}

}  // namespace

TEST(HullMechanics, TheCubesCollideAsHulls) {
  const ObjectModel c = hullCube("c", 0.05, 0.2);
  EXPECT_EQ(c.geometry->collision.shape, CollisionShape::Hull);
  EXPECT_EQ(c.geometry->collision.hull.vertices.size(), 8u);
}

// Thirty collisions of two free hull cubes in random orientations at 1 m/s closing speed, off
// centre, no gravity: the kinetic energy never grows, and momentum is kept (no external force).
TEST(HullMechanics, RandomCollisionsNeverGainEnergyAndKeepMomentum) {
  Options opt;
  opt.gravity_world.setZero();
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto randomRotation = [&]() {
    Eigen::Quaterniond q(u(rng), u(rng), u(rng), u(rng));
    return q.normalized().toRotationMatrix();
  };
  int touched = 0;
  for (int trial = 0; trial < 30; ++trial) {
    ObjectModel a = hullCube("a", 0.05, 0.2);
    Eigen::Isometry3d a_pose = test::at({5.0 - 0.06, 0.01 * u(rng), 0.01 * u(rng)});
    ObjectModel b = hullCube("b", 0.05, 0.3);
    Eigen::Isometry3d b_pose = test::at({5.0 + 0.06, 0.01 * u(rng), 0.01 * u(rng)});
    a_pose.linear() = randomRotation();
    b_pose.linear() = randomRotation();
    a.friction = b.friction = 0.5;
    auto model = compileModel(test::barrettHand(), {a, b}, opt);
    SimState s = test::stateAt(*model, {a_pose, b_pose}, {},
                               {test::twist({0.5, 0.0, 0.0}), test::twist({-0.5, 0.0, 0.0})});
    auto momentum = [&]() {
      return Eigen::Vector3d(model->objects[0].mass.mass_kg * s.object_twist_world[0].head<3>() +
                             model->objects[1].mass.mass_kg * s.object_twist_world[1].head<3>());
    };
    const double e0 = test::freeKineticEnergy(*model, s);
    const Eigen::Vector3d p0 = momentum();
    bool hit = false;
    for (int i = 0; i < 300; ++i) {
      step(*model, s);
      hit = hit || !s.object_contacts.empty();
      ASSERT_LE(test::freeKineticEnergy(*model, s), e0 * (1.0 + 1e-9))
          << "trial " << trial << " step " << i;
    }
    EXPECT_LT((momentum() - p0).norm(), 1e-9 * (1.0 + p0.norm())) << "trial " << trial;
    touched += hit ? 1 : 0;
    EXPECT_EQ(s.warning_count, 0) << "trial " << trial;
  }
  EXPECT_GE(touched, 25);
}

// A 2 cm, 20 g cube dropped from 3 cm onto the BarrettHand's palm, the palm and every link
// colliding as hulls, the open hand still: kinetic plus potential energy never grows (the
// palm does not move and the fingers are not driven into the cube), and the cube comes to
// rest on the palm hull's top face, its centre half an edge above the hull's highest vertex.
TEST(HullMechanics, ACubeDroppedOnAHullHandsPalmLosesEnergyAndRestsOnIt) {
  auto hand = std::make_shared<hand::HandModel>(*test::barrettHand());
  hand->palm_collision = CollisionShape::Hull;
  hand->link_collision.assign(hand->fingers.size(), {});
  for (std::size_t f = 0; f < hand->fingers.size(); ++f)
    hand->link_collision[f].assign(hand->fingers[f].rows.size(), CollisionShape::Hull);
  Options opt;
  opt.gravity_world = Eigen::Vector3d(0.0, 0.0, -9.81);
  // The palm hull's top, palm frame = world frame here (the palm at the identity).
  auto probe = compileModel(hand, {}, opt);
  const auto& palm_hull = probe->hand_geometry->palm.collision.hull;
  ASSERT_EQ(probe->hand_geometry->palm.collision.shape, CollisionShape::Hull);
  double top = -1e9;
  for (const Eigen::Vector3d& v : palm_hull.vertices) top = std::max(top, v.z());
  const double edge = 0.02, mass = 0.02;
  ObjectModel cube =
      test::meshObject("cube", geometry::makeBox(Eigen::Vector3d::Constant(edge)), mass);
  auto model = compileModel(hand, {cube}, opt);
  SimState s = test::stateAt(*model, {test::at({0.0, -0.012, top + 0.5 * edge + 0.03})});
  auto energy = [&]() {
    return test::freeKineticEnergy(*model, s) +
           mass * 9.81 * test::centreOfMassWorld(*model, s, 0).z();
  };
  const double e0 = energy();
  bool touched = false;
  for (int i = 0; i < 800; ++i) {
    step(*model, s);
    touched = touched || !s.object_contacts.empty() || !s.contacts.empty();
    ASSERT_LE(energy(), e0 + 1e-9) << "step " << i;
  }
  EXPECT_TRUE(touched);
  EXPECT_NEAR(test::centreOfMassWorld(*model, s, 0).z(), top + 0.5 * edge,
              2.5 * opt.contact.constraint()->slop);
  EXPECT_LT(test::freeKineticEnergy(*model, s), 1e-9);
  EXPECT_EQ(s.warning_count, 0);
}
