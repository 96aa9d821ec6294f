// SPDX-License-Identifier: GPL-3.0-or-later
// Clutches and tendons from a URDF's sidecar (docs/hand-format.md, "URDF hands"): the shipped
// clutch_finger.urdf against the same finger written as a hand file (standard DH rows, one
// actuator driving both joints): the clutch breaks away at the same step and leaves the same
// joint angles to 1e-12, both as seed 000 eq. 10 and the load ramp worked here predict; the
// tendon's joints lose their servos as a hand file's do; a sidecar naming an unknown joint
// fails with file, line and field.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../support/corpus.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim {
namespace {

std::string asset(const std::string& name) {
  return std::string(HANDSIM_SOURCE_DIR) + "/assets/hands/urdf/" + name;
}

hand::HandModel loadUrdf() {
  hand::UrdfOptions opt;
  opt.load_geometry = false;
  return hand::loadUrdfHand(asset("clutch_finger.urdf"), opt);
}

/// The clutch finger as a hand file: proximal a = 0.05 m, distal a = 0.04 m, both about z;
/// one actuator (rad) drives J1 at ratio 1 and J2 at the mimic's multiplier.
hand::HandModel handFileTwin() {
  const std::string text = R"({
    "format": "handsim-hand", "version": 1, "id": "clutch_twin",
    "fingers": [
      {"name": "F", "joints": [
        {"name": "J1", "a_m": 0.05, "limits_deg": [0, 137.50987083139756]},
        {"name": "J2", "a_m": 0.04, "limits_deg": [0, 45.836623610465857]}]},
      {"name": "T", "base": {"translation_m": [0, 0.03, 0]}, "joints": [
        {"name": "J1", "a_m": 0.04, "limits_deg": [0, 85.943669269623484]},
        {"name": "J2", "a_m": 0.03, "limits_deg": [0, 85.943669269623484]}]}],
    "actuators": [
      {"name": "proximal", "unit": "rad", "range": [0, 2.4],
       "drives": [{"joint": "F.J1", "ratio": 1}, {"joint": "F.J2", "ratio": 0.3333333333333333}]}],
    "tendons": [
      {"name": "flexor", "range_m": [0, 0.03], "stiffness_N_per_m": 5000,
       "joints": [{"joint": "T.J1", "pulley_radius_m": 0.008, "spring_Nm_per_rad": 0.02},
                  {"joint": "T.J2", "pulley_radius_m": 0.006, "spring_Nm_per_rad": 0.01}]}],
    "clutches": [{"actuator": "proximal", "inner": "F.J1", "outer": "F.J2", "tau_break_Nm": 0.5}]
  })";
  return hand::parseHandFile(text, "clutch_twin.json");
}

struct Breakaway {
  int step = -1;              ///< first step at which the clutch is broken
  double break_position = 0;  ///< [rad]
  hand::JointRef inner, outer;
  double q_inner = 0, q_outer = 0;  ///< at the end of the run [rad]
};

