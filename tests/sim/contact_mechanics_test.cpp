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
#include "../support/free_object_energy.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A free box of edge `edge`, colliding as its exact mesh or as its convex hull.
ObjectModel cube(const std::string& name, double edge, double mass,
                 collision::CollisionShape shape = collision::CollisionShape::Mesh) {
  ObjectModel o = test::meshObject(name, geometry::makeBox(Eigen::Vector3d::Constant(edge)), mass);
  if (shape != collision::CollisionShape::Mesh)
    o.geometry = withCollisionShape(*o.geometry, shape, 18);
  return o;
}

// The stack and order tests, for both collision shapes (docs/collision.md, "Collision shapes").
class ContactMechanicsShape : public ::testing::TestWithParam<collision::CollisionShape> {};

// A 5 cm, 0.2 kg cube resting on the ground under gravity tilted by `tilt` from -z, its
// downhill direction at `azimuth` from the world x axis (the slope without turning the
// ground). Returns the cube's displacement after `seconds`.
Eigen::Vector3d slideOnSlope(double tilt, double azimuth, double mu, double seconds) {
  Options opt;
  opt.ground.enabled = true;
  opt.gravity_world = 9.81 * Eigen::Vector3d(std::sin(tilt) * std::cos(azimuth),
                                             std::sin(tilt) * std::sin(azimuth), -std::cos(tilt));
  ObjectModel o = cube("cube", 0.05, 0.2);
  o.friction = mu;
  auto model = compileModel(test::barrettHand(), {o}, opt);
  SimState s =
      test::stateAt(*model, {test::at({5.0, 0.0, 0.025 - opt.contact.constraint()->slop})});
  const Eigen::Vector3d start = test::centreOfMassWorld(*model, s, 0);
  while (s.time < seconds - 1e-9) step(*model, s);
  EXPECT_EQ(s.warning_count, 0);
  return test::centreOfMassWorld(*model, s, 0) - start;
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
  ObjectModel fixed = test::boxObject("fixed", Eigen::Vector3d::Constant(0.05), false, 1000.0);
  ObjectModel moving = cube("moving", 0.05, 0.2);
  Eigen::Isometry3d moving_pose = test::at({5.0 - 0.09, 0.0, 0.0});
  moving_pose.linear() = Eigen::AngleAxisd(kPi / 4.0, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  auto model = compileModel(test::barrettHand(), {moving, fixed}, opt);
  SimState s = test::stateAt(*model, {moving_pose, test::at({5.0, 0.0, 0.0})}, {},
                             {test::twist({0.1, 0.0, 0.0}), Twist::Zero()});
  const double e0 = test::freeKineticEnergy(*model, s);
  bool touched = false;
  for (int i = 0; i < 1000; ++i) {
    step(*model, s);
    touched = touched || !s.object_contacts.empty();
    ASSERT_LE(test::freeKineticEnergy(*model, s), e0 * (1.0 + 1e-9)) << "step " << i;
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
    ObjectModel a = cube("a", 0.05, 0.2);
    Eigen::Isometry3d a_pose = test::at({5.0 - 0.06, 0.01 * u(rng), 0.01 * u(rng)});
    ObjectModel b = cube("b", 0.05, 0.2);
    Eigen::Isometry3d b_pose = test::at({5.0 + 0.06, 0.01 * u(rng), 0.01 * u(rng)});
    a_pose.linear() = randomRotation();
    b_pose.linear() = randomRotation();
    a.friction = b.friction = 0.5;
    auto model = compileModel(test::barrettHand(), {a, b}, opt);
    SimState s = test::stateAt(*model, {a_pose, b_pose}, {},
                               {test::twist({0.5, 0.0, 0.0}), test::twist({-0.5, 0.0, 0.0})});
    const double e0 = test::freeKineticEnergy(*model, s);
    bool hit = false;
    for (int i = 0; i < 300; ++i) {
      step(*model, s);
      hit = hit || !s.object_contacts.empty();
      ASSERT_LE(test::freeKineticEnergy(*model, s), e0 * (1.0 + 1e-9))
          << "trial " << trial << " step " << i;
    }
    touched += hit ? 1 : 0;
    EXPECT_EQ(s.warning_count, 0) << "trial " << trial;
  }
  EXPECT_GE(touched, 25);  // the cubes meet in (nearly) every trial
}

// Two 5 cm, 0.2 kg cubes stacked on the ground stand: the top one stays where it was put
// (within the slop), nothing moves; the stack exploded within 8 ms.
TEST_P(ContactMechanicsShape, TwoStackedCubesStand) {
  Options opt;
  opt.ground.enabled = true;
  const double slop = opt.contact.constraint()->slop;
  ObjectModel bottom = cube("bottom", 0.05, 0.2, GetParam());
  ObjectModel top = cube("top", 0.05, 0.2, GetParam());
  auto model = compileModel(test::barrettHand(), {bottom, top}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.025}), test::at({5.0, 0.0, 0.075})});
  double most = 0.0;
  for (int i = 0; i < 1000; ++i) {
    step(*model, s);
    most = std::max(most, test::freeKineticEnergy(*model, s));
  }
  // Settling into the slop of two contacts is all the motion there is: m g (2 slop) at most.
  EXPECT_LT(most, 0.2 * 9.81 * 2.0 * slop);
  EXPECT_NEAR(test::centreOfMassWorld(*model, s, 1).z(), 0.075, 2.5 * slop);
  EXPECT_LT((test::centreOfMassWorld(*model, s, 1).head<2>() - Eigen::Vector2d(5.0, 0.0)).norm(),
            1e-6);
  EXPECT_LT((test::centreOfMassWorld(*model, s, 0).head<2>() - Eigen::Vector2d(5.0, 0.0)).norm(),
            1e-6);
  EXPECT_EQ(s.warning_count, 0);
}

