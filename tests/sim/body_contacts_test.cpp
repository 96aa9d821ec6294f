// SPDX-License-Identifier: GPL-3.0-or-later
// Contacts between any two bodies (docs/free-objects.md, "Contacts between bodies"), each
// against something independent: a collision of two free boxes against the conservation of
// linear and angular momentum (worked here from the boxes' closed-form inertia) and the
// perfectly inelastic closed form; a box on a fixed table box against m g and a pose that does
// not move; a box sliding on it against Coulomb's deceleration mu g; a cube dropped on the palm
// against m g; the BarrettHand closing all fingers against the exact overlap volume of its
// links (vertex depths worked here, not the contact stage's depth estimate).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "../support/box_objects.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/recorder.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

ObjectModel box(const std::string& name, const Eigen::Vector3d& size, bool free,
                double density = 1000.0) {
  return test::boxObject(name, size, free, density);
}

using test::at;
using test::stateAt;

std::shared_ptr<const hand::HandModel> barrett() {
  static const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  return hand;
}

using test::boxInertia;

// Total linear and angular momentum (about the world origin) of the free boxes of size s.
std::pair<Eigen::Vector3d, Eigen::Vector3d> momentum(const SimState& st, const Eigen::Vector3d& s,
                                                     double m) {
  Eigen::Vector3d p = Eigen::Vector3d::Zero(), l = Eigen::Vector3d::Zero();
  for (std::size_t o = 0; o < st.object_pose_world.size(); ++o) {
    const Eigen::Vector3d c = st.object_pose_world[o].translation();
    const Eigen::Matrix3d R = st.object_pose_world[o].linear();
    const Eigen::Vector3d v = st.object_twist_world[o].head<3>();
    const Eigen::Vector3d w = st.object_twist_world[o].tail<3>();
    p += m * v;
    l += c.cross(m * v) + R * boxInertia(s, m) * R.transpose() * w;
  }
  return {p, l};
}

double objectNormalSum(const SimState& s, int other) {
  double sum = 0.0;
  for (const Contact& c : s.object_contacts)
    if (c.other == other) sum += c.force;
  return sum;
}

}  // namespace

// Head on: two equal 1 kg boxes, one at 0.05 m/s, no gravity, no friction. Without restitution
// the collision is perfectly inelastic: both end at 0.025 m/s, relative normal velocity 0.
TEST(BodyContacts, AHeadOnCollisionOfTwoFreeBoxesIsInelasticAndKeepsMomentum) {
  Options opt;
  opt.gravity_world.setZero();
  const Eigen::Vector3d size(0.1, 0.1, 0.1);
  ObjectModel a = box("a", size, true);
  ObjectModel b = box("b", size, true);
  a.friction = b.friction = 0.0;
  auto model = compileModel(barrett(), {a, b}, opt);
  SimState s = stateAt(*model, {at({5.0, 0.0, 1.0}), at({5.1 + 2e-4, 0.0, 1.0})}, {},
                       {test::twist({0.05, 0.0, 0.0}), Twist::Zero()});
  const auto [p0, l0] = momentum(s, size, 1.0);
  bool touched = false;
  for (int i = 0; i < 200; ++i) {
    step(*model, s);
    touched = touched || !s.object_contacts.empty();
    const auto [p, l] = momentum(s, size, 1.0);
    ASSERT_LT((p - p0).norm(), 1e-9 * p0.norm());
    ASSERT_LT((l - l0).norm(), 1e-9 * l0.norm());
  }
  ASSERT_TRUE(touched);
  EXPECT_NEAR(s.object_twist_world[0][0], 0.025, 1e-12);
  EXPECT_NEAR(s.object_twist_world[1][0], 0.025, 1e-12);
  EXPECT_LT(s.object_twist_world[0].tail<3>().norm(), 1e-12);
  EXPECT_EQ(s.warning_count, 0);
}

