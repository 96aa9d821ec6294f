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

#include "handsim/contact/penalty_contact.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/penalty_state.hpp"
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
  opt.contact.useVolumePenalty();
  opt.ground.enabled = true;
  opt.dt = dt;
  opt.gravity_world = kG * Eigen::Vector3d(std::sin(slope), 0.0, -std::cos(slope));
  const double d_eq =
      mass * kG * std::cos(slope) / opt.contact.volumePenalty()->penalty.stiffness_n_per_m;
  const double depth = d_eq / (1.0 - 2.0 * d_eq / size.x());
  ObjectModel box = test::meshObject("box", geometry::makeBox(size), mass);
  box.friction = mu;
  BoxRun out;
  out.model = compileModel(test::barrettHand(), {box}, opt);
  out.state = test::stateAt(*out.model, {test::at({5.0, 0.0, 0.5 * size.z() - depth})});
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
         0.5 * model.options.contact.volumePenalty()->penalty.stiffness_n_per_m * depth * depth;
}

// The Winkler bed's energy of a box on the ground: eq. 6 on d = v / A_ref pushes with g1 v / A_ref
// at the overlap's centroid, the resultant of the pressure (g1 / A_ref) * depth on the ground
// plane, so it stores (g1 / A_ref) / 2 times the integral of depth^2 over the ground. The depth
// under the box's bottom face (the slivers under its sides are second order), summed on a grid
// of the face and projected on the ground [J].
double bedEnergy(const Model& model, const SimState& s, const Eigen::Vector3d& size,
                 double reference_area) {
  const Eigen::Isometry3d& pose = s.object_pose_world[0];
  const int n = 100;
  double sum = 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const Eigen::Vector3d p(((i + 0.5) / n - 0.5) * size.x(), ((j + 0.5) / n - 0.5) * size.y(),
                              -0.5 * size.z());
      const double depth = std::max(0.0, -(pose * p).z());
      sum += depth * depth;
    }
  const double face = size.x() * size.y() / (n * n) * std::abs(pose.linear()(2, 2));
  return 0.5 * model.options.contact.volumePenalty()->penalty.stiffness_n_per_m / reference_area *
         sum * face;
}

// Kinetic energy, potential energy in the tilted gravity field, the ground's bed (bedEnergy) and
// the anchor friction's springs, tangential and torsional [J].
double rockingEnergy(const Model& model, const SimState& s, const Eigen::Vector3d& size,
                     double reference_area) {
  const ObjectModel& o = model.objects[0];
  const Eigen::Matrix3d R = s.object_pose_world[0].linear();
  const Eigen::Vector3d com = s.object_pose_world[0] * o.mass.centre_of_mass;
  const contact::AnchorFrictionParams& a = model.options.contact.volumePenalty()->anchor;
  const PenaltyPairState& ground = s.penalty_pairs[0];
  const double e = 2.0 / 3.0 * std::sqrt(reference_area / kPi);
  return kineticEnergy(o.mass.mass_kg, R * o.mass.inertia_com * R.transpose(),
                       s.object_twist_world[0].head<3>(), s.object_twist_world[0].tail<3>()) -
         o.mass.mass_kg * model.options.gravity_world.dot(com) +
         bedEnergy(model, s, size, reference_area) +
         0.5 * a.stiffness_n_per_m *
             (ground.anchor.extension.squaredNorm() + e * e * ground.twist * ground.twist);
}

