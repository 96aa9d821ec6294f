// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the URDF tests: random hand-like trees written as URDF text, the same file turned
// into an Orocos KDL tree (the peer) straight from liburdfdom's model, and actuator-space
// inverse dynamics from our per-chain Lagrange-Euler terms.
#pragma once

#include <Eigen/Geometry>
#include <kdl/tree.hpp>
#include <random>
#include <sstream>
#include <string>
#include <urdf_parser/urdf_parser.h>
#include <vector>

#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/hand/transmission.hpp"

namespace handsim::urdftest {

inline constexpr double kPi = 3.14159265358979323846;

/// A random tree: a wrist of 1-2 movable joints (and a fixed one) under the root, then 3-5
/// branches of 2-4 joints (revolute, continuous, prismatic, fixed; random origins and axes),
/// some with a sub-branch; some revolute joints mimic an earlier one. 10-25 movable joints,
/// 3-8 per root-to-leaf chain (long_chain_test.cpp has longer chains).
struct RandomTree {
  std::string urdf;
  int movable = 0;
};

inline RandomTree randomTreeUrdf(std::mt19937& rng, bool with_mimic) {
  std::uniform_real_distribution<double> u(-1.0, 1.0), mass(0.01, 0.3), half(0.005, 0.04);
  std::uniform_int_distribution<int> kind(0, 9);
  std::ostringstream x;
  x.precision(17);
  x << "<?xml version=\"1.0\"?>\n<robot name=\"random\">\n";
  int links = 0, joints = 0;
  RandomTree out;
  std::vector<std::string> revolute_names;
  const auto link = [&](const std::string& name) {
    // Solid ellipsoid about its centre, in a rotated inertial frame.
    const double m = mass(rng), a = half(rng), b = half(rng), c = half(rng);
    x << "  <link name=\"" << name << "\"><inertial><origin xyz=\"" << 0.03 * u(rng) << " "
      << 0.03 * u(rng) << " " << 0.03 * u(rng) << "\" rpy=\"" << kPi * u(rng) << " "
      << kPi / 2 * u(rng) << " " << kPi * u(rng) << "\"/><mass value=\"" << m
      << "\"/><inertia ixx=\"" << m * (b * b + c * c) / 5 << "\" ixy=\"0\" ixz=\"0\" iyy=\""
      << m * (a * a + c * c) / 5 << "\" iyz=\"0\" izz=\"" << m * (a * a + b * b) / 5
      << "\"/></inertial></link>\n";
  };
  const auto joint = [&](const std::string& parent, const std::string& child, int type_hint) {
    const std::string name = "j" + std::to_string(joints++);
    std::string type = "revolute";
    const int k = type_hint >= 0 ? type_hint : kind(rng);
    if (k >= 6) type = "continuous";
    if (k == 8) type = "prismatic";
    if (k == 9) type = "fixed";
    x << "  <joint name=\"" << name << "\" type=\"" << type << "\"><parent link=\"" << parent
      << "\"/><child link=\"" << child << "\"/><origin xyz=\"" << 0.04 * u(rng) << " "
      << 0.04 * u(rng) << " " << 0.04 * u(rng) << "\" rpy=\"" << kPi * u(rng) << " "
      << kPi / 2 * u(rng) << " " << kPi * u(rng) << "\"/>";
    if (type != "fixed") {
      x << "<axis xyz=\"" << u(rng) << " " << u(rng) << " " << u(rng) << "\"/>";
      ++out.movable;
    }
    if (type == "revolute") x << "<limit lower=\"-3\" upper=\"3\" effort=\"2\" velocity=\"1\"/>";
    if (type == "prismatic")
      x << "<limit lower=\"-0.05\" upper=\"0.05\" effort=\"20\" velocity=\"1\"/>";
    if (type == "revolute" && with_mimic && !revolute_names.empty() && kind(rng) < 3) {
      std::uniform_int_distribution<std::size_t> pick(0, revolute_names.size() - 1);
      x << "<mimic joint=\"" << revolute_names[pick(rng)] << "\" multiplier=\"" << 0.5 * u(rng)
        << "\" offset=\"" << 0.1 * u(rng) << "\"/>";
    } else if (type == "revolute") {
      revolute_names.push_back(name);
    }
    x << "</joint>\n";
  };
  const auto newLink = [&]() {
    const std::string name = "l" + std::to_string(links++);
    link(name);
    return name;
  };
  const std::string root = newLink();
  std::string wrist = root;
  std::uniform_int_distribution<int> nwrist(1, 2), nbranch(3, 5), nlen(2, 4), coin(0, 2);
  for (int i = nwrist(rng); i > 0; --i) {
    const std::string l = newLink();
    joint(wrist, l, 0);
    wrist = l;
  }
  {  // a fixed joint in the wrist: its link is merged into the wrist body
    const std::string l = newLink();
    joint(wrist, l, 9);
    wrist = l;
  }
  for (int b = nbranch(rng); b > 0; --b) {
    std::string at = wrist;
    const int len = nlen(rng);
    for (int i = 0; i < len; ++i) {
      const std::string l = newLink();
      joint(at, l, -1);
      at = l;
      if (i == 0 && coin(rng) == 0) {  // sub-branch from the first link of the branch
        std::string sub = at;
        for (int k = 0; k < 2; ++k) {
          const std::string s = newLink();
          joint(sub, s, -1);
          sub = s;
        }
      }
    }
  }
  x << "</robot>\n";
  out.urdf = x.str();
  return out;
}

inline KDL::Frame toKdl(const urdf::Pose& p) {
  return KDL::Frame(
      KDL::Rotation::Quaternion(p.rotation.x, p.rotation.y, p.rotation.z, p.rotation.w),
      KDL::Vector(p.position.x, p.position.y, p.position.z));
}

/// KDL's rigid-body inertia of a URDF link: KDL wants the rotational inertia about the centre
/// of mass in the segment (= link) axes, URDF gives it in the inertial frame's axes.
inline KDL::RigidBodyInertia toKdlInertia(const urdf::Link& link) {
  if (!link.inertial) return KDL::RigidBodyInertia::Zero();
  const urdf::Inertial& in = *link.inertial;
  const Eigen::Matrix3d r = Eigen::Quaterniond(in.origin.rotation.w, in.origin.rotation.x,
                                               in.origin.rotation.y, in.origin.rotation.z)
                                .normalized()
                                .toRotationMatrix();
  Eigen::Matrix3d ic;
  ic << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
  const Eigen::Matrix3d il = r * ic * r.transpose();
  return KDL::RigidBodyInertia(
      in.mass, KDL::Vector(in.origin.position.x, in.origin.position.y, in.origin.position.z),
      KDL::RotationalInertia(il(0, 0), il(1, 1), il(2, 2), il(0, 1), il(0, 2), il(1, 2)));
}

inline void addChildren(KDL::Tree& tree, const urdf::LinkConstSharedPtr& link) {
  for (const auto& child : link->child_links) {
    const urdf::Joint& j = *child->parent_joint;
    const KDL::Frame origin = toKdl(j.parent_to_joint_origin_transform);
    KDL::Joint kj(j.name, KDL::Joint::Fixed);
    const KDL::Vector axis = origin.M * KDL::Vector(j.axis.x, j.axis.y, j.axis.z);
    if (j.type == urdf::Joint::REVOLUTE || j.type == urdf::Joint::CONTINUOUS)
      kj = KDL::Joint(j.name, origin.p, axis / axis.Norm(), KDL::Joint::RotAxis);
    if (j.type == urdf::Joint::PRISMATIC)
      kj = KDL::Joint(j.name, origin.p, axis / axis.Norm(), KDL::Joint::TransAxis);
    tree.addSegment(KDL::Segment(child->name, kj, origin, toKdlInertia(*child)), link->name);
    addChildren(tree, child);
  }
}

/// The KDL tree of a URDF text (the root link is the tree's root segment).
inline KDL::Tree kdlTree(const std::string& urdf_text) {
  const urdf::ModelInterfaceSharedPtr model = urdf::parseURDF(urdf_text);
  KDL::Tree tree(model->getRoot()->name);
  addChildren(tree, model->getRoot());
  return tree;
}

/// tau_a = sum over the chains of R^T (D qdd + H + C): the actuator-space inverse dynamics the
/// engine's step is written in (sim/step.cpp), qd = R ad, qdd = R add (no clutches).
inline Eigen::VectorXd actuatorInverseDynamics(const hand::HandModel& hand,
                                               const std::vector<double>& a,
                                               const std::vector<double>& ad,
                                               const std::vector<double>& add,
                                               const Eigen::Vector3d& gravity) {
  const auto drives = hand::effectiveDrives(hand, {});
  Eigen::VectorXd tau = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(hand.actuators.size()));
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const auto& chain = hand.fingers[f];
    const int n = chain.dof();
    Eigen::VectorXd q(n), qd(n), qdd(n);
    for (int j = 0; j < n; ++j) {
      const auto& e = drives[f][static_cast<std::size_t>(j)];
      const auto ai = static_cast<std::size_t>(e.actuator);
      q[j] = e.ratio * a[ai] + e.offset;
      qd[j] = e.ratio * ad[ai];
      qdd[j] = e.ratio * add[ai];
    }
    const dynamics::DynamicsTerms t = dynamics::lagrangeEuler(chain, q, qd, gravity);
    const Eigen::VectorXd joint_tau = t.D * qdd + t.H + t.C;
    for (int j = 0; j < n; ++j) {
      const auto& e = drives[f][static_cast<std::size_t>(j)];
      tau[e.actuator] += e.ratio * joint_tau[j];
    }
  }
  return tau;
}

}  // namespace handsim::urdftest