// Off centre, turned and spinning: the impulses turn both boxes; linear momentum (worked from
// the closed-form inertia) stays to 1e-9, angular momentum about the origin to 1e-7: the
// position correction moves the two bodies apart by opposite amounts m dc without changing
// their velocities, which changes sum c x m v by m dc x (v_a - v_b) while they press on each
// other (6e-10 of 6e-2 over the 300 steps here).
TEST(BodyContacts, AnOffCentreCollisionKeepsLinearAndAngularMomentum) {
  Options opt;
  opt.gravity_world.setZero();
  const Eigen::Vector3d size(0.1, 0.1, 0.1);
  ObjectModel a = box("a", size, true);
  ObjectModel b = box("b", size, true);
  a.friction = b.friction = 0.0;
  auto model = compileModel(barrett(), {a, b}, opt);
  SimState s = stateAt(*model, {at({5.0, 0.0, 1.0}), at({5.1 + 2e-4, 0.04, 1.01})}, {},
                       {test::twist({0.08, 0.0, 0.0}, {0.0, 0.0, 0.05}),
                        test::twist({-0.02, 0.0, 0.0}, {0.03, 0.0, 0.0})});
  const auto [p0, l0] = momentum(s, size, 1.0);
  bool touched = false;
  for (int i = 0; i < 300; ++i) {
    step(*model, s);
    touched = touched || !s.object_contacts.empty();
    const auto [p, l] = momentum(s, size, 1.0);
    ASSERT_LT((p - p0).norm(), 1e-9 * p0.norm());
    ASSERT_LT((l - l0).norm(), 1e-7 * l0.norm());
    // At every contact the boxes' points do not move into each other along its normal (out of
    // box b into box a) faster than the speculative approach to the slop allows:
    // (depth - slop) / dt when shallower (the end-of-step velocities, v + w x (p - c), worked
    // here at the end-of-step poses; 1e-6 m/s for the step's own motion).
    for (const Contact& c : s.object_contacts) {
      const auto pointVelocity = [&](std::size_t o) -> Eigen::Vector3d {
        const Eigen::Vector3d com = s.object_pose_world[o].translation();
        return s.object_twist_world[o].head<3>() +
               s.object_twist_world[o].tail<3>().cross(c.point_world - com);
      };
      const double separating = (pointVelocity(static_cast<std::size_t>(c.object)) -
                                 pointVelocity(static_cast<std::size_t>(c.other)))
                                    .dot(c.normal_world);
      const double allowed = std::min(0.0, c.depth - opt.contact.constraint()->slop) / opt.dt;
      ASSERT_GE(separating, allowed - 1e-6) << "step " << i;
    }
  }
  ASSERT_TRUE(touched);
  // The impulses did turn them.
  EXPECT_GT(std::abs(s.object_twist_world[0][5] - 0.05), 1e-4);
  EXPECT_EQ(s.warning_count, 0);
}

// A 1 cm cube of 50 g meeting a free 10 x 10 cm plate of 20 g face on at 0.3 m/s, without
// gravity, the plate listed first: perfectly inelastic, both end at 0.05 * 0.3 / 0.07 m/s, the
// cube no more than the slop into the plate, momentum kept and no kinetic energy gained. (The
// plate's corners are never inside the cube, so measured from the plate the contact had no
// depth: the cube sank through the plate 0.1 mm per step and was thrown out with 20 times its
// energy.)
TEST(BodyContacts, ASmallCubeOnALargeFreePlateStopsAtItsFace) {
  Options opt;
  opt.gravity_world.setZero();
  ObjectModel plate = box("plate", {0.1, 0.1, 0.002}, true);
  ObjectModel cube = box("cube", {0.01, 0.01, 0.01}, true, 50000.0);
  auto model = compileModel(barrett(), {plate, cube}, opt);
  SimState s = stateAt(*model, {at({5.0, 0.0, 1.0}), at({5.0, 0.0, 1.0065})}, {},
                       {Twist::Zero(), test::twist({0.0, 0.0, -0.3})});
  const double mp = 0.02, mc = 0.05;
  const double e0 = 0.5 * mc * 0.09;
  double closest = 1.0;
  for (int i = 0; i < 100; ++i) {
    step(*model, s);
    const Eigen::Vector3d vp = s.object_twist_world[0].head<3>();
    const Eigen::Vector3d vc = s.object_twist_world[1].head<3>();
    ASSERT_LT((mp * vp + mc * vc - Eigen::Vector3d(0.0, 0.0, -mc * 0.3)).norm(), 1e-12);
    ASSERT_LE(0.5 * mp * vp.squaredNorm() + 0.5 * mc * vc.squaredNorm(), e0 * (1.0 + 1e-9));
    closest = std::min(closest, s.object_pose_world[1].translation().z() -
                                    s.object_pose_world[0].translation().z());
  }
  EXPECT_GT(closest, 0.006 - 2e-4);
  EXPECT_NEAR(s.object_twist_world[0][2], -0.015 / 0.07, 1e-9);
  EXPECT_NEAR(s.object_twist_world[1][2], -0.015 / 0.07, 1e-9);
}

