// SPDX-License-Identifier: GPL-3.0-or-later
// Hand-level inverse kinematics on URDF trees (hand/hand_ik.hpp): shared wrist joints locked
// or free, mimic joints following their masters. Every reached target and every moved link is
// checked with Orocos KDL's tree forward kinematics built from the same URDF file (the peer),
// at the tree joint values read off the result.
#include <gtest/gtest.h>

#include <fstream>
#include <kdl/treefksolverpos_recursive.hpp>
#include <map>
#include <random>
#include <sstream>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/hand/hand_ik.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/hand/transmission_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/unreachable_target.hpp"
#include "urdf_test_support.hpp"

namespace handsim {
namespace {

using kinematics::JointVector;

struct Fixture {
  hand::HandModel hand;
  KDL::Tree kdl;
};

Fixture load(const std::string& file) {
  const std::string path = std::string(HANDSIM_SOURCE_DIR) + "/assets/hands/urdf/" + file;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  hand::UrdfOptions opt;
  opt.load_geometry = false;
  return {hand::loadUrdfHand(path, opt), urdftest::kdlTree(text.str())};
}

/// Joint values of the whole hand from tree-joint values by name (mimic joints follow, shared
/// joints copied), through the actuators.
std::vector<JointVector> handJoints(const hand::HandModel& h,
                                    const std::map<std::string, double>& value) {
  std::vector<double> a(h.actuators.size(), 0.0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto it = value.find(h.actuators[i].name);
    a[i] = it == value.end() ? std::clamp(0.0, h.actuators[i].lower, h.actuators[i].upper)
                             : it->second;
  }
  return hand::jointPositions(h, a);
}

/// Every movable tree joint's value, read from its first copy; checks all copies agree.
std::map<std::string, double> treeValues(const hand::HandModel& h,
                                         const std::vector<JointVector>& q) {
  std::map<std::string, double> out;
  for (const auto& tj : h.tree.joints) {
    if (tj.copies.empty()) continue;
    const auto& first = tj.copies.front();
    out[tj.name] = q[static_cast<std::size_t>(first.finger)][first.joint];
    for (const auto& c : tj.copies)
      EXPECT_EQ(q[static_cast<std::size_t>(c.finger)][c.joint], out[tj.name]) << tj.name;
  }
  return out;
}

/// KDL forward kinematics: the origin of `link` in the root frame at tree values `value`.
Eigen::Isometry3d kdlPose(const KDL::Tree& tree, const std::map<std::string, double>& value,
                          const std::string& link) {
  KDL::JntArray q(tree.getNrOfJoints());
  for (const auto& [name, element] : tree.getSegments()) {
    const KDL::Joint& j = element.segment.getJoint();
    if (j.getType() != KDL::Joint::Fixed) q(element.q_nr) = value.at(j.getName());
  }
  KDL::TreeFkSolverPos_recursive fk(tree);
  KDL::Frame f;
  EXPECT_GE(fk.JntToCart(q, f, link), 0) << link;
  Eigen::Isometry3d out = Eigen::Isometry3d::Identity();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) out.linear()(r, c) = f.M(r, c);
    out.translation()[r] = f.p(r);
  }
  return out;
}

const std::vector<std::string> kSharedWrist = {"wrist_yaw", "wrist_pitch"};

