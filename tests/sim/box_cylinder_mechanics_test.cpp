// SPDX-License-Identifier: GPL-3.0-or-later
// Analytic boxes and cylinders in the step (docs/collision.md, "Analytic boxes and cylinders"),
// checked against closed forms worked here: a box at rest on the ground carried by forces that
// sum to m g, without drift; a box sliding down a tilted table box at a = g (sin(theta) -
// mu cos(theta)); a solid cylinder rolling on its side down a slope at a = (2/3) g sin(theta)
// with omega = v / r; a box dropped onto a stack of two never raising the energy. And the
// body-pair query of each closed form answers the same whichever body comes first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "../support/box_objects.hpp"
#include "../support/contact_runs.hpp"
#include "../support/free_object_energy.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/sim/body_pair.hpp"
#include "handsim/sim/sim_state.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kG = 9.81;

Eigen::Isometry3d turned(const Eigen::Vector3d& at, const Eigen::Matrix3d& r) {
  Eigen::Isometry3d p = test::at(at);
  p.linear() = r;
  return p;
}

// assets/objects/cylinder.wrl (r = 2.5 cm, 10 cm long along y), free.
ObjectModel cylinderObject(const std::string& name) {
  ObjectModel o =
      loadObject(std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/cylinder.wrl", {}, name);
  o.fixed = false;
  o.friction = 0.5;
  return o;
}

}  // namespace

TEST(BoxCylinderMechanics, TheShippedCylinderHasTheMassPropertiesOfACylinder) {
  const ObjectModel c = cylinderObject("c");
  ASSERT_TRUE(c.geometry->collision.cylinder.has_value());
  const double r = 0.025, l = 0.1, m = c.mass.mass_kg;
  EXPECT_NEAR(c.mass.volume_m3, kPi * r * r * l, 1e-18);
  // About its axis (the body's y) m r^2 / 2, across m (3 r^2 + l^2) / 12.
  const Eigen::Matrix3d expected = Eigen::Vector3d(m * (3 * r * r + l * l) / 12.0, 0.5 * m * r * r,
                                                   m * (3 * r * r + l * l) / 12.0)
                                       .asDiagonal();
  EXPECT_LT((c.mass.inertia_com - expected).norm(), 1e-12 * expected.norm());
}

// A 4 x 6 x 2 cm box of 1000 kg/m^3, yawed, set on the ground: after 2 s the ground's forces sum
// to m g (no net friction) and the box has not moved.
TEST(BoxCylinderMechanics, ABoxRestsOnTheGroundCarriedByItsWeight) {
  Options opt;
  opt.ground.enabled = true;
  const ObjectModel box = test::boxObject("box", {0.04, 0.06, 0.02}, true, 1000.0, true);
  auto model = compileModel(test::barrettHand(), {box}, opt);
  const Eigen::Isometry3d start =
      turned({5.0, 0.1, 0.01}, Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitZ()).toRotationMatrix());
  SimState s = test::stateAt(*model, {start});
  const double m = model->objects[0].mass.mass_kg;
  EXPECT_NEAR(m, 1000.0 * 0.04 * 0.06 * 0.02, 1e-15);
  Eigen::Vector3d drift_start = Eigen::Vector3d::Zero();
  while (s.time < 2.0 - 1e-9) {
    step(*model, s);
    if (std::abs(s.time - 0.5) < 1e-9) drift_start = s.object_pose_world[0].translation();
  }
  Eigen::Vector3d total = Eigen::Vector3d::Zero();
  int points = 0;
  for (const Contact& c : test::contactsOf(*model, s, ContactPair::Object)) {
    total += c.forceOnObjectWorld();
    ++points;
  }
  EXPECT_EQ(points, 4);
  EXPECT_NEAR(total.z(), m * kG, 1e-6 * m * kG);
  EXPECT_LT(total.head<2>().norm(), 1e-6 * m * kG);
  const Eigen::Vector3d end = s.object_pose_world[0].translation();
  EXPECT_LT((end - drift_start).norm(), 1e-9);
  EXPECT_LT((end.head<2>() - start.translation().head<2>()).norm(), 1e-9);
  // Resting contacts settle at the slop (ContactOptions::slop) below the surface.
  EXPECT_NEAR(end.z(), 0.01, 1.01 * opt.contact.constraint()->slop);
  EXPECT_EQ(s.warning_count, 0);
}

