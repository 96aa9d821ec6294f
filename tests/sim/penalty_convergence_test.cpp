// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's penalty contact converges as the step shrinks (issue 19; docs/free-objects.md,
// "Integrator for the stiff contact"): with the model's defaults, runs at dt 1, 0.25 and 0.1 ms
// agree with each other and with rigid-body statics. Each test checks mechanics, never the
// code's own output: a resting cube stays at its spring law's rest depth m g / g1 and its
// energy never grows; a cube on a slope below its friction angle stays; a spinning cube
// decelerates at the Coulomb moment of its uniformly pressed square footprint. The slope tilts
// gravity.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/rigid_body.hpp"
#include "handsim/sim/step.hpp"

#include "../support/box_objects.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kG = 9.81;

// A free box of edges `size` [m] (square footprint, side w = size.x) and `mass` [kg], its faces
// along the world axes, at rest on the ground z <= 0 where eq. 6 carries the weight's normal part
// m g_n: g1 d_eq = m g_n. Sunk by d, the overlap is v = w^2 d, bounded by the ground's face w^2
// and the box's bottom w^2 plus four side strips 4 w d, so d_eq = 2 v / (2 w^2 + 4 w d) =
// d / (1 + 2 d / w), i.e. d = d_eq / (1 - 2 d_eq / w). Far from the hand at the origin; gravity
// tilted by `slope` [rad] about y (down the slope is +x).
struct BoxRun {
  std::shared_ptr<const Model> model;
  SimState state;
};

BoxRun boxOnGround(const Eigen::Vector3d& size, double mass, double mu, double slope, double dt) {
  Options opt;
  opt.contact.model = ContactModel::Seed004;
  opt.ground.enabled = true;
  opt.dt = dt;
  opt.gravity_world = kG * Eigen::Vector3d(std::sin(slope), 0.0, -std::cos(slope));
  const double d_eq = mass * kG * std::cos(slope) / opt.contact.penalty.stiffness_n_per_m;
  const double depth = d_eq / (1.0 - 2.0 * d_eq / size.x());
  ObjectModel box =
      test::meshObject("box", geometry::makeBox(size), mass, {5.0, 0.0, 0.5 * size.z() - depth});
  box.friction = mu;
  BoxRun out;
  out.model = compileModel(test::barrettHand(), {box}, opt);
  out.state = makeState(*out.model);
  return out;
}

// Kinetic plus potential energy in the tilted gravity field plus the ground spring's energy
// g1 d^2 / 2 at the box's bottom depth d (flat on the ground) [J].
double energy(const Model& model, const SimState& s, const Eigen::Vector3d& size) {
  const ObjectModel& o = model.objects[0];
  const Eigen::Matrix3d R = s.object_pose_world[0].linear();
  const Eigen::Vector3d com = s.object_pose_world[0] * o.mass.centre_of_mass;
  const double depth = std::max(0.0, 0.5 * size.z() - com.z());
  return kineticEnergy(o.mass.mass_kg, R * o.mass.inertia_com * R.transpose(),
                       s.object_twist_world[0].head<3>(), s.object_twist_world[0].tail<3>()) -
         o.mass.mass_kg * model.options.gravity_world.dot(com) +
         0.5 * model.options.contact.penalty.stiffness_n_per_m * depth * depth;
}

}  // namespace

// A 5 cm cube of 0.2 kg and of 5 kg put on the ground at its rest depth m g / g1, at rest. At
// every step it stays at rest: its centre within 1 um of where it started, its speed below
// 1 mm/s, and its energy never above the start's (nothing does work on it). Before the fix the
// 0.2 kg cube was launched to 1.72 m at dt 0.1 ms and the 5 kg one to 6.9 m.
TEST(PenaltyConvergence, RestingCubeStaysAtRestAtEveryStep) {
  const Eigen::Vector3d size(0.05, 0.05, 0.05);
  for (const double mass : {0.2, 5.0})
    for (const double dt : {1e-3, 2.5e-4, 1e-4}) {
      BoxRun run = boxOnGround(size, mass, 0.5, 0.0, dt);
      const double z0 = run.state.object_pose_world[0].translation().z();
      const double e0 = energy(*run.model, run.state, size);
      double drift = 0.0, speed = 0.0, gain = 0.0;
      for (int i = 0; i < static_cast<int>(std::lround(0.3 / dt)); ++i) {
        step(*run.model, run.state);
        drift = std::max(
            drift,
            (run.state.object_pose_world[0].translation() - Eigen::Vector3d(5.0, 0.0, z0)).norm());
        speed = std::max(speed, run.state.object_twist_world[0].head<3>().norm());
        gain = std::max(gain, energy(*run.model, run.state, size) - e0);
      }
      EXPECT_LT(drift, 1e-6) << mass << " kg, dt " << dt;
      EXPECT_LT(speed, 1e-3) << mass << " kg, dt " << dt;
      EXPECT_LE(gain, 1e-9 * mass * kG) << mass << " kg, dt " << dt;
      EXPECT_EQ(run.state.warning_count, 0);
    }
}