/// Closes the clutch finger at 0.5 rad/s while a force growing at 10 N/s pushes on the
/// proximal link 0.03 m from its joint, against the closing motion, in the finger's plane.
/// `closing` is the direction in which the finger closes: +1 towards positive angles (the
/// actuator's position grows), -1 towards negative ones (it falls).
Breakaway run(const hand::HandModel& h, double closing = 1.0) {
  const hand::ClutchModel& clutch = h.clutches.at(0);
  const int f = clutch.inner.finger;
  const auto& chain = h.fingers[static_cast<std::size_t>(f)];
  std::vector<hand::ClutchState> state(h.clutches.size());
  std::vector<double> a(h.actuators.size(), 0.0);
  Breakaway out;
  out.inner = clutch.inner;
  out.outer = clutch.outer;
  constexpr double dt = 1e-3;
  for (int k = 1; k <= 2500; ++k) {
    const double t = k * dt;
    a[static_cast<std::size_t>(clutch.actuator)] = closing * 0.5 * t;
    const auto q = hand::jointPositions(h, a, state);
    const double q1 = q[static_cast<std::size_t>(f)][clutch.inner.joint];
    const Eigen::Vector3d along(std::cos(q1), std::sin(q1), 0.0);
    const Eigen::Vector3d normal(-std::sin(q1), std::cos(q1), 0.0);
    const auto frames = kinematics::forwardKinematics(chain, q[static_cast<std::size_t>(f)]);
    // Closing turns the link along closing * normal; the contact pushes the other way.
    const double load =
        hand::innerLoadTorque(h, clutch, frames, 0.03 * along, -closing * 10.0 * t * normal);
    hand::updateClutch(h, clutch, state[0], a[static_cast<std::size_t>(clutch.actuator)],
                       closing, load);
    if (state[0].broken && out.step < 0) {
      out.step = k;
      out.break_position = state[0].break_position;
    }
  }
  const auto q = hand::jointPositions(h, a, state);
  out.q_inner = q[static_cast<std::size_t>(f)][clutch.inner.joint];
  out.q_outer = q[static_cast<std::size_t>(f)][clutch.outer.joint];
  return out;
}

TEST(UrdfSidecarDrives, ClutchBreaksAwayLikeTheSameHandFile) {
  const hand::HandModel urdf = loadUrdf();
  const hand::HandModel twin = handFileTwin();
  ASSERT_EQ(urdf.clutches.size(), 1u);
  EXPECT_EQ(urdf.clutches[0].tau_break, twin.clutches[0].tau_break);
  EXPECT_EQ(urdf.actuators[static_cast<std::size_t>(urdf.clutches[0].actuator)].name, "proximal");
  EXPECT_EQ(urdf.jointName(urdf.clutches[0].outer), "link2.distal");
  const Breakaway u = run(urdf), h = run(twin);
  // The load is 0.03 m x 10 N/s x t = 0.3 t N m: it passes 0.5 N m after t = 5/3 s.
  const int expected_step = static_cast<int>(std::floor(0.5 / 0.3 / 1e-3)) + 1;
  EXPECT_EQ(u.step, expected_step);
  EXPECT_EQ(h.step, expected_step);
  EXPECT_NEAR(u.break_position, h.break_position, 1e-12);
  EXPECT_NEAR(u.break_position, 0.5 * expected_step * 1e-3, 1e-12);
  // Seed 000 eq. 10: inner locked at r_i a_break, outer (r_o + r_i) a - r_i a_break.
  const double a_end = 0.5 * 2.5, r_o = 0.3333333333333333;
  EXPECT_NEAR(u.q_inner, u.break_position, 1e-12);
  EXPECT_NEAR(u.q_outer, (r_o + 1.0) * a_end - u.break_position, 1e-12);
  EXPECT_NEAR(u.q_inner, h.q_inner, 1e-12);
  EXPECT_NEAR(u.q_outer, h.q_outer, 1e-12);
}

