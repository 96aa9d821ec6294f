// SPDX-License-Identifier: GPL-3.0-or-later
// Free rigid objects (docs/free-objects.md), each against something independent: free fall
// against the closed form and the semi-implicit Euler's known first-order term; a torque-free
// box against the invariants of Euler's equations (energy, world angular momentum, worked here
// from the box's closed-form inertia) and its intermediate-axis flip; a box on an inclined
// ground against Coulomb's law (stays when tan(theta) < mu, slides with g (sin - mu cos)
// otherwise); a box at rest on the ground against m g; the guards.
#include <gtest/gtest.h>

#include <cmath>

#include "../support/box_objects.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/rigid_body.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A free box of edge lengths `size` [m] at `density`, centred on its frame's origin (the tests
// start it far from the hand at the origin).
ObjectModel box(const Eigen::Vector3d& size, double density) {
  return test::boxObject("box", size, true, density);
}

std::shared_ptr<const hand::HandModel> barrett() {
  static const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  return hand;
}

using test::boxInertia;

Eigen::Vector3d comOf(const SimState& s) {
  return s.object_pose_world[0].translation();  // the boxes are centred on their frame
}

}  // namespace

// Semi-implicit Euler: v_n = v0 + g n dt exactly, x_n = x0 + v0 t + g t^2/2 + g t dt/2.
TEST(FreeBody, FreeFallMatchesTheClosedForm) {
  double previous_error = 0.0;
  for (double dt : {1e-3, 5e-4}) {
    Options opt;
    opt.dt = dt;
    ObjectModel o = box({0.1, 0.1, 0.1}, 1000.0);
    const Eigen::Vector3d v0(0.3, -0.2, 1.0);
    auto model = compileModel(barrett(), {o}, opt);
    SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 1.0})}, {}, {test::twist(v0)});
    const int steps = static_cast<int>(std::lround(1.0 / dt));
    for (int i = 0; i < steps; ++i) step(*model, s);
    const double t = s.time;
    const Eigen::Vector3d g = opt.gravity_world;
    const Eigen::Vector3d x0(5.0, 0.0, 1.0);
    EXPECT_LT((s.object_twist_world[0].head<3>() - (v0 + g * t)).norm(), 1e-12);
    const Eigen::Vector3d exact = x0 + v0 * t + 0.5 * g * t * t;
    const double error = (comOf(s) - exact).norm();
    EXPECT_NEAR(error, 0.5 * g.norm() * t * dt, 1e-12);
    if (previous_error > 0.0) {
      EXPECT_NEAR(error / previous_error, 0.5, 1e-9);
    }
    previous_error = error;
    EXPECT_EQ(s.warning_count, 0);
  }
}

namespace {

struct SpinResult {
  double energy_drift = 0.0;    // relative
  double momentum_drift = 0.0;  // relative
  int sign_changes = 0;         // of the body-frame component along `axis`
  double min_fraction = 1.0;    // smallest body-frame component along `axis` / |w0|
};

SpinResult spin(const Eigen::Vector3d& omega0, int axis, double seconds) {
  const Eigen::Vector3d size(0.1, 0.2, 0.3);
  Options opt;
  opt.gravity_world.setZero();
  ObjectModel o = box(size, 500.0);
  const double m = 500.0 * size.prod();
  const Eigen::Matrix3d I = boxInertia(size, m);
  auto model = compileModel(barrett(), {o}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.0})}, {},
                             {test::twist(Eigen::Vector3d::Zero(), omega0)});
  auto energy = [&](const SimState& st) {
    const Eigen::Matrix3d R = st.object_pose_world[0].linear();
    const Eigen::Vector3d w = st.object_twist_world[0].tail<3>();
    return 0.5 * w.dot(R * I * R.transpose() * w);
  };
  auto momentum = [&](const SimState& st) -> Eigen::Vector3d {
    const Eigen::Matrix3d R = st.object_pose_world[0].linear();
    return R * I * R.transpose() * st.object_twist_world[0].tail<3>();
  };
  const double e0 = energy(s);
  const Eigen::Vector3d l0 = momentum(s);
  SpinResult r;
  double last = omega0[axis];
  const int steps = static_cast<int>(std::lround(seconds / opt.dt));
  for (int i = 0; i < steps; ++i) {
    step(*model, s);
    r.energy_drift = std::max(r.energy_drift, std::abs(energy(s) - e0) / e0);
    r.momentum_drift = std::max(r.momentum_drift, (momentum(s) - l0).norm() / l0.norm());
    const Eigen::Vector3d wb =
        s.object_pose_world[0].linear().transpose() * s.object_twist_world[0].tail<3>();
    if (wb[axis] * last < 0.0) ++r.sign_changes;
    if (wb[axis] != 0.0) last = wb[axis];
    r.min_fraction = std::min(r.min_fraction, wb[axis] / omega0.norm());
  }
  EXPECT_EQ(s.warning_count, 0);
  return r;
}

}  // namespace