// A 5 cm, 0.2 kg cube on a 26 deg slope with mu 0.5: tan(26 deg) / mu = 0.975 < 1, below the
// friction angle, so Coulomb holds it. Its load comes on at once at 97.5 % of mu f_n, so the
// anchor spring's overshoot (up to twice its stretch m g sin / k_t = 0.086 mm) slides it a little
// while it rings (docs/free-objects.md, the anchor's transient); then it stays: it moves less
// than 3 mm in all and less than 10 um from 0.5 s to 1 s (its last rocking dies out), at dt 1
// and 0.25 ms. Before the fix it
// walked down the slope for as long as it ran (10.7 cm in 2 s at 0.25 ms).
TEST(PenaltyConvergence, CubeBelowTheFrictionAngleStays) {
  const Eigen::Vector3d size(0.05, 0.05, 0.05);
  const double slope = 26.0 * kPi / 180.0;
  for (const double dt : {1e-3, 2.5e-4}) {
    BoxRun run = boxOnGround(size, 0.2, 0.5, slope, dt);
    const Eigen::Vector3d start = run.state.object_pose_world[0].translation();
    Eigen::Vector3d settled = start;
    double moved = 0.0;
    const int n = static_cast<int>(std::lround(1.0 / dt));
    for (int i = 1; i <= n; ++i) {
      step(*run.model, run.state);
      moved = std::max(moved, (run.state.object_pose_world[0].translation() - start).norm());
      if (i == n / 2) settled = run.state.object_pose_world[0].translation();
    }
    EXPECT_LT(moved, 3e-3) << "dt " << dt;
    EXPECT_LT((run.state.object_pose_world[0].translation() - settled).norm(), 1e-5) << "dt " << dt;
    EXPECT_EQ(run.state.warning_count, 0);
  }
}

// A 5 cm, 0.2 kg cube spinning about z at 20 rad/s on the ground (mu 0.1). Coulomb friction under
// uniform pressure p = m g / s^2 on its square face gives the moment
//   M = mu p * integral of r over the square = mu m g s (sqrt 2 + ln(1 + sqrt 2)) / 6
// (the mean distance of a square's points from its centre is s (sqrt 2 + ln(1 + sqrt 2)) / 6),
// and with I_zz = m s^2 / 6 the deceleration mu g (sqrt 2 + ln(1 + sqrt 2)) / s = 45.0 rad/s^2.
// The patch friction takes the footprint as a disc of the same area (1.7 % weaker), so 3 %.
// Measured at dt 1 and 0.25 ms over 0.05-0.25 s; before the fix 0.25 ms gave 53.7 rad/s^2.
TEST(PenaltyConvergence, SpinDownMatchesCoulombAtTwoSteps) {
  const Eigen::Vector3d size(0.05, 0.05, 0.05);
  const double s = size.x(), mu = 0.1;
  const double expected = mu * kG * (std::sqrt(2.0) + std::log(1.0 + std::sqrt(2.0))) / s;
  for (const double dt : {1e-3, 2.5e-4}) {
    BoxRun run = boxOnGround(size, 0.2, mu, 0.0, dt);
    run.state.object_twist_world[0][5] = 20.0;
    double w1 = 0.0;
    for (int i = 1; i <= static_cast<int>(std::lround(0.25 / dt)); ++i) {
      step(*run.model, run.state);
      if (i == static_cast<int>(std::lround(0.05 / dt))) w1 = run.state.object_twist_world[0][5];
    }
    const double w2 = run.state.object_twist_world[0][5];
    EXPECT_NEAR((w1 - w2) / 0.2, expected, 0.03 * expected) << "dt " << dt;
  }
}