TEST(UrdfHandIk, LockedKeepsTheWristAndReachesTheBranchWorkspace) {
  const Fixture fx = load("wrist_hand.urdf");
  const hand::HandModel& h = fx.hand;
  const auto endpoint = hand::linkEndpoint(h, "index_tip");
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    // The hand now: wrist somewhere, fingers somewhere.
    std::map<std::string, double> now = {{"wrist_yaw", -0.8 + 1.6 * u(rng)},
                                         {"wrist_pitch", -0.6 + 1.2 * u(rng)},
                                         {"middle_mcp", 1.5 * u(rng)},
                                         {"thumb_rot", 1.2 * u(rng)},
                                         {"thumb_slide", 0.02 * u(rng)}};
    const auto q_now = handJoints(h, now);
    // A target in the index finger's workspace with the wrist where it is (KDL's FK).
    std::map<std::string, double> goal = treeValues(h, q_now);
    goal["index_abd"] = -0.3 + 0.6 * u(rng);
    goal["index_mcp"] = 0.1 + 1.3 * u(rng);
    goal["index_pip"] = 0.1 + 1.3 * u(rng);
    const Eigen::Vector3d target = kdlPose(fx.kdl, goal, "index_tip").translation();

    hand::HandIkOptions opt;
    opt.shared = hand::SharedJoints::Locked;
    const auto q = hand::handInverseKinematics(h, endpoint, target, q_now, opt);
    const auto got = treeValues(h, q);
    for (const auto& name : kSharedWrist) EXPECT_EQ(got.at(name), now.at(name)) << name;
    // Every copy of every shared joint and every joint of the other fingers is untouched.
    for (std::size_t f = 0; f < h.fingers.size(); ++f) {
      for (int j = 0; j < h.fingers[f].dof(); ++j) {
        const auto& joint =
            h.fingers[f].joint_names[static_cast<std::size_t>(h.fingers[f].rowOfJoint(j))];
        if (joint.rfind("index_", 0) != 0) {
          EXPECT_EQ(q[f][j], q_now[f][j]) << h.fingers[f].name << " " << j;
        }
      }
    }
    EXPECT_LT((kdlPose(fx.kdl, got, "index_tip").translation() - target).norm(), 1e-9);
    for (const char* name : {"index_abd", "index_mcp", "index_pip"}) {
      const auto& tj = h.tree.joints[static_cast<std::size_t>(h.tree.jointIndex(name))];
      EXPECT_GE(got.at(name), tj.lower);
      EXPECT_LE(got.at(name), tj.upper);
    }
  }
}

TEST(UrdfHandIk, FreeMovesTheWristToReachWhatLockedCannot) {
  const Fixture fx = load("wrist_hand.urdf");
  const hand::HandModel& h = fx.hand;
  // The middle finger is planar (two parallel flexion joints): with the wrist locked its tip
  // stays on a surface; the target is made with the wrist turned and pitched.
  const int middle = h.fingerIndex("middle_distal");
  ASSERT_GE(middle, 0);
  const auto endpoint = hand::fingerEndpoint(h, middle);
  const std::map<std::string, double> now = {{"index_abd", 0.1}, {"index_mcp", 0.4},
                                             {"index_pip", 0.3}, {"middle_mcp", 0.2},
                                             {"thumb_rot", 0.5}, {"thumb_slide", 0.01}};
  const auto q_now = handJoints(h, now);
  std::map<std::string, double> goal = treeValues(h, q_now);
  goal["wrist_yaw"] = 0.5;
  goal["wrist_pitch"] = 0.35;
  goal["middle_mcp"] = 0.9;
  goal["middle_pip"] = 0.6;
  const Eigen::Vector3d target = kdlPose(fx.kdl, goal, "middle_distal").translation();

  hand::HandIkOptions locked;
  locked.shared = hand::SharedJoints::Locked;
  double locked_miss = 0.0;
  try {
    hand::handInverseKinematics(h, endpoint, target, q_now, locked);
    ADD_FAILURE() << "the locked wrist reached a target off its surface";
  } catch (const kinematics::UnreachableTarget& e) {
    locked_miss = e.miss();
  }
  EXPECT_GT(locked_miss, 1e-3);
  // The miss is a real distance: no point of the locked workspace (brute-force grid over the
  // two finger joints, KDL FK) comes closer than it, less the grid's resolution.
  double brute = 1e9;
  std::map<std::string, double> probe = treeValues(h, q_now);
  for (int i = 0; i <= 100; ++i)
    for (int k = 0; k <= 100; ++k) {
      probe["middle_mcp"] = 1.57 * i / 100.0;
      probe["middle_pip"] = 1.57 * k / 100.0;
      brute =
          std::min(brute, (kdlPose(fx.kdl, probe, "middle_distal").translation() - target).norm());
    }
  EXPECT_LE(locked_miss, brute + 1e-12);
  EXPECT_GT(locked_miss, brute - 1e-3);

  hand::HandIkOptions free;
  free.shared = hand::SharedJoints::Free;
  const auto r = hand::solveHandIk(h, endpoint, target, q_now, free);
  const auto got = treeValues(h, r.q);
  EXPECT_LT((kdlPose(fx.kdl, got, "middle_distal").translation() - target).norm(), 1e-9);
  EXPECT_LT(r.position_error, 1e-9);
  std::cout << "locked miss " << locked_miss << " m (grid " << brute << "), free miss "
            << r.position_error << " m\n";
  // The wrist moved, and every other branch went with it exactly as KDL's FK says; their own
  // joints kept their values.
  EXPECT_GT(std::abs(got.at("wrist_yaw")) + std::abs(got.at("wrist_pitch")), 1e-3);
  const auto before = treeValues(h, q_now);
  for (const auto& [name, v] : now) {
    if (name.rfind("middle_", 0) != 0) {
      EXPECT_EQ(got.at(name), v) << name;
    }
  }
  const auto poses = h.linkPoses(r.q);
  for (const auto& [name, pose] : poses) {
    const Eigen::Isometry3d want = kdlPose(fx.kdl, got, name);
    EXPECT_LT((pose.matrix() - want.matrix()).cwiseAbs().maxCoeff(), 1e-12) << name;
  }
  for (const char* tip : {"index_tip", "thumb_distal"})
    EXPECT_GT((kdlPose(fx.kdl, got, tip).translation() - kdlPose(fx.kdl, before, tip).translation())
                  .norm(),
              1e-3)
        << tip;
}

