// SPDX-License-Identifier: GPL-3.0-or-later
// Analytic spheres in the step (docs/collision.md, "Analytic spheres"), checked against closed
// forms worked here: a solid ball rolling without slipping down a slope accelerates at
// g sin(theta) / (1 + I / (m r^2)) (2/5 for a solid ball) with omega = v / r; a ball at rest
// sits on the ground and on a table box with its centre one radius above the surface; two balls
// colliding keep their momentum and do not gain energy, and the result does not depend on which
// is listed first. The ball is assets/objects/sphere.wrl (r = 3 cm), read through the VRML
// reader, so the sphere primitive is what the file gives.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "../support/box_objects.hpp"
#include "../support/free_object_energy.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/geometry/mass_properties.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

constexpr double kRadius = 0.03;  // sphere.wrl's radius [m]

// A free ball of sphere.wrl.
ObjectModel ball(const std::string& name) {
  ObjectModel o =
      loadObject(std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/sphere.wrl", {}, name);
  o.fixed = false;
  o.friction = 0.5;
  return o;
}

// A ball's start at `at`, turned so that no vertex of its tessellation is straight below the
// centre (resting on its mesh it would sit up to r (1 - cos(pi/16)) = 0.3 mm lower, on a face).
Eigen::Isometry3d ballAt(const Eigen::Vector3d& at) {
  Eigen::Isometry3d pose = test::at(at);
  pose.linear() = (Eigen::AngleAxisd(0.1, Eigen::Vector3d::UnitX()) *
                   Eigen::AngleAxisd(0.07, Eigen::Vector3d::UnitY()))
                      .toRotationMatrix();
  return pose;
}

}  // namespace

TEST(SphereMechanics, TheShippedBallCollidesAsASphere) {
  const ObjectModel b = ball("b");
  ASSERT_TRUE(b.geometry->collision.sphere.has_value());
  EXPECT_EQ(b.geometry->collision.sphere->radius, kRadius);
  EXPECT_EQ(b.geometry->collision.radius, kRadius);
}

// 20 degrees, mu 0.5 (rolling needs mu >= (2/7) tan(theta) = 0.10): after 0.5 s the speed is
// a t and the spin v / r, to 1e-12 (with the tessellation's mass properties they were not).
// A ball's mass properties are the solid ball's closed form, not its tessellation's (which lies
// inside the ball): m = rho 4/3 pi r^3, centre of mass at the centre, I = 2/5 m r^2 about every
// axis through it, also when a mass is given instead of a density.
TEST(SphereMechanics, ABallHasTheMassPropertiesOfABall) {
  const double pi = 3.14159265358979323846;
  for (const double density : {1000.0, 37.5}) {
    ObjectModel b = ball("b");
    computeMassProperties(b, density);
    const double volume = 4.0 / 3.0 * pi * kRadius * kRadius * kRadius;
    EXPECT_NEAR(b.mass.volume_m3, volume, 1e-15 * volume);
    EXPECT_NEAR(b.mass.mass_kg, density * volume, 1e-14 * density * volume);
    EXPECT_LT(b.mass.centre_of_mass.norm(), 1e-15);
    const double i = 0.4 * b.mass.mass_kg * kRadius * kRadius;
    EXPECT_LT((b.mass.inertia_com - i * Eigen::Matrix3d::Identity()).norm(), 1e-14 * i);
    // A mass instead: the density it implies gives that mass exactly (scenario "mass_kg").
    computeMassProperties(b, 0.25 / b.mass.volume_m3);
    EXPECT_NEAR(b.mass.mass_kg, 0.25, 1e-15);
  }
  // The tessellation's own volume is smaller (its faces lie inside): the closed form is not it.
  const ObjectModel b = ball("b");
  EXPECT_GT(b.mass.volume_m3, geometry::massProperties(b.geometry->collision.mesh, 1.0).volume_m3);
}

TEST(SphereMechanics, ABallRollsDownASlopeWithoutSlipping) {
  const double theta = 20.0 * 3.14159265358979323846 / 180.0;
  Options opt;
  opt.ground.enabled = true;
  opt.gravity_world = 9.81 * Eigen::Vector3d(std::sin(theta), 0.0, -std::cos(theta));
  opt.contact.constraint()->torsional = 0.0;
  auto model = compileModel(test::barrettHand(), {ball("ball")}, opt);
  SimState s = test::stateAt(*model, {ballAt({5.0, 0.0, kRadius})});
  const double t_end = 0.5;
  while (s.time < t_end - 1e-9) step(*model, s);
  const double a_solid = 9.81 * std::sin(theta) / (1.0 + 2.0 / 5.0);
  const Eigen::Vector3d v = s.object_twist_world[0].head<3>();
  const Eigen::Vector3d w = s.object_twist_world[0].tail<3>();
  // The ball's own mass properties are the closed form's (ABallHasTheMassPropertiesOfABall).
  EXPECT_NEAR(v.x(), a_solid * t_end, 1e-12 * a_solid * t_end);
  // Rolling: the contact point does not move, omega_y = v_x / r.
  EXPECT_NEAR(w.y(), v.x() / kRadius, 1e-12 * v.x() / kRadius);
  // Straight down the fall line: an isotropic inertia couples no spin sideways.
  EXPECT_LT(std::abs(v.y()) + std::abs(v.z()), 1e-12 * v.x());
  EXPECT_EQ(s.warning_count, 0);
}

