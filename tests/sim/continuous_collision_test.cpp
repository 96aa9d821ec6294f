// SPDX-License-Identifier: GPL-3.0-or-later
// Continuous collision of fast free bodies (docs/free-objects.md, "Continuous collision"), against
// mechanics: a 1 cm cube dropped from 0.3 m and thrown at 5 and 20 m/s onto a fixed 2 mm plate
// (and seed004's ground), in both contact models, ends resting on the top face, never deeper
// than the model's own give, and its kinetic plus potential energy (worked here from the cube's
// closed-form inertia) never exceeds the start's; a cube thrown at a free thin plate without
// gravity keeps the total momentum and stays in front of it; a cube thrown at 60 m/s at the
// gripper's palm stops under it, and at 40 m/s at a jaw outside it; a cube stops on a flat
// square; slow cubes run bit for bit as without the stage; the scenario key.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "../support/box_objects.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

constexpr double kCube = 0.01;       // edge [m]
constexpr double kCubeMass = 0.05;   // [kg]
constexpr double kPlate = 0.002;     // thickness [m]
constexpr double kPlateTop = 0.001;  // the plate is centred on z = 0 [m]
constexpr double kG = 9.81;          // [m/s^2]

std::shared_ptr<const hand::HandModel> gripper() {
  static const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("gripper2p"));
  return hand;
}

// The hand parked far from the objects.
Eigen::Isometry3d farPalm() {
  Eigen::Isometry3d palm = Eigen::Isometry3d::Identity();
  palm.translation() = Eigen::Vector3d(5.0, 5.0, 5.0);
  return palm;
}

// The free cube (its start velocity is the plan's or the state's: test::twist).
ObjectModel freeCube() {
  return test::meshObject("cube", geometry::makeBox(Eigen::Vector3d::Constant(kCube)), kCubeMass);
}

Options options(bool seed004) {
  Options opt;
  opt.gravity_world = Eigen::Vector3d(0.0, 0.0, -kG);
  if (seed004) opt.contact.useVolumePenalty();
  return opt;
}

// Kinetic plus potential energy of the cube [J], its inertia in closed form.
double cubeEnergy(const SimState& s, std::size_t o) {
  const Eigen::Matrix3d R = s.object_pose_world[o].linear();
  const Eigen::Vector3d v = s.object_twist_world[o].head<3>();
  const Eigen::Vector3d w = s.object_twist_world[o].tail<3>();
  const Eigen::Matrix3d inertia =
      R * test::boxInertia(Eigen::Vector3d::Constant(kCube), kCubeMass) * R.transpose();
  return 0.5 * kCubeMass * v.squaredNorm() + 0.5 * w.dot(inertia * w) +
         kCubeMass * kG * s.object_pose_world[o].translation().z();
}

struct Drop {
  double lowest_z = 1e9;   // lowest COM height seen [m]
  double energy_gain = 0;  // largest energy above the start's [J]
  double start_energy = 0;
  double end_z = 0, end_speed = 0;
  std::int64_t clamps = 0;  // times the continuous stage acted
};

// Drops (or throws) the cube from COM height z0 with vertical velocity vz onto the fixed plate
// (or, `ground`, onto the ground plane at the plate's top face instead) and runs `steps` steps.
Drop dropOnPlate(bool seed004, double z0, double vz, int steps, bool ground = false) {
  std::vector<ObjectModel> objects;
  std::vector<Eigen::Isometry3d> poses;
  std::vector<Twist> twists;
  Options opt = options(seed004);
  if (ground) {
    opt.ground.enabled = true;
    opt.ground.height = kPlateTop;
  } else {
    objects.push_back(test::boxObject("plate", {0.1, 0.1, kPlate}, false, 1000.0));
    poses.push_back(Eigen::Isometry3d::Identity());
    twists.push_back(Twist::Zero());
  }
  objects.push_back(freeCube());
  poses.push_back(test::at({0.0, 0.0, z0}));
  twists.push_back(test::twist({0.0, 0.0, vz}));
  const std::size_t c = objects.size() - 1;
  const auto model = compileModel(gripper(), objects, opt);
  SimState s = makeState(*model, {}, farPalm(), poses, twists);
  Drop d;
  d.start_energy = cubeEnergy(s, c);
  for (int i = 0; i < steps; ++i) {
    step(*model, s);
    d.lowest_z = std::min(d.lowest_z, s.object_pose_world[c].translation().z());
    d.energy_gain = std::max(d.energy_gain, cubeEnergy(s, c) - d.start_energy);
  }
  d.end_z = s.object_pose_world[c].translation().z();
  d.end_speed = s.object_twist_world[c].norm();
  EXPECT_EQ(s.object_stopped[c], 0);
  d.clamps = s.continuous_collisions;
  return d;
}

