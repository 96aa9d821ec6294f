// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp defaults inferred from the kinematics (docs/planner.md, "Hands that name no closing
// actuators"): two small hands worked by hand here, the shipped hands' own closing lists, and
// the public Allegro hand (a URDF without a sidecar) planning grasps with them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "../support/corpus.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/planner/grasp_defaults.hpp"
#include "handsim/planner/grasp_records.hpp"
#include "handsim/planner/planner.hpp"
#include "handsim/tools/grasp_closing.hpp"

using namespace handsim;

namespace {

namespace fs = std::filesystem;

// A two-finger gripper: fingers L and R, one revolute joint each (a = 60 mm), bases at
// x = -/+40 mm of the palm. Both base frames have x0 along palm +z (the finger upright at
// q = 0) and y0 along palm +x, so a positive angle swings a tip towards +x: L closes at its
// upper limit (60 deg), R at its lower (-60 deg).
const char* kGripper = R"({
  "format": "handsim-hand", "version": 1, "id": "tg", "name": "test gripper",
  "fingers": [
    {"name": "L", "base": {"translation_m": [-0.04, 0, 0], "rotation": [0,1,0, 0,0,1, 1,0,0]},
     "joints": [{"name": "J1", "a_m": 0.06, "limits_deg": [-15, 60]}]},
    {"name": "R", "base": {"translation_m": [0.04, 0, 0], "rotation": [0,1,0, 0,0,1, 1,0,0]},
     "joints": [{"name": "J1", "a_m": 0.06, "limits_deg": [-60, 15]}]}
  ]})";

// Two fingers along palm +y (bases at x = +-20 mm), each a spread joint about the palm normal
// +z (+-20 deg, a = 4 mm, alpha = 90 deg) then a flexion (a = 50 mm, -10..90 deg). Base frame:
// x0 = palm +y, y0 = palm -x, z0 = palm +z. After the spread row z1 = palm +x, so the flexion
// turns x towards y1 = z1 x x1 = palm +z: positive flexion moves the tip towards +z.
const char* kSpreadHand = R"({
  "format": "handsim-hand", "version": 1, "id": "ts", "name": "test spread hand",
  "fingers": [
    {"name": "A", "base": {"translation_m": [0.02, 0, 0], "rotation": [0,-1,0, 1,0,0, 0,0,1]},
     "joints": [{"name": "J1", "a_m": 0.004, "alpha_deg": 90, "limits_deg": [-20, 20]},
                {"name": "J2", "a_m": 0.05, "limits_deg": [-10, 90]}]},
    {"name": "B", "base": {"translation_m": [-0.02, 0, 0], "rotation": [0,-1,0, 1,0,0, 0,0,1]},
     "joints": [{"name": "J1", "a_m": 0.004, "alpha_deg": 90, "limits_deg": [-20, 20]},
                {"name": "J2", "a_m": 0.05, "limits_deg": [-10, 90]}]}
  ]})";

std::vector<std::string> names(const hand::HandModel& h, const std::vector<int>& idx) {
  std::vector<std::string> out;
  for (int a : idx) out.push_back(h.actuators[static_cast<std::size_t>(a)].name);
  return out;
}

fs::path corpusDir() {
  return test::corpusDir();
}

}  // namespace

TEST(GraspDefaults, AGripperWhoseFingersCloseOnEachOtherIsAPinchHand) {
  const hand::HandModel h = hand::parseHandFile(kGripper, "gripper.json");
  ASSERT_FALSE(planner::namesClosing(h));
  const planner::GraspDefaults d = planner::inferGraspDefaults(h);
  // At q = 0 both tips are 60 mm up +z: finger direction +z. To the far ends (60 deg) L's tip
  // moves (+60 sin 60, 0, 60 cos 60 - 60) mm = (52, 0, -30) mm, R's (-52, 0, -30) mm: their
  // sideways parts cancel (and so do those towards -15 deg), so no side of the palm is the
  // closing side: a pinch hand, normal
  // and approach +z, from the mean of the bases (the origin).
  EXPECT_TRUE(d.pinch);
  EXPECT_NEAR(d.finger_direction.z(), 1.0, 1e-12);
  EXPECT_NEAR(d.palm_normal.z(), 1.0, 1e-12);
  EXPECT_NEAR(d.approach_palm.z(), 1.0, 1e-12);
  EXPECT_NEAR(d.approach_origin_palm.norm(), 0.0, 1e-12);
  // L at 60 deg: tips (12, 0, 30) and (40, 0, 60) mm, centroid (26, 0, 45): distances 20.5
  // mm each, 41 mm against 80 mm at q = 0: 39 mm closer, more than half of the 60 mm moved.
  // Towards -15 deg the tip moves away. R mirrored: it closes at its lower end.
  EXPECT_EQ(names(h, d.closing_actuators), (std::vector<std::string>{"L.J1", "R.J1"}));
  EXPECT_EQ(d.closing_directions, (std::vector<int>{1, -1}));

  // The planner's hand: R mirrored, so that its upper end (60) closes: joint angle -60 deg.
  const hand::HandModel p = planner::withGraspDefaults(h);
  EXPECT_EQ(p.closing_actuators, d.closing_actuators);
  const auto& r = p.actuators[1];
  EXPECT_NEAR(r.lower, -15.0 * M_PI / 180.0, 1e-12);
  EXPECT_NEAR(r.upper, 60.0 * M_PI / 180.0, 1e-12);
  const auto q = hand::jointPositions(p, {p.actuators[0].upper, r.upper});
  EXPECT_NEAR(q[0][0], 60.0 * M_PI / 180.0, 1e-12);
  EXPECT_NEAR(q[1][0], -60.0 * M_PI / 180.0, 1e-12);
  // Closing drives both to their upper ends.
  const auto refs = sim::closingReferences(p, {0.0, 0.0});
  EXPECT_FALSE(refs.actuators[0].empty());
  EXPECT_FALSE(refs.actuators[1].empty());
}

