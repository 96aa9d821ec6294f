// SPDX-License-Identifier: GPL-3.0-or-later
// The seed004 stage with "integration": "explicit" (docs/free-objects.md, "Explicit
// integration"): eq. 6 from the state at the start of the step, constant over it. A wide flat
// box falls flat on the ground without gravity, so its overlap is a slab of the box's face and
// eq. 6 is (nearly) the linear spring-damper m x'' = -g1 x - g2 x' while the force pushes.
// Checked against the closed forms of that oscillator: undamped, the contact lasts
// pi sqrt(m / g1) and the box leaves at its landing speed (the symplectic step conserves energy
// to O(omega dt)); damped, it leaves when the force g1 x + g2 x' first vanishes, at the speed
// the damped oscillator's solution gives then. The stable-step check refuses a dt above the
// Jury bound dt^2 g1/m + 2 dt g2/m = 4 and accepts one below, and a run at 1.2 times the bound
// blows up while one at 0.8 times settles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/sim/penalty_contacts.hpp"
#include "handsim/sim/rigid_body.hpp"
#include "handsim/sim/step.hpp"

#include "../support/box_objects.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A 0.3 m x 0.3 m x 0.05 m box of 0.2 kg.
ObjectModel flatBox() {
  return test::meshObject("slab", geometry::makeBox({0.3, 0.3, 0.05}), 0.2);
}

// A state of the flat box's `model` with its bottom face `gap` above the ground, moving at `vz`.
SimState flatBoxState(const Model& model, double gap, double vz) {
  return test::stateAt(model, {test::at(Eigen::Vector3d(5.0, 0.0, 0.025 + gap))}, {},
                       {test::twist({0.0, 0.0, vz})});
}

Options explicitOptions(double dt, double g2) {
  Options opt;
  opt.dt = dt;
  opt.gravity_world.setZero();
  opt.contact.useVolumePenalty();
  opt.contact.volumePenalty()->integration = PenaltyIntegration::Explicit;
  opt.ground.enabled = true;
  opt.contact.volumePenalty()->penalty.damping_ns_per_m = g2;
  opt.contact.volumePenalty()->penalty.first_contact_gain =
      0.0;  // eq. 5's kappa = 1: the linear law
  // A filter far faster than the contact (608 rad/s), so eq. 4's rate is the depth's rate.
  opt.contact.volumePenalty()->penalty.filter_natural_frequency_radps = 2.0 * kPi * 20000.0;
  return opt;
}

struct Bounce {
  double duration_s = 0.0;  // first step with a force to the first without
  double exit_vz = 0.0;     // the box's speed once the force is gone
};

Bounce bounce(const Options& opt, double v0) {
  auto model = compileModel(test::barrettHand(), {flatBox()}, opt);
  SimState s = flatBoxState(*model, 1e-4, -v0);
  int first = -1, last = -1;
  for (int i = 0; i < 100000 && last < 0; ++i) {
    step(*model, s);
    const bool pushing = !s.object_contacts.empty() && s.object_contacts[0].force > 0.0;
    if (pushing && first < 0) first = i;
    if (!pushing && first >= 0) last = i;
  }
  EXPECT_GE(first, 0);
  EXPECT_GE(last, 0);
  EXPECT_EQ(s.warning_count, 0);
  return {(last - first) * opt.dt, s.object_twist_world[0][2]};
}

}  // namespace

// Undamped: a half period of the spring-mass oscillator, pi sqrt(m / g1) = 5.17 ms, and the
// landing speed back. (The overlap's sides make the equivalent depth d / (1 + 2 d / L), L the
// box's side: 0.3 % softer at the 0.5 mm the box reaches; energy is conserved all the same.)
TEST(PenaltyExplicit, UndampedBounceIsTheSpringMassHalfPeriod) {
  const double v0 = 0.3, m = 0.2, dt = 1e-5;
  const Options opt = explicitOptions(dt, 0.0);
  const Bounce b = bounce(opt, v0);
  const double half_period =
      kPi * std::sqrt(m / opt.contact.volumePenalty()->penalty.stiffness_n_per_m);
  EXPECT_NEAR(b.duration_s, half_period, 0.01 * half_period + 2 * dt);
  // Symplectic Euler: energy to O(omega dt) = 0.6 %.
  EXPECT_NEAR(b.exit_vz, v0, 0.01 * v0);
  // The implicit integration of the same contact loses energy (what the explicit one is for).
  Options implicit_opt = opt;
  implicit_opt.contact.volumePenalty()->integration = PenaltyIntegration::Implicit;
  implicit_opt.dt = 1e-3;
  EXPECT_LT(bounce(implicit_opt, v0).exit_vz, 0.9 * v0);
}