// The intermediate axis (y for a 0.1 x 0.2 x 0.3 box) is unstable: the spin flips over and
// back (Dzhanibekov), while energy and world angular momentum stay (midpoint rule + Cayley).
TEST(FreeBody, TorqueFreeSpinKeepsItsInvariantsAndFlipsAboutTheIntermediateAxis) {
  const SpinResult r = spin({0.01, 5.0, 0.01}, 1, 20.0);
  EXPECT_LT(r.energy_drift, 1e-9);
  EXPECT_LT(r.momentum_drift, 1e-9);
  EXPECT_GE(r.sign_changes, 2);
}

TEST(FreeBody, SpinAboutTheMajorAxisIsSteady) {
  const SpinResult r = spin({5.0, 0.01, 0.01}, 0, 20.0);
  EXPECT_LT(r.energy_drift, 1e-9);
  EXPECT_LT(r.momentum_drift, 1e-9);
  EXPECT_EQ(r.sign_changes, 0);
  EXPECT_GT(r.min_fraction, 0.99);
}

namespace {

// A 10 cm cube resting on the ground with gravity tilted by theta about y (the same physics as
// a plane inclined by theta): returns the COM's displacement along the slope after `seconds`
// and its velocity along it.
std::pair<double, double> onIncline(double theta, double mu, double seconds) {
  Options opt;
  opt.ground.enabled = true;
  opt.gravity_world = 9.81 * Eigen::Vector3d(std::sin(theta), 0.0, -std::cos(theta));
  ObjectModel o = box({0.1, 0.1, 0.1}, 1000.0);
  o.friction = mu;
  auto model = compileModel(barrett(), {o}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.05 - opt.contact.constraint()->slop})});
  const Eigen::Vector3d start = comOf(s);
  const int steps = static_cast<int>(std::lround(seconds / opt.dt));
  for (int i = 0; i < steps; ++i) step(*model, s);
  EXPECT_EQ(s.warning_count, 0);
  return {comOf(s).x() - start.x(), s.object_twist_world[0].x()};
}

}  // namespace

TEST(FreeBody, ABoxOnAnInclineBelowTheFrictionAngleStaysPut) {
  // tan(20 deg) = 0.364 < 0.5: velocity-level Coulomb friction sticks exactly, no creep.
  const auto [dx, v] = onIncline(20.0 * kPi / 180.0, 0.5, 10.0);
  EXPECT_LT(std::abs(dx), 1e-6);
  EXPECT_LT(std::abs(v), 1e-9);
}

TEST(FreeBody, ABoxOnAnInclineAboveTheFrictionAngleSlidesWithCoulombsAcceleration) {
  const double theta = 35.0 * kPi / 180.0, mu = 0.5;
  const double a = 9.81 * (std::sin(theta) - mu * std::cos(theta));
  const auto [dx, v] = onIncline(theta, mu, 1.0);
  EXPECT_NEAR(v / 1.0, a, 0.02 * a);
  EXPECT_NEAR(dx, 0.5 * a, 0.02 * 0.5 * a);
}