// `sink`: how far the cube may go into the plate [m].
void expectStopsOnThePlate(const Drop& d, double sink) {
  const double resting = kPlateTop + 0.5 * kCube;  // COM height resting on the top face
  EXPECT_GT(d.lowest_z, resting - sink);
  EXPECT_NEAR(d.end_z, resting, 2e-4);
  EXPECT_LT(d.end_speed, 1e-3);
  // No energy from nowhere: the plate is fixed and only gravity works (rounding allowed).
  EXPECT_LE(d.energy_gain, 1e-9 * d.start_energy);
  EXPECT_GE(d.clamps, 1);
}

// From 0.3 m: 2.43 m/s at the plate, 2.4 mm per 1 ms step, more than the plate is thick.
constexpr double kDropZ = kPlateTop + 0.3 + 0.5 * kCube;
// Thrown from 3 cm above the plate.
constexpr double kThrowZ = kPlateTop + 0.03 + 0.5 * kCube;

}  // namespace

// The default model stops the cube where the contact begins: at most the slop (0.1 mm) and the
// stage's tolerance (0.1 mm) deep.
constexpr double kShallow = 2e-4;

TEST(ContinuousCollision, ACubeDroppedFrom30CmStopsOnAThinFixedPlate) {
  expectStopsOnThePlate(dropOnPlate(false, kDropZ, 0.0, 450), kShallow);
}

TEST(ContinuousCollision, ACubeThrownAt5MpsStopsOnAThinFixedPlate) {
  expectStopsOnThePlate(dropOnPlate(false, kThrowZ, -5.0, 200), kShallow);
}

TEST(ContinuousCollision, ACubeThrownAt20MpsStopsOnAThinFixedPlate) {
  expectStopsOnThePlate(dropOnPlate(false, kThrowZ, -20.0, 200), kShallow);
}

// The penalty model's spring gives way while it stops the cube (at 20 m/s by 1.4 mm, and the
// cube bounces 0.18 m high), but never lets it through the 2 mm plate.
TEST(ContinuousCollision, Seed004ACubeDroppedFrom30CmStopsOnAThinFixedPlate) {
  expectStopsOnThePlate(dropOnPlate(true, kDropZ, 0.0, 450), kShallow);
}

TEST(ContinuousCollision, Seed004ACubeThrownAt5MpsStopsOnAThinFixedPlate) {
  expectStopsOnThePlate(dropOnPlate(true, kThrowZ, -5.0, 200), kShallow);
}

TEST(ContinuousCollision, Seed004ACubeThrownAt20MpsStopsOnAThinFixedPlate) {
  expectStopsOnThePlate(dropOnPlate(true, kThrowZ, -20.0, 1500), 0.75 * kPlate);
}

// The seed004 model's ground is a box 100 m deep: at 20 m/s the cube went 20 mm into it in one
// step, and its spring threw it on through.
TEST(ContinuousCollision, Seed004ACubeThrownAt20MpsStopsOnTheGround) {
  expectStopsOnThePlate(dropOnPlate(true, kThrowZ, -20.0, 1500, true), 0.75 * kPlate);
}

