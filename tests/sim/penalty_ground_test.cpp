// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's penalty contact in the engine (docs/free-objects.md, "Seed 004's model in the
// engine"), free objects on the ground, each against something independent: a resting box at
// the spring law's equilibrium depth m g / g1 (closed form); a dropped ball whose mechanical
// energy never exceeds its start and whose bounce apexes fall (energy balance); a box on an
// incline that the anchor friction holds (tan theta < mu) and that eq. 8 lets creep at the
// closed-form speed of tanhCreepSpeed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "handsim/contact/penalty_contact.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/penalty_contacts.hpp"
#include "handsim/sim/rigid_body.hpp"
#include "handsim/sim/step.hpp"

#include "../support/box_objects.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A free object of `mesh` (centred on its frame) of mass `mass` [kg] (placed far from the hand
// at the origin by the tests' states).
ObjectModel freeObject(geometry::TriangleMesh mesh, double mass) {
  return test::meshObject("object", std::move(mesh), mass);
}

Options seed004Options() {
  Options opt;
  opt.contact.useVolumePenalty();
  opt.ground.enabled = true;
  return opt;
}

double mechanicalEnergy(const Model& model, const SimState& s, double g) {
  const ObjectModel& o = model.objects[0];
  const Eigen::Matrix3d R = s.object_pose_world[0].linear();
  const Eigen::Vector3d com = s.object_pose_world[0] * o.mass.centre_of_mass;
  return kineticEnergy(o.mass.mass_kg, R * o.mass.inertia_com * R.transpose(),
                       s.object_twist_world[0].head<3>(), s.object_twist_world[0].tail<3>()) +
         o.mass.mass_kg * g * com.z();
}

}  // namespace

// A 0.1 m cube of 0.2 kg dropped from 1 mm: at rest its bottom is m g / g1 below the ground's
// surface (eq. 6 at rest: g1 d = m g; for a flat face the equivalent depth is the depth).
TEST(PenaltyGround, BoxRestsAtTheSpringLawsDepth) {
  const double mass = 0.2;
  Options opt = seed004Options();
  auto model = compileModel(test::barrettHand(),
                            {freeObject(geometry::makeBox({0.1, 0.1, 0.1}), mass)}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.051})});
  for (int i = 0; i < 2000; ++i) step(*model, s);
  const double depth = -(s.object_pose_world[0].translation().z() - 0.05);
  const double expected = mass * 9.81 / opt.contact.volumePenalty()->penalty.stiffness_n_per_m;
  EXPECT_NEAR(depth, expected, 0.05 * expected);
  EXPECT_LT(s.object_twist_world[0].norm(), 1e-6);
  // One contact with the ground carrying the weight, its normal up into the box.
  ASSERT_EQ(s.object_contacts.size(), 1u);
  EXPECT_EQ(s.object_contacts[0].other, -1);
  EXPECT_NEAR(s.object_contacts[0].force, mass * 9.81, 1e-3 * mass * 9.81);
  EXPECT_GT(s.object_contacts[0].normal_world.z(), 0.999);
  EXPECT_EQ(s.warning_count, 0);
}