TEST(FreeBody, ABoxDroppedOnTheGroundComesToRestFlatCarryingItsWeight) {
  Options opt;
  opt.ground.enabled = true;
  ObjectModel o = box({0.1, 0.1, 0.1}, 1000.0);
  auto model = compileModel(barrett(), {o}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.2})});
  while (s.time < 1.0) step(*model, s);
  const Eigen::Isometry3d rest = s.object_pose_world[0];
  // Rests on its face, within the slop.
  EXPECT_NEAR(comOf(s).z(), 0.05 - opt.contact.constraint()->slop, 1e-9);
  double max_move = 0.0, max_turn = 0.0;
  for (int i = 0; i < 2000; ++i) {
    step(*model, s);
    max_move = std::max(max_move, (s.object_pose_world[0].translation() - rest.translation()).norm());
    max_turn = std::max(max_turn, (s.object_pose_world[0].linear() - rest.linear()).norm());
    double normal = 0.0;
    Eigen::Vector3d total = Eigen::Vector3d::Zero();
    for (const Contact& c : s.object_contacts) {
      normal += c.force;
      total += c.forceOnObjectWorld();
    }
    const double weight = 1000.0 * 1e-3 * 9.81;
    ASSERT_NEAR(normal, weight, 1e-9 * weight);
    ASSERT_LT((total - Eigen::Vector3d(0, 0, weight)).norm(), 1e-9 * weight);
  }
  EXPECT_LT(max_move, 1e-12);  // no drift
  EXPECT_LT(max_turn, 1e-12);  // no rocking
  EXPECT_EQ(s.warning_count, 0);
}

// A box whose faces are cut into many triangles (each triangle split into four, four times:
// 12 x 256 triangles, 289 vertices on the bottom face) rests like the 12-triangle box: the
// ground keeps at most nine points of its footprint, spanning the same support polygon.
TEST(FreeBody, AFinelyMeshedBoxRestsOnAFewPointsOfItsFootprint) {
  geometry::TriangleMesh mesh = geometry::makeBox({0.1, 0.1, 0.1});
  for (int pass = 0; pass < 4; ++pass) {
    geometry::TriangleMesh fine;
    fine.vertices = mesh.vertices;
    for (const auto& t : mesh.triangles) {
      const auto mid = [&](int a, int b) {
        fine.vertices.push_back(0.5 * (mesh.vertices[static_cast<std::size_t>(a)] +
                                       mesh.vertices[static_cast<std::size_t>(b)]));
        return static_cast<int>(fine.vertices.size()) - 1;
      };
      const int ab = mid(t[0], t[1]), bc = mid(t[1], t[2]), ca = mid(t[2], t[0]);
      fine.triangles.push_back({t[0], ab, ca});
      fine.triangles.push_back({ab, t[1], bc});
      fine.triangles.push_back({ca, bc, t[2]});
      fine.triangles.push_back({ab, bc, ca});
    }
    mesh = std::move(fine);
  }
  auto g = std::make_shared<BodyGeometry>();
  g->collision = makeCollisionBody(mesh, 18);
  ObjectModel o;
  o.name = "fine";
  o.geometry = g;
  o.fixed = false;
  computeMassProperties(o, 1000.0);
  Options opt;
  opt.ground.enabled = true;
  auto model = compileModel(barrett(), {o}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.2})});
  while (s.time < 1.0) step(*model, s);
  EXPECT_NEAR(comOf(s).z(), 0.05 - opt.contact.constraint()->slop, 1e-9);
  const Eigen::Isometry3d rest = s.object_pose_world[0];
  std::size_t most = 0;
  for (int i = 0; i < 1000; ++i) {
    step(*model, s);
    most = std::max(most, s.object_contacts.size());
    double normal = 0.0;
    for (const Contact& c : s.object_contacts) normal += c.force;
    ASSERT_NEAR(normal, 1000.0 * 1e-3 * 9.81, 1e-9 * 9.81);
  }
  EXPECT_LE(most, 9u);
  EXPECT_GE(most, 4u);
  EXPECT_LT((s.object_pose_world[0].translation() - rest.translation()).norm(), 1e-12);
  EXPECT_LT((s.object_pose_world[0].linear() - rest.linear()).norm(), 1e-12);
  EXPECT_EQ(s.warning_count, 0);
}

