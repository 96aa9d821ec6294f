// SPDX-License-Identifier: GPL-3.0-or-later
// handsim-cli fk --set and hands --describe on URDF hands; link poses checked against the
// transforms of the file worked by hand here.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "../support/cli_run.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/planner/grasp_defaults.hpp"

namespace handsim {
namespace {

using handsim::test::runCli;

std::string urdf(const std::string& name) {
  return std::string(HANDSIM_SOURCE_DIR) + "/assets/hands/urdf/" + name;
}

Eigen::Matrix4d poseOf(const nlohmann::json& out, const std::string& link) {
  for (const auto& l : out.at("links"))
    if (l.at("name") == link) {
      Eigen::Matrix4d m;
      for (int i = 0; i < 16; ++i) m(i / 4, i % 4) = l.at("pose")[static_cast<std::size_t>(i)];
      return m;
    }
  ADD_FAILURE() << "no link " << link;
  return Eigen::Matrix4d::Zero();
}

TEST(UrdfCli, FkSetMovesMastersAndMimicsAndReportsEveryLink) {
  const auto r =
      runCli("fk --hand " + urdf("mimic_gripper.urdf") + " --set jaw_left=0.02,hook_proximal=30 --deg");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out.at("links").size(), 5u);
  // Jaws: origin x = +-0.01, z = 0.02, sliding along x by q and by -q (mimic -1).
  EXPECT_NEAR(poseOf(out, "left")(0, 3), 0.03, 1e-15);
  EXPECT_NEAR(poseOf(out, "right")(0, 3), -0.03, 1e-15);
  // Hook: Rz(pi/2 as written) then Rx(q1) at (0, 0.03, 0.02); the distal joint 0.04 further
  // along z, turned by Rx(0.8 q1 + 0.1).
  const double q1 = 30.0 * 3.14159265358979323846 / 180.0;
  const Eigen::Matrix3d r1 = (Eigen::AngleAxisd(1.5707963, Eigen::Vector3d::UnitZ()) *
                              Eigen::AngleAxisd(q1, Eigen::Vector3d::UnitX()))
                                 .toRotationMatrix();
  const Eigen::Vector3d p2 = Eigen::Vector3d(0, 0.03, 0.02) + r1 * Eigen::Vector3d(0, 0, 0.04);
  const Eigen::Matrix3d r2 = r1 * Eigen::AngleAxisd(0.8 * q1 + 0.1, Eigen::Vector3d::UnitX()).toRotationMatrix();
  const Eigen::Matrix4d hook2 = poseOf(out, "hook2");
  EXPECT_LT((hook2.block<3, 1>(0, 3) - p2).norm(), 1e-14);
  EXPECT_LT((hook2.block<3, 3>(0, 0) - r2).norm(), 1e-14);
}

TEST(UrdfCli, FkSetRejectsMimicAndUnknownJointsAndClampsRanges) {
  const auto mimic = runCli("fk --hand " + urdf("mimic_gripper.urdf") + " --set jaw_right=0.01");
  EXPECT_EQ(mimic.code, 2);
  EXPECT_NE(mimic.err.find("mimics 'jaw_left'"), std::string::npos) << mimic.err;
  const auto unknown = runCli("fk --hand " + urdf("mimic_gripper.urdf") + " --set nope=1");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("'nope'"), std::string::npos) << unknown.err;
  const auto far = runCli("fk --hand " + urdf("mimic_gripper.urdf") + " --set jaw_left=0.5");
  ASSERT_EQ(far.code, 0) << far.err;
  const auto out = nlohmann::json::parse(far.out);
  ASSERT_EQ(out.at("warnings").size(), 1u);
  EXPECT_NEAR(poseOf(out, "left")(0, 3), 0.04, 1e-15);  // clamped at 0.03
}

TEST(UrdfCli, FkSetOnAHandFileAndLinksOfItsChains) {
  const auto r = runCli("fk --hand barrett --set F1.J2=0.5");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out.at("links")[0].at("name"), "palm");
  EXPECT_NEAR(out.at("fingers")[0].at("q")[1].get<double>(), 0.5, 1e-15);
}