// A 0.2 kg, 6 cm cube dropped flat from 0.1 m. The mechanical energy (kinetic + m g z) never
// exceeds the energy at the first contact; with the damping off (g2 = 0, no impact gain) it
// bounces, and each apex is lower than the one before (the linearly implicit spring
// dissipates); with the seed's gains it settles. Either way it ends at rest. (A faceted ball
// does not pass this yet: docs/free-objects.md, "Seed 004's model in the engine".)
TEST(PenaltyGround, DroppedCubeNeverGainsEnergy) {
  for (const bool damped : {false, true}) {
    Options opt = seed004Options();
    if (!damped) {
      opt.contact.volumePenalty()->penalty.damping_ns_per_m = 0.0;
      opt.contact.volumePenalty()->penalty.first_contact_gain = 0.0;
    }
    const double r = 0.03;
    auto model = compileModel(test::barrettHand(),
                              {freeObject(geometry::makeBox({2 * r, 2 * r, 2 * r}), 0.2)}, opt);
    SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.1 + r})});
    double e_contact = 0.0, e_previous = 0.0;
    int first_contact = 0;
    bool touched = false, in_air = false;
    double apex = -1.0, last_apex = 1e9;
    int apexes = 0;
    double previous_vz = 0.0;
    for (int i = 0; i < 3000; ++i) {
      step(*model, s);
      // The spring's stored energy g1 d^2 / 2 at the cube's depth d (it lands flat).
      const double depth = std::max(0.0, r - s.object_pose_world[0].translation().z());
      const double e = mechanicalEnergy(*model, s, 9.81) +
                       0.5 * opt.contact.volumePenalty()->penalty.stiffness_n_per_m * depth * depth;
      const bool contact = !s.object_contacts.empty();
      if (contact && !touched) {
        touched = true;
        e_contact = e;
        first_contact = i;
      }
      if (touched) {
        EXPECT_LE(e, e_contact + 1e-9) << "step " << i;
      }
      // Once eq. 5's impact gain has passed, the energy only falls.
      // (Without damping the cube lands anew after each bounce; the step that first sinks in
      // has no force yet, so there only the first bound holds.)
      if (damped && touched && i > first_contact + 50) {
        EXPECT_LE(e, e_previous + 1e-9) << "step " << i;
      }
      e_previous = e;
      if (touched && !contact) in_air = true;
      const double vz = s.object_twist_world[0][2];
      if (in_air && previous_vz > 0.0 && vz <= 0.0) {
        apex = e;
        EXPECT_LT(apex, last_apex);
        last_apex = apex;
        ++apexes;
      }
      if (contact) in_air = false;
      previous_vz = vz;
    }
    ASSERT_TRUE(touched);
    if (!damped) {
      EXPECT_GE(apexes, 1) << "an undamped spring bounces";
    }
    EXPECT_LT(s.object_twist_world[0].head<3>().norm(), 1e-3);
    EXPECT_EQ(s.warning_count, 0);
  }
}

// A 0.2 kg cube on the ground with gravity tilted by 20 degrees (an incline; tan 20 deg = 0.36
// < mu = 0.5). The anchor friction holds it: it moves less than 0.1 mm in 10 s. Eq. 8 has no
// static friction: the cube creeps at the speed v solving mu F_n tanh(gamma v) + beta v = F_t.
TEST(PenaltyGround, InclineHoldsWithTheAnchorAndCreepsWithTanh) {
  const double theta = 20.0 * kPi / 180.0, g = 9.81, mass = 0.2;
  for (const PenaltyFriction law : {PenaltyFriction::Anchor, PenaltyFriction::Tanh}) {
    Options opt = seed004Options();
    opt.contact.volumePenalty()->friction = law;
    opt.gravity_world = g * Eigen::Vector3d(std::sin(theta), 0.0, -std::cos(theta));
    ObjectModel box = freeObject(geometry::makeBox({0.1, 0.1, 0.1}), mass);
    box.friction = 0.5;
    auto model = compileModel(test::barrettHand(), {box}, opt);
    SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.05})});
    const double x0 = s.object_pose_world[0].translation().x();
    double x_at_1 = 0.0, x_at_2 = 0.0;
    for (int i = 0; i < 10000; ++i) {
      step(*model, s);
      if (i + 1 == 1000) x_at_1 = s.object_pose_world[0].translation().x();
      if (i + 1 == 2000) x_at_2 = s.object_pose_world[0].translation().x();
    }
    const double x10 = s.object_pose_world[0].translation().x();
    if (law == PenaltyFriction::Anchor) {
      // The load comes on at once: the spring stretches to m g sin(theta) / k_t = 0.067 mm
      // and overshoots (docs/free-objects.md); after that nothing moves.
      EXPECT_LT(std::abs(x10 - x0), 2e-4);
      EXPECT_LT(std::abs(x10 - x_at_1), 1e-4);
      EXPECT_LT(std::abs(x10 - x_at_2), 1e-6) << "no creep once the spring has settled";
    } else {
      contact::PenaltyContactParams p = opt.contact.volumePenalty()->penalty;
      p.mu = 0.5;
      const double v =
          contact::tanhCreepSpeed(p, mass * g * std::sin(theta), mass * g * std::cos(theta));
      const double measured = (x10 - x_at_2) / 8.0;
      EXPECT_NEAR(measured, v, 0.05 * v);
      EXPECT_NEAR(s.object_twist_world[0][0], v, 0.05 * v);
    }
    EXPECT_EQ(s.warning_count, 0);
  }
}
