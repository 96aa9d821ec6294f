// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's grippers grasping, link by link (docs/free-objects.md, "Seed 004's grasps"):
// - Newton's third law per link under the seed004 model: the generalised force the stage adds to
//   the finger dynamics equals, per actuator, the virtual work of minus each published contact
//   force at its point on its link (the link point's motion by central finite differences of the
//   actuator positions, not the stage's Jacobian), and the object's acceleration changes by the
//   same forces at the same points (Newton-Euler from the closed-form inertia of the mass
//   properties); the patches' torsional friction likewise, as couples (the link's angular
//   velocity by finite differences of its rotation);
// - static balance of the parallel jaws: at rest the servo's force (its limit, from the hand
//   file) equals the sum of the pads' normal forces projected on the slide axes (virtual work of
//   one actuator driving both slides with ratio 1), in both contact models;
// - one grasp per gripper and model that holds: the object rises with the palm, does not move
//   in the palm frame while held, and the contact forces on it balance m (g + a_palm).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <string>

#include "handsim/formats/scenario.hpp"
#include "handsim/sim/penalty_contacts.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;

namespace {

constexpr double kMass = 0.2;
constexpr double kG = 9.81;

struct Grasp {
  const char* hand;
  const char* object;      // assets/objects/<object>.wrl
  double height;           // palm above the ground [m]
  const char* initial;     // JSON object of actuator positions
  const char* targets;     // JSON array of trajectories
  const char* rpy_deg = "[0, 0, 0]";  // the object's orientation on the ground
};

std::string objectPath(const std::string& object) {
  return std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/" + object + ".wrl";
}

// The scenario of docs/examples/seed004_hold.py: palm down above the object resting on the
// ground, the fingers close from 0 s, the palm lifts 5 cm from 1.5 s (trapezoid: 0.1 m/s,
// 0.5 m/s^2).
std::string scenarioText(const Grasp& g, const std::string& model, double duration,
                         double object_z) {
  std::ostringstream o;
  o.precision(17);
  o << R"({"format": "handsim-scenario", "version": 1, "hand": ")" << g.hand
    << R"(", "duration_s": )" << duration << R"(, "dt_s": 0.001,
  "palm": {"pose": {"translation_m": [0, 0, )"
    << g.height << R"(], "rpy_deg": [180, 0, 0]},
           "motion": {"z": {"segments": [{"to": 0.05, "max_velocity": 0.1,
                                          "max_acceleration": 0.5, "start_s": 1.5}]}}},
  "ground": {"height_m": 0.0},
  "contact": {"mu": 0.5)"
    << (model == "default" ? "" : R"(, "model": ")" + model + "\"") << R"(},
  "initial": )" << g.initial
    << R"(, "trajectories": )" << g.targets << R"(,
  "objects": [{"name": "object", "mesh": ")"
    << objectPath(g.object) << R"(", "free": true, "mass_kg": 0.2,
               "pose": {"translation_m": [0, 0, )"
    << object_z << "], \"rpy_deg\": " << g.rpy_deg << "}}]}";
  return o.str();
}

// A run of the grasp with the object resting 0.1 mm above the ground (its lowest vertex found
// from the compiled model's mesh).
std::unique_ptr<sim::Run> graspRun(const Grasp& g, const std::string& model, double duration) {
  const sim::Scenario probe = sim::parseScenario(scenarioText(g, model, duration, 0.0), "probe");
  const auto compiled = sim::compileScenario(probe);
  double lowest = 1e9;
  for (const Eigen::Vector3d& v : compiled->objects[0].geometry->collision.mesh.vertices)
    lowest = std::min(lowest, (probe.plan.object_pose_world.at(0) * v).z());
  const sim::Scenario sc =
      sim::parseScenario(scenarioText(g, model, duration, -lowest + 1e-4), "grasp");
  return std::make_unique<sim::Run>(sim::compileScenario(sc), sc.plan);
}

void runTo(sim::Run& run, double t) {
  while (run.state().time < t - 1e-9) run.step();
}

Eigen::Vector3d comWorld(const sim::Run& run) {
  return run.state().object_pose_world[0] * run.model().objects[0].mass.centre_of_mass;
}

Eigen::Vector3d comInPalm(const sim::Run& run) {
  return run.state().palm_pose_world.inverse() * comWorld(run);
}

// Sum of the reported forces on the object (links, palm, ground, other objects) [N].
Eigen::Vector3d forceOnObject(const sim::SimState& s) {
  Eigen::Vector3d f = Eigen::Vector3d::Zero();
  for (const auto& c : s.contacts)
    if (c.object == 0) f += c.forceOnObjectWorld();
  for (const auto& c : s.object_contacts) f += c.forceOnObjectWorld();
  return f;
}

const Grasp kJaws{"gripper2p", "cube", 0.075, R"({"jaws": 0.0})",
                  R"([{"actuator": "jaws", "segments": [{"to": 0.045, "max_velocity": 0.05,
                                                         "max_acceleration": 0.2}]}])"};