TEST(UrdfHandIk, FreeReachesAPoseWithOrientation) {
  const Fixture fx = load("wrist_hand.urdf");
  const hand::HandModel& h = fx.hand;
  const auto endpoint = hand::linkEndpoint(h, "index_tip");
  const auto q_now = handJoints(h, {});
  std::map<std::string, double> goal = treeValues(h, q_now);
  goal["wrist_yaw"] = -0.4;
  goal["wrist_pitch"] = 0.2;
  goal["index_abd"] = 0.15;
  goal["index_mcp"] = 0.7;
  goal["index_pip"] = 0.5;
  const Eigen::Isometry3d want = kdlPose(fx.kdl, goal, "index_tip");
  hand::HandIkOptions opt;
  opt.shared = hand::SharedJoints::Free;
  opt.target_rotation_palm = want.linear();
  const auto q = hand::handInverseKinematics(h, endpoint, want.translation(), q_now, opt);
  const Eigen::Isometry3d got = kdlPose(fx.kdl, treeValues(h, q), "index_tip");
  EXPECT_LT((got.translation() - want.translation()).norm(), 1e-9);
  EXPECT_LT(Eigen::AngleAxisd(got.linear() * want.linear().transpose()).angle(), 1e-8);
}

TEST(UrdfHandIk, MimicJointsFollowTheirMaster) {
  const Fixture fx = load("mimic_gripper.urdf");
  const hand::HandModel& h = fx.hand;
  const auto q_now = handJoints(h, {});
  // The hook: one coordinate (hook_proximal) for a point on its curve.
  {
    std::map<std::string, double> goal = treeValues(h, q_now);
    goal["hook_proximal"] = 0.7;
    goal["hook_distal"] = 0.8 * 0.7 + 0.1;
    const Eigen::Vector3d target =
        (kdlPose(fx.kdl, goal, "hook2") * Eigen::Vector3d(0.0, 0.0, 0.03));
    hand::IkEndpoint end = hand::linkEndpoint(h, "hook2");
    end.in_frame.translation() += end.in_frame.linear() * Eigen::Vector3d(0.0, 0.0, 0.03);
    const auto r = hand::solveHandIk(h, end, target, q_now);
    EXPECT_EQ(r.coordinates.size(), 1u);
    const auto got = treeValues(h, r.q);
    EXPECT_NEAR(got.at("hook_distal"), 0.8 * got.at("hook_proximal") + 0.1, 1e-15);
    EXPECT_NEAR(got.at("hook_proximal"), 0.7, 1e-8);
    EXPECT_LT((kdlPose(fx.kdl, got, "hook2") * Eigen::Vector3d(0.0, 0.0, 0.03) - target).norm(),
              1e-9);
  }
  // The mimicking jaw: placing it moves its master.
  {
    std::map<std::string, double> goal = treeValues(h, q_now);
    goal["jaw_left"] = 0.021;
    goal["jaw_right"] = -0.021;
    const Eigen::Vector3d target = kdlPose(fx.kdl, goal, "right").translation();
    const auto q = hand::handInverseKinematics(h, hand::linkEndpoint(h, "right"), target, q_now);
    const auto got = treeValues(h, q);
    EXPECT_NEAR(got.at("jaw_left"), 0.021, 1e-12);
    EXPECT_EQ(got.at("jaw_right"), -1.0 * got.at("jaw_left"));
    EXPECT_LT((kdlPose(fx.kdl, got, "right").translation() - target).norm(), 1e-9);
    EXPECT_LT(
        (kdlPose(fx.kdl, got, "left").translation() - kdlPose(fx.kdl, goal, "left").translation())
            .norm(),
        1e-9);
  }
}

