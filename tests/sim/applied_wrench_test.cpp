// SPDX-License-Identifier: GPL-3.0-or-later
// An applied wrench on a free object (SimState::object_applied_wrench_world, the GUI's drag
// perturbation) against the closed forms of a box in weightless space: a constant force F
// gives v = F t / m (semi-implicit Euler: exact at every step), a constant torque T about an
// axis of the box's isotropic inertia gives w = T t / I with I = m (a^2 + a^2) / 12 worked here.
#include <gtest/gtest.h>

#include <cmath>

#include "../support/box_objects.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;
using namespace handsim::sim;

TEST(AppliedWrench, ForceAndTorqueOnAFreeBoxMatchTheClosedForms) {
  Options opt;
  opt.dt = 1e-3;
  opt.gravity_world = Eigen::Vector3d::Zero();
  const double a = 0.1, density = 1000.0;
  ObjectModel o = test::boxObject("box", {a, a, a}, true, density);
  auto model =
      compileModel(std::make_shared<const hand::HandModel>(hand::loadHand("barrett")), {o}, opt);
  SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 1.0})});
  const double m = density * a * a * a;
  const double inertia = m * (a * a + a * a) / 12.0;
  const Eigen::Vector3d force(2.0, -1.0, 0.5), torque(0.0, 0.0, 0.01);
  Twist wrench;
  wrench << force, torque;
  s.object_applied_wrench_world = {wrench};
  for (int i = 0; i < 200; ++i) step(*model, s);
  const double t = s.time;
  EXPECT_LT((s.object_twist_world[0].head<3>() - force * t / m).norm(), 1e-9);
  EXPECT_NEAR(s.object_twist_world[0][5], torque.z() * t / inertia, 1e-6);
  EXPECT_NEAR(s.object_twist_world[0].segment<2>(3).norm(), 0.0, 1e-9);
  // Without it the box keeps its velocity.
  const Eigen::Vector3d v = s.object_twist_world[0].head<3>();
  s.object_applied_wrench_world.clear();
  for (int i = 0; i < 50; ++i) step(*model, s);
  EXPECT_LT((s.object_twist_world[0].head<3>() - v).norm(), 1e-12);
  EXPECT_EQ(s.warning_count, 0);
}