// The user's own hand (not mirrored) closes with the inferred actuators and directions (the
// GUI's Auto Grasp for a hand that names none): each trajectory ends at the closing end, and
// the joints there are those of the planner's mirrored hand at its upper ends. A planned
// posture shown on the user's hand (planner::handActuatorPositions) puts every joint where the
// planner's hand had it.
TEST(GraspDefaults, TheUsersHandClosesAndShowsPlannedPosturesLikeThePlannersHand) {
  const hand::HandModel h = hand::parseHandFile(kGripper, "gripper.json");
  const planner::GraspSummary g = planner::graspSummary(h);
  ASSERT_EQ(g.source, planner::GraspSummary::Source::Inferred);
  const auto refs = sim::closingReferences(h, {0.0, 0.0}, g.closing_actuators,
                                           g.closing_directions);
  ASSERT_FALSE(refs.actuators[0].empty());
  ASSERT_FALSE(refs.actuators[1].empty());
  const double end0 = refs.actuators[0].position(10.0, 0.0);
  const double end1 = refs.actuators[1].position(10.0, 0.0);
  EXPECT_NEAR(end0, h.actuators[0].upper, 1e-12);  // L closes up
  EXPECT_NEAR(end1, h.actuators[1].lower, 1e-12);  // R closes down
  const hand::HandModel p = planner::withGraspDefaults(h);
  const auto q_user = hand::jointPositions(h, {end0, end1});
  const auto q_planner = hand::jointPositions(p, {p.actuators[0].upper, p.actuators[1].upper});
  EXPECT_NEAR(q_user[1][0], q_planner[1][0], 1e-12);
  EXPECT_NEAR(q_user[0][0], q_planner[0][0], 1e-12);
  // A posture of the planner's hand, shown on the user's: the same joint angles.
  Eigen::VectorXd planned(2);
  planned << 0.3, 0.7;
  const std::vector<double> shown = planner::handActuatorPositions(h, planned);
  const auto qa = hand::jointPositions(p, {planned[0], planned[1]});
  const auto qb = hand::jointPositions(h, shown);
  EXPECT_NEAR(qa[0][0], qb[0][0], 1e-12);
  EXPECT_NEAR(qa[1][0], qb[1][0], 1e-12);
  EXPECT_THROW(planner::handActuatorPositions(h, Eigen::VectorXd::Zero(3)), std::invalid_argument);
}

TEST(GraspDefaults, FlexionsCloseTowardsThePalmNormalAndSpreadsDoNot) {
  const hand::HandModel h = hand::parseHandFile(kSpreadHand, "spread.json");
  const planner::GraspDefaults d = planner::inferGraspDefaults(h);
  // q = 0: tips 54 mm along +y from their bases: finger direction +y. A spread to +-20 deg
  // moves a tip (-+18.5, -3.3, 0) mm: the two ends' sideways parts cancel. A flexion to 90
  // deg moves it (0, -50, 50) mm, to -10 deg (0, -0.8, -8.7) mm: sideways of +y the two add up
  // to (0, 0, 41.3) mm per finger, the same for both: the palm normal is +z. The sum, 82.6 mm,
  // is 0.43 of the summed sideways lengths (4 x 18.5 + 2 x (50 + 8.7) mm = 191 mm), above the
  // fifth that makes a pinch hand.
  EXPECT_FALSE(d.pinch);
  EXPECT_NEAR(d.finger_direction.y(), 1.0, 1e-12);
  EXPECT_NEAR(d.palm_normal.z(), 1.0, 1e-9);
  EXPECT_NEAR(d.approach_palm.z(), 1.0, 1e-9);
  // Closing: a flexion to 90 deg moves its tip 50 mm along +z of its 70.7 mm; a spread moves
  // it sideways only (0 along +z).
  EXPECT_EQ(names(h, d.closing_actuators), (std::vector<std::string>{"A.J2", "B.J2"}));
  EXPECT_EQ(d.closing_directions, (std::vector<int>{1, 1}));
  // A hand that names its closing actuators is left as it is.
  hand::HandModel named = h;
  named.closing_actuators = {0};
  EXPECT_EQ(planner::withGraspDefaults(named).closing_actuators, std::vector<int>{0});
}