const Grasp kThreeFingers{
    "gripper3r", "cube", 0.11, R"({"close": -0.26, "curl": 0.0})",
    R"([{"actuator": "close", "segments": [{"to": 0.0, "max_velocity": 0.5, "max_acceleration": 2}]},
        {"actuator": "curl", "segments": [{"to": 1.2, "max_velocity": 1.0, "max_acceleration": 4}]}])"};

// The link-by-link check of one seed004 step at the state of `run` (file comment).
void checkThirdLaw(const sim::Run& run) {
  const sim::Model& m = run.model();
  sim::SimState s = run.state();
  sim::sizeWorkspace(m, s);
  sim::forwardPosition(m, s);
  sim::computeActuation(m, s);
  sim::computeDynamics(m, s);
  const auto na = static_cast<Eigen::Index>(m.actuatorCount());
  const Eigen::VectorXd force0 = s.work.force.head(na);
  const int body = s.work.body_of_object[0];
  ASSERT_GE(body, 0);
  const Eigen::Index slot = na + 6 * body;
  const Eigen::Matrix<double, 6, 1> acc0 = s.work.acceleration.segment<6>(slot);
  sim::computePenaltyContacts(m, s);
  const Eigen::VectorXd generalised = s.work.force.head(na) - force0;
  const Eigen::Matrix<double, 6, 1> dacc = s.work.acceleration.segment<6>(slot) - acc0;
  const auto& links = s.work.penalty.link_contacts;
  const auto& others = s.work.penalty.object_contacts;
  ASSERT_GE(links.size(), 2u) << "a grasp with several links touching";

  // Link side: the virtual work of -f at the contact point rigid with its link.
  Eigen::VectorXd expected = Eigen::VectorXd::Zero(na);
  const double h = 1e-6;
  for (Eigen::Index a = 0; a < na; ++a) {
    sim::SimState plus = run.state(), minus = run.state();
    plus.actuator_position[static_cast<std::size_t>(a)] += h;
    minus.actuator_position[static_cast<std::size_t>(a)] -= h;
    sim::forwardPosition(m, plus);
    sim::forwardPosition(m, minus);
    for (const auto& c : links) {
      const Eigen::Vector3d local =
          sim::linkPoseWorld(m, s, c.finger, c.row).inverse() * c.point_world;
      const Eigen::Vector3d dp = (sim::linkPoseWorld(m, plus, c.finger, c.row) * local -
                                  sim::linkPoseWorld(m, minus, c.finger, c.row) * local) /
                                 (2.0 * h);
      expected[a] += dp.dot(c.forceOnLinkWorld());
    }
    // The patches' torsional friction, as published (spin_moment about the normal): minus each
    // couple on its link, times the link's angular velocity per unit actuator velocity (from
    // the finite difference of its rotation).
    for (const auto& c : links) {
      const Eigen::Matrix3d W = sim::linkPoseWorld(m, plus, c.finger, c.row).linear() *
                                sim::linkPoseWorld(m, minus, c.finger, c.row).linear().transpose();
      const Eigen::Vector3d omega =
          Eigen::Vector3d(W(2, 1) - W(1, 2), W(0, 2) - W(2, 0), W(1, 0) - W(0, 1)) / (4.0 * h);
      expected[a] += omega.dot(-c.spin_moment * c.normal_world);
    }
  }
  for (Eigen::Index a = 0; a < na; ++a)
    EXPECT_NEAR(generalised[a], expected[a], 1e-6 * (1.0 + expected.cwiseAbs().maxCoeff()))
        << "actuator " << m.hand().actuators[static_cast<std::size_t>(a)].name;

  // Object side: the same forces, opposite, at the same points (eq. 1-2 with eq. 7).
  const Eigen::Vector3d com = s.object_pose_world[0] * m.objects[0].mass.centre_of_mass;
  Eigen::Vector3d f = Eigen::Vector3d::Zero(), torque = Eigen::Vector3d::Zero();
  for (const auto* list : {&links, &others})
    for (const auto& c : *list) {
      f += c.forceOnObjectWorld();
      torque += (c.point_world - com).cross(c.forceOnObjectWorld());
    }
  double twisting = 0.0;
  for (const auto* list : {&links, &others})
    for (const auto& c : *list) {
      torque += c.spin_moment * c.normal_world;
      twisting = std::max(twisting, std::abs(c.spin_moment));
    }
  EXPECT_GT(twisting, 0.0) << "a grasp whose patches twist";
  const Eigen::Matrix3d R = s.object_pose_world[0].linear();
  const Eigen::Matrix3d inertia = R * m.objects[0].mass.inertia_com * R.transpose();
  const double scale = 1.0 + f.norm();
  EXPECT_LT((kMass * dacc.head<3>() - f).norm(), 1e-9 * scale);
  EXPECT_LT((inertia * dacc.tail<3>() - torque).norm(), 1e-9 * scale * 0.05);
}

}  // namespace