// A 4 cm cube set on a free 5 cm cube on the ground, listed first and then second: it rests on
// it in both orders, at the same place (it sank through at 0.1 m/s when it was listed
// second: the depth was read from the first object's vertices only).
TEST_P(ContactMechanicsShape, ASmallCubeOnALargeOneRestsTheSameInEitherOrder) {
  Options opt;
  opt.ground.enabled = true;
  const double slop = opt.contact.constraint()->slop;
  const ObjectModel base = cube("base", 0.05, 0.2, GetParam());
  const ObjectModel small = cube("small", 0.04, 0.1, GetParam());
  const Eigen::Isometry3d base_pose = test::at({5.0, 0.0, 0.025});
  const Eigen::Isometry3d small_pose = test::at({5.003, 0.002, 0.07});
  Eigen::Vector3d ends[2];
  for (int order = 0; order < 2; ++order) {
    auto model = compileModel(
        test::barrettHand(),
        order == 0 ? std::vector<ObjectModel>{base, small} : std::vector<ObjectModel>{small, base},
        opt);
    SimState s =
        test::stateAt(*model, order == 0 ? std::vector<Eigen::Isometry3d>{base_pose, small_pose}
                                         : std::vector<Eigen::Isometry3d>{small_pose, base_pose});
    const std::size_t which = order == 0 ? 1 : 0;
    for (int i = 0; i < 1000; ++i) step(*model, s);
    ends[order] = test::centreOfMassWorld(*model, s, which);
    EXPECT_NEAR(ends[order].z(), 0.07, 2.5 * slop) << "order " << order;
    EXPECT_EQ(s.warning_count, 0);
  }
  EXPECT_LT((ends[0] - ends[1]).norm(), 1e-6);
}

INSTANTIATE_TEST_SUITE_P(BothShapes, ContactMechanicsShape,
                         ::testing::Values(collision::CollisionShape::Mesh,
                                           collision::CollisionShape::Hull),
                         [](const ::testing::TestParamInfo<collision::CollisionShape>& shape_info) {
                           return std::string(collision::collisionShapeName(shape_info.param));
                         });