TEST(FreeBody, ANonFiniteVelocityStopsTheObjectWithAWarning) {
  Options opt;
  ObjectModel o = box({0.1, 0.1, 0.1}, 1000.0);
  auto model = compileModel(barrett(), {o}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 1.0})});
  // Written into the state between steps (as the GUI and Python may; a plan's is refused).
  s.object_twist_world[0][4] = std::nan("");
  for (int i = 0; i < 10; ++i) step(*model, s);
  EXPECT_GE(s.warning_count, 1);
  EXPECT_EQ(s.object_stopped[0], 1);
  EXPECT_TRUE(s.object_pose_world[0].matrix().allFinite());
  EXPECT_EQ(s.object_pose_world[0].translation(), Eigen::Vector3d(5.0, 0.0, 1.0));
  EXPECT_TRUE(s.object_twist_world[0].isZero(0.0));
  for (const auto& q : s.q) EXPECT_TRUE(q.allFinite());
}

TEST(FreeBody, AnExplodingSceneStopsTheObjectInsideTheWorldBox) {
  // A body flung at 99 m/s leaves the 100 m world box within about a second (and gravity
  // makes it faster than the runaway bound first).
  Options opt;
  ObjectModel o = box({0.1, 0.1, 0.1}, 1000.0);
  auto model = compileModel(barrett(), {o}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 1.0})}, {},
                             {test::twist(Eigen::Vector3d(0.0, 0.0, -99.0))});
  for (int i = 0; i < 3000; ++i) step(*model, s);
  EXPECT_GE(s.warning_count, 1);
  EXPECT_EQ(s.object_stopped[0], 1);
  EXPECT_LE(comOf(s).cwiseAbs().maxCoeff(), kWorldHalfExtent);
  EXPECT_LE(s.object_twist_world[0].norm(), 0.0);
  ASSERT_FALSE(s.warnings.empty());
  EXPECT_NE(s.warnings.front().find("stopped"), std::string::npos);
}

TEST(FreeBody, AFreeObjectWithoutMassIsRefused) {
  ObjectModel o = box({0.1, 0.1, 0.1}, 1000.0);
  o.mass = {};
  EXPECT_THROW(compileModel(barrett(), {o}), std::invalid_argument);
}

TEST(FreeBody, TheShippedDropRecordsTheObjectAndComesToRestFlat) {
  const Scenario sc =
      loadScenario(hand::assetDirectory() + "/scenarios/free_cube_drop.json");
  auto run = runScenario(sc);
  const Recorder& rec = run->recorder();
  for (const char* c : {"cube.x", "cube.qw", "cube.vz", "cube.wz", "cube.kinetic_energy", "palm.z"})
    EXPECT_GE(rec.columnIndex(c), 0) << c;
  EXPECT_EQ(rec.unit("cube.vx"), "m/s");
  EXPECT_EQ(rec.unit("cube.wy"), "rad/s");
  EXPECT_EQ(rec.unit("cube.kinetic_energy"), "J");
  const auto z = rec.series("cube.z"), ke = rec.series("cube.kinetic_energy");
  EXPECT_NEAR(z.back(), 0.025 - sc.options.contact.constraint()->slop, 1e-9);
  EXPECT_LT(ke.back(), 1e-12);
  // Kinetic energy of the record against its definition from the recorded velocities.
  const double m = 1000.0 * 0.05 * 0.05 * 0.05;
  const double I = m * (0.05 * 0.05 * 2.0) / 12.0;
  const std::size_t r = 80;
  double v2 = 0.0, w2 = 0.0;
  for (const char* a : {"vx", "vy", "vz"}) v2 += std::pow(rec.series(std::string("cube.") + a)[r], 2);
  for (const char* a : {"wx", "wy", "wz"}) w2 += std::pow(rec.series(std::string("cube.") + a)[r], 2);
  EXPECT_NEAR(ke[r], 0.5 * m * v2 + 0.5 * I * w2, 1e-12);
  EXPECT_EQ(run->state().warning_count, 0);
}