namespace {

// A 50 g cube thrown at 20 m/s face first at a free 2 mm plate of 20 g, without gravity: the
// total momentum stays the start's (to rounding), the kinetic energy never grows, and the cube
// never gets past the plate. `sink`: how far the cube may go into the plate [m].
void throwAtAFreePlate(bool seed004, double sink) {
  Options opt = options(seed004);
  opt.gravity_world.setZero();
  const ObjectModel plate = test::boxObject("plate", {0.1, 0.1, kPlate}, true, 1000.0);
  const auto model = compileModel(gripper(), {plate, freeCube()}, opt);
  SimState s = makeState(*model, {}, farPalm(),
                         {Eigen::Isometry3d::Identity(), test::at({0.0, 0.0, kThrowZ})},
                         {Twist::Zero(), test::twist({0.0, 0.0, -20.0})});
  const double mass[2] = {0.1 * 0.1 * kPlate * 1000.0, kCubeMass};
  const Eigen::Vector3d size[2] = {{0.1, 0.1, kPlate}, Eigen::Vector3d::Constant(kCube)};
  const auto momentum = [&] {
    return Eigen::Vector3d(mass[0] * s.object_twist_world[0].head<3>() +
                           mass[1] * s.object_twist_world[1].head<3>());
  };
  const auto kinetic = [&] {
    double e = 0.0;
    for (std::size_t o = 0; o < 2; ++o) {
      const Eigen::Matrix3d R = s.object_pose_world[o].linear();
      const Eigen::Vector3d w = s.object_twist_world[o].tail<3>();
      e += 0.5 * mass[o] * s.object_twist_world[o].head<3>().squaredNorm() +
           0.5 * w.dot(R * test::boxInertia(size[o], mass[o]) * R.transpose() * w);
    }
    return e;
  };
  const Eigen::Vector3d p0 = momentum();
  const double e0 = kinetic();
  double closest = 1e9;
  for (int i = 0; i < 60; ++i) {
    step(*model, s);
    ASSERT_LT((momentum() - p0).norm(), 1e-9 * p0.norm()) << "step " << i;
    ASSERT_LE(kinetic(), e0 * (1.0 + 1e-9)) << "step " << i;
    closest = std::min(closest, s.object_pose_world[1].translation().z() -
                                    s.object_pose_world[0].translation().z());
  }
  // Face to face the centres are half the cube and half the plate apart.
  EXPECT_GT(closest, 0.5 * (kCube + kPlate) - sink);
  // They met: the plate took some of the cube's momentum.
  EXPECT_LT(s.object_twist_world[0].z(), -1.0);
  EXPECT_EQ(s.warning_count, 0);
}

}  // namespace

TEST(ContinuousCollision, ACubeThrownAtAFreeThinPlateKeepsMomentumAndStaysInFront) {
  throwAtAFreePlate(false, kShallow);
}

TEST(ContinuousCollision, Seed004ACubeThrownAtAFreeThinPlateKeepsMomentumAndStaysInFront) {
  throwAtAFreePlate(true, 0.75 * kPlate);
}

// A cube sliding slowly (0.2 m/s) across the fixed plate and a second one resting on it: nothing
// moves by a fraction of the plate's thickness per step, so the stage does not act and the run
// is the one without it, bit for bit.
TEST(ContinuousCollision, SlowBodiesRunBitForBitAsWithoutTheStage) {
  for (const bool seed004 : {false, true}) {
    const ObjectModel plate = test::boxObject("plate", {0.1, 0.1, kPlate}, false, 1000.0);
    const double z = kPlateTop + 0.5 * kCube - 5e-5;
    const ObjectModel slider = freeCube();
    const ObjectModel resting = freeCube();
    const std::vector<Eigen::Isometry3d> poses = {
        Eigen::Isometry3d::Identity(), test::at({-0.03, 0.0, z}), test::at({0.0, 0.03, z})};
    const std::vector<Twist> twists = {Twist::Zero(), test::twist({0.2, 0.0, 0.0}), Twist::Zero()};
    Options with = options(seed004), without = options(seed004);
    with.contact.continuous = true;
    without.contact.continuous = false;
    const auto a = compileModel(gripper(), {plate, slider, resting}, with);
    const auto b = compileModel(gripper(), {plate, slider, resting}, without);
    SimState sa = makeState(*a, {}, farPalm(), poses, twists),
             sb = makeState(*b, {}, farPalm(), poses, twists);
    for (int i = 0; i < 300; ++i) {
      step(*a, sa);
      step(*b, sb);
      for (std::size_t o = 1; o < 3; ++o) {
        ASSERT_TRUE(sa.object_pose_world[o].matrix() == sb.object_pose_world[o].matrix())
            << "seed004 " << seed004 << " step " << i;
        ASSERT_TRUE(sa.object_twist_world[o] == sb.object_twist_world[o]);
      }
    }
    EXPECT_EQ(sa.continuous_collisions, 0);
    // The slider did slide (friction stops it after v^2 / (2 mu g) = 4 mm).
    EXPECT_GT(sa.object_pose_world[1].translation().x(), -0.03 + 1e-3);
  }
}

