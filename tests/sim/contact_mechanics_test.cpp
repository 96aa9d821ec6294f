// SPDX-License-Identifier: GPL-3.0-or-later
// Contacts between bodies checked against mechanics (issue: "contacts you can trust"):
// Coulomb friction the same in every direction of the ground (closed-form sliding on a slope
// whose fall line runs at any azimuth), no kinetic energy from the position correction (a
// turned cube hitting a fixed one, random collisions of free cubes), a stack that stands, and
// a result that does not depend on the order the objects are listed in. Each reference is
// worked here: Coulomb's acceleration g (sin t - mu cos t), the kinetic energy 1/2 m v^2 +
// 1/2 w^T I w from the boxes' closed-form inertia, positions of resting boxes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "../support/box_objects.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

constexpr double kPi = 3.14159265358979323846;

ObjectModel cube(const std::string& name, double edge, double mass, const Eigen::Vector3d& at) {
  return test::meshObject(name, geometry::makeBox(Eigen::Vector3d::Constant(edge)), mass, at);
}

// Kinetic energy of the free objects, 1/2 m v^2 + 1/2 w^T I w with I turned into the world.
double kineticEnergy(const Model& model, const SimState& s) {
  double e = 0.0;
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    if (model.objects[o].fixed) continue;
    const double m = model.objects[o].mass.mass_kg;
    const Eigen::Matrix3d R = s.object_pose_world[o].linear();
    const Eigen::Matrix3d inertia = R * model.objects[o].mass.inertia_com * R.transpose();
    const Eigen::Vector3d v = s.object_twist_world[o].head<3>();
    const Eigen::Vector3d w = s.object_twist_world[o].tail<3>();
    e += 0.5 * m * v.squaredNorm() + 0.5 * w.dot(inertia * w);
  }
  return e;
}

Eigen::Vector3d comOf(const Model& model, const SimState& s, std::size_t o) {
  return s.object_pose_world[o] * model.objects[o].mass.centre_of_mass;
}

// A 5 cm, 0.2 kg cube resting on the ground under gravity tilted by `tilt` from -z, its
// downhill direction at `azimuth` from the world x axis (the slope without turning the
// ground). Returns the cube's displacement after `seconds`.
Eigen::Vector3d slideOnSlope(double tilt, double azimuth, double mu, double seconds) {
  Options opt;
  opt.ground.enabled = true;
  opt.gravity_world = 9.81 * Eigen::Vector3d(std::sin(tilt) * std::cos(azimuth),
                                             std::sin(tilt) * std::sin(azimuth), -std::cos(tilt));
  ObjectModel o = cube("cube", 0.05, 0.2, {5.0, 0.0, 0.025 - opt.contact.slop});
  o.friction = mu;
  auto model = compileModel(test::barrettHand(), {o}, opt);
  SimState s = makeState(*model);
  const Eigen::Vector3d start = comOf(*model, s, 0);
  while (s.time < seconds - 1e-9) step(*model, s);
  EXPECT_EQ(s.warning_count, 0);
  return comOf(*model, s, 0) - start;
}

}  // namespace

// Above the friction angle (tan t = 0.7, mu 0.5) the cube slides straight down the fall line
// with Coulomb's acceleration at every azimuth; a four-sided pyramid of friction aligned with
// the world axes held it at 45 degrees (its diagonal bound is mu sqrt 2 = 0.71) and steered it
// towards an axis in between.
TEST(ContactMechanics, FrictionOnASlopeIsTheSameInEveryDirection) {
  const double mu = 0.5, tilt = std::atan(0.7), seconds = 0.5;
  const double a = 9.81 * (std::sin(tilt) - mu * std::cos(tilt));
  const double expected = 0.5 * a * seconds * seconds;
  for (double azimuth_deg : {0.0, 30.0, 45.0, 60.0, 135.0}) {
    const double azimuth = azimuth_deg * kPi / 180.0;
    const Eigen::Vector3d d = slideOnSlope(tilt, azimuth, mu, seconds);
    const Eigen::Vector3d downhill(std::cos(azimuth), std::sin(azimuth), 0.0);
    const Eigen::Vector3d across(-std::sin(azimuth), std::cos(azimuth), 0.0);
    EXPECT_NEAR(d.dot(downhill), expected, 0.02 * expected) << "azimuth " << azimuth_deg;
    EXPECT_LT(std::abs(d.dot(across)), 1e-3 * expected) << "azimuth " << azimuth_deg;
  }
}

