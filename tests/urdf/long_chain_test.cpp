// SPDX-License-Identifier: GPL-3.0-or-later
// Chains of any length (issue 24, item 1): random serial URDF chains of 1-40 movable joints
// (with fixed joints between them) loaded by our reader against Orocos KDL's chain solvers
// built from the same file (forward kinematics, the geometric Jacobian, the joint-space mass
// matrix and inverse dynamics), and an arm + wrist + hand tree with 13 joints per chain against
// a forward kinematics worked here from the file's numbers.
#include <gtest/gtest.h>

#include <kdl/chaindynparam.hpp>
#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/chainidsolver_recursive_newton_euler.hpp>
#include <kdl/chainjnttojacsolver.hpp>
#include <map>

#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "urdf_test_support.hpp"

namespace handsim {
namespace {

using urdftest::kPi;

/// One joint of a URDF written here, with the numbers an independent FK needs.
struct JointSpec {
  std::string name, parent, child, type;  // type: revolute, continuous, prismatic, fixed
  Eigen::Vector3d xyz = Eigen::Vector3d::Zero(), rpy = Eigen::Vector3d::Zero();
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
};

struct UrdfSpec {
  std::string text;
  std::vector<JointSpec> joints;
  std::vector<std::string> links;
};

/// URDF's fixed-axis roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll).
Eigen::Matrix3d rpyMatrix(const Eigen::Vector3d& rpy) {
  return (Eigen::AngleAxisd(rpy.z(), Eigen::Vector3d::UnitZ()) *
          Eigen::AngleAxisd(rpy.y(), Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy.x(), Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

/// Writes links (random ellipsoid inertias) and joints as URDF text.
std::string writeUrdf(const std::vector<std::string>& links, const std::vector<JointSpec>& joints,
                      std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), mass(0.05, 1.5), half(0.01, 0.08);
  std::ostringstream x;
  x.precision(17);
  x << "<?xml version=\"1.0\"?>\n<robot name=\"long\">\n";
  for (const std::string& l : links) {
    const double m = mass(rng), a = half(rng), b = half(rng), c = half(rng);
    x << "  <link name=\"" << l << "\"><inertial><origin xyz=\"" << 0.05 * u(rng) << " "
      << 0.05 * u(rng) << " " << 0.05 * u(rng) << "\" rpy=\"" << kPi * u(rng) << " "
      << kPi / 2 * u(rng) << " " << kPi * u(rng) << "\"/><mass value=\"" << m
      << "\"/><inertia ixx=\"" << m * (b * b + c * c) / 5 << "\" ixy=\"0\" ixz=\"0\" iyy=\""
      << m * (a * a + c * c) / 5 << "\" iyz=\"0\" izz=\"" << m * (a * a + b * b) / 5
      << "\"/></inertial></link>\n";
  }
  for (const JointSpec& j : joints) {
    x << "  <joint name=\"" << j.name << "\" type=\"" << j.type << "\"><parent link=\""
      << j.parent << "\"/><child link=\"" << j.child << "\"/><origin xyz=\"" << j.xyz.x() << " "
      << j.xyz.y() << " " << j.xyz.z() << "\" rpy=\"" << j.rpy.x() << " " << j.rpy.y() << " "
      << j.rpy.z() << "\"/>";
    if (j.type != "fixed")
      x << "<axis xyz=\"" << j.axis.x() << " " << j.axis.y() << " " << j.axis.z() << "\"/>";
    if (j.type == "revolute") x << "<limit lower=\"-3\" upper=\"3\" effort=\"50\" velocity=\"2\"/>";
    if (j.type == "prismatic")
      x << "<limit lower=\"-0.1\" upper=\"0.1\" effort=\"100\" velocity=\"1\"/>";
    x << "</joint>\n";
  }
  x << "</robot>\n";
  return x.str();
}

/// A random joint from `parent` to `child`: random origin and axis; `type` "" draws one of
/// revolute, continuous, prismatic.
JointSpec randomJoint(std::mt19937& rng, const std::string& name, const std::string& parent,
                      const std::string& child, std::string type, double reach) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_int_distribution<int> kind(0, 5);
  if (type.empty()) {
    const int k = kind(rng);
    type = k < 3 ? "revolute" : (k < 5 ? "continuous" : "prismatic");
  }
  JointSpec j;
  j.name = name;
  j.parent = parent;
  j.child = child;
  j.type = type;
  j.xyz = reach * Eigen::Vector3d(u(rng), u(rng), u(rng));
  j.rpy = Eigen::Vector3d(kPi * u(rng), kPi / 2 * u(rng), kPi * u(rng));
  j.axis = Eigen::Vector3d(u(rng), u(rng), u(rng));
  if (j.axis.norm() < 0.1) j.axis = Eigen::Vector3d::UnitX();
  return j;
}

/// A serial chain of `movable` joints (and a fixed joint now and then, never last).
UrdfSpec randomSerialChain(std::mt19937& rng, int movable) {
  UrdfSpec s;
  std::uniform_int_distribution<int> coin(0, 5);
  s.links.push_back("base");
  int placed = 0;
  while (placed < movable) {
    const bool fixed = placed > 0 && coin(rng) == 0;
    const std::string child = "l" + std::to_string(s.links.size());
    s.joints.push_back(randomJoint(rng, "j" + std::to_string(s.joints.size()), s.links.back(),
                                   child, fixed ? "fixed" : "", 0.08));
    s.links.push_back(child);
    if (!fixed) ++placed;
  }
  s.text = writeUrdf(s.links, s.joints, rng);
  return s;
}

/// Pose of every link in the root's frame, composed here from the URDF numbers: origin
/// (translation, then roll-pitch-yaw), then the joint's motion about or along its unit axis.
std::map<std::string, Eigen::Isometry3d> independentLinkPoses(
    const UrdfSpec& s, const std::map<std::string, double>& q) {
  std::map<std::string, Eigen::Isometry3d> pose;
  pose[s.links.front()] = Eigen::Isometry3d::Identity();
  for (const JointSpec& j : s.joints) {  // parents come before children in these files
    Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
    t.translation() = j.xyz;
    t.linear() = rpyMatrix(j.rpy);
    const Eigen::Vector3d axis = j.axis.normalized();
    Eigen::Isometry3d motion = Eigen::Isometry3d::Identity();
    if (j.type == "revolute" || j.type == "continuous")
      motion.linear() = Eigen::AngleAxisd(q.at(j.name), axis).toRotationMatrix();
    if (j.type == "prismatic") motion.translation() = q.at(j.name) * axis;
    pose[j.child] = pose.at(j.parent) * t * motion;
  }
  return pose;
}

hand::HandModel load(const std::string& text) {
  hand::UrdfOptions opt;
  opt.load_geometry = false;
  return hand::parseUrdfHand(text, "long.urdf", opt);
}

Eigen::Matrix4d toEigen(const KDL::Frame& f) {
  Eigen::Matrix4d m = Eigen::Matrix4d::Identity();
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) m(r, c) = f.M(r, c);
    m(r, 3) = f.p(r);
  }
  return m;
}

TEST(LongChains, RandomChainsOf1To40JointsMatchKdl) {
  std::mt19937 rng(2424);
  std::uniform_int_distribution<int> length(1, 40);
  std::vector<int> lengths = {1, 40, 13};
  while (lengths.size() < 24) lengths.push_back(length(rng));
  for (const int n : lengths) {
    SCOPED_TRACE("chain of " + std::to_string(n) + " movable joints");
    const UrdfSpec spec = randomSerialChain(rng, n);
    const hand::HandModel h = load(spec.text);
    ASSERT_EQ(h.fingers.size(), 1u);
    const kinematics::Chain& chain = h.fingers.front();
    ASSERT_EQ(chain.dof(), n);

    const KDL::Tree tree = urdftest::kdlTree(spec.text);
    KDL::Chain kchain;
    ASSERT_TRUE(tree.getChain(spec.links.front(), spec.links.back(), kchain));
    ASSERT_EQ(static_cast<int>(kchain.getNrOfJoints()), n);

    const Eigen::Vector3d g(0.4, -1.0, -9.81);
    KDL::ChainFkSolverPos_recursive fk(kchain);
    KDL::ChainJntToJacSolver jac_solver(kchain);
    KDL::ChainDynParam dyn(kchain, KDL::Vector(g.x(), g.y(), g.z()));
    KDL::ChainIdSolver_RNE id(kchain, KDL::Vector(g.x(), g.y(), g.z()));
    // The step's buffers, reused from chain to chain as a state's workspace would be.
    kinematics::ChainFrames frames;
    dynamics::DynamicsTerms terms;
    dynamics::LagrangeEulerScratch scratch;
    kinematics::Jacobian jac;

    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (int trial = 0; trial < 3; ++trial) {
      Eigen::VectorXd q(n), qd(n), qdd(n);
      for (int j = 0; j < n; ++j) {
        const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
        q[j] = 0.5 * (row.lower + row.upper) + 0.5 * (row.upper - row.lower) * u(rng);
        qd[j] = 1.5 * u(rng);
        qdd[j] = 4.0 * u(rng);
      }
      KDL::JntArray kq(static_cast<unsigned>(n)), kqd(kq), kqdd(kq);
      for (int j = 0; j < n; ++j) {
        kq(static_cast<unsigned>(j)) = q[j];
        kqd(static_cast<unsigned>(j)) = qd[j];
        kqdd(static_cast<unsigned>(j)) = qdd[j];
      }

      // Forward kinematics of the tip (the base {k0} placed in the root by chain.base).
      kinematics::forwardKinematics(chain, q, frames);
      ASSERT_EQ(frames.count, static_cast<int>(chain.rows.size()) + 1);
      KDL::Frame ktip;
      ASSERT_GE(fk.JntToCart(kq, ktip), 0);
      const Eigen::Isometry3d tip = chain.base * frames.tip();
      EXPECT_LT((tip.matrix() - toEigen(ktip)).cwiseAbs().maxCoeff(), 1e-10);

      // The geometric Jacobian of the tip's origin, in the root's axes.
      kinematics::geometricJacobian(chain, frames, -1, Eigen::Vector3d::Zero(), jac);
      KDL::Jacobian kjac(static_cast<unsigned>(n));
      ASSERT_GE(jac_solver.JntToJac(kq, kjac), 0);
      for (int j = 0; j < n; ++j) {
        const Eigen::Vector3d v = chain.base.linear() * jac.block<3, 1>(0, j);
        const Eigen::Vector3d w = chain.base.linear() * jac.block<3, 1>(3, j);
        for (int r = 0; r < 3; ++r) {
          EXPECT_NEAR(v[r], kjac(static_cast<unsigned>(r), static_cast<unsigned>(j)), 1e-10)
              << "column " << j;
          EXPECT_NEAR(w[r], kjac(static_cast<unsigned>(r + 3), static_cast<unsigned>(j)), 1e-10)
              << "column " << j;
        }
      }

      // The mass matrix and inverse dynamics (gravity given in the root, {k0} turned by base).
      const Eigen::Vector3d g_base = chain.base.linear().transpose() * g;
      dynamics::lagrangeEuler(chain, frames, qd, g_base, terms, scratch);
      KDL::JntSpaceInertiaMatrix kmass(static_cast<unsigned>(n));
      ASSERT_GE(dyn.JntToMass(kq, kmass), 0);
      const double scale = 1.0 + kmass.data.cwiseAbs().maxCoeff();
      EXPECT_LT((terms.D - kmass.data).cwiseAbs().maxCoeff(), 1e-9 * scale);
      KDL::JntArray ktau(static_cast<unsigned>(n));
      ASSERT_GE(id.CartToJnt(kq, kqd, kqdd, KDL::Wrenches(kchain.getNrOfSegments()), ktau), 0);
      const Eigen::VectorXd tau_le = terms.D * qdd + terms.H + terms.C;
      const Eigen::VectorXd tau_le2 = dynamics::inverseDynamicsLagrangeEuler(chain, q, qd, qdd, g_base);
      const Eigen::VectorXd tau_ne = dynamics::inverseDynamicsNewtonEuler(chain, q, qd, qdd, g_base);
      const double tscale = 1.0 + ktau.data.cwiseAbs().maxCoeff();
      EXPECT_LT((tau_le - ktau.data).cwiseAbs().maxCoeff(), 1e-9 * tscale);
      EXPECT_LT((tau_le2 - ktau.data).cwiseAbs().maxCoeff(), 1e-9 * tscale);
      EXPECT_LT((tau_ne - ktau.data).cwiseAbs().maxCoeff(), 1e-9 * tscale);
    }
  }
}

/// A 7-joint arm, a 2-joint wrist, then a palm with two fingers of 4 joints (and a fixed
/// fingertip link): two chains of 13 movable joints that share the first 9.
UrdfSpec armAndHand(std::mt19937& rng) {
  UrdfSpec s;
  s.links.push_back("world_base");
  std::string at = s.links.back();
  const auto add = [&](const std::string& name, const std::string& type, double reach) {
    const std::string child = name + "_link";
    s.joints.push_back(randomJoint(rng, name, at, child, type, reach));
    s.links.push_back(child);
    at = child;
  };
  for (int i = 1; i <= 7; ++i) add("arm" + std::to_string(i), "revolute", 0.3);
  add("wrist1", "revolute", 0.05);
  add("wrist2", "revolute", 0.05);
  add("palm", "fixed", 0.05);
  const std::string palm = at;
  for (const char* finger : {"index", "thumb"}) {
    at = palm;
    for (int i = 1; i <= 4; ++i) add(std::string(finger) + std::to_string(i), "revolute", 0.04);
    add(std::string(finger) + "_tip", "fixed", 0.02);
  }
  s.text = writeUrdf(s.links, s.joints, rng);
  return s;
}

TEST(LongChains, ArmWristAndFingersMatchAnIndependentForwardKinematics) {
  std::mt19937 rng(1313);
  for (int t = 0; t < 5; ++t) {
    const UrdfSpec spec = armAndHand(rng);
    const hand::HandModel h = load(spec.text);
    ASSERT_EQ(h.fingers.size(), 2u);
    for (const kinematics::Chain& c : h.fingers) EXPECT_EQ(c.dof(), 13) << c.name;
    std::uniform_real_distribution<double> u(-2.5, 2.5);
    for (int trial = 0; trial < 4; ++trial) {
      std::map<std::string, double> value;
      for (const JointSpec& j : spec.joints)
        if (j.type != "fixed") value[j.name] = u(rng);
      std::vector<kinematics::JointVector> q;
      for (const kinematics::Chain& c : h.fingers) {
        kinematics::JointVector v(c.dof());
        for (int j = 0; j < c.dof(); ++j)
          v[j] = value.at(c.joint_names[static_cast<std::size_t>(j)]);
        q.push_back(v);
      }
      const auto want = independentLinkPoses(spec, value);
      const auto got = h.linkPoses(q);
      ASSERT_EQ(got.size(), spec.links.size());
      for (const auto& [name, pose] : got)
        EXPECT_LT((pose.matrix() - want.at(name).matrix()).cwiseAbs().maxCoeff(), 1e-12)
            << "assembly " << t << " link " << name;
    }
  }
}

}  // namespace
}  // namespace handsim
