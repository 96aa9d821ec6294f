// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's shaking metric (sim/carried_energy.hpp): the recorded carried kinetic energy of an
// object against a closed form worked here for a palm that translates and turns sinusoidally,
// an object that moves exactly as if carried gives a ratio of 1, and the ratio's integrals and
// sub-windows against piecewise-linear energies that trapezoids integrate exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "../support/box_objects.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/sim/carried_energy.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"

using namespace handsim;

namespace {

constexpr double kPi = 3.14159265358979323846;

std::shared_ptr<const hand::HandModel> barrett() {
  static const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  return hand;
}

}  // namespace

// A 0.1 x 0.2 x 0.3 m box resting (no gravity, far from the hand) while the palm shakes along
// x by A sin(wt) and turns about z by B sin(wt). Welded to the palm, the box's COM c would move
// with v = (A w cos wt, 0, 0) + th' e_z x (c - p(t)), p(t) = (A sin wt, 0, 0), th' = B w cos wt:
// v = (A w cos wt - th' c_y, th' (c_x - A sin wt), 0), and turn at th' about z:
// E_c = m |v|^2 / 2 + I_zz th'^2 / 2 with I_zz = m (a^2 + b^2) / 12.
TEST(CarriedEnergy, RecordedColumnMatchesTheClosedFormOfASinusoidalPalm) {
  sim::Options opt;
  opt.gravity_world.setZero();
  const Eigen::Vector3d size(0.1, 0.2, 0.3), c(0.6, 0.25, 0.3);
  const double density = 700.0;
  sim::ObjectModel o = test::boxObject("box", size, true, density);
  auto model = sim::compileModel(barrett(), {o}, opt);
  sim::RunPlan plan;
  plan.duration = 1.0;
  const double A = 0.03, B = 0.2, f = 1.5, w = 2 * kPi * f;
  plan.object_pose_world = {test::at(c)};
  plan.palm_motion.axis(sim::PalmMotion::X).sinusoids.push_back({A, f, 0.0, 3.0});
  plan.palm_motion.axis(sim::PalmMotion::RZ).sinusoids.push_back({B, f, 0.0, 3.0});
  sim::Run run(model, plan);
  run.runToEnd();
  const sim::Recorder& rec = run.recorder();
  ASSERT_GE(rec.columnIndex("box.carried_kinetic_energy"), 0);
  EXPECT_EQ(rec.unit("box.carried_kinetic_energy"), "J");
  const auto t = rec.series("time"), ec = rec.series("box.carried_kinetic_energy"),
             e = rec.series("box.kinetic_energy");
  const double m = density * size.prod();
  const double izz = m * (size.x() * size.x() + size.y() * size.y()) / 12.0;
  double largest = 0.0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double th_dot = B * w * std::cos(w * t[i]);
    const double vx = A * w * std::cos(w * t[i]) - th_dot * c.y();
    const double vy = th_dot * (c.x() - A * std::sin(w * t[i]));
    const double expected = 0.5 * m * (vx * vx + vy * vy) + 0.5 * izz * th_dot * th_dot;
    EXPECT_NEAR(ec[i], expected, 1e-12 * (1.0 + expected)) << "t = " << t[i];
    EXPECT_EQ(e[i], 0.0);  // the box does not move
    largest = std::max(largest, expected);
  }
  EXPECT_GT(largest, 0.01);  // the check is not vacuous: tens of mJ
  EXPECT_EQ(run.state().warning_count, 0);
}

