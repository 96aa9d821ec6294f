// SPDX-License-Identifier: GPL-3.0-or-later
// A validation preset against physics worked here: a box pinched by two pads with a normal
// force F each slides out under a load m a along the pads exactly when 2 mu F < m a.
#include <gtest/gtest.h>

#include <cmath>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/planner/validation.hpp"

using namespace handsim;

namespace {

sim::ObjectModel cube() {
  auto g = std::make_shared<sim::BodyGeometry>();
  g->collision = sim::makeCollisionBody(geometry::makeBox(Eigen::Vector3d(0.05, 0.05, 0.05)), 18);
  sim::ObjectModel o;
  o.name = "cube";
  o.geometry = g;
  sim::computeMassProperties(o, 1000.0);
  return o;
}

// The gripper of the first test around the cube, palm 50 mm below its centre, pads 0.05 mm
// off its x faces, closing at once (the tests after the first).
struct Pinch {
  std::shared_ptr<const hand::HandModel> hand =
      std::make_shared<const hand::HandModel>(hand::loadHand("gripper2p"));
  sim::ObjectModel box = cube();
  Eigen::Isometry3d palm = Eigen::Isometry3d(Eigen::Translation3d(0.0, 0.0, -0.05));
  Eigen::VectorXd pregrasp = Eigen::VectorXd::Constant(1, 0.02495);
  planner::ClosingOptions closing = [] {
    planner::ClosingOptions c;
    c.close_time = 0.05;
    c.settle_time = 0.1;
    return c;
  }();
};

}  // namespace

TEST(Validation, PinchedBoxDropsBelowAndHoldsAboveTheFrictionThreshold) {
  const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("gripper2p"));
  const sim::ObjectModel box = cube();
  // The gripper's palm 50 mm below the cube's centre, pads 0.05 mm off its x faces; one motor
  // drives both jaws, its force limit split over the two: F per pad.
  Eigen::Isometry3d palm = Eigen::Isometry3d::Identity();
  palm.translation() = Eigen::Vector3d(0.0, 0.0, -0.05);
  Eigen::VectorXd pregrasp(1);
  pregrasp << 0.02495;
  const double F = 0.5 * hand->actuators[0].servo.torque_limit;  // 10 N
  const double m = 0.2, g = 9.81;
  const double mu_star = m * g / (2.0 * F);  // 0.0981
  planner::ClosingOptions closing;
  closing.close_time = 0.05;  // the jaws' reference reaches the closed end at once
  closing.settle_time = 0.1;

  // The squeeze the test assumes, measured: the pads' normal forces once closed.
  {
    const auto pm = planner::compilePlannerModel(hand, box, 0.5);
    const planner::ClosedGrasp c = planner::closeHand(pm, palm, pregrasp, closing);
    double left = 0.0, right = 0.0;
    for (const auto& k : c.contacts) (k.finger == 0 ? left : right) += k.force;
    EXPECT_NEAR(left, F, 0.1 * F);
    EXPECT_NEAR(right, F, 0.1 * F);
  }
  planner::ValidationPreset p;
  p.name = "pinch";
  p.directions = {Eigen::Vector3d::UnitY()};  // along the pad faces
  p.acceleration = g;
  p.duration = 0.4;
  p.mass_kg = m;
  p.max_displacement = 0.01;
  for (const double factor : {0.5, 2.0}) {
    p.friction = factor * mu_star;
    const planner::Validator v = planner::makeValidator(hand, box, p, closing);
    const planner::ValidationOutcome out = planner::validateGrasp(v, palm, pregrasp);
    ASSERT_FALSE(out.start_collision);
    ASSERT_EQ(out.directions.size(), 1u);
    const auto& d = out.directions[0];
    if (factor < 1.0) {
      // Net acceleration g - 2 mu F / m = g / 2: in 0.4 s it slides 0.39 m, far past 1 cm,
      // after sqrt(2 * 0.01 / (g / 2)) = 64 ms.
      EXPECT_FALSE(out.passed);
      ASSERT_TRUE(d.time_to_slip.has_value());
      EXPECT_LT(*d.time_to_slip, 0.2);
    } else {
      EXPECT_TRUE(out.passed) << d.displacement;
      EXPECT_LT(d.displacement, 0.002);
      EXPECT_FALSE(d.time_to_slip.has_value());
    }
  }
}