/// The twin's finger mirrored: it closes towards negative angles (limits and actuator range
/// negated), with or without the clutch's "closing_direction": -1.
hand::HandModel mirroredTwin(bool say_direction) {
  const std::string text = std::string(R"({
    "format": "handsim-hand", "version": 1, "id": "clutch_mirror",
    "fingers": [
      {"name": "F", "joints": [
        {"name": "J1", "a_m": 0.05, "limits_deg": [-137.50987083139756, 0]},
        {"name": "J2", "a_m": 0.04, "limits_deg": [-45.836623610465857, 0]}]}],
    "actuators": [
      {"name": "proximal", "unit": "rad", "range": [-2.4, 0],
       "drives": [{"joint": "F.J1", "ratio": 1}, {"joint": "F.J2", "ratio": 0.3333333333333333}]}],
    "clutches": [{"actuator": "proximal", "inner": "F.J1", "outer": "F.J2", "tau_break_Nm": 0.5)") +
                           (say_direction ? R"(, "closing_direction": -1)" : "") + "}]}";
  return hand::parseHandFile(text, "clutch_mirror.json");
}

TEST(UrdfSidecarDrives, AFingerClosingTowardsNegativeAnglesBreaksAwayWhenItsClutchSaysSo) {
  const hand::HandModel mirrored = mirroredTwin(true);
  ASSERT_EQ(mirrored.clutches.at(0).closing_direction, -1);
  const Breakaway m = run(mirrored, -1.0), h = run(handFileTwin());
  // The mirror image of the positive finger's run: the same step, every angle negated.
  const int expected_step = static_cast<int>(std::floor(0.5 / 0.3 / 1e-3)) + 1;
  EXPECT_EQ(m.step, expected_step);
  EXPECT_NEAR(m.break_position, -0.5 * expected_step * 1e-3, 1e-12);
  const double a_end = -0.5 * 2.5, r_o = 0.3333333333333333;
  EXPECT_NEAR(m.q_inner, m.break_position, 1e-12);
  EXPECT_NEAR(m.q_outer, (r_o + 1.0) * a_end - m.break_position, 1e-12);
  EXPECT_NEAR(m.q_inner, -h.q_inner, 1e-12);
  EXPECT_NEAR(m.q_outer, -h.q_outer, 1e-12);
  // Without it the clutch takes the closing motion for an opening one and never breaks.
  EXPECT_EQ(run(mirroredTwin(false), -1.0).step, -1);
  // Anything but 1 or -1 is refused with its field.
  try {
    hand::parseHandFile(R"({"format": "handsim-hand", "version": 1, "id": "x",
      "fingers": [{"name": "F", "joints": [
        {"name": "J1", "a_m": 0.05, "limits_deg": [0, 90]},
        {"name": "J2", "a_m": 0.04, "limits_deg": [0, 90]}]}],
      "actuators": [{"name": "p", "unit": "rad", "range": [0, 1],
        "drives": [{"joint": "F.J1", "ratio": 1}, {"joint": "F.J2", "ratio": 0.5}]}],
      "clutches": [{"actuator": "p", "inner": "F.J1", "outer": "F.J2", "tau_break_Nm": 0.5,
                    "closing_direction": 2}]})",
                       "bad_direction.json");
    ADD_FAILURE() << "closing_direction 2 accepted";
  } catch (const io::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/clutches/0/closing_direction"), std::string::npos)
        << e.what();
  }
}

TEST(UrdfSidecarDrives, TendonJointsArePassiveAsInAHandFile) {
  const hand::HandModel urdf = loadUrdf();
  const hand::HandModel twin = handFileTwin();
  ASSERT_EQ(urdf.tendons.size(), 1u);
  ASSERT_EQ(urdf.closing_tendons, std::vector<int>{0});
  const hand::Tendon& tu = urdf.tendons[0];
  const hand::Tendon& th = twin.tendons[0];
  ASSERT_EQ(tu.joints.size(), th.joints.size());
  EXPECT_EQ(tu.stiffness, th.stiffness);
  for (std::size_t j = 0; j < tu.joints.size(); ++j) {
    EXPECT_EQ(tu.joints[j].pulley_radius, th.joints[j].pulley_radius);
    EXPECT_EQ(tu.joints[j].spring, th.joints[j].spring);
    const auto& au =
        urdf.actuators[static_cast<std::size_t>(urdf.driverOf(tu.joints[j].joint).first)];
    const auto& ah =
        twin.actuators[static_cast<std::size_t>(twin.driverOf(th.joints[j].joint).first)];
    EXPECT_EQ(au.servo.kp, 0.0);
    EXPECT_EQ(au.servo.kd, 0.0);
    EXPECT_EQ(au.servo.rotor_inertia, ah.servo.rotor_inertia);
    EXPECT_EQ(ah.servo.kp, 0.0);
  }
}