// The slope [rad] at which a box of footprint w x w, height h and mass m [kg] tips on a Winkler
// bed of modulus k = g1 / A_ref [N/m^3] (eq. 6 on d = v / A_ref), friction holding. Tilted by
// theta about its downhill edge's direction (small enough that it stays planar), the bottom face
// at u in [-w/2, w/2] (u down the slope from its centre, ground frame z up) is at depth
// D(u) = s (u - u0), s = sin theta, where D > 0; the bed pushes N = k w cos(theta) int D du
// (its area element projected on the ground) at the overlap's centroid, so for a given N
//   full contact (u0 < -w/2): int D du = s w (-u0),
//   wedge (u0 >= -w/2):        int D du = s (w/2 - u0)^2 / 2.
// Statics with the slope alpha (gravity tilted, N = m g cos alpha, the friction m g sin alpha at
// the centroid, depth z_c = -int D^2 / (2 int D)): the resultant passes through the centre of
// mass G, x_c - x_G = (z_G - z_c) tan alpha, with x_c - x_G = cos(theta) u_c - (h/2) s (u_c the
// pressure's centroid on the face) and z_G = s u0 + (h/2) cos theta. That gives alpha(theta) in
// closed form (a fixed point in N's cos alpha); the box leans further as alpha grows, up to the
// largest alpha(theta), beyond which no lean holds it: that maximum is the tipping slope. For
// k -> infinity it is atan(w / h).
double staticTippingSlope(double w, double h, double m, double k) {
  double best = 0.0;
  for (int i = 1; i <= 4000; ++i) {
    const double theta = i * 2.5e-5;
    const double s = std::sin(theta), c = std::cos(theta);
    double alpha = 0.0;
    for (int it = 0; it < 30; ++it) {
      const double area_depth = m * kG * std::cos(alpha) / (k * w * c);  // int D du
      double u0 = -area_depth / (s * w);
      if (u0 >= -0.5 * w) u0 = 0.5 * w - std::sqrt(2.0 * area_depth / s);
      const double lo = std::max(-0.5 * w, u0), hi = 0.5 * w;
      const double i0 = s * (std::pow(hi - u0, 2) - std::pow(lo - u0, 2)) / 2.0;
      const double i1 =
          s * ((std::pow(hi, 3) - std::pow(lo, 3)) / 3.0 - u0 * (hi * hi - lo * lo) / 2.0);
      const double i2 = s * s * (std::pow(hi - u0, 3) - std::pow(lo - u0, 3)) / 3.0;
      const double z_g = s * u0 + 0.5 * h * c, z_c = -0.5 * i2 / i0;
      alpha = std::atan((c * i1 / i0 - 0.5 * h * s) / (z_g - z_c));
    }
    best = std::max(best, alpha);
  }
  return best;
}