// Damped, zeta = 0.2: x(t) = (v0 / w) e^(-a t) sin(w t), a = g2 / 2m, w = sqrt(g1/m - a^2); the
// force g1 x + g2 x' vanishes (and the penalty contact lets go) at tan(w t*) = -g2 w / (g1 -
// g2 a); the coefficient of restitution is -x'(t*) / v0.
TEST(PenaltyExplicit, DampedBounceHasTheDampedOscillatorsRestitution) {
  const double v0 = 0.3, m = 0.2, dt = 1e-5, g1 = 74000.0;
  const double g2 = 2.0 * 0.2 * std::sqrt(g1 * m);
  const Options opt = explicitOptions(dt, g2);
  ASSERT_EQ(opt.contact.volumePenalty()->penalty.stiffness_n_per_m, g1);
  const Bounce b = bounce(opt, v0);
  const double a = g2 / (2.0 * m), w = std::sqrt(g1 / m - a * a);
  const double t_star = (kPi - std::atan(g2 * w / (g1 - g2 * a))) / w;
  const double exit =
      (v0 / w) * std::exp(-a * t_star) * (w * std::cos(w * t_star) - a * std::sin(w * t_star));
  const double restitution = -exit / v0;
  ASSERT_GT(restitution, 0.3);
  ASSERT_LT(restitution, 0.8);
  EXPECT_NEAR(b.exit_vz / v0, restitution, 0.03 * restitution);
  EXPECT_NEAR(b.duration_s, t_star, 0.03 * t_star + 2 * dt);
}

// The paper's g2 on a 0.2 kg box: the bound (-c + sqrt(c^2 + 4 k m)) / k of the Jury condition
// for one mode, 80.0 us. At 0.8 of it the box settles on the ground; at 1.2 the damper's
// response flips sign every step and grows until the force lets go, and the box keeps hopping.
TEST(PenaltyExplicit, StepBoundSeparatesSettlingFromBlowUp) {
  const double m = 0.2, g1 = 74000.0, g2 = 5000.0;
  const double bound = (-g2 + std::sqrt(g2 * g2 + 4.0 * g1 * m)) / g1;
  EXPECT_NEAR(bound, 79.95e-6, 0.01e-6);
  auto peakSpeed = [&](double dt) {
    Options opt = explicitOptions(dt, g2);
    opt.gravity_world = Eigen::Vector3d(0.0, 0.0, -9.81);
    opt.contact.volumePenalty()->penalty.filter_natural_frequency_radps =
        2.0 * kPi * 1e6;  // the true rate
    // At rest at eq. 6's equilibrium depth m g / g1, nudged down at 1 mm/s.
    auto model = compileModel(test::barrettHand(), {flatBox()}, opt);
    SimState s = flatBoxState(*model, -m * 9.81 / g1, -1e-3);
    double late = 0.0;  // the largest speed over the last 500 steps
    for (int i = 0; i < 3000; ++i) {
      step(*model, s);
      if (i >= 2500) late = std::max(late, s.object_twist_world[0].head<3>().norm());
    }
    return late;
  };
  const double below = peakSpeed(0.8 * bound), above = peakSpeed(1.2 * bound);
  EXPECT_LT(below, 1e-6) << "settled (from the 1 mm/s nudge)";
  // Above the bound the oscillation grows until eq. 6 stops pushing (the penalty force never
  // pulls): the box keeps hopping at a fair fraction of the nudge.
  EXPECT_GT(above, 3e-4);
}

TEST(PenaltyExplicit, ScenarioStepAboveTheBoundIsRefused) {
  const std::string dir = hand::assetDirectory() + "/scenarios/";
  auto scenario = [](const std::string& dt) {
    return R"({"format": "handsim-scenario", "version": 1, "hand": "barrett", "duration_s": 0.01,
  "ground": {}, "dt_s": )" +
           dt + R"(,
  "contact": {"model": "seed004", "integration": "explicit", "g2_ns_per_m": 5000},
  "objects": [{"mesh": "objects/cube.wrl", "free": true, "mass_kg": 0.2,
               "pose": {"translation_m": [0.5, 0, 0.1]}}]
})";
  };
  // 80.0 us for 0.2 kg with g1 = 74000 N/m and g2 = 5000 N s/m.
  Scenario sc;
  try {
    sc = parseScenario(scenario("7.5e-5"), dir + "explicit.json");
  } catch (const io::InputError& e) {
    if (std::string(e.what()).find("cube.wrl") != std::string::npos)
      GTEST_SKIP() << "no shipped cube here: " << e.what();
    FAIL() << e.what();
  }
  EXPECT_EQ(sc.options.contact.volumePenalty()->integration, PenaltyIntegration::Explicit);
  const Scenario back =
      parseScenario(scenarioToJson(sc, dir + "explicit.json"), dir + "explicit.json");
  EXPECT_EQ(back.options.contact.volumePenalty()->integration, PenaltyIntegration::Explicit);
  // The default stays implicit, and the implicit model accepts the larger step.
  std::string implicit_text = scenario("8.5e-5");
  implicit_text.replace(implicit_text.find("\"integration\": \"explicit\", "), 27, "");
  EXPECT_EQ(parseScenario(implicit_text, dir + "implicit.json")
                .options.contact.volumePenalty()
                ->integration,
            PenaltyIntegration::Implicit);
  try {
    parseScenario(scenario("8.5e-5"), dir + "explicit.json");
    FAIL() << "a step beyond the explicit bound was accepted";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().field, "/dt_s");
    EXPECT_EQ(e.location().line, 2);
    EXPECT_NE(std::string(e.what()).find("stable limit 7.99"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("explicit eq. 6"), std::string::npos) << e.what();
  }
  try {
    std::string bad = scenario("1e-5");
    bad.replace(bad.find("\"explicit\""), 10, "\"rk4\"");
    parseScenario(bad, dir + "explicit.json");
    FAIL() << "an unknown integration was accepted";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().field, "/contact/integration");
  }
}