TEST(UrdfHandIk, AFingersTipIsItsLastFixedLink) {
  const Fixture fx = load("wrist_hand.urdf");
  const auto tip = hand::fingerEndpoint(fx.hand, fx.hand.fingerIndex("index_distal"));
  const auto link = hand::linkEndpoint(fx.hand, "index_tip");
  EXPECT_EQ(tip.row, link.row);
  EXPECT_TRUE(tip.in_frame.isApprox(link.in_frame, 0.0));
  EXPECT_NEAR(tip.in_frame.translation().z(), 0.03, 1e-15);  // index_tip_fixed's origin
}

TEST(UrdfHandIk, OnAHandFileTheSolutionGoesThroughItsTransmission) {
  // The BarrettHand file: one motor per finger drives two joints (1/125 and 1/375 rad per
  // count, seed 000 eq. 1-4) and M4 spreads F1 and F2. Targets made from random actuator
  // positions are reached, and the joints found are what some actuator positions give.
  const hand::HandModel h = hand::loadHand("barrett");
  std::mt19937 rng(11);
  const auto q_now = hand::jointPositions(h, std::vector<double>(h.actuators.size(), 0.0));
  for (int trial = 0; trial < 10; ++trial) {
    std::vector<double> a;
    for (const auto& act : h.actuators)
      a.push_back(std::uniform_real_distribution<double>(act.lower, act.upper)(rng));
    const auto goal = hand::jointPositions(h, a);
    const int f = trial % 3;
    const auto& chain = h.fingers[static_cast<std::size_t>(f)];
    const Eigen::Vector3d target =
        chain.base * kinematics::fingertipPosition(chain, goal[static_cast<std::size_t>(f)]);
    const auto r = hand::solveHandIk(h, hand::fingerEndpoint(h, f), target, q_now);
    EXPECT_LT(r.position_error, 1e-9) << trial;
    EXPECT_LT((chain.base * kinematics::fingertipPosition(chain, r.q[static_cast<std::size_t>(f)]) -
               target)
                  .norm(),
              1e-9);
    const auto through = hand::jointPositions(
        h, hand::actuatorsForJoints(h, r.q, std::vector<double>(h.actuators.size(), 0.0), {}));
    for (std::size_t g = 0; g < h.fingers.size(); ++g)
      EXPECT_LT((through[g] - r.q[g]).cwiseAbs().maxCoeff(), 1e-12) << trial << " " << g;
  }
}