/// Writes `urdf_text` (default: the shipped clutch finger) and `sidecar` into a fresh folder
/// as `stem`.urdf and `stem`.handsim.json; returns the URDF's path.
std::string writePair(const std::string& folder, const std::string& sidecar,
                      std::string urdf_text = "", const std::string& stem = "clutch_finger") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / folder;
  fs::create_directories(dir);
  if (urdf_text.empty()) {
    std::ifstream in(asset("clutch_finger.urdf"));
    std::stringstream ss;
    ss << in.rdbuf();
    urdf_text = ss.str();
  }
  std::ofstream(dir / (stem + ".urdf")) << urdf_text;
  std::ofstream(dir / (stem + ".handsim.json")) << sidecar;
  return (dir / (stem + ".urdf")).string();
}

TEST(UrdfSidecarDrives, ASidecarCouplingStandsInForAMissingMimic) {
  // The clutch finger without its <mimic>: the sidecar couples the joints instead (as a URDF
  // BarrettHand without mimic joints needs before it can have clutches).
  std::ifstream in(asset("clutch_finger.urdf"));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const std::size_t at = text.find("<mimic");
  ASSERT_NE(at, std::string::npos);
  text.erase(at, text.find("/>", at) + 2 - at);
  const std::string path = writePair("handsim_sidecar_coupling",
                                     R"({"format": "handsim-urdf-sidecar", "version": 1,
          "couplings": [{"joint": "distal", "follows": "proximal",
                         "multiplier": 0.3333333333333333}],
          "clutches": [{"actuator": "proximal", "inner": "proximal", "outer": "distal",
                        "tau_break_Nm": 0.5}]})",
                                     text);
  hand::UrdfOptions opt;
  opt.load_geometry = false;
  const hand::HandModel coupled = hand::loadUrdfHand(path, opt);
  const hand::HandModel shipped = loadUrdf();
  EXPECT_EQ(coupled.actuators.size(), shipped.actuators.size());
  const Breakaway c = run(coupled), s = run(shipped);
  EXPECT_EQ(c.step, s.step);
  EXPECT_EQ(c.break_position, s.break_position);
  EXPECT_EQ(c.q_inner, s.q_inner);
  EXPECT_EQ(c.q_outer, s.q_outer);
  const auto& distal =
      coupled.tree.joints[static_cast<std::size_t>(coupled.tree.jointIndex("distal"))];
  EXPECT_EQ(distal.mimic, coupled.tree.jointIndex("proximal"));
}