TEST(PenaltyGrasp, ThirdLawLinkByLink) {
  auto run = graspRun(kThreeFingers, "seed004", 2.6);
  runTo(*run, 1.2);  // closing on the cube, resting on the ground
  checkThirdLaw(*run);
  runTo(*run, 2.6);  // lifted, held
  checkThirdLaw(*run);
  auto jaws = graspRun(kJaws, "seed004", 1.2);
  runTo(*jaws, 1.2);
  checkThirdLaw(*jaws);
}

// The recorded joint torques (the drive's, from inverse dynamics with the published contacts as
// external loads) against the forward dynamics' actuator balance: per actuator,
// sum_j ratio_j tau_j + ratio^2 I_rotor qdd = ratio * servo effort (no stop or limit acts in
// the held grasp). A twisting couple missing from the published contacts (as before they
// carried seed004's) breaks it by that couple's virtual work.
TEST(PenaltyGrasp, JointTorquesBalanceTheServoWithTheTwistingCouples) {
  auto run = graspRun(kThreeFingers, "seed004", 2.6);
  runTo(*run, 2.6);  // lifted, held
  const sim::Model& m = run->model();
  const sim::SimState& s = run->state();
  double twisting = 0.0;
  for (const auto& c : s.contacts) twisting = std::max(twisting, std::abs(c.spin_moment));
  ASSERT_GT(twisting, 1e-6) << "the held cube's patches twist [N m]";
  const auto& hand = m.hand();
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    const auto& act = hand.actuators[a];
    double drive = 0.0;
    for (const auto& d : act.drives) {
      const auto f = static_cast<std::size_t>(d.joint.finger);
      drive += d.ratio * s.tau[f][static_cast<Eigen::Index>(d.joint.joint)];
    }
    const double rho = act.drives.front().ratio;
    drive += rho * rho * act.servo.rotor_inertia * s.work.acceleration[static_cast<Eigen::Index>(a)];
    EXPECT_NEAR(drive, rho * s.actuator_effort[a], 1e-9 * (1.0 + std::abs(s.actuator_effort[a])))
        << act.name;
  }
}