TEST(UrdfHandIk, RandomTreesLockedAndFreeAgainstKdl) {
  // Random hand-like trees (urdf_test_support.hpp: a 1-2 joint wrist, 3-5 branches, mimic
  // joints, prismatic and continuous joints): targets made by KDL at random actuator values,
  // with the wrist at its current values for Locked; every leaf link reached.
  std::mt19937 rng(303);
  int solved = 0;
  for (int t = 0; t < 12; ++t) {
    urdftest::RandomTree tree;
    do {
      tree = urdftest::randomTreeUrdf(rng, t % 2 == 1);
    } while (tree.movable < 10 || tree.movable > 25);
    hand::UrdfOptions opt;
    opt.load_geometry = false;
    const hand::HandModel h = hand::parseUrdfHand(tree.urdf, "random.urdf", opt);
    const KDL::Tree kdl = urdftest::kdlTree(tree.urdf);
    std::vector<double> a_now, a_goal;
    for (const auto& act : h.actuators) {
      std::uniform_real_distribution<double> u(act.lower, act.upper);
      a_now.push_back(u(rng));
      a_goal.push_back(u(rng));
    }
    const auto q_now = hand::jointPositions(h, a_now);
    const int f = static_cast<int>(rng() % h.fingers.size());
    const auto end = hand::fingerEndpoint(h, f);
    const std::string leaf = end.name.substr(end.name.find("link '") + 6,
                                             end.name.rfind('\'') - end.name.find("link '") - 6);
    for (const auto shared : {hand::SharedJoints::Locked, hand::SharedJoints::Free}) {
      std::vector<double> a = a_goal;
      if (shared == hand::SharedJoints::Locked) {
        // Shared joints' actuators stay where they are now.
        for (std::size_t i = 0; i < a.size(); ++i)
          for (const auto& d : h.actuators[i].drives)
            for (const auto& tj : h.tree.joints)
              if (tj.copies.size() > 1 &&
                  std::find(tj.copies.begin(), tj.copies.end(), d.joint) != tj.copies.end())
                a[i] = a_now[i];
      }
      const Eigen::Vector3d target =
          kdlPose(kdl, treeValues(h, hand::jointPositions(h, a)), leaf).translation();
      hand::HandIkOptions o;
      o.shared = shared;
      const auto r = hand::solveHandIk(h, end, target, q_now, o);
      const auto got = treeValues(h, r.q);
      const double miss = (kdlPose(kdl, got, leaf).translation() - target).norm();
      EXPECT_NEAR(miss, r.position_error, 1e-12) << "tree " << t;
      EXPECT_LT(miss, 1e-9) << "tree " << t
                            << (shared == hand::SharedJoints::Locked ? " locked" : " free");
      if (miss < 1e-9) ++solved;
      if (shared == hand::SharedJoints::Locked) {
        const auto before = treeValues(h, q_now);
        for (const auto& tj : h.tree.joints) {
          if (tj.copies.size() > 1) {
            EXPECT_EQ(got.at(tj.name), before.at(tj.name)) << tj.name;
          }
        }
      }
      // Mimic joints follow their masters (composed through the chain of mimics).
      for (const auto& tj : h.tree.joints) {
        if (tj.mimic >= 0) {
          const double master = got.at(h.tree.joints[static_cast<std::size_t>(tj.mimic)].name);
          EXPECT_NEAR(got.at(tj.name), tj.multiplier * master + tj.offset, 1e-12) << tj.name;
        }
      }
    }
  }
  std::cout << solved << " of 24 random-tree targets reached to 1e-9 m\n";
}

TEST(UrdfHandIk, BadRequestsAreClearErrors) {
  const Fixture fx = load("wrist_hand.urdf");
  const hand::HandModel& h = fx.hand;
  EXPECT_THROW(hand::linkEndpoint(h, "no_such_link"), std::invalid_argument);
  EXPECT_THROW(hand::linkEndpoint(h, "forearm"), std::invalid_argument);
  EXPECT_THROW(hand::fingerEndpoint(h, 99), std::invalid_argument);
  const auto q_now = handJoints(h, {});
  EXPECT_THROW(
      hand::solveHandIk(h, hand::fingerEndpoint(h, 0), Eigen::Vector3d(std::nan(""), 0, 0), q_now),
      std::invalid_argument);
  EXPECT_THROW(hand::solveHandIk(h, hand::fingerEndpoint(h, 0), Eigen::Vector3d::Zero(), {}),
               std::invalid_argument);
}

}  // namespace
}  // namespace handsim