TEST(SphereMechanics, ABallRestsOnTheGroundOneRadiusUp) {
  Options opt;
  opt.ground.enabled = true;
  auto model = compileModel(test::barrettHand(), {ball("ball")}, opt);
  SimState s = test::stateAt(*model, {ballAt({5.0, 0.0, kRadius + 0.002})});
  for (int i = 0; i < 1000; ++i) step(*model, s);
  // Resting contacts settle within the slop (ContactOptions::slop) of the surface: the ball's
  // centre is one radius up, not the tessellation's face.
  EXPECT_NEAR(s.object_pose_world[0].translation().z(), kRadius, opt.contact.constraint()->slop);
  EXPECT_LT(s.object_twist_world[0].norm(), 1e-6);
  std::size_t ground = 0;
  for (const Contact& c : s.object_contacts) ground += c.other == kGround ? 1 : 0;
  EXPECT_EQ(ground, 1u);
  EXPECT_EQ(s.warning_count, 0);
}

TEST(SphereMechanics, ABallRestsOnATableBoxOneRadiusUp) {
  Options opt;
  opt.ground.enabled = true;
  // A fixed 20 x 20 x 10 cm table, its top at z = 0.1 m, yawed so its axes are not the world's.
  const ObjectModel table = test::boxObject("table", Eigen::Vector3d(0.2, 0.2, 0.1), false, 1000.0);
  Eigen::Isometry3d table_pose = test::at({5.0, 0.0, 0.05});
  table_pose.linear() = Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  for (int order = 0; order < 2; ++order) {
    const ObjectModel b = ball("ball");
    const Eigen::Isometry3d b_pose = ballAt({5.01, 0.02, 0.1 + kRadius + 0.002});
    auto model = compileModel(test::barrettHand(),
                              order == 0 ? std::vector<ObjectModel>{table, b}
                                         : std::vector<ObjectModel>{b, table},
                              opt);
    SimState s =
        test::stateAt(*model, order == 0 ? std::vector<Eigen::Isometry3d>{table_pose, b_pose}
                                         : std::vector<Eigen::Isometry3d>{b_pose, table_pose});
    const std::size_t which = order == 0 ? 1 : 0;
    for (int i = 0; i < 1000; ++i) step(*model, s);
    const Eigen::Vector3d c = s.object_pose_world[which].translation();
    EXPECT_NEAR(c.z(), 0.1 + kRadius, opt.contact.constraint()->slop) << "order " << order;
    EXPECT_LT((c.head<2>() - Eigen::Vector2d(5.01, 0.02)).norm(), 1e-6) << "order " << order;
    EXPECT_EQ(s.warning_count, 0);
  }
}

// Two free balls, no gravity, closing at 1 m/s off centre: momentum is kept, energy never
// grows, and listing them the other way round gives the same motion.
TEST(SphereMechanics, TwoBallsCollideKeepingMomentumInEitherOrder) {
  Options opt;
  opt.gravity_world.setZero();
  ObjectModel a = ball("a");
  ObjectModel b = ball("b");
  const Eigen::Isometry3d a_pose = ballAt({5.0 - 0.05, 0.0, 1.0});
  const Eigen::Isometry3d b_pose = ballAt({5.0 + 0.05, 0.01, 1.0});
  const Twist a_twist = test::twist({0.5, 0.0, 0.0}), b_twist = test::twist({-0.5, 0.0, 0.0});
  Eigen::Matrix<double, 6, 1> end_a[2], end_b[2];
  for (int order = 0; order < 2; ++order) {
    auto model = compileModel(test::barrettHand(),
                              order == 0 ? std::vector<ObjectModel>{a, b}
                                         : std::vector<ObjectModel>{b, a},
                              opt);
    SimState s = test::stateAt(
        *model,
        order == 0 ? std::vector<Eigen::Isometry3d>{a_pose, b_pose}
                   : std::vector<Eigen::Isometry3d>{b_pose, a_pose},
        {},
        order == 0 ? std::vector<Twist>{a_twist, b_twist} : std::vector<Twist>{b_twist, a_twist});
    const std::size_t ia = order == 0 ? 0 : 1, ib = 1 - ia;
    const double m = model->objects[0].mass.mass_kg;
    auto momentum = [&]() {
      return Eigen::Vector3d(m * (s.object_twist_world[0] + s.object_twist_world[1]).head<3>());
    };
    const Eigen::Vector3d p0 = momentum();
    const double e0 = test::freeKineticEnergy(*model, s);
    bool touched = false;
    for (int i = 0; i < 200; ++i) {
      step(*model, s);
      touched = touched || !s.object_contacts.empty();
      ASSERT_LE(test::freeKineticEnergy(*model, s), e0 * (1.0 + 1e-9)) << "step " << i;
    }
    EXPECT_TRUE(touched);
    EXPECT_LT((momentum() - p0).norm(), 1e-12);
    // The contact stopped the approach: along the line of centres they no longer close.
    const Eigen::Vector3d n = (s.object_pose_world[ib].translation() -
                               s.object_pose_world[ia].translation()).normalized();
    EXPECT_GE((s.object_twist_world[ib] - s.object_twist_world[ia]).head<3>().dot(n), -1e-6);
    EXPECT_LT(s.object_twist_world[ia].x(), 0.45);
    end_a[order] = s.object_twist_world[ia];
    end_b[order] = s.object_twist_world[ib];
    EXPECT_EQ(s.warning_count, 0);
  }
  EXPECT_LT((end_a[0] - end_a[1]).norm(), 1e-9);
  EXPECT_LT((end_b[0] - end_b[1]).norm(), 1e-9);
}