// A 5 cm, 0.2 kg cube spinning at 10 rad/s on the ground (mu 0.1, no torsional friction): its
// face presses the ground uniformly with m g / a^2, so Coulomb friction resists the spin with
// mu (m g / a^2) * integral |x| dA over the square = mu m g a (sqrt 2 + ln(1 + sqrt 2)) / 6, and
// it decelerates at that over m a^2 / 6: 45.0 rad/s^2, whatever its yaw. (Four corner points
// at a / sqrt 2 from the axis gave 6 mu g / (sqrt 2 a) = 83.2 before the patch's friction
// points; with the square pyramid 102-111 depending on the yaw.)
TEST(ContactMechanics, ACubeSpinningOnTheGroundSlowsTheSameAtEveryYaw) {
  const double a = 0.05, mu = 0.1;
  const double mean_radius = a * (std::sqrt(2.0) + std::log(1.0 + std::sqrt(2.0))) / 6.0;
  const double expected = mu * 9.81 * mean_radius / (a * a / 6.0);
  for (double yaw_deg : {0.0, 20.0, 45.0}) {
    Options opt;
    opt.ground.enabled = true;
    opt.contact.constraint()->torsional = 0.0;
    ObjectModel o = cube("cube", a, 0.2);
    o.friction = mu;
    Eigen::Isometry3d pose = test::at({5.0, 0.0, 0.5 * a - opt.contact.constraint()->slop});
    pose.linear() =
        Eigen::AngleAxisd(yaw_deg * kPi / 180.0, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    auto model = compileModel(test::barrettHand(), {o}, opt);
    SimState s =
        test::stateAt(*model, {pose}, {}, {test::twist(Eigen::Vector3d::Zero(), {0.0, 0.0, 10.0})});
    for (int i = 0; i < 10; ++i) step(*model, s);
    const double w0 = s.object_twist_world[0][5], t0 = s.time;
    for (int i = 0; i < 50; ++i) step(*model, s);
    const double alpha = (w0 - s.object_twist_world[0][5]) / (s.time - t0);
    EXPECT_NEAR(alpha, expected, 0.01 * expected) << "yaw " << yaw_deg;
    // Spinning in place: the centre does not wander.
    EXPECT_LT((test::centreOfMassWorld(*model, s, 0).head<2>() - Eigen::Vector2d(5.0, 0.0)).norm(),
              1e-9);
  }
}

// A 10 x 6 cm box spinning flat at 8 rad/s (mu 0.2, no torsional friction), on the ground and
// on a fixed 20 cm table box: uniform pressure m g / (a b) over its face resists the spin with
// mu m g rbar, rbar the mean distance of the rectangle from its centre (summed here over a
// 1000 x 600 grid), against I_zz = m (a^2 + b^2) / 12. The table's patch is the k-DOP
// pipeline's face-on-face polygon, the ground's the box's support points: the same answer.
TEST(ContactMechanics, ABoxSpinningOnItsFaceSlowsAtTheMomentOfUniformPressure) {
  const double a = 0.1, b = 0.06, c = 0.04, mu = 0.2;
  double sum = 0.0;
  const int nx = 1000, ny = 600;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      sum += std::hypot(((i + 0.5) / nx - 0.5) * a, ((j + 0.5) / ny - 0.5) * b);
  const double rbar = sum / (nx * ny);
  const double expected = mu * 9.81 * rbar / ((a * a + b * b) / 12.0);
  for (const bool on_table : {false, true}) {
    Options opt;
    opt.ground.enabled = !on_table;
    opt.contact.constraint()->torsional = 0.0;
    std::vector<ObjectModel> objects;
    std::vector<Eigen::Isometry3d> poses;
    std::vector<Twist> twists = {test::twist(Eigen::Vector3d::Zero(), {0.0, 0.0, 8.0})};
    const double base = on_table ? 0.1 : 0.0;  // the table's top
    objects.push_back(test::boxObject("box", {a, b, c}, true, 500.0));
    poses.push_back(test::at({5.0, 0.0, base + 0.5 * c - opt.contact.constraint()->slop}));
    objects.back().friction = mu;
    if (on_table) {
      objects.push_back(test::boxObject("table", {0.2, 0.2, 0.1}, false, 500.0));
      poses.push_back(test::at({5.0, 0.0, 0.05}));
      twists.push_back(Twist::Zero());
      objects.back().friction = mu;
    }
    auto model = compileModel(test::barrettHand(), objects, opt);
    SimState s = test::stateAt(*model, poses, {}, twists);
    for (int i = 0; i < 10; ++i) step(*model, s);
    const double w0 = s.object_twist_world[0][5], t0 = s.time;
    for (int i = 0; i < 50; ++i) step(*model, s);
    const double alpha = (w0 - s.object_twist_world[0][5]) / (s.time - t0);
    EXPECT_NEAR(alpha, expected, 0.02 * expected) << (on_table ? "table" : "ground");
  }
}
