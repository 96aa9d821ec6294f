// SPDX-License-Identifier: GPL-3.0-or-later
// Torsional (spin) friction of the default contact model (ContactOptions::torsional, the
// soft-finger contact): each contact on a free object resists turning about its normal with a
// moment of at most mu_spin * f_n. Checked against what does not come from the solver:
//  - a box spinning flat on frictionless ground (no sliding friction, so only the torsional
//    rows act) decelerates at the Coulomb moment worked here by hand, alpha = mu_spin m g / I_zz
//    with I_zz = m (a^2 + b^2) / 12, then sticks; every step its contacts satisfy the bound and
//    the complementarity of the model (strictly inside the bound: no spin; spinning: at the
//    bound, against the spin), written out here from the reported moments and the box's
//    angular velocity;
//  - two free boxes meeting face to face without ground or gravity: the torsional impulses are
//    equal and opposite (Newton's third law), so the total angular momentum is conserved, and
//    the spin they exchanged is within the bound of the normal impulse;
//  - the BarrettHand's lift of the 12-triangle cube with the solve converged (warm start and
//    tolerance 1e-9, or 200 cold sweeps) holds it: slip below 1 mm over 10 s (with torsion off
//    the converged solve lets it slip out, docs/performance.md), and the converged step meets
//    the bounds and complementarity of every row, checked on its own system; the scenario key.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/sim/recorder.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

#include "../support/box_objects.hpp"

using namespace handsim;

namespace {

constexpr double kG = 9.81;

}  // namespace

TEST(TorsionalFriction, ASpinningBoxDeceleratesAtTheCoulombMomentThenSticks) {
  const Eigen::Vector3d size(0.1, 0.06, 0.04);
  const double density = 800.0, mu_spin = 3e-3, omega0 = 5.0;
  for (const double torsional : {mu_spin, 0.0}) {
    sim::Options opt;
    opt.ground.enabled = true;
    opt.ground.friction = 0.0;  // no sliding friction: only the torsional rows resist the spin
    opt.contact.constraint()->torsional = torsional;
    const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
    auto model = sim::compileModel(hand, {test::boxObject("box", size, true, density)}, opt);
    sim::SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.5 * size.z()})});
    while (s.time < 0.2 - 1e-9) sim::step(*model, s);  // settle on the ground
    const double m = model->objects[0].mass.mass_kg;
    const double izz = m * (size.x() * size.x() + size.y() * size.y()) / 12.0;
    const double alpha = torsional * m * kG / izz;  // the closed form of the model
    s.object_twist_world[0].tail<3>() = Eigen::Vector3d(0.0, 0.0, omega0);
    // Spin down: omega_z at 1/4 and 3/4 of the predicted stopping time gives the deceleration.
    const double t_stop = torsional > 0.0 ? omega0 / alpha : 0.5;
    const double t_start = s.time;
    double w_a = 0.0, w_b = 0.0;
    bool a_done = false, b_done = false;
    double total_force_sum = 0.0;
    int steps_checked = 0;
    while (s.time < t_start + 1.5 * t_stop) {
      sim::step(*model, s);
      const double wz = s.object_twist_world[0][5];
      if (!a_done && s.time >= t_start + 0.25 * t_stop) {
        w_a = wz;
        a_done = true;
      }
      if (!b_done && s.time >= t_start + 0.75 * t_stop) {
        w_b = wz;
        b_done = true;
      }
      // The model's conditions, contact by contact (all normals are +z here).
      double total_force = 0.0;
      for (const auto& c : s.object_contacts) {
        ASSERT_GE(c.force, 0.0);
        ASSERT_LE(std::abs(c.spin_moment), torsional * c.force * (1.0 + 1e-9) + 1e-15);
        total_force += c.force;
        if (torsional > 0.0 && std::abs(wz) > 1e-6) {
          // Spinning: every loaded contact at the bound, its moment against the spin.
          EXPECT_NEAR(c.spin_moment, -std::copysign(torsional * c.force, wz),
                      1e-6 * torsional * c.force + 1e-12);
        }
        if (std::abs(c.spin_moment) < torsional * c.force * (1.0 - 1e-6)) {
          EXPECT_LT(std::abs(wz), 1e-6) << "strictly inside the bound: sticking";
        }
      }
      total_force_sum += total_force;
      ++steps_checked;
    }
    ASSERT_TRUE(a_done && b_done);
    // The ground carries the weight on average (the model's normal force is the weight).
    EXPECT_NEAR(total_force_sum / steps_checked, m * kG, 0.01 * m * kG);
    const double measured = (w_a - w_b) / (0.5 * t_stop);
    if (torsional > 0.0) {
      EXPECT_NEAR(measured, alpha, 0.02 * alpha) << "deceleration [rad/s^2]";
      RecordProperty("alpha_closed_form", std::to_string(alpha));
      RecordProperty("alpha_measured", std::to_string(measured));
      std::printf("torsion: alpha closed form %.4f rad/s^2, measured %.4f (%.3f %%)\n", alpha,
                  measured, 100.0 * (measured - alpha) / alpha);
      // Then it sticks: no spin, no turning, for another second.
      const Eigen::Matrix3d r0 = s.object_pose_world[0].linear();
      for (int i = 0; i < 1000; ++i) {
        sim::step(*model, s);
        ASSERT_LT(std::abs(s.object_twist_world[0][5]), 1e-9) << "step " << i;
      }
      EXPECT_LT((s.object_pose_world[0].linear() - r0).norm(), 1e-9);
    } else {
      // Off: nothing resists the spin (frictionless ground).
      EXPECT_NEAR(w_b, omega0, 1e-6 * omega0);
    }
    EXPECT_EQ(s.warning_count, 0);
  }
}