// Below the friction angle (tan t = 0.45 < mu = 0.5) it sticks at every azimuth.
TEST(ContactMechanics, BelowTheFrictionAngleTheCubeSticksInEveryDirection) {
  for (double azimuth_deg : {0.0, 30.0, 45.0, 100.0}) {
    const Eigen::Vector3d d = slideOnSlope(std::atan(0.45), azimuth_deg * kPi / 180.0, 0.5, 0.5);
    EXPECT_LT(d.norm(), 1e-6) << "azimuth " << azimuth_deg;
  }
}

// A cube turned 45 degrees about z moving at 0.1 m/s into a fixed cube, no gravity: its
// leading edge meets a face. Without restitution the kinetic energy can only fall; pushing the
// bodies apart through their velocities made it leave at 2.2 m/s (499 times its energy).
TEST(ContactMechanics, AnEdgeHittingAFaceGainsNoEnergy) {
  Options opt;
  opt.gravity_world.setZero();
  ObjectModel fixed =
      test::boxObject("fixed", Eigen::Vector3d::Constant(0.05), false, {5.0, 0.0, 0.0}, 1000.0);
  ObjectModel moving = cube("moving", 0.05, 0.2, {5.0 - 0.09, 0.0, 0.0});
  moving.initial_pose_world.linear() =
      Eigen::AngleAxisd(kPi / 4.0, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  moving.initial_twist_world[0] = 0.1;
  auto model = compileModel(test::barrettHand(), {moving, fixed}, opt);
  SimState s = makeState(*model);
  const double e0 = kineticEnergy(*model, s);
  bool touched = false;
  for (int i = 0; i < 1000; ++i) {
    step(*model, s);
    touched = touched || !s.object_contacts.empty();
    ASSERT_LE(kineticEnergy(*model, s), e0 * (1.0 + 1e-9)) << "step " << i;
    for (const Contact& c : s.object_contacts)
      ASSERT_LT(c.depth, 1e-3) << "step " << i << ": depth estimate far beyond the true one";
  }
  EXPECT_TRUE(touched);
  EXPECT_EQ(s.warning_count, 0);
}

// Thirty collisions of two free cubes in random orientations at 1 m/s, off centre, no
// gravity: the kinetic energy never grows (it grew up to 13.6 times in 21 of them).
TEST(ContactMechanics, RandomCollisionsOfFreeCubesNeverGainEnergy) {
  Options opt;
  opt.gravity_world.setZero();
  std::mt19937 rng(19);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto randomRotation = [&]() {
    Eigen::Quaterniond q(u(rng), u(rng), u(rng), u(rng));
    return q.normalized().toRotationMatrix();
  };
  int touched = 0;
  for (int trial = 0; trial < 30; ++trial) {
    ObjectModel a = cube("a", 0.05, 0.2, {5.0 - 0.06, 0.01 * u(rng), 0.01 * u(rng)});
    ObjectModel b = cube("b", 0.05, 0.2, {5.0 + 0.06, 0.01 * u(rng), 0.01 * u(rng)});
    a.initial_pose_world.linear() = randomRotation();
    b.initial_pose_world.linear() = randomRotation();
    a.initial_twist_world[0] = 0.5;
    b.initial_twist_world[0] = -0.5;
    a.friction = b.friction = 0.5;
    auto model = compileModel(test::barrettHand(), {a, b}, opt);
    SimState s = makeState(*model);
    const double e0 = kineticEnergy(*model, s);
    bool hit = false;
    for (int i = 0; i < 300; ++i) {
      step(*model, s);
      hit = hit || !s.object_contacts.empty();
      ASSERT_LE(kineticEnergy(*model, s), e0 * (1.0 + 1e-9)) << "trial " << trial << " step " << i;
    }
    touched += hit ? 1 : 0;
    EXPECT_EQ(s.warning_count, 0) << "trial " << trial;
  }
  EXPECT_GE(touched, 25);  // the cubes meet in (nearly) every trial
}

// Two 5 cm, 0.2 kg cubes stacked on the ground stand: the top one stays where it was put
// (within the slop), nothing moves; the stack exploded within 8 ms.
TEST(ContactMechanics, TwoStackedCubesStand) {
  Options opt;
  opt.ground.enabled = true;
  const double slop = opt.contact.slop;
  ObjectModel bottom = cube("bottom", 0.05, 0.2, {5.0, 0.0, 0.025});
  ObjectModel top = cube("top", 0.05, 0.2, {5.0, 0.0, 0.075});
  auto model = compileModel(test::barrettHand(), {bottom, top}, opt);
  SimState s = makeState(*model);
  double most = 0.0;
  for (int i = 0; i < 1000; ++i) {
    step(*model, s);
    most = std::max(most, kineticEnergy(*model, s));
  }
  // Settling into the slop of two contacts is all the motion there is: m g (2 slop) at most.
  EXPECT_LT(most, 0.2 * 9.81 * 2.0 * slop);
  EXPECT_NEAR(comOf(*model, s, 1).z(), 0.075, 2.5 * slop);
  EXPECT_LT((comOf(*model, s, 1).head<2>() - Eigen::Vector2d(5.0, 0.0)).norm(), 1e-6);
  EXPECT_LT((comOf(*model, s, 0).head<2>() - Eigen::Vector2d(5.0, 0.0)).norm(), 1e-6);
  EXPECT_EQ(s.warning_count, 0);
}

// A 4 cm cube set on a free 5 cm cube on the ground, listed first and then second: it rests on
// it in both orders, at the same place (it sank through at 0.1 m/s when it was listed
// second: the depth was read from the first object's vertices only).
TEST(ContactMechanics, ASmallCubeOnALargeOneRestsTheSameInEitherOrder) {
  Options opt;
  opt.ground.enabled = true;
  const double slop = opt.contact.slop;
  const ObjectModel base = cube("base", 0.05, 0.2, {5.0, 0.0, 0.025});
  const ObjectModel small = cube("small", 0.04, 0.1, {5.003, 0.002, 0.07});
  Eigen::Vector3d ends[2];
  for (int order = 0; order < 2; ++order) {
    auto model = compileModel(
        test::barrettHand(),
        order == 0 ? std::vector<ObjectModel>{base, small} : std::vector<ObjectModel>{small, base},
        opt);
    SimState s = makeState(*model);
    const std::size_t which = order == 0 ? 1 : 0;
    for (int i = 0; i < 1000; ++i) step(*model, s);
    ends[order] = comOf(*model, s, which);
    EXPECT_NEAR(ends[order].z(), 0.07, 2.5 * slop) << "order " << order;
    EXPECT_EQ(s.warning_count, 0);
  }
  EXPECT_LT((ends[0] - ends[1]).norm(), 1e-6);
}

// A 5 cm, 0.2 kg cube spinning at 10 rad/s on the ground (mu 0.1, no torsional friction) is
// carried at its four bottom corners, each pressed with m g / 4 at a / sqrt 2 from the axis:
// it decelerates at mu m g (a / sqrt 2) / (m a^2 / 6) = 6 mu g / (sqrt 2 a) = 83.2 rad/s^2,
// whatever its yaw. With the square pyramid the friction of each corner depended on how its
// sliding direction lay to the world axes: 102-111 rad/s^2 depending on the yaw.
TEST(ContactMechanics, ACubeSpinningOnTheGroundSlowsTheSameAtEveryYaw) {
  const double a = 0.05, mu = 0.1;
  const double expected = 6.0 * mu * 9.81 / (std::sqrt(2.0) * a);
  for (double yaw_deg : {0.0, 20.0, 45.0}) {
    Options opt;
    opt.ground.enabled = true;
    opt.contact.torsional = 0.0;
    ObjectModel o = cube("cube", a, 0.2, {5.0, 0.0, 0.5 * a - opt.contact.slop});
    o.friction = mu;
    o.initial_pose_world.linear() =
        Eigen::AngleAxisd(yaw_deg * kPi / 180.0, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    o.initial_twist_world[5] = 10.0;
    auto model = compileModel(test::barrettHand(), {o}, opt);
    SimState s = makeState(*model);
    for (int i = 0; i < 10; ++i) step(*model, s);
    const double w0 = s.object_twist_world[0][5], t0 = s.time;
    for (int i = 0; i < 50; ++i) step(*model, s);
    const double alpha = (w0 - s.object_twist_world[0][5]) / (s.time - t0);
    EXPECT_NEAR(alpha, expected, 0.01 * expected) << "yaw " << yaw_deg;
    // Spinning in place: the centre does not wander.
    EXPECT_LT((comOf(*model, s, 0).head<2>() - Eigen::Vector2d(5.0, 0.0)).norm(), 1e-9);
  }
}