namespace {

// The cube thrown at 60 m/s up at the gripper's palm (a 18 x 5 x 4 cm box below the palm frame's
// origin, z in [-0.04, 0]) from 6.5 cm below it, without gravity: at 60 mm per step it would be
// below the palm after one step and above it after the next. It stops under the palm's bottom
// face, and its kinetic energy never grows; `sink`: how far it may go into the palm [m].
void throwAtThePalm(bool seed004, double sink) {
  Options opt = options(seed004);
  opt.gravity_world.setZero();
  const Eigen::Vector3d palm = farPalm().translation();
  const double face = palm.z() - 0.04;  // the palm's bottom face, world z [m]
  const auto model = compileModel(gripper(), {freeCube()}, opt);
  SimState s =
      makeState(*model, {}, farPalm(), {test::at({palm.x(), palm.y(), face - 0.5 * kCube - 0.065})},
                {test::twist({0, 0, 60.0})});
  const double e0 = 0.5 * kCubeMass * 60.0 * 60.0;
  double highest = -1e9;
  for (int i = 0; i < 200; ++i) {
    step(*model, s);
    highest = std::max(highest, s.object_pose_world[0].translation().z());
    ASSERT_LE(0.5 * kCubeMass * s.object_twist_world[0].head<3>().squaredNorm(), e0);
  }
  EXPECT_LT(highest, face - 0.5 * kCube + sink);
  // It rests under the palm (default model) or bounces back off it (seed004's spring returns
  // a little of the energy).
  EXPECT_LE(s.object_twist_world[0].z(), seed004 ? 0.0 : 1e-9);
  EXPECT_GE(s.continuous_collisions, 1);
  EXPECT_EQ(s.warning_count, 0);
}

}  // namespace

TEST(ContinuousCollision, ACubeThrownAt60MpsAtThePalmStopsOnIt) {
  throwAtThePalm(false, kShallow);
}

TEST(ContinuousCollision, Seed004ACubeThrownAt60MpsAtThePalmStopsOnIt) {
  throwAtThePalm(true, 0.5 * kCube);
}

// A fixed flat square (two triangles, no thickness) and the cube thrown at 20 m/s at it: the
// poses are spaced by the cube's thickness, and the cube stops on the square's face (default
// model; the seed004 model needs closed meshes).
TEST(ContinuousCollision, ACubeThrownAt20MpsStopsOnAFlatSquare) {
  geometry::TriangleMesh square;
  square.vertices = {
      {-0.05, -0.05, 0.0}, {0.05, -0.05, 0.0}, {0.05, 0.05, 0.0}, {-0.05, 0.05, 0.0}};
  square.triangles = {{0, 1, 2}, {0, 2, 3}};
  square.updateNormals();
  auto geometry = std::make_shared<BodyGeometry>();
  geometry->collision = makeCollisionBody(square, 18);
  ObjectModel flat;
  flat.name = "square";
  flat.geometry = geometry;
  const auto model = compileModel(gripper(), {flat, freeCube()}, options(false));
  SimState s = makeState(*model, {}, farPalm(),
                         {Eigen::Isometry3d::Identity(), test::at({0.0, 0.0, 0.03 + 0.5 * kCube})},
                         {Twist::Zero(), test::twist({0.0, 0.0, -20.0})});
  double lowest = 1e9;
  for (int i = 0; i < 200; ++i) {
    step(*model, s);
    lowest = std::min(lowest, s.object_pose_world[1].translation().z());
  }
  EXPECT_GT(lowest, 0.5 * kCube - kShallow);
  EXPECT_NEAR(s.object_pose_world[1].translation().z(), 0.5 * kCube, kShallow);
  EXPECT_GE(s.continuous_collisions, 1);
}