TEST(FreeBody, ScenarioKeysAreReadCheckedAndWrittenBack) {
  const std::string dir = hand::assetDirectory() + "/scenarios/";
  const std::string text = R"({"format": "handsim-scenario", "version": 1, "hand": "barrett",
    "duration_s": 0.01, "ground": {"height_m": -0.1, "friction": 0.3},
    "contact": {"mu": 0.7, "model": "default"},
    "objects": [{"mesh": "objects/cube.wrl", "free": true, "mass_kg": 0.2,
                 "linear_velocity_mps": [1, 2, 3], "angular_velocity_radps": [0, 0, 4]}]})";
  const Scenario sc = parseScenario(text, dir + "x.json");
  ASSERT_EQ(sc.objects.size(), 1u);
  EXPECT_FALSE(sc.objects[0].fixed);
  EXPECT_NEAR(sc.objects[0].mass.mass_kg, 0.2, 1e-12);
  EXPECT_EQ(sc.objects[0].friction, 0.7);
  EXPECT_TRUE(sc.options.ground.enabled);
  EXPECT_EQ(sc.options.ground.height, -0.1);
  EXPECT_EQ(sc.options.ground.friction, 0.3);
  ASSERT_EQ(sc.plan.object_twist_world.size(), 1u);  // the start velocity is the plan's
  EXPECT_EQ(sc.plan.object_twist_world[0][1], 2.0);
  EXPECT_EQ(sc.plan.object_twist_world[0][5], 4.0);
  const Scenario back = parseScenario(scenarioToJson(sc, dir + "y.json"), dir + "y.json");
  EXPECT_FALSE(back.objects[0].fixed);
  EXPECT_EQ(back.objects[0].mass.mass_kg, sc.objects[0].mass.mass_kg);
  EXPECT_EQ(back.plan.object_twist_world, sc.plan.object_twist_world);
  EXPECT_EQ(back.options.ground.height, -0.1);
  EXPECT_EQ(back.options.contact.mu, 0.7);
  // Located errors.
  auto fails = [&](const std::string& bad, const std::string& field) {
    try {
      parseScenario(bad, dir + "bad.json");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  const std::string head =
      R"({"format": "handsim-scenario", "version": 1, "hand": "barrett", "duration_s": 1, )";
  fails(head + R"("objects": [{"mesh": "objects/cube.wrl", "free": true, "mass_kg": -1}]})",
        "/objects/0/mass_kg");
  fails(head + R"("objects": [{"mesh": "objects/cube.wrl", "linear_velocity_mps": [1, 0, 0]}]})",
        "/objects/0/linear_velocity_mps");
  fails(head + R"("objects": [{"mesh": "objects/cube.wrl", "free": true,
                   "angular_velocity_radps": [1e6, 0, 0]}]})",
        "/objects/0/angular_velocity_radps");
  fails(head + R"("contact": {"model": "seed005"}})", "/contact/model");
  fails(head + R"("ground": {"height_m": 1000}})", "/ground/height_m");
  fails(head + R"("objects": [{"mesh": "objects/cube.wrl", "free": "yes"}]})", "/objects/0/free");
}
