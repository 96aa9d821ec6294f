// SPDX-License-Identifier: GPL-3.0-or-later
// The BarrettHand picks a free cube off the ground and lifts it 10 cm
// (assets/scenarios/barrett_lift_cube.json): the cube rises with the palm, its weight is carried
// by the fingers' contact forces (vertical balance worked from the recorded forces), and while
// held it moves less than 1 mm relative to the palm over 10 s (issue: friction that holds).
#include <gtest/gtest.h>

#include <cmath>

#include "handsim/formats/scenario.hpp"
#include "handsim/sim/run.hpp"

using namespace handsim;

namespace {

Eigen::Vector3d cubeInPalm(const sim::SimState& s, const sim::Model& m) {
  const Eigen::Vector3d com = s.object_pose_world[0] * m.objects[0].mass.centre_of_mass;
  return s.palm_pose_world.inverse() * com;
}

}  // namespace

TEST(BarrettLift, TheCubeIsPickedUpLiftedTenCentimetresAndHeld) {
  const sim::Scenario sc =
      sim::loadScenario(std::string(HANDSIM_SOURCE_DIR) + "/assets/scenarios/barrett_lift_cube.json");
  sim::Run run(sim::compileScenario(sc), sc.plan);
  const sim::Model& m = run.model();
  ASSERT_FALSE(m.objects[0].fixed);
  ASSERT_NEAR(m.objects[0].mass.mass_kg, 0.2, 1e-12);
  const auto cube_z = [&] {
    return (run.state().object_pose_world[0] * m.objects[0].mass.centre_of_mass).z();
  };
  // Closing (0-2 s): every finger presses on the cube, which still rests on the ground (its
  // centre 25 mm up, less the contact slop).
  while (run.state().time < 2.0 - 1e-9) run.step();
  const double z0 = cube_z();
  EXPECT_GT(z0, 0.025 - 2.0 * sc.options.contact.constraint()->slop);
  bool pressing[3] = {false, false, false};
  for (const sim::Contact& c : run.state().contacts)
    if (c.object == 0 && c.force > 0.0 && c.finger >= 0 && c.finger < 3) pressing[c.finger] = true;
  EXPECT_TRUE(pressing[0] && pressing[1] && pressing[2]) << "grasped by all three fingers";
  // Lifting (2-3.2 s): as the cube leaves the ground the grasp re-settles (2.0-2.41 s: the
  // ground's friction had balanced fingers 1 and 2 pushing 15 N harder than finger 3, whose
  // servo then gives way; docs/free-objects.md, "Why the lifted cube re-settles"): the cube
  // moves about 39 mm along the palm's y and 3.8 mm towards the palm. From 2.5 s it moves with
  // the palm, so its rise from then to 4 s is the palm's (60 mm of the trapezoid).
  while (run.state().time < 2.5 - 1e-9) run.step();
  const double z_settled = cube_z();
  const double palm_settled = run.state().palm_pose_world.translation().z();
  while (run.state().time < 4.0 - 1e-9) run.step();
  const Eigen::Vector3d held = cubeInPalm(run.state(), m);
  const double palm_rise = run.state().palm_pose_world.translation().z() - palm_settled;
  EXPECT_NEAR(palm_rise, 0.06, 1e-6) << "the palm's trapezoid from 2.5 s";
  EXPECT_NEAR(cube_z() - z_settled, palm_rise, 5e-4) << "the re-settled cube rose with the palm";
  // Over the whole lift: the palm's 100 mm plus the re-settling towards the palm (at most 5 mm),
  // not left behind.
  EXPECT_GT(cube_z() - z0, 0.10 - 0.002) << "the cube rose with the palm";
  EXPECT_LT(cube_z() - z0, 0.10 + 0.005);
  // Off the ground, the hand carries all of it: at rest the contact forces on the cube balance
  // its weight (Newton, from the forces the solver reported, impacts excluded).
  Eigen::Vector3d on_cube = Eigen::Vector3d::Zero();
  for (const auto& c : run.state().contacts)
    if (c.object == 0) on_cube += c.forceOnObjectWorld();
  for (const auto& c : run.state().object_contacts) on_cube += c.forceOnObjectWorld();
  EXPECT_NEAR(on_cube.z(), 0.2 * 9.81, 0.05 * 0.2 * 9.81);
  EXPECT_LT(std::hypot(on_cube.x(), on_cube.y()), 0.05 * 0.2 * 9.81);

  double worst = 0.0;
  while (!run.finished()) {
    run.step();
    worst = std::max(worst, (cubeInPalm(run.state(), m) - held).norm());
  }
  EXPECT_LT(worst, 1e-3) << "slip relative to the palm over 10 s of holding";
  EXPECT_EQ(run.state().warning_count, 0);
  for (const auto& c : run.state().clutches) EXPECT_FALSE(c.broken);
}