// A 10 cm box resting on a fixed 1 x 1 x 0.1 m table box: carried at its corners, it neither
// drifts nor rocks for 5 s, and the normal forces (and the recorder's pair column) add up to
// m g.
TEST(BodyContacts, ABoxRestsOnATableBoxWithoutDriftCarryingItsWeight) {
  Options opt;
  ObjectModel table = box("table", {1.0, 1.0, 0.1}, false);
  ObjectModel b = box("box", {0.1, 0.1, 0.1}, true);
  auto model = compileModel(barrett(), {table, b}, opt);
  SimState s = stateAt(
      *model, {at({5.0, 0.0, -0.05}), at({5.1, 0.05, 0.05 - opt.contact.constraint()->slop})});
  Recorder rec(model->hand());
  addContactPairChannels(rec, *model);
  const Eigen::Isometry3d start = s.object_pose_world[1];
  const double weight = 1.0 * 9.81;
  double max_move = 0.0, max_turn = 0.0;
  for (int i = 0; i < 5000; ++i) {
    step(*model, s);
    max_move =
        std::max(max_move, (s.object_pose_world[1].translation() - start.translation()).norm());
    max_turn = std::max(max_turn, (s.object_pose_world[1].linear() - start.linear()).norm());
    ASSERT_GE(s.object_contacts.size(), 4u);
    ASSERT_NEAR(objectNormalSum(s, 0), weight, 1e-9 * weight);
  }
  rec.record(s);
  EXPECT_NEAR(rec.series("contact.table.box.force").back(), weight, 1e-9 * weight);
  EXPECT_LT(max_move, 1e-9);
  EXPECT_LT(max_turn, 1e-9);
  EXPECT_EQ(s.warning_count, 0);
}

// Pushed at 1 m/s along the table, the box slides and decelerates at mu g with the smaller of
// the two coefficients (0.3 for the box, 0.8 for the table).
TEST(BodyContacts, ABoxSlidingOnATableBoxDeceleratesAtMuG) {
  Options opt;
  ObjectModel table = box("table", {1.0, 1.0, 0.1}, false);
  ObjectModel b = box("box", {0.1, 0.1, 0.1}, true);
  table.friction = 0.8;
  b.friction = 0.3;
  auto model = compileModel(barrett(), {table, b}, opt);
  SimState s = stateAt(
      *model, {at({5.0, 0.0, -0.05}), at({4.7, 0.0, 0.05 - opt.contact.constraint()->slop})}, {},
      {Twist::Zero(), test::twist({1.0, 0.0, 0.0})});
  const double x0 = s.object_pose_world[1].translation().x();
  while (s.time < 0.2 - 1e-9) step(*model, s);
  const double a = 0.3 * 9.81, t = s.time;
  const double v = s.object_twist_world[1][0];
  EXPECT_NEAR((1.0 - v) / t, a, 0.02 * a);
  const double dx = s.object_pose_world[1].translation().x() - x0;
  EXPECT_NEAR((t - dx) * 2.0 / (t * t), a, 0.02 * a);  // x = t - a t^2 / 2
  // It stays flat on its face while it slides.
  EXPECT_NEAR(s.object_pose_world[1].translation().z(), 0.05 - opt.contact.constraint()->slop,
              1e-6);
  EXPECT_EQ(s.warning_count, 0);
}

// The palm turned over (its back up, fingers hanging down) with a 4 cm cube dropped onto its
// back: the cube lands and stays on the palm, carried by it (normal forces m g).
TEST(BodyContacts, ACubeDroppedOnThePalmStaysOnIt) {
  Options opt;
  auto model0 = compileModel(barrett(), {}, opt);
  const geometry::TriangleMesh& palm = model0->hand_geometry->palm.collision.mesh;
  Eigen::Vector3d lo = palm.vertices.front(), hi = lo;
  for (const auto& v : palm.vertices) {
    lo = lo.cwiseMin(v);
    hi = hi.cwiseMax(v);
  }
  Eigen::Isometry3d palm_pose = Eigen::Isometry3d::Identity();
  palm_pose.linear() =
      Eigen::AngleAxisd(3.14159265358979323846, Eigen::Vector3d::UnitX()).toRotationMatrix();
  const Eigen::Vector3d centre =
      palm_pose * Eigen::Vector3d(0.5 * (lo.x() + hi.x()), 0.5 * (lo.y() + hi.y()), lo.z());
  // The palm's back is at world z = centre.z(); drop from 2 cm above it.
  ObjectModel cube = box("cube", {0.04, 0.04, 0.04}, true);
  auto model = compileModel(barrett(), {cube}, opt);
  SimState s = makeState(*model, {}, palm_pose, {at(centre + Eigen::Vector3d(0, 0, 0.04))});
  const double weight = cube.mass.mass_kg * 9.81;
  while (s.time < 1.0) step(*model, s);
  EXPECT_NEAR(s.object_pose_world[0].translation().z(),
              centre.z() + 0.02 - opt.contact.constraint()->slop, 1e-6);
  EXPECT_NEAR(objectNormalSum(s, kPalm), weight, 1e-6 * weight);
  const Eigen::Vector3d rest = s.object_pose_world[0].translation();
  while (s.time < 2.0) step(*model, s);
  EXPECT_LT((s.object_pose_world[0].translation() - rest).norm(), 1e-9);
  EXPECT_EQ(s.warning_count, 0);
}