TEST(Validation, PdHoldDropsBelowAndHoldsAboveTheThresholdOfItsGains) {
  // The peers' hold: each slide of the gripper gets its own PD servo with target = closed
  // position + e in the closing direction. The box stops both jaws where they closed, so each
  // pad pushes with F = kp e (no velocity, and the load along y does not load the x slides).
  const Pinch pinch;
  const auto& [hand, box, palm, pregrasp, closing] = pinch;
  const double kp = 1000.0, e = 0.003;
  const double F = kp * e;  // 3 N per pad (the drives squeeze with 10 N)
  const double m = 0.2, g = 9.81;
  const double mu_star = m * g / (2.0 * F);  // 0.327
  planner::ValidationPreset p;
  p.name = "pinch";
  p.directions = {Eigen::Vector3d::UnitY()};
  p.acceleration = g;
  p.duration = 0.4;
  p.mass_kg = m;
  p.max_displacement = 0.01;
  p.hold = planner::ValidationPreset::Hold::Pd;
  p.pd.kp_prismatic = kp;
  p.pd.squeeze_prismatic = e;
  EXPECT_EQ(planner::closingDirections(*hand), (std::vector<double>{1.0, 1.0}));
  for (const double factor : {0.5, 2.0}) {
    p.friction = factor * mu_star;
    const planner::Validator v = planner::makeValidator(hand, box, p, closing);
    const planner::ValidationOutcome out = planner::validateGrasp(v, palm, pregrasp);
    ASSERT_FALSE(out.start_collision);
    ASSERT_EQ(out.directions.size(), 1u);
    EXPECT_EQ(out.hold, planner::ValidationPreset::Hold::Pd);
    const auto& d = out.directions[0];
    if (factor < 1.0) {
      // Net acceleration g / 2: past 1 cm after 64 ms.
      EXPECT_FALSE(out.passed);
      ASSERT_TRUE(d.time_to_slip.has_value());
      EXPECT_LT(*d.time_to_slip, 0.2);
    } else {
      EXPECT_TRUE(out.passed) << d.displacement;
      EXPECT_LT(d.displacement, 0.002);
    }
  }
  // The hand's own drives (10 N per pad) hold at the PD's lower friction: the PD servo, not
  // the drives, set the threshold above.
  p.hold = planner::ValidationPreset::Hold::Drives;
  p.friction = 0.5 * mu_star;
  const planner::Validator drives = planner::makeValidator(hand, box, p, closing);
  EXPECT_TRUE(planner::validateGrasp(drives, palm, pregrasp).passed);
}

TEST(Validation, PresetsCarryThePublishedParameters) {
  const auto six = planner::validationPreset("six-directions");
  EXPECT_EQ(six.directions.size(), 6u);
  EXPECT_DOUBLE_EQ(six.friction, 3.0);
  EXPECT_DOUBLE_EQ(six.duration, 100.0 / 60.0);
  const auto tug = planner::validationPreset("tug");
  EXPECT_DOUBLE_EQ(tug.mass_kg, 0.1);
  EXPECT_DOUBLE_EQ(tug.max_displacement, 0.05);
  const auto lift = planner::validationPreset("lift");
  EXPECT_EQ(lift.min_links, 3);
  EXPECT_DOUBLE_EQ(lift.lift_height, 0.2);
  EXPECT_THROW(planner::validationPreset("shake-it"), std::invalid_argument);
}

TEST(Validation, ASteadyHoldEndsEarlyWithTheVerdictOfTheWholeRun) {
  // The pinched box of the first test across the friction threshold, with the drives and with
  // a PD hold, each run twice: ending a direction once the grasp holds steadily, and running
  // its whole second. The verdicts must agree; a held box ends early, a sliding one never.
  const Pinch pinch;
  const auto& [hand, box, palm, pregrasp, closing] = pinch;
  const double m = 0.2, g = 9.81;
  planner::ValidationPreset p;
  p.name = "pinch";
  p.directions = {Eigen::Vector3d::UnitY(), -Eigen::Vector3d::UnitZ()};
  p.acceleration = g;
  p.duration = 1.0;
  p.mass_kg = m;
  p.max_displacement = 0.01;
  p.pd.kp_prismatic = 1000.0;
  p.pd.squeeze_prismatic = 0.003;
  int early = 0, slid = 0;
  for (const auto hold :
       {planner::ValidationPreset::Hold::Drives, planner::ValidationPreset::Hold::Pd})
    for (const double mu : {0.05, 0.09, 0.11, 0.3, 0.6}) {
      p.hold = hold;
      p.friction = mu;
      planner::ValidationPreset full = p;
      full.steady_window = 0.0;
      const auto a =
          planner::validateGrasp(planner::makeValidator(hand, box, p, closing), palm, pregrasp);
      const auto b =
          planner::validateGrasp(planner::makeValidator(hand, box, full, closing), palm, pregrasp);
      ASSERT_EQ(a.directions.size(), 2u);
      ASSERT_EQ(b.directions.size(), 2u);
      EXPECT_EQ(a.passed, b.passed) << "mu " << mu;
      for (std::size_t k = 0; k < 2; ++k) {
        const auto &e = a.directions[k], &w = b.directions[k];
        SCOPED_TRACE("mu " + std::to_string(mu) + " direction " + std::to_string(k));
        EXPECT_EQ(e.passed, w.passed);
        EXPECT_FALSE(w.steady_at.has_value());
        EXPECT_EQ(e.time_to_slip.has_value(), w.time_to_slip.has_value());
        if (w.time_to_slip) {
          ++slid;
          EXPECT_FALSE(e.steady_at.has_value());        // a slide never looks steady
          EXPECT_EQ(*e.time_to_slip, *w.time_to_slip);  // the same run up to there
        }
        if (e.steady_at) {
          ++early;
          EXPECT_GE(*e.steady_at, p.steady_window - 1e-9);
          EXPECT_LT(*e.steady_at, p.duration);
          // What the whole run moved after the early end stays within the creep bound the
          // watch allowed: steady_displacement (1 + rest / window)^2.
          const double rest = p.duration - *e.steady_at;
          const double bound = p.steady_displacement * std::pow(1.0 + rest / p.steady_window, 2);
          EXPECT_LE(std::abs(w.displacement - e.displacement), bound)
              << e.displacement << " vs " << w.displacement;
          EXPECT_EQ(e.contacts, w.contacts);
        }
      }
    }
  EXPECT_GT(early, 4);  // the held boxes ended early
  EXPECT_GT(slid, 2);   // and the ones below the threshold slid in both runs
}