// A 5 cm cube on a 2 m fixed table box tilted 30 degrees, mu 0.3 on both: Coulomb sliding,
// a = g (sin 30 - 0.3 cos 30) = 9.81 (0.5 - 0.2598) = 2.356 m/s^2 down the slope; after 0.4 s
// the speed is a t, along the slope (box-box contacts, four points), in either listing order.
TEST(BoxCylinderMechanics, ABoxSlidesDownATiltedTableAsCoulombSays) {
  const double theta = kPi / 6.0, mu = 0.3;
  Options opt;
  opt.contact.constraint()->torsional = 0.0;
  ObjectModel table = test::boxObject("table", {2.0, 0.5, 0.1}, false, 1000.0, true);
  ObjectModel cube = test::boxObject("cube", {0.05, 0.05, 0.05}, true, 1000.0, true);
  table.friction = mu;
  cube.friction = mu;
  const Eigen::Matrix3d tilt =
      Eigen::AngleAxisd(-theta, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const Eigen::Isometry3d table_pose = turned({5.0, 0.0, 0.0}, tilt);
  // On the table's top face, 0.5 m up the slope (its x), resting.
  const Eigen::Isometry3d cube_pose = table_pose * test::at({0.5, 0.0, 0.05 + 0.025 - 1e-5});
  const double a = kG * (std::sin(theta) - mu * std::cos(theta));
  const Eigen::Vector3d down_slope = -(tilt * Eigen::Vector3d::UnitX());
  const double t_end = 0.4;
  for (int order = 0; order < 2; ++order) {
    auto model = compileModel(
        test::barrettHand(),
        order == 0 ? std::vector<ObjectModel>{table, cube} : std::vector<ObjectModel>{cube, table},
        opt);
    SimState s =
        test::stateAt(*model, order == 0 ? std::vector<Eigen::Isometry3d>{table_pose, cube_pose}
                                         : std::vector<Eigen::Isometry3d>{cube_pose, table_pose});
    const std::size_t c = order == 0 ? 1 : 0;
    std::size_t max_points = 0;
    while (s.time < t_end - 1e-9) {
      step(*model, s);
      max_points = std::max(max_points, test::contactCount(*model, s, ContactPair::Object));
    }
    const Eigen::Vector3d v = s.object_twist_world[c].head<3>();
    EXPECT_NEAR(v.dot(down_slope), a * t_end, 0.01 * a * t_end) << "order " << order;
    EXPECT_LT((v - v.dot(down_slope) * down_slope).norm(), 0.01 * a * t_end) << "order " << order;
    EXPECT_LT(s.object_twist_world[c].tail<3>().norm(), 0.05) << "order " << order;
    EXPECT_EQ(max_points, 4u);
    EXPECT_EQ(s.warning_count, 0);
  }
}

// The shipped cylinder on its side (axis along y) on a slope of 20 degrees (gravity tilted),
// mu 0.5 (rolling needs mu >= tan(theta) / 3 = 0.12): a = (2/3) g sin(theta) with I = m r^2 / 2,
// and omega = v / r, after 0.5 s; two ground points, the ends of its line of contact.
TEST(BoxCylinderMechanics, ACylinderRollsDownASlopeOnItsSide) {
  const double theta = 20.0 * kPi / 180.0, r = 0.025;
  Options opt;
  opt.ground.enabled = true;
  opt.gravity_world = kG * Eigen::Vector3d(std::sin(theta), 0.0, -std::cos(theta));
  opt.contact.constraint()->torsional = 0.0;
  auto model = compileModel(test::barrettHand(), {cylinderObject("cylinder")}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, r})});
  const double t_end = 0.5;
  std::size_t max_points = 0;
  while (s.time < t_end - 1e-9) {
    step(*model, s);
    max_points = std::max(max_points, test::contactCount(*model, s, ContactPair::Object));
  }
  const double a = 2.0 / 3.0 * kG * std::sin(theta);
  const Eigen::Vector3d v = s.object_twist_world[0].head<3>();
  const Eigen::Vector3d w = s.object_twist_world[0].tail<3>();
  EXPECT_NEAR(v.x(), a * t_end, 1e-9 * a * t_end);
  EXPECT_NEAR(w.y(), v.x() / r, 1e-9 * v.x() / r);
  EXPECT_LT(std::abs(v.y()) + std::abs(v.z()), 1e-9 * v.x());
  EXPECT_EQ(max_points, 2u);
  EXPECT_EQ(s.warning_count, 0);
}

