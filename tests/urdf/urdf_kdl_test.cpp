// SPDX-License-Identifier: GPL-3.0-or-later
// Random URDF trees loaded by our reader (tree -> root-to-leaf chains, shared wrist copied,
// mimic joints coupled) against Orocos KDL's tree solvers built from the same file: forward
// kinematics of every link and inverse dynamics (gravity + inertial) to 1e-10.
#include <gtest/gtest.h>

#include <kdl/treefksolverpos_recursive.hpp>
#include <kdl/treeidsolver_recursive_newton_euler.hpp>
#include <map>

#include "handsim/formats/urdf_reader.hpp"
#include "handsim/hand/transmission.hpp"
#include "urdf_test_support.hpp"

namespace handsim {
namespace {

struct Loaded {
  urdftest::RandomTree tree;
  hand::HandModel hand;
  KDL::Tree kdl;
};

Loaded loadRandom(std::mt19937& rng, bool mimic) {
  Loaded out;
  do {
    out.tree = urdftest::randomTreeUrdf(rng, mimic);
  } while (out.tree.movable < 10 || out.tree.movable > 25);
  hand::UrdfOptions opt;
  opt.load_geometry = false;
  out.hand = hand::parseUrdfHand(out.tree.urdf, "random.urdf", opt);
  out.kdl = urdftest::kdlTree(out.tree.urdf);
  return out;
}

/// Random actuator positions within the ranges, and rates.
std::vector<double> randomActuators(const hand::HandModel& h, std::mt19937& rng) {
  std::vector<double> a;
  for (const auto& act : h.actuators) {
    std::uniform_real_distribution<double> u(act.lower, act.upper);
    a.push_back(u(rng));
  }
  return a;
}

std::vector<double> randomRates(const hand::HandModel& h, std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> v;
  for (std::size_t i = 0; i < h.actuators.size(); ++i) v.push_back(u(rng));
  return v;
}

/// KDL joint arrays from per-tree-joint values (by name).
KDL::JntArray kdlJoints(const KDL::Tree& tree, const std::map<std::string, double>& value) {
  KDL::JntArray q(tree.getNrOfJoints());
  for (const auto& [name, element] : tree.getSegments()) {
    const KDL::Joint& j = element.segment.getJoint();
    if (j.getType() == KDL::Joint::Fixed) continue;
    q(element.q_nr) = value.at(j.getName());
  }
  return q;
}

/// Value of every movable tree joint from the chains (its first copy), given chain values.
std::map<std::string, double> treeValues(const hand::HandModel& h,
                                         const std::vector<kinematics::JointVector>& q) {
  std::map<std::string, double> out;
  for (const auto& tj : h.tree.joints) {
    if (tj.copies.empty()) continue;
    out[tj.name] = q[static_cast<std::size_t>(tj.copies.front().finger)][tj.copies.front().joint];
    // Every copy holds the same value.
    for (const auto& c : tj.copies)
      EXPECT_EQ(q[static_cast<std::size_t>(c.finger)][c.joint], out[tj.name]) << tj.name;
  }
  return out;
}

TEST(UrdfKdl, ForwardKinematicsOfEveryLinkMatchesKdl) {
  std::mt19937 rng(101);
  for (int t = 0; t < 30; ++t) {
    const Loaded l = loadRandom(rng, t % 2 == 1);
    EXPECT_EQ(l.hand.tree.joints.size(), l.kdl.getNrOfSegments());
    KDL::TreeFkSolverPos_recursive fk(l.kdl);
    for (int trial = 0; trial < 5; ++trial) {
      const auto a = randomActuators(l.hand, rng);
      const auto q = hand::jointPositions(l.hand, a);
      const KDL::JntArray qk = kdlJoints(l.kdl, treeValues(l.hand, q));
      const auto poses = l.hand.linkPoses(q);
      ASSERT_EQ(poses.size(), l.hand.tree.links.size());
      for (const auto& [name, pose] : poses) {
        KDL::Frame f;
        ASSERT_GE(fk.JntToCart(qk, f, name), 0) << name;
        Eigen::Matrix4d want = Eigen::Matrix4d::Identity();
        for (int r = 0; r < 3; ++r) {
          for (int c = 0; c < 3; ++c) want(r, c) = f.M(r, c);
          want(r, 3) = f.p(r);
        }
        EXPECT_LT((pose.matrix() - want).cwiseAbs().maxCoeff(), 1e-10) << "tree " << t << " " << name;
      }
    }
  }
}

TEST(UrdfKdl, ActuatorSpaceInverseDynamicsMatchesKdlTreeRne) {
  std::mt19937 rng(202);
  for (int t = 0; t < 30; ++t) {
    const Loaded l = loadRandom(rng, t % 2 == 1);
    const Eigen::Vector3d g(0.3, -2.0, -9.81 + 0.1 * t);
    KDL::TreeIdSolver_RNE id(l.kdl, KDL::Vector(g.x(), g.y(), g.z()));
    for (int trial = 0; trial < 5; ++trial) {
      const auto a = randomActuators(l.hand, rng);
      const auto ad = randomRates(l.hand, rng, 2.0);
      const auto add = randomRates(l.hand, rng, 5.0);
      const Eigen::VectorXd ours = urdftest::actuatorInverseDynamics(l.hand, a, ad, add, g);

      // KDL: joint torques of the tree at q, qd = R ad, qdd = R add; the actuator's torque is
      // R^T tau (a mimic joint's torque reaches its master's actuator times the multiplier).
      const auto q = hand::jointPositions(l.hand, a);
      std::map<std::string, double> vq = treeValues(l.hand, q), vd, vdd, ratio;
      std::map<std::string, int> actuator;
      for (std::size_t ai = 0; ai < l.hand.actuators.size(); ++ai)
        for (const auto& d : l.hand.actuators[ai].drives) {
          const std::string name = l.hand.fingers[static_cast<std::size_t>(d.joint.finger)]
                                       .joint_names[static_cast<std::size_t>(d.joint.joint)];
          vd[name] = d.ratio * ad[ai];
          vdd[name] = d.ratio * add[ai];
          ratio[name] = d.ratio;
          actuator[name] = static_cast<int>(ai);
        }
      KDL::JntArray tau(l.kdl.getNrOfJoints());
      ASSERT_GE(id.CartToJnt(kdlJoints(l.kdl, vq), kdlJoints(l.kdl, vd), kdlJoints(l.kdl, vdd),
                             KDL::WrenchMap(), tau),
                0);
      Eigen::VectorXd want = Eigen::VectorXd::Zero(ours.size());
      for (const auto& [name, element] : l.kdl.getSegments()) {
        const KDL::Joint& j = element.segment.getJoint();
        if (j.getType() == KDL::Joint::Fixed) continue;
        want[actuator.at(j.getName())] += ratio.at(j.getName()) * tau(element.q_nr);
      }
      for (Eigen::Index i = 0; i < want.size(); ++i)
        EXPECT_NEAR(ours[i], want[i], 1e-10 * std::max(1.0, std::abs(want[i])))
            << "tree " << t << " actuator " << l.hand.actuators[static_cast<std::size_t>(i)].name;
    }
  }
}

TEST(UrdfKdl, SharedWristIsCopiedIntoEveryChainWithItsMassOnce) {
  std::mt19937 rng(303);
  const Loaded l = loadRandom(rng, false);
  const auto& wrist = l.hand.tree.joints.front();  // j0, the first wrist joint
  EXPECT_EQ(wrist.copies.size(), l.hand.fingers.size());
  int with_mass = 0;
  for (const auto& c : wrist.copies)
    with_mass += l.hand.fingers[static_cast<std::size_t>(c.finger)]
                     .links[static_cast<std::size_t>(c.joint)]
                     .mass > 0.0;
  EXPECT_EQ(with_mass, 1);
  // One actuator drives every copy.
  const int a = l.hand.actuatorIndex(wrist.name);
  ASSERT_GE(a, 0);
  EXPECT_EQ(l.hand.actuators[static_cast<std::size_t>(a)].drives.size(), wrist.copies.size());
}

}  // namespace
}  // namespace handsim