// The recorded column contact.ground.box.spin_moment: the Coulomb moment mu_spin m g worked by
// hand while the box spins down (all its contacts at the bound, the ground carrying the weight),
// 0 once it sticks with nothing twisting it; no such column with the torsion off.
TEST(TorsionalFriction, TheSpinMomentColumnIsTheCoulombMomentWhileSpinning) {
  const Eigen::Vector3d size(0.1, 0.06, 0.04);
  const double density = 800.0, mu_spin = 3e-3;
  for (const double torsional : {mu_spin, 0.0}) {
    sim::Options opt;
    opt.ground.enabled = true;
    opt.ground.friction = 0.0;
    opt.contact.constraint()->torsional = torsional;
    const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
    auto model = sim::compileModel(hand, {test::boxObject("box", size, true, density)}, opt);
    sim::Recorder rec(model->hand());
    sim::addContactPairChannels(rec, *model);
    const std::string column = "contact.ground.box.spin_moment";
    const bool has = rec.columnIndex(column) >= 0;
    if (torsional == 0.0) {
      EXPECT_FALSE(has);
      EXPECT_GE(rec.columnIndex("contact.ground.box.force"), 0);
      continue;
    }
    ASSERT_TRUE(has);
    EXPECT_EQ(rec.unit(column), "N m");
    // Link-link pairs are frictionless: a force column, no twisting one.
    EXPECT_GE(rec.columnIndex("contact.F1.F2.force"), 0);
    EXPECT_LT(rec.columnIndex("contact.F1.F2.spin_moment"), 0);
    sim::SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.5 * size.z()})});
    while (s.time < 0.2 - 1e-9) sim::step(*model, s);
    const double m = model->objects[0].mass.mass_kg;
    s.object_twist_world[0].tail<3>() = Eigen::Vector3d(0.0, 0.0, 5.0);
    // 0.05-0.15 s: spinning (it stops after about 0.5 s); the ground's force averages m g.
    while (s.time < 0.25 - 1e-9) sim::step(*model, s);
    while (s.time < 0.35 - 1e-9) {
      sim::step(*model, s);
      rec.record(s);
    }
    const std::vector<double> spin = rec.series(column);
    ASSERT_FALSE(spin.empty());
    double mean = 0.0;
    for (double v : spin) mean += v;
    mean /= static_cast<double>(spin.size());
    EXPECT_NEAR(mean, torsional * m * kG, 0.01 * torsional * m * kG);
    rec.clear();
    while (s.time < 1.5 - 1e-9) sim::step(*model, s);  // stopped and sticking
    ASSERT_LT(std::abs(s.object_twist_world[0][5]), 1e-9);
    sim::step(*model, s);
    rec.record(s);
    EXPECT_LT(rec.series(column).back(), 1e-12);
  }
}