// "contact": {"continuous": false} turns the stage off (on by default); a value that is not a
// boolean is refused where it stands.
TEST(ContinuousCollision, TheScenarioKeyIsReadAndChecked) {
  const std::string text =
      "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"gripper2p\",\n"
      " \"duration_s\": 0.1,\n"
      " \"contact\": {\"continuous\": false}}";
  EXPECT_TRUE(ContactOptions{}.continuous);
  EXPECT_FALSE(parseScenario(text, "t.json").options.contact.continuous);
  std::string bad = text;
  bad.replace(bad.find("false"), 5, "0");
  try {
    parseScenario(bad, "t.json");
    FAIL() << "a number was accepted for continuous";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().line, 3);
    EXPECT_NE(std::string(e.what()).find("/contact/continuous"), std::string::npos) << e.what();
  }
}

namespace {

// The cube thrown at 40 m/s along the palm's x at the outer face of the open gripper's jaw L
// (14 mm thick, palm x in [-0.064, -0.05] + q with q the slide's travel, palm z in [0.012,
// 0.07]), without gravity: at 40 mm per step it would be outside the jaw after one step and
// inside the gripper after the next. It must stay outside the jaw's outer face (the impact
// pushes the jaws closed, the face moves with q); `sink`: how far it may go into the jaw [m].
void throwAtAJaw(bool seed004, double sink) {
  Options opt = options(seed004);
  opt.gravity_world.setZero();
  const Eigen::Vector3d palm = farPalm().translation();
  const auto model = compileModel(gripper(), {freeCube()}, opt);
  SimState s =
      makeState(*model, {}, farPalm(), {test::at(palm + Eigen::Vector3d(-0.114, 0.0, 0.045))},
                {test::twist({40.0, 0.0, 0.0})});
  const double e0 = 0.5 * kCubeMass * 40.0 * 40.0;
  double closest = 1e9;  // least distance of the cube's centre outside the jaw's outer face
  for (int i = 0; i < 100; ++i) {
    step(*model, s);
    const double face = palm.x() - 0.064 + s.actuator_position[0];
    closest = std::min(closest, face - s.object_pose_world[0].translation().x());
    ASSERT_LE(0.5 * kCubeMass * s.object_twist_world[0].head<3>().squaredNorm(), e0);
  }
  EXPECT_GT(closest, 0.5 * kCube - sink);
  EXPECT_GE(s.continuous_collisions, 1);
}

}  // namespace

// The stage leaves the cube 0.05 mm into the jaw; the contact stage then holds it at the slop
// (0.1 mm). With the one-sided depth (the jaw's vertices, never inside the small cube) it sank
// 0.02 mm per step, 0.8 mm in 100 steps; the two-sided patch depth keeps it within 0.2 mm.
TEST(ContinuousCollision, ACubeThrownAt40MpsAtAJawStopsOnIt) {
  throwAtAJaw(false, 2e-4);
}

// In seed004 the penalty spring stops the cube after the stage has ended its step at the first
// touch: with eq. 5's impact gain scaled by the impact's energy and eq. 4's filter floor
// (docs/free-objects.md) the 1 cm cube at 40 m/s goes 6.2 mm into the 14 mm jaw before it is
// pushed back, never through it (without the stage it passes the jaw).
TEST(ContinuousCollision, Seed004ACubeThrownAt40MpsAtAJawStopsOnIt) {
  throwAtAJaw(true, 0.5 * kCube + 3e-3);
}