// The box's tilt from upright [rad].
double tilt(const SimState& s) {
  return std::acos(std::clamp(s.object_pose_world[0].linear()(2, 2), -1.0, 1.0));
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

// The reference area a box standing at rest on the ground (boxOnGround) gets: the mean of its
// two sub-meshes' areas, w^2 (the ground's face) and w^2 + 4 w d (its bottom and four side
// strips sunk d), d its rest depth under the weight's normal part m g cos(slope) [m^2].
double restReferenceArea(const Model& model, double w, double mass, double slope) {
  const double d_eq = mass * kG * std::cos(slope) /
                      model.options.contact.volumePenalty()->penalty.stiffness_n_per_m;
  return w * w + 2.0 * w * d_eq / (1.0 - 2.0 * d_eq / w);
}

// A 2 x 2 x 8 cm box of 0.2 kg (mu 1) standing on the ground at rest, tipped towards +x at
// 2.5 rad/s about its bottom edge there (1.4 mJ): it rocks up onto that edge (6.5-7 deg), falls
// back and rocks on. Nothing does work on it, so its energy (rockingEnergy: motion, gravity, the
// ground's bed, the anchor's springs) should never rise above an earlier value. It still does,
// by less: bound 80 uJ at dt 0.25 ms and 350 uJ at 1 ms over 1.5 s (measured 52 and 292 uJ; what
// is left: docs/free-objects.md); before the reference area (eq. 6 on the current mean area) it
// rose by at least 320 and 700 uJ while the rocking grew from 7 to 11 deg.
TEST(PenaltyConvergence, RockingBoxEnergyRisesLessThanWithTheCurrentArea) {
  const Eigen::Vector3d size(0.02, 0.02, 0.08);
  const double w = size.x(), h = size.z(), mass = 0.2, omega = 2.5;
  for (const double dt : {1e-3, 2.5e-4}) {
    BoxRun run = boxOnGround(size, mass, 1.0, 0.0, dt);
    const double reference_area = restReferenceArea(*run.model, w, mass, 0.0);
    run.state.object_twist_world[0] << 0.5 * h * omega, 0.0, 0.5 * w * omega, 0.0, omega, 0.0;
    double lowest = rockingEnergy(*run.model, run.state, size, reference_area), rise = 0.0;
    for (int i = 1; i <= static_cast<int>(std::lround(1.5 / dt)); ++i) {
      step(*run.model, run.state);
      const double e = rockingEnergy(*run.model, run.state, size, reference_area);
      rise = std::max(rise, e - lowest);
      lowest = std::min(lowest, e);
    }
    EXPECT_LT(rise, dt > 5e-4 ? 350e-6 : 80e-6) << "dt " << dt;
    EXPECT_EQ(run.state.warning_count, 0);
  }
}

// The 2 x 2 x 8 cm box (mu 1) of 0.2 and 5 kg standing on the ground, the slope raised slowly
// (gravity turned about y over 1 s, then held 1 s, so that it leans quasi-statically): it stands
// below and tips above the static tipping slope of its bed (staticTippingSlope with
// k = g1 / A_ref): 9.67 deg for 0.2 kg, 0.72 deg for 5 kg (rigid: atan(2/8) = 14.0 deg). It
// stands at that slope less 1.2 deg (0.2 kg) and 0.25 deg (5 kg) and tips at that slope plus
// 0.5 and 0.25 deg, at dt 1 and 0.25 ms. Measured: 0.2 kg tips at 9.0 deg (1 ms) and 9.5 deg
// (0.25 ms), stands at 8.5 and 9.0; 5 kg stands at 0.5 deg (leaning 2.9 deg) and tips at 1.0.
// Before the reference area the 5 kg box stood at 1.0 deg (this test failed there) and tipped at
// 1.5; the 0.2 kg one tipped at 9.5 (1 ms) and 10.5 deg (0.25 ms).
TEST(PenaltyConvergence, TallBoxTipsAtItsStaticSlope) {
  const Eigen::Vector3d size(0.02, 0.02, 0.08);
  const double w = size.x(), h = size.z();
  for (const double mass : {0.2, 5.0}) {
    const double below = mass < 1.0 ? 1.2 : 0.25, above = mass < 1.0 ? 0.5 : 0.25;
    for (const double dt : {1e-3, 2.5e-4}) {
      BoxRun run0 = boxOnGround(size, mass, 1.0, 0.0, dt);
      const double k = run0.model->options.contact.volumePenalty()->penalty.stiffness_n_per_m /
                       restReferenceArea(*run0.model, w, mass, 0.0);
      const double tipping = staticTippingSlope(w, h, mass, k);
      for (const double margin : {-below, above}) {
        const double slope = tipping + margin * kPi / 180.0;
        BoxRun run = boxOnGround(size, mass, 1.0, 0.0, dt);
        Model model = *run.model;
        const int ramp = static_cast<int>(std::lround(1.0 / dt));
        for (int i = 1; i <= 2 * ramp; ++i) {
          const double a = slope * std::min(1.0, static_cast<double>(i) / ramp);
          model.options.gravity_world = kG * Eigen::Vector3d(std::sin(a), 0.0, -std::cos(a));
          step(model, run.state);
        }
        if (margin < 0.0)
          EXPECT_LT(tilt(run.state), 10.0 * kPi / 180.0)
              << mass << " kg, dt " << dt << ": tipped at " << slope * 180.0 / kPi << " deg";
        else
          EXPECT_GT(tilt(run.state), 45.0 * kPi / 180.0)
              << mass << " kg, dt " << dt << ": stood at " << slope * 180.0 / kPi << " deg";
      }
    }
  }
}