// An object's own torsional length (ObjectModel::torsional, scenario "torsional_m") replaces
// the scene's: the spin-down rate is the closed form alpha = mu_spin m g / I_zz of the object's
// length, whatever the scene's; 0 on the object turns it off under a scene that has it.
TEST(TorsionalFriction, AnObjectsOwnLengthReplacesTheScenes) {
  const Eigen::Vector3d size(0.1, 0.06, 0.04);
  const double density = 800.0, omega0 = 5.0;
  struct Case {
    double scene, own, expected;
  };
  for (const Case& k : {Case{0.0, 3e-3, 3e-3}, Case{3e-3, 1.5e-3, 1.5e-3}, Case{3e-3, 0.0, 0.0}}) {
    SCOPED_TRACE("scene " + std::to_string(k.scene) + ", object " + std::to_string(k.own));
    sim::Options opt;
    opt.ground.enabled = true;
    opt.ground.friction = 0.0;
    opt.contact.constraint()->torsional = k.scene;
    sim::ObjectModel box = test::boxObject("box", size, true, density);
    box.torsional = k.own;
    auto model = sim::compileModel(test::barrettHand(), {box}, opt);
    sim::SimState s = test::stateAt(*model, {test::at({5.0, 0.0, 0.5 * size.z()})});
    while (s.time < 0.2 - 1e-9) sim::step(*model, s);
    const double m = model->objects[0].mass.mass_kg;
    const double izz = m * (size.x() * size.x() + size.y() * size.y()) / 12.0;
    s.object_twist_world[0].tail<3>() = Eigen::Vector3d(0.0, 0.0, omega0);
    const double w0 = s.object_twist_world[0][5];
    const double t0 = s.time;
    // Spinning all along: it stops after omega0 / alpha, 0.19 s at the largest alpha (26 rad/s^2).
    while (s.time < t0 + 0.1 - 1e-9) sim::step(*model, s);
    ASSERT_GT(s.object_twist_world[0][5], 0.0);
    const double measured = (w0 - s.object_twist_world[0][5]) / 0.1;
    const double alpha = k.expected * m * kG / izz;
    EXPECT_NEAR(measured, alpha, 0.02 * alpha + 1e-9) << "deceleration [rad/s^2]";
  }
}