TEST(UrdfCli, HandsDescribeListsJointsActuatorsCouplingsChains) {
  const auto r = runCli("hands --describe " + urdf("wrist_hand.urdf"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto h = nlohmann::json::parse(r.out).at("hand");
  EXPECT_EQ(h.at("joints").size(), 11u);  // 9 movable + 2 fixed
  EXPECT_EQ(h.at("actuators").size(), 9u);
  EXPECT_EQ(h.at("chains").size(), 3u);
  int shared = 0;
  for (const auto& c : h.at("couplings")) shared += c.at("kind") == "shared";
  EXPECT_EQ(shared, 2);  // wrist_yaw and wrist_pitch
  const auto bad = runCli("hands --describe /nonexistent.urdf");
  EXPECT_EQ(bad.code, 2);
  const auto m = nlohmann::json::parse(runCli("hands --describe " + urdf("mimic_gripper.urdf")).out);
  int mimic = 0;
  for (const auto& c : m.at("hand").at("couplings")) mimic += c.at("kind") == "mimic";
  EXPECT_EQ(mimic, 2);
}

}  // namespace
// hands --describe says what the planner closes: the file's "grasp" key for a hand file that
// names it (the BarrettHand's M1-M3), the inferred defaults for a URDF without a sidecar, the
// same actuators and directions the planner's hand (planner::withGraspDefaults) closes.
TEST(UrdfCli, DescribeShowsTheGraspDefaultsFromTheFileOrInferred) {
  const auto barrett = runCli("hands --describe barrett");
  ASSERT_EQ(barrett.code, 0) << barrett.err;
  const auto file = nlohmann::json::parse(barrett.out).at("hand").at("grasp");
  EXPECT_EQ(file.at("source"), "file");
  ASSERT_EQ(file.at("closing_actuators").size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(file.at("closing_actuators")[i].at("actuator"), "M" + std::to_string(i + 1));
    EXPECT_EQ(file.at("closing_actuators")[i].at("closes_to"), "upper");
  }
  std::size_t closing = 0;  // the hook of mimic_gripper closes; primitives_hand's pins do not
  for (const char* name : {"primitives_hand.urdf", "mimic_gripper.urdf"}) {
    const auto r = runCli("hands --describe " + urdf(name));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto g = nlohmann::json::parse(r.out).at("hand").at("grasp");
    EXPECT_EQ(g.at("source"), "inferred") << name;
    const hand::HandModel h = hand::loadHand(urdf(name));
    ASSERT_TRUE(h.closing_actuators.empty()) << name << " has no sidecar";
    const hand::HandModel planned = planner::withGraspDefaults(h);
    ASSERT_EQ(g.at("closing_actuators").size(), planned.closing_actuators.size()) << name;
    std::size_t listed = 0;
    for (std::size_t i = 0; i < planned.closing_actuators.size(); ++i) {
      const auto& a = h.actuators[static_cast<std::size_t>(planned.closing_actuators[i])];
      EXPECT_EQ(g.at("closing_actuators")[i].at("actuator"), a.name) << name;
      // The planner's copy mirrors an actuator that closes towards its lower end.
      const auto& mirrored = planned.actuators[static_cast<std::size_t>(planned.closing_actuators[i])];
      const bool flipped = mirrored.drives.front().ratio == -a.drives.front().ratio;
      EXPECT_EQ(g.at("closing_actuators")[i].at("closes_to"), flipped ? "lower" : "upper")
          << a.name;
      ++listed;
    }
    EXPECT_EQ(listed + g.at("not_closing").size(), h.actuators.size()) << name;
    const auto& n = g.at("palm_normal");
    EXPECT_NEAR(std::hypot(double(n[0]), double(n[1]), double(n[2])), 1.0, 1e-12) << name;
    closing += listed;
  }
  EXPECT_GT(closing, 0u);
}

}  // namespace handsim