TEST(UrdfSidecarDrives, TheCorpusBarrettHandGetsItsClutchesFromASidecar) {
  const std::string corpus = test::corpusPath("urdf/barrett_hand/bhand_model.urdf");
  if (corpus.empty() || !std::filesystem::exists(corpus))
    GTEST_SKIP() << test::corpusSkipReason("urdf/barrett_hand/bhand_model.urdf");
  std::ifstream in(corpus);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string sidecar = R"({"format": "handsim-urdf-sidecar", "version": 1, "couplings": [)";
  std::string clutches;
  for (const char* f : {"1", "2", "3"}) {
    const std::string med = std::string("finger_") + f + "_med_joint";
    const std::string dist = std::string("finger_") + f + "_dist_joint";
    sidecar += std::string(f[0] == '1' ? "" : ",") + "{\"joint\": \"" + dist +
               "\", \"follows\": \"" + med + "\", \"multiplier\": 0.3333333333333333}";
    clutches += std::string(f[0] == '1' ? "" : ",") + "{\"actuator\": \"" + med +
                "\", \"inner\": \"" + med + "\", \"outer\": \"" + dist +
                "\", \"tau_break_Nm\": 1.26, \"closing_direction\": -1}";
  }
  sidecar += "], \"clutches\": [" + clutches + "]}";
  const std::string path = writePair("handsim_sidecar_bhand", sidecar, ss.str(), "bhand_model");
  hand::UrdfOptions opt;
  opt.load_geometry = false;
  const hand::HandModel h = hand::loadUrdfHand(path, opt);
  EXPECT_EQ(h.actuators.size(), 5u);  // 8 movable joints, 3 distal ones now coupled
  ASSERT_EQ(h.clutches.size(), 3u);
  EXPECT_EQ(h.clutches[0].closing_direction, -1);
  // Its fingers close towards negative angles: a load above 1.26 N m breaks the clutch while
  // the actuator falls (closing), not while it rises (opening).
  {
    hand::ClutchState closing, opening;
    hand::updateClutch(h, h.clutches[0], closing, -0.5, -1.0, 1.3);
    hand::updateClutch(h, h.clutches[0], opening, -0.5, 1.0, 1.3);
    EXPECT_TRUE(closing.broken);
    EXPECT_FALSE(opening.broken);
  }
  // Broken away at a_break, the distal joint follows eq. 10: (1/3 + 1) a - a_break.
  const hand::ClutchModel& c = h.clutches[0];
  std::vector<double> a(h.actuators.size(), 0.0);
  a[static_cast<std::size_t>(c.actuator)] = -1.0;
  std::vector<hand::ClutchState> states(3);
  states[0] = {true, -0.6};
  const auto q = hand::jointPositions(h, a, states);
  EXPECT_NEAR(q[static_cast<std::size_t>(c.inner.finger)][c.inner.joint], -0.6, 1e-15);
  EXPECT_NEAR(q[static_cast<std::size_t>(c.outer.finger)][c.outer.joint],
              (0.3333333333333333 + 1.0) * -1.0 + 0.6, 1e-15);
}

TEST(UrdfSidecarDrives, UnknownOrUnfitJointsAreErrorsWithFileLineAndField) {
  const struct {
    std::string sidecar, field, what;
    int line;
  } cases[] = {
      {"{\"format\": \"handsim-urdf-sidecar\", \"version\": 1,\n"
       "\"clutches\": [{\"actuator\": \"proximal\",\n"
       "  \"inner\": \"nope\", \"outer\": \"distal\", \"tau_break_Nm\": 0.5}]}\n",
       "/clutches/0/inner", "no movable joint 'nope'", 3},
      {"{\"format\": \"handsim-urdf-sidecar\", \"version\": 1,\n"
       "\"clutches\": [{\"actuator\": \"proximal\", \"inner\": \"proximal\",\n"
       "  \"outer\": \"t_distal\", \"tau_break_Nm\": 0.5}]}\n",
       "/clutches/0/outer", "not driven by actuator 'proximal'", 3},
      {"{\"format\": \"handsim-urdf-sidecar\", \"version\": 1,\n"
       "\"tendons\": [{\"name\": \"x\", \"range_m\": [0, 0.01],\n"
       "  \"joints\": [{\"joint\": \"proximal\"}]}]}\n",
       "/tendons/0/joints/0/joint", "also drives its mimic joints", 3},
  };
  int n = 0;
  for (const auto& c : cases) {
    const std::string path = writePair("handsim_sidecar_" + std::to_string(n++), c.sidecar);
    try {
      hand::UrdfOptions opt;
      opt.load_geometry = false;
      hand::loadUrdfHand(path, opt);
      ADD_FAILURE() << "accepted " << c.sidecar;
    } catch (const io::InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("clutch_finger.handsim.json"), std::string::npos) << what;
      EXPECT_NE(what.find(":" + std::to_string(c.line) + ":"), std::string::npos) << what;
      EXPECT_NE(what.find(c.field), std::string::npos) << what;
      EXPECT_NE(what.find(c.what), std::string::npos) << what;
    }
  }
}

}  // namespace
}  // namespace handsim