TEST(TorsionalFriction, TheObjectKeyIsReadWrittenAndChecked) {
  const std::string cube = std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/cube.wrl";
  const std::string text =
      "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
      " \"duration_s\": 0.1,\n"
      " \"objects\": [{\"name\": \"cube\", \"mesh\": \"" + cube + "\", \"free\": true,\n"
      "   \"torsional_m\": 0.004}]}";
  const sim::Scenario sc = sim::parseScenario(text, "t.json");
  EXPECT_EQ(sc.objects.at(0).torsional, 0.004);
  const sim::Scenario again =
      sim::parseScenario(sim::scenarioToJson(sc, "t.json"), "t.json");
  EXPECT_EQ(again.objects.at(0).torsional, 0.004) << "written back";
  auto expectError = [&](const std::string& t, const std::string& what) {
    try {
      sim::parseScenario(t, "t.json");
      ADD_FAILURE() << "accepted: " << what;
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.location().line, 4) << e.what();
      EXPECT_NE(std::string(e.what()).find("/objects/0/torsional_m"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  std::string negative = text;
  negative.replace(negative.find("0.004"), 5, "-0.001");
  expectError(negative, "0 to 0.1");
  std::string seed004 = text;
  seed004.replace(seed004.find(" \"objects\""), 0, " \"contact\": {\"model\": \"seed004\"},\n");
  try {
    sim::parseScenario(seed004, "t.json");
    ADD_FAILURE() << "seed004 accepted an object torsional_m";
  } catch (const io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("only with the default contact model"),
              std::string::npos)
        << e.what();
  }
}

TEST(TorsionalFriction, TwoFreeBoxesExchangeEqualAndOppositeTorsionalImpulses) {
  const Eigen::Vector3d size(0.08, 0.08, 0.04);
  const double density = 800.0, mu_spin = 4e-3;
  sim::Options opt;
  opt.gravity_world.setZero();
  opt.contact.constraint()->torsional = mu_spin;
  const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  sim::ObjectModel a = test::boxObject("a", size, true, density);
  sim::ObjectModel b = test::boxObject("b", size, true, density);
  a.friction = b.friction = 0.0;  // no sliding friction: the spin exchange is torsional only
  auto model = sim::compileModel(hand, {a, b}, opt);
  sim::SimState s =
      test::stateAt(*model, {test::at({5.0, 0.0, 0.0}), test::at({5.0, 0.0, size.z() + 2e-3})});
  // b falls onto a (1 m/s) and spins +20 rad/s about the common normal, a -5 rad/s.
  s.object_twist_world[1] << 0.0, 0.0, -0.5, 0.0, 0.0, 20.0;
  s.object_twist_world[0] << 0.0, 0.0, 0.5, 0.0, 0.0, -5.0;
  const double m = model->objects[0].mass.mass_kg;
  const Eigen::Matrix3d inertia = test::boxInertia(size, m);
  auto angularMomentum = [&]() {
    Eigen::Vector3d l = Eigen::Vector3d::Zero();
    for (std::size_t o = 0; o < 2; ++o) {
      const Eigen::Matrix3d r = s.object_pose_world[o].linear();
      const Eigen::Vector3d c = s.object_pose_world[o] * model->objects[o].mass.centre_of_mass;
      l += r * inertia * r.transpose() * s.object_twist_world[o].tail<3>() +
           m * c.cross(s.object_twist_world[o].head<3>());
    }
    return l;
  };
  const Eigen::Vector3d l0 = angularMomentum();
  double moment_impulse = 0.0, normal_impulse = 0.0;
  int contact_steps = 0;
  for (int i = 0; i < 100; ++i) {
    sim::step(*model, s);
    double step_moment = 0.0;
    for (const auto& c : s.object_contacts) {
      ASSERT_EQ(c.other >= 0, true) << "only the two boxes touch";
      ASSERT_LE(std::abs(c.spin_moment), mu_spin * c.force * (1.0 + 1e-9) + 1e-15);
      ASSERT_LE(std::abs(c.impact_spin_moment), mu_spin * c.impact_force * (1.0 + 1e-9) + 1e-15);
      // The moment `other` applies to `object` about normal_world, as a z component.
      step_moment += (c.spin_moment + c.impact_spin_moment) * c.normal_world.z() *
                     (c.object == 0 ? 1.0 : -1.0);
      normal_impulse += (c.force + c.impact_force) * opt.dt;
    }
    if (!s.object_contacts.empty()) ++contact_steps;
    moment_impulse += step_moment * opt.dt;
  }
  ASSERT_GT(contact_steps, 0);
  // The exchange happened and stayed within the bound of the total normal impulse.
  EXPECT_GT(std::abs(moment_impulse), 0.1 * mu_spin * normal_impulse);
  EXPECT_LE(std::abs(moment_impulse), mu_spin * normal_impulse * (1.0 + 1e-9));
  // Newton's third law: the total angular momentum is that of the start.
  EXPECT_LT((angularMomentum() - l0).norm(), 1e-9 * l0.norm());
  EXPECT_EQ(s.warning_count, 0);
}

namespace {

// The BarrettHand lift of the 12-triangle cube: the largest slip of the cube in the palm frame
// from 4 s (lift done, settled) to the end (14 s) [m], and the cube's rise from 2 s to 4 s [m].
struct LiftResult {
  double slip = 0.0, rise = 0.0;
  std::int64_t warnings = 0;
};

LiftResult liftCube(double torsional, bool warm, int sweeps) {
  sim::Scenario sc =
      sim::loadScenario(std::string(HANDSIM_SOURCE_DIR) + "/assets/scenarios/barrett_lift_cube.json");
  sc.options.contact.constraint()->torsional = torsional;
  sc.options.solver.warm_start = warm;
  sc.options.solver.tolerance = warm ? 1e-9 : 0.0;
  sc.options.solver.sweeps = sweeps;
  sc.plan.record_every = std::numeric_limits<int>::max();
  sim::Run run(sim::compileScenario(sc), sc.plan);
  const sim::Model& m = run.model();
  auto inPalm = [&] {
    const Eigen::Vector3d com =
        run.state().object_pose_world[0] * m.objects[0].mass.centre_of_mass;
    return Eigen::Vector3d(run.state().palm_pose_world.inverse() * com);
  };
  auto z = [&] { return (run.state().object_pose_world[0] * m.objects[0].mass.centre_of_mass).z(); };
  while (run.state().time < 2.0 - 1e-9) run.step();
  const double z0 = z();  // grasped; the palm lifts 2-3.2 s
  const Eigen::Vector3d grasped = inPalm();
  while (run.state().time < 4.0 - 1e-9) run.step();
  LiftResult r;
  r.rise = z() - z0;
  const Eigen::Vector3d held = inPalm();
  std::printf("cube in the palm frame, 4 s minus 2 s: %.2f %.2f %.2f mm\n",
              1e3 * (held - grasped).x(), 1e3 * (held - grasped).y(), 1e3 * (held - grasped).z());
  while (!run.finished()) {
    run.step();
    r.slip = std::max(r.slip, (inPalm() - held).norm());
  }
  r.warnings = run.state().warning_count;
  return r;
}

}  // namespace

TEST(TorsionalFriction, TheConvergedBarrettLiftHoldsTheCube) {
  const double t = sim::kRecommendedTorsional;
  const LiftResult warm = liftCube(t, true, 50);
  std::printf("converged (warm, tol 1e-9), torsion %.1f mm: rise %.2f mm, slip %.3g mm\n",
              1e3 * t, 1e3 * warm.rise, 1e3 * warm.slip);
  // The palm rises 100 mm; the grasp re-settles as the cube leaves the ground (measured: it
  // moves about 39 mm along the palm's y and 3-4 mm towards the palm between 2 s and 4 s), so
  // the cube rises 103-104 mm.
  EXPECT_NEAR(warm.rise, 0.10, 0.006) << "the cube rose with the palm";
  EXPECT_LT(warm.slip, 1e-3);
  EXPECT_EQ(warm.warnings, 0);
  const LiftResult cold = liftCube(t, false, 200);
  std::printf("converged (200 cold sweeps), torsion %.1f mm: rise %.2f mm, slip %.3g mm\n",
              1e3 * t, 1e3 * cold.rise, 1e3 * cold.slip);
  EXPECT_NEAR(cold.rise, 0.10, 0.006);
  EXPECT_LT(cold.slip, 1e-3);
}

TEST(TorsionalFriction, TheScenarioKeyIsReadAndChecked) {
  const std::string text =
      "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
      " \"duration_s\": 0.1,\n"
      " \"contact\": {\"torsional_m\": 0.003}}";
  EXPECT_EQ(sim::ConstraintContactOptions{}.torsional, sim::kRecommendedTorsional)
      << "on by default, with the converged solve";
  EXPECT_TRUE(sim::SolverOptions{}.warm_start);
  EXPECT_GT(sim::SolverOptions{}.tolerance, 0.0);
  const sim::Scenario sc = sim::parseScenario(text, "t.json");
  EXPECT_EQ(sc.options.contact.constraint()->torsional, 0.003);
  std::string bad = text;
  bad.replace(bad.find("0.003"), 5, "-0.01");
  try {
    sim::parseScenario(bad, "t.json");
    FAIL() << "a negative torsional_m was accepted";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().line, 3);
    EXPECT_NE(std::string(e.what()).find("/contact/torsional_m"), std::string::npos) << e.what();
  }
  sim::Options o;
  o.contact.constraint()->torsional = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(sim::validateOptions(o), std::invalid_argument);
}

// The converged solve of the BarrettHand holding the cube with torsion, checked row by row on
// the step's own system (StepWorkspace: J, c, lambda, v+) against the conditions written out
// here: normal rows 0 <= lambda _|_ J v+ - c >= 0, friction and torsional rows inside
// |lambda| <= mu lambda_n, aiming at J v+ = c strictly inside and sliding against the impulse
// at the bound.
TEST(TorsionalFriction, TheConvergedStepSatisfiesTheBoundsAndComplementarity) {
  sim::Scenario sc =
      sim::loadScenario(std::string(HANDSIM_SOURCE_DIR) + "/assets/scenarios/barrett_lift_cube.json");
  sc.options.contact.constraint()->torsional = sim::kRecommendedTorsional;
  sc.options.solver.warm_start = true;
  sc.options.solver.tolerance = 1e-9;
  sc.options.solver.sweeps = 400;
  sc.plan.record_every = std::numeric_limits<int>::max();
  sim::Run run(sim::compileScenario(sc), sc.plan);
  int spin_rows = 0;
  double worst_bound = 0.0, worst_normal = 0.0, worst_stick = 0.0, worst_slide = 0.0;
  while (run.state().time < 6.0 - 1e-9) {
    run.step();
    const sim::SimState& s = run.state();
    if (s.time < 4.0 || s.step % 100 != 0) continue;
    const sim::StepWorkspace& w = s.work;
    const auto nc = static_cast<Eigen::Index>(s.contacts.size());
    const auto ng = static_cast<Eigen::Index>(w.object_rows);
    const auto nk = static_cast<Eigen::Index>(s.link_contacts.size());
    const auto nl = static_cast<Eigen::Index>(w.limit_rows.size());
    Eigen::Index nr = nc + ng + nk + nl + 3 * ng;
    for (const auto& c : s.contacts)
      if (!run.model().objects[static_cast<std::size_t>(c.object)].fixed) nr += 3;
    const double scale = w.lambda.head(nr).cwiseAbs().maxCoeff();
    ASSERT_GT(scale, 0.0);
    for (Eigen::Index i = 0; i < nr; ++i) {
      const double wii = w.rows.row(i).squaredNorm();
      if (wii == 0.0) continue;
      const double gap = w.rows.row(i).dot(w.velocity) - w.row_bias[i];  // J v+ - c
      const double l = w.lambda[i];
      const int n = w.row_normal[i];
      if (n < 0) {
        ASSERT_GE(l, 0.0);
        worst_normal = std::max({worst_normal, -gap, std::abs(l * gap) / scale});
        continue;
      }
      spin_rows += w.row_spin[static_cast<std::size_t>(i)];
      const double bound = w.row_mu[i] * w.lambda[n];
      worst_bound = std::max(worst_bound, (std::abs(l) - bound) / scale);
      if (std::abs(l) < bound - 1e-9 * scale)
        worst_stick = std::max(worst_stick, std::abs(gap));
      else if (bound > 0.0)
        worst_slide = std::max(worst_slide, l * gap / scale);  // against the impulse
    }
  }
  std::printf("converged step: %d torsional rows checked; bound %.2g, normal %.2g m/s, "
              "stick %.2g, slide %.2g\n",
              spin_rows, worst_bound, worst_normal, worst_stick, worst_slide);
  EXPECT_GT(spin_rows, 0);
  EXPECT_LE(worst_bound, 1e-12);
  EXPECT_LT(worst_normal, 1e-5);
  EXPECT_LT(worst_stick, 1e-5);
  EXPECT_LT(worst_slide, 1e-5);
}

// The solver block selects the earlier cold solve (or the converged default), and bad values
// are located errors.
TEST(TorsionalFriction, TheSolverKeysAreReadAndChecked) {
  const std::string text =
      "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
      " \"duration_s\": 0.1,\n"
      " \"solver\": {\"warm_start\": false, \"tolerance\": 0, \"warm_start_radius_m\": 0.002}}";
  const sim::Scenario sc = sim::parseScenario(text, "t.json");
  EXPECT_FALSE(sc.options.solver.warm_start);
  EXPECT_EQ(sc.options.solver.tolerance, 0.0);
  EXPECT_EQ(sc.options.solver.warm_start_radius, 0.002);
  for (const char* bad : {"\"tolerance\": -1", "\"warm_start\": 3", "\"warm_start_radius_m\": -1"}) {
    std::string t = text;
    const std::string key = std::string(bad).substr(0, std::string(bad).find(':'));
    const std::size_t at = t.find(key);
    t.replace(at, t.find_first_of(",}", at) - at, bad);
    try {
      sim::parseScenario(t, "t.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.location().line, 3) << bad;
      EXPECT_NE(std::string(e.what()).find("/solver/"), std::string::npos) << e.what();
    }
  }
}