TEST(GraspDefaults, TheShippedHandsClosingListsAreTheInferredOnes) {
  // Independent of the files: the lists the kinematics give against the lists the files name.
  // Not the BarrettHand: at its reference posture its fingers lie flat and splayed and its
  // 180-degree spread (which is not symmetric about 0) outweighs the flexions, so the
  // inference does not find its palm normal; its file names M1-M3, which the planner uses.
  for (const char* id : {"gripper2p", "gripper2r", "gripper3r"}) {
    const hand::HandModel h = hand::loadHand(id);
    const planner::GraspDefaults d = planner::inferGraspDefaults(h);
    EXPECT_EQ(names(h, d.closing_actuators), names(h, h.closing_actuators)) << id;
    for (int dir : d.closing_directions) EXPECT_EQ(dir, 1) << id;
  }
}

TEST(GraspDefaults, Anthro20ClosesItsFlexionsNotItsSpreads) {
  // anthro20's joints are MCP flexion (J1), MCP abduction (J2), PIP (J3), DIP (J4). The four
  // fingers' flexions, as the kinematics find them, against the file's list.
  const hand::HandModel h = hand::loadHand("anthro20");
  const planner::GraspDefaults d = planner::inferGraspDefaults(h);
  const auto inferred = names(h, d.closing_actuators), file = names(h, h.closing_actuators);
  for (const char* f : {"index", "middle", "ring", "little"})
    for (const char* j : {".J1", ".J2", ".J3", ".J4"}) {
      const std::string n = std::string(f) + j;
      const bool flexion = std::string(j) != ".J2";
      EXPECT_EQ(std::count(inferred.begin(), inferred.end(), n), flexion ? 1 : 0) << n;
      EXPECT_EQ(std::count(file.begin(), file.end(), n), flexion ? 1 : 0) << n;
    }
  // The thumb lies in the palm's plane at the reference posture (its arc at 0, not opposed),
  // so the inference sees its arc and abduction move it towards the palm normal: the file
  // names its anatomical flexions instead (J1, J3, J4, as the fingers').
  for (const char* j : {"thumb.J1", "thumb.J3", "thumb.J4"})
    EXPECT_EQ(std::count(file.begin(), file.end(), j), 1) << j;
  EXPECT_EQ(std::count(file.begin(), file.end(), "thumb.J2"), 0);
}

TEST(GraspDefaultsCorpus, TheAllegroHandWithoutASidecarFindsGraspsOnTheCube) {
  const fs::path urdf = corpusDir() / "urdf" / "allegro_hand" / "allegro_hand_right.urdf";
  if (!fs::is_regular_file(urdf))
    GTEST_SKIP() << urdf << " absent (set HANDSIM_CORPUS_DIR to use the corpus)";
  const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand(urdf.string()));
  ASSERT_TRUE(hand->closing_actuators.empty()) << "the corpus URDF has no sidecar";
  const planner::GraspDefaults d = planner::inferGraspDefaults(*hand);
  // Flexions close (joints 1-3 of each finger, the thumb's 13-15 or a subset); the spreads
  // (joints 0, 4, 8) do not.
  const auto closing = names(*hand, d.closing_actuators);
  for (const char* spread : {"joint_0.0", "joint_4.0", "joint_8.0"})
    EXPECT_EQ(std::count(closing.begin(), closing.end(), spread), 0) << spread;
  for (const char* flex : {"joint_1.0", "joint_2.0", "joint_5.0", "joint_6.0", "joint_9.0"})
    EXPECT_EQ(std::count(closing.begin(), closing.end(), flex), 1) << flex;
  const planner::PlannerModel pm =
      planner::compilePlannerModel(hand, planner::loadPlanObject("cube"));
  planner::PlannerOptions o;
  o.grasps = 2;
  o.candidates = 40;
  o.threads = 2;
  const auto grasps = planner::planGrasps(pm, o);
  EXPECT_GE(grasps.size(), 1u);
  for (const auto& g : grasps) EXPECT_TRUE(g.forceClosure());
}