// Two 5 cm cubes stacked on the ground and a third dropped from 3 cm above them: the energy
// (kinetic plus m g z of each centre of mass) never grows, and the three end at rest, stacked.
TEST(BoxCylinderMechanics, ABoxDroppedOnAStackDoesNotGainEnergy) {
  Options opt;
  opt.ground.enabled = true;
  std::vector<ObjectModel> boxes;
  std::vector<Eigen::Isometry3d> poses;
  for (int k = 0; k < 3; ++k) {
    boxes.push_back(
        test::boxObject("box" + std::to_string(k), {0.05, 0.05, 0.05}, true, 1000.0, true));
    const double z = 0.025 + 0.05 * k + (k == 2 ? 0.03 : -1e-5 * (k + 1));
    poses.push_back(
        turned({5.0 + 0.004 * k, 0.002 * k, z},
               Eigen::AngleAxisd(0.1 * k, Eigen::Vector3d::UnitZ()).toRotationMatrix()));
  }
  auto model = compileModel(test::barrettHand(), boxes, opt);
  SimState s = test::stateAt(*model, poses);
  const auto energy = [&]() {
    double e = test::freeKineticEnergy(*model, s);
    for (std::size_t o = 0; o < 3; ++o)
      e += model->objects[o].mass.mass_kg * kG * test::centreOfMassWorld(*model, s, o).z();
    return e;
  };
  const double e0 = energy();
  const double m = model->objects[0].mass.mass_kg;
  while (s.time < 1.5 - 1e-9) {
    step(*model, s);
    // The position correction may lift a body by the slop: m g slop at most per body.
    ASSERT_LE(energy(), e0 + 3.0 * m * kG * opt.contact.constraint()->slop) << "t " << s.time;
  }
  for (std::size_t o = 0; o < 3; ++o) {
    EXPECT_LT(s.object_twist_world[o].norm(), 1e-3) << o;
    EXPECT_NEAR(s.object_pose_world[o].translation().z(), 0.025 + 0.05 * o, 5e-4) << o;
  }
  EXPECT_EQ(s.warning_count, 0);
}

// Each closed form through queryBodyPair in both orders: the same points and depths, the
// normal flipped (box-box, sphere-box, sphere-cylinder).
TEST(BoxCylinderMechanics, TheBodyPairQueryIsSymmetric) {
  const ObjectModel box = test::boxObject("box", {0.04, 0.06, 0.02}, true, 1000.0, true);
  const ObjectModel box2 = test::boxObject("box2", {0.03, 0.03, 0.05}, true, 1000.0, true);
  const ObjectModel cyl = cylinderObject("cyl");
  const ObjectModel ball =
      loadObject(std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/sphere.wrl", {}, "ball");
  ASSERT_TRUE(ball.geometry->collision.sphere.has_value());
  const Eigen::Isometry3d pa =
      turned({0.0, 0.0, 0.0},
             Eigen::AngleAxisd(0.3, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix());
  const Eigen::Isometry3d pb =
      turned({0.01, 0.02, 0.025},
             Eigen::AngleAxisd(1.1, Eigen::Vector3d(-1, 0, 2).normalized()).toRotationMatrix());
  StepWorkspace work;
  std::vector<BodyPairContact> ab, ba;
  const std::pair<const ObjectModel*, const ObjectModel*> pairs[] = {
      {&box, &box2}, {&ball, &box}, {&ball, &cyl}};
  for (const auto& [x, y] : pairs) {
    const CollisionBody& a = x->geometry->collision;
    const CollisionBody& b = y->geometry->collision;
    EXPECT_TRUE(hasClosedForm(a, b));
    queryBodyPair(a, pa, b, pb, PatchPoints::Manifold, work, ab);
    queryBodyPair(b, pb, a, pa, PatchPoints::Manifold, work, ba);
    ASSERT_FALSE(ab.empty()) << x->name << " " << y->name;
    ASSERT_EQ(ab.size(), ba.size());
    for (const BodyPairContact& c : ab) {
      bool found = false;
      for (const BodyPairContact& d : ba)
        found = found || (c.point_world == d.point_world && c.depth == d.depth &&
                          c.normal_world == Eigen::Vector3d(-d.normal_world));
      EXPECT_TRUE(found) << x->name << " " << y->name;
    }
  }
  EXPECT_FALSE(hasClosedForm(box.geometry->collision, cyl.geometry->collision));
}