// The BarrettHand closing all three fingers (barrett_grasp_close.json): the fingers end pressed
// on each other, and at no step do two links of different fingers (or a link and the palm)
// overlap deeper than the slop plus one step of approach (1 mm). The depth is measured
// independently of the contact stage: the deepest vertex of either link inside the other (both are
// convex boxes: inside every face plane, at the distance of the nearest).
namespace {

// Deepest overlap of two links of different fingers, or of a link and the palm, over a run.
double deepestLinkOverlap(const std::string& scenario, std::size_t* touching) {
  Scenario sc = loadScenario(hand::assetDirectory() + "/scenarios/" + scenario);
  sim::Run run(compileScenario(sc), sc.plan);
  const Model& model = run.model();
  const HandGeometry& g = *model.hand_geometry;
  const double slop = model.options.contact.constraint()->slop;
  double worst = 0.0;
  std::size_t touching_steps = 0;
  // Deepest vertex of one convex closed mesh inside the other: inside every face plane of the
  // other, at the distance of the nearest one (the Barrett links are boxes).
  auto vertexDepth = [](const CollisionBody& a, const Eigen::Isometry3d& pa, const CollisionBody& b,
                        const Eigen::Isometry3d& pb) {
    double deepest = 0.0;
    const Eigen::Isometry3d a_in_b = pb.inverse() * pa;
    for (const Eigen::Vector3d& va : a.mesh.vertices) {
      const Eigen::Vector3d v = a_in_b * va;
      double nearest = std::numeric_limits<double>::infinity();
      for (const auto& t : b.mesh.triangles) {
        const Eigen::Vector3d& p0 = b.mesh.vertices[static_cast<std::size_t>(t[0])];
        const Eigen::Vector3d n = (b.mesh.vertices[static_cast<std::size_t>(t[1])] - p0)
                                      .cross(b.mesh.vertices[static_cast<std::size_t>(t[2])] - p0)
                                      .normalized();
        nearest = std::min(nearest, -n.dot(v - p0));  // > 0 inside this face's half-space
      }
      deepest = std::max(deepest, nearest);
    }
    return deepest;
  };
  auto depth = [&](const CollisionBody& a, const Eigen::Isometry3d& pa, const CollisionBody& b,
                   const Eigen::Isometry3d& pb) {
    if ((pa * a.centre - pb * b.centre).norm() > a.radius + b.radius) return 0.0;
    return std::max(vertexDepth(a, pa, b, pb), vertexDepth(b, pb, a, pa));
  };
  while (!run.finished()) {
    run.step();
    const SimState& s = run.state();
    touching_steps += s.link_contacts.empty() ? 0 : 1;
    for (std::size_t f = 0; f < g.links.size(); ++f)
      for (std::size_t r = 1; r < g.links[f].size(); ++r) {  // row 0 sits on the palm
        const Eigen::Isometry3d pf =
            linkPoseWorld(model, s, static_cast<int>(f), static_cast<int>(r));
        worst = std::max(worst,
                         depth(g.links[f][r].collision, pf, g.palm.collision, s.palm_pose_world));
        for (std::size_t h = 0; h < g.links.size(); ++h)
          for (std::size_t q = 0; q < g.links[h].size(); ++q) {
            if (h == f) continue;
            worst = std::max(
                worst, depth(g.links[f][r].collision, pf, g.links[h][q].collision,
                             linkPoseWorld(model, s, static_cast<int>(h), static_cast<int>(q))));
          }
      }
  }
  EXPECT_EQ(run.state().warning_count, 0);
  *touching = touching_steps;
  return worst - slop;
}

}  // namespace

TEST(BodyContacts, BarrettFingersClosingOnEachOtherDoNotPassThrough) {
  for (const char* scenario : {"barrett_grasp_close.json", "barrett_close_free.json"}) {
    std::size_t touching = 0;
    const double beyond_slop = deepestLinkOverlap(scenario, &touching);
    EXPECT_GT(touching, 100u) << scenario;  // the fingers do close onto each other
    // The first step of a contact overlaps by the step's approach (up to 0.5 mm here at the
    // fingertips), which contact.stiffness = 0 does not push back; without link-link rows the
    // spread fingers overlap by 7.9 mm.
    EXPECT_LT(beyond_slop, 1e-3) << scenario;
  }
}