TEST(PenaltyGrasp, ParallelJawsBalanceTheServoAtRest) {
  for (const char* model : {"default", "seed004"}) {
    SCOPED_TRACE(model);
    auto run = graspRun(kJaws, model, 1.4);
    runTo(*run, 1.4);  // closed on the cube, at rest, before the lift
    const sim::Model& m = run->model();
    const sim::SimState& s = run->state();
    EXPECT_LT(std::abs(s.actuator_velocity[0]), 1e-4);
    const double limit = m.hand().actuators[0].servo.torque_limit;
    ASSERT_NEAR(std::abs(s.actuator_effort[0]), limit, 1e-9) << "the servo saturates";
    // One actuator drives both slides with ratio 1: by virtual work F = f_L + f_R, f the
    // pads' pushes on the cube along each slide's axis z0 (closing direction).
    double per_jaw[2] = {0.0, 0.0};
    for (const auto& c : s.contacts) {
      const Eigen::Vector3d axis = sim::fingerBaseWorld(m, s, c.finger).linear().col(2);
      per_jaw[c.finger] += c.forceOnObjectWorld().dot(axis);
    }
    EXPECT_NEAR(per_jaw[0] + per_jaw[1], limit, 0.02 * limit);
    EXPECT_NEAR(per_jaw[0], limit / 2.0, 0.05 * limit / 2.0);
    EXPECT_NEAR(per_jaw[1], limit / 2.0, 0.05 * limit / 2.0);
  }
}

namespace {

// Close, lift 5 cm from 1.5 s (the palm stops at 2.6 s), hold from 3 s to 4.5 s (file comment).
void expectHolds(const Grasp& g, const std::string& model) {
  SCOPED_TRACE(std::string(g.hand) + " " + g.object + " " + model);
  auto run = graspRun(g, model, 4.5);
  runTo(*run, 1.5);
  const double z_lift = comWorld(*run).z();
  // The palm's constant acceleration of 0.5 m/s^2 up lasts 0.2 s: the hand carries
  // m (g + a_palm) once the grasp has taken the load (mean over 1.6-1.7 s).
  runTo(*run, 1.6);
  Eigen::Vector3d f_acc = Eigen::Vector3d::Zero();
  int n_acc = 0;
  while (run->state().time < 1.7 - 1e-9) {
    run->step();
    EXPECT_NEAR(run->state().palm_acceleration_world.z(), 0.5, 1e-9);
    f_acc += forceOnObject(run->state());
    ++n_acc;
  }
  f_acc /= n_acc;
  EXPECT_NEAR(f_acc.z(), kMass * (kG + 0.5), 0.03 * kMass * (kG + 0.5));
  runTo(*run, 3.0);
  // The object rose with the palm (5 cm), less what the grasp re-settles when the ground's
  // friction goes: gripper3r's two outer fingertips press the cube's vertical edges with their
  // faces (contact normals along the pads, docs/collision.md), which pushes the cube towards the
  // third finger; that finger catches it only once it leaves the ground, 5.5 mm lower in the
  // default model. The hold below is checked from 3 s on.
  EXPECT_NEAR(comWorld(*run).z() - z_lift, 0.05, 0.007) << "the object rose with the palm";
  const Eigen::Vector3d held = comInPalm(*run);
  double slip = 0.0;
  Eigen::Vector3d f_hold = Eigen::Vector3d::Zero();
  int n_hold = 0;
  while (!run->finished()) {
    run->step();
    slip = std::max(slip, (comInPalm(*run) - held).norm());
    f_hold += forceOnObject(run->state());
    ++n_hold;
  }
  f_hold /= n_hold;
  EXPECT_LT(slip, 1e-3) << "slip in the palm frame, 3-4.5 s";
  EXPECT_NEAR(f_hold.z(), kMass * kG, 0.02 * kMass * kG);
  EXPECT_LT(std::hypot(f_hold.x(), f_hold.y()), 0.02 * kMass * kG);
  EXPECT_EQ(run->state().warning_count, 0);
}

const Grasp kTwoFingers{
    "gripper2r", "sphere50", 0.13, R"({"close": -0.26, "curl": 0.0})",
    R"([{"actuator": "close", "segments": [{"to": 0.3, "max_velocity": 0.5, "max_acceleration": 2}]},
        {"actuator": "curl", "segments": [{"to": 0.0, "max_velocity": 1.0, "max_acceleration": 4}]}])"};

}  // namespace