namespace handsim {
namespace {

TEST(UrdfCli, ScenarioNamesAUrdfHandRelativeToItsFolder) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("urdf_scenario_" + std::to_string(::getpid()));
  fs::create_directories(dir / "hands");
  for (const char* f : {"wrist_hand.urdf", "wrist_hand.handsim.json"})
    fs::copy_file(urdf(f), dir / "hands" / f, fs::copy_options::overwrite_existing);
  std::ofstream(dir / "close.json")
      << R"({"format": "handsim-scenario", "version": 1, "hand": "hands/wrist_hand.urdf",
             "duration_s": 0.5, "dt_s": 0.001, "gravity_mps2": [0, 0, -9.81],
             "trajectories": [{"actuator": "index_mcp", "segments":
                                 [{"to": 0.8, "max_velocity": 4, "max_acceleration": 40}]}]})";
  const auto r = runCli("simulate " + (dir / "close.json").string() + " --quiet");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out.at("hand"), "wrist_hand");
  EXPECT_NEAR(out.at("final").at("actuators").at("index_mcp").get<double>(), 0.8, 0.01);
  fs::remove_all(dir);
}

TEST(UrdfCli, IkSharedFreeReachesWhatLockedMissesAndPrintsEveryJoint) {
  const std::string hand = urdf("wrist_hand.urdf");
  // The target: where fk puts the middle fingertip with the wrist turned (a pose of the file).
  const auto fk = runCli("fk --hand " + hand +
                         " --set wrist_yaw=0.5,wrist_pitch=0.35,middle_mcp=0.9,middle_pip=0.6");
  ASSERT_EQ(fk.code, 0) << fk.err;
  const Eigen::Vector3d target =
      poseOf(nlohmann::json::parse(fk.out), "middle_distal").block<3, 1>(0, 3);
  std::ostringstream t;
  t.precision(17);
  t << target.x() << "," << target.y() << "," << target.z();
  const auto locked = runCli("ik --hand " + hand + " --finger middle_distal --target " + t.str());
  EXPECT_EQ(locked.code, 3) << locked.err;
  EXPECT_GT(nlohmann::json::parse(locked.out).at("miss").get<double>(), 1e-3);
  const auto free = runCli("ik --hand " + hand + " --link middle_distal --shared free --target " +
                           t.str());
  ASSERT_EQ(free.code, 0) << free.err;
  const auto out = nlohmann::json::parse(free.out);
  EXPECT_LT(out.at("residual").get<double>(), 1e-9);
  const auto& joints = out.at("joints");
  EXPECT_EQ(joints.size(), 9u);
  // The joints printed put the link on the target (fk again, from the printed values).
  std::ostringstream set;
  set.precision(17);
  set << "wrist_yaw=" << joints.at("wrist_yaw").get<double>()
      << ",wrist_pitch=" << joints.at("wrist_pitch").get<double>()
      << ",middle_mcp=" << joints.at("middle_mcp").get<double>()
      << ",middle_pip=" << joints.at("middle_pip").get<double>();
  const auto check = runCli("fk --hand " + hand + " --set " + set.str());
  ASSERT_EQ(check.code, 0) << check.err;
  EXPECT_LT((poseOf(nlohmann::json::parse(check.out), "middle_distal").block<3, 1>(0, 3) - target)
                .norm(),
            1e-9);
  // Every finger's chain carries the same wrist values.
  for (const auto& f : out.at("fingers")) {
    EXPECT_EQ(f.at("q")[0].get<double>(), joints.at("wrist_yaw").get<double>());
    EXPECT_EQ(f.at("q")[1].get<double>(), joints.at("wrist_pitch").get<double>());
  }
  // fk's "tip" (and its earlier name "ik_tip") is the point `ik --finger` places (the fixed
  // index_tip link beyond the distal frame, where "last_frame" stops): a target taken from it is
  // reached.
  const auto fk_index = nlohmann::json::parse(
      runCli("fk --hand " + hand + " --set wrist_yaw=0.3,index_mcp=0.4").out);
  const auto& index = fk_index.at("fingers")[0];
  ASSERT_EQ(index.at("name"), "index_distal");
  const Eigen::Vector3d ik_tip(index.at("ik_tip")[0].get<double>(),
                               index.at("ik_tip")[1].get<double>(),
                               index.at("ik_tip")[2].get<double>());
  EXPECT_LT((ik_tip - poseOf(fk_index, "index_tip").block<3, 1>(0, 3)).norm(), 1e-15);
  EXPECT_EQ(index.at("tip"), index.at("ik_tip"));
  EXPECT_GT((ik_tip - Eigen::Vector3d(index.at("last_frame")[0].get<double>(),
                                      index.at("last_frame")[1].get<double>(),
                                      index.at("last_frame")[2].get<double>()))
                .norm(),
            1e-3);
  std::ostringstream it;
  it.precision(17);
  it << ik_tip.x() << "," << ik_tip.y() << "," << ik_tip.z();
  const auto reach = runCli("ik --hand " + hand + " --finger index_distal --shared free --target " +
                            it.str());
  ASSERT_EQ(reach.code, 0) << reach.err;
  EXPECT_LT(nlohmann::json::parse(reach.out).at("residual").get<double>(), 1e-9);
  const auto bad = runCli("ik --hand " + hand + " --link middle_distal --shared maybe --target 0,0,0.1");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--shared"), std::string::npos) << bad.err;
  const auto fixed = runCli("ik --hand " + hand + " --link forearm --target 0,0,0.1");
  EXPECT_EQ(fixed.code, 2);
  EXPECT_NE(fixed.err.find("forearm"), std::string::npos) << fixed.err;
}

}  // namespace
// Issue 24: the arm as a group of its own in fk, hands --describe and ik --palm-pose.
TEST(UrdfCli, ArmGroupInFkDescribeAndIk) {
  const auto fk = runCli("fk --hand " + urdf("wrist_hand.urdf") +
                         " --palm palm --set index_mcp=0 --arm wrist_pitch=20 --deg");
  ASSERT_EQ(fk.code, 0) << fk.err;
  const auto out = nlohmann::json::parse(fk.out);
  ASSERT_EQ(out.at("arm").at("joints").size(), 2u);
  EXPECT_EQ(out.at("arm").at("joints")[1].at("name"), "wrist_pitch");
  // The wrist joints are no finger joints any more.
  for (const auto& f : out.at("fingers")) EXPECT_LE(f.at("q").size(), 3u);
  const auto describe = runCli("hands --describe " + urdf("wrist_hand.urdf") + " --palm palm");
  ASSERT_EQ(describe.code, 0) << describe.err;
  EXPECT_EQ(nlohmann::json::parse(describe.out).at("hand").at("arm").at("palm_link"), "palm");
  // The palm pose fk printed is reached; one 0.5 m away is not (exit 3, the miss in mm).
  const auto& t = out.at("arm").at("palm_in_base");
  const std::string pose = std::to_string(double(t[3])) + "," + std::to_string(double(t[7])) + "," +
                           std::to_string(double(t[11])) + ",0,20,0";
  const auto ik = runCli("ik --hand " + urdf("wrist_hand.urdf") + " --palm palm --palm-pose " +
                         pose + " --deg");
  ASSERT_EQ(ik.code, 0) << ik.err << ik.out;
  EXPECT_NEAR(double(nlohmann::json::parse(ik.out).at("arm").at("wrist_pitch")),
              20.0 * 3.14159265358979323846 / 180.0, 1e-5);
  const auto far =
      runCli("ik --hand " + urdf("wrist_hand.urdf") + " --palm palm --palm-pose 0.5,0,0.07");
  EXPECT_EQ(far.code, 3) << far.err;
  const auto miss = nlohmann::json::parse(far.out);
  EXPECT_EQ(miss.at("error"), "unreachable");
  EXPECT_GT(double(miss.at("miss_mm")), 400.0);
  EXPECT_NE(runCli("fk --hand " + urdf("wrist_hand.urdf") + " --set index_mcp=0 --arm 1,2").code,
            0);
}

}  // namespace handsim