// A box coasting at v0 (no gravity) under a palm that cruises at the same v0: it moves exactly
// as if carried, so the two energies agree at every sample and the ratio is 1.
TEST(CarriedEnergy, AnObjectMovingWithThePalmHasRatioOne) {
  sim::Options opt;
  opt.gravity_world.setZero();
  sim::ObjectModel o = test::boxObject("box", {0.1, 0.1, 0.1}, true, 1000.0);
  const Eigen::Vector3d v0(0.12, -0.05, 0.0);
  auto model = sim::compileModel(barrett(), {o}, opt);
  sim::RunPlan plan;
  plan.duration = 1.0;
  plan.object_pose_world = {test::at({0.6, 0.0, 0.3})};
  plan.object_twist_world = {test::twist(v0)};
  // Reaches its cruise speed within the first step and keeps it to the end.
  plan.palm_motion.axis(sim::PalmMotion::X).segments.append(
      sim::TrapezoidalProfile(0.0, 10.0, v0.x(), 1e5));
  plan.palm_motion.axis(sim::PalmMotion::Y).segments.append(
      sim::TrapezoidalProfile(0.0, -10.0, -v0.y(), 1e5));
  sim::Run run(model, plan);
  run.runToEnd();
  const sim::Recorder& rec = run.recorder();
  const auto t = rec.series("time"), e = rec.series("box.kinetic_energy"),
             ec = rec.series("box.carried_kinetic_energy");
  const sim::EnergyRatio r = sim::kineticEnergyRatio(t, e, ec, 0.1, 1.0, 0.25);
  EXPECT_NEAR(r.integral_ratio, 1.0, 1e-12);
  EXPECT_NEAR(r.peak_window_ratio, 1.0, 1e-12);
  EXPECT_NEAR(r.energy_integral, 0.5 * 1.0 * v0.squaredNorm() * 0.9, 1e-12);
  EXPECT_EQ(r.samples, 901);
}

// Trapezoids integrate piecewise-linear samples exactly: carried energy 1 J, object energy 1 J
// plus a triangle of height h from 0.5 s to 0.7 s (area 0.1 h). Over [0, 2] the ratio is
// (2 + 0.1 h) / 2; the 0.2 s sub-window on the triangle gives (0.2 + 0.1 h) / 0.2 = 1 + h / 2.
TEST(CarriedEnergy, RatioIntegralsAndPeakSubWindowAgainstTheirClosedForms) {
  const double h = 3.0;
  std::vector<double> t, e, ec;
  for (int i = 0; i <= 300; ++i) {
    const double ti = 0.01 * i;
    t.push_back(ti);
    ec.push_back(1.0);
    e.push_back(1.0 + h * std::max(0.0, 1.0 - std::abs(ti - 0.6) / 0.1));
  }
  const sim::EnergyRatio r = sim::kineticEnergyRatio(t, e, ec, 0.0, 2.0, 0.2);
  EXPECT_NEAR(r.integral_ratio, (2.0 + 0.1 * h) / 2.0, 1e-12);
  EXPECT_NEAR(r.peak_window_ratio, 1.0 + h / 2.0, 1e-9);
  EXPECT_EQ(r.samples, 201);
  // A window that leaves out the triangle sees ratio 1; one shorter than the sub-window has
  // no peak.
  EXPECT_NEAR(sim::kineticEnergyRatio(t, e, ec, 1.0, 3.0, 0.2).integral_ratio, 1.0, 1e-12);
  EXPECT_TRUE(std::isnan(sim::kineticEnergyRatio(t, e, ec, 1.0, 1.1, 0.2).peak_window_ratio));
  // A palm at rest: no ratio.
  const std::vector<double> zero(t.size(), 0.0);
  EXPECT_TRUE(std::isnan(sim::kineticEnergyRatio(t, e, zero, 0.0, 2.0, 0.2).integral_ratio));
  // Bad input.
  EXPECT_THROW(sim::kineticEnergyRatio(t, e, {1.0}, 0.0, 2.0, 0.2), std::invalid_argument);
  EXPECT_THROW(sim::kineticEnergyRatio(t, e, ec, 2.0, 2.0, 0.2), std::invalid_argument);
  EXPECT_THROW(sim::kineticEnergyRatio(t, e, ec, 0.0, 2.0, 0.0), std::invalid_argument);
  std::vector<double> bad = t;
  bad[5] = bad[4];
  EXPECT_THROW(sim::kineticEnergyRatio(bad, e, ec, 0.0, 2.0, 0.2), std::invalid_argument);
}