TEST(PenaltyGrasp, EachGripperHoldsInBothModels) {
  for (const char* model : {"default", "seed004"})
    for (const Grasp* g : {&kJaws, &kTwoFingers, &kThreeFingers}) expectHolds(*g, model);
}

// The anchor friction's torsional part against the exact Coulomb moment of a square footprint:
// a 50 mm, 0.2 kg cube spinning about z on the ground at 20 rad/s (mu 0.1) slides on its whole
// face, whose friction moment under uniform pressure is mu m g s (sqrt 2 + ln(1 + sqrt 2)) / 6
// (the mean distance of a square's points from its centre), so it decelerates at that moment
// over I_zz = m s^2 / 6; once stopped it stays (no creep). The model's disc of the same area
// gives 2/3 mu m g sqrt(s^2 / pi): 1.7 % less.
TEST(PenaltyGrasp, SpinningCubeStopsAtTheSquareFootprintsFrictionMoment) {
  const double s = 0.05, mu = 0.1, omega0 = 20.0;
  std::ostringstream o;
  o.precision(17);
  o << R"({"format": "handsim-scenario", "version": 1, "hand": "gripper2p", "duration_s": 2,
    "dt_s": 0.001, "palm": {"pose": {"translation_m": [0, 0, 1], "rpy_deg": [180, 0, 0]}},
    "ground": {"height_m": 0.0}, "contact": {"mu": )"
    << mu << R"(, "model": "seed004"},
    "objects": [{"name": "cube", "mesh": ")"
    << objectPath("cube") << R"(", "free": true, "mass_kg": 0.2,
      "pose": {"translation_m": [0, 0, )"
    << 0.5 * s - kMass * kG / 7.4e4 << R"(]}, "angular_velocity_radps": [0, 0, )" << omega0
    << "]}]}";
  const sim::Scenario sc = sim::parseScenario(o.str(), "spin");
  sim::Run run(sim::compileScenario(sc), sc.plan);
  const double moment = mu * kMass * kG * s * (std::sqrt(2.0) + std::log(1.0 + std::sqrt(2.0))) / 6.0;
  const double deceleration = moment / (kMass * s * s / 6.0);
  // Measured over 0.05-0.25 s (the contact has settled; it stops at about 0.45 s).
  runTo(run, 0.05);
  const double w1 = run.state().object_twist_world[0][5];
  runTo(run, 0.25);
  const double w2 = run.state().object_twist_world[0][5];
  EXPECT_NEAR((w1 - w2) / 0.2, deceleration, 0.03 * deceleration);
  runTo(run, 1.0);
  const double turned = Eigen::AngleAxisd(run.state().object_pose_world[0].linear()).angle();
  double still = 0.0;
  while (!run.finished()) {
    run.step();
    still = std::max(still, run.state().object_twist_world[0].tail<3>().norm());
  }
  EXPECT_LT(still, 1e-4) << "stuck once stopped";
  EXPECT_NEAR(Eigen::AngleAxisd(run.state().object_pose_world[0].linear()).angle(), turned, 1e-4);
  EXPECT_EQ(run.state().warning_count, 0);
}

// Seed 004's one force per pair made a two-finger pinch a hinge: the upright bunny, touched on
// its lumps off its centre of mass, turned about the line through the two pads' contacts and fell
// out (160 deg 0.4 s into the lift). With the patch's torsional friction it is held.
TEST(PenaltyGrasp, TwoFingerPinchOfTheBunnyDoesNotTurn) {
  Grasp bunny = kJaws;
  bunny.object = "lumpy_bunny";
  bunny.height = 0.07;
  bunny.rpy_deg = "[90, 0, 90]";
  expectHolds(bunny, "seed004");
}
