// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/hand/hand_model.hpp"

#include <stdexcept>

#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::hand {

int HandModel::fingerIndex(const std::string& finger_name) const {
  for (std::size_t f = 0; f < fingers.size(); ++f)
    if (fingers[f].name == finger_name) return static_cast<int>(f);
  return -1;
}

int HandModel::actuatorIndex(const std::string& actuator_name) const {
  for (std::size_t a = 0; a < actuators.size(); ++a)
    if (actuators[a].name == actuator_name) return static_cast<int>(a);
  return -1;
}

JointRef HandModel::jointRef(const std::string& dotted_name) const {
  const auto dot = dotted_name.find('.');
  if (dot == std::string::npos) return {};
  const int f = fingerIndex(dotted_name.substr(0, dot));
  if (f < 0) return {};
  const int j = fingers[static_cast<std::size_t>(f)].jointIndex(dotted_name.substr(dot + 1));
  if (j < 0) return {};
  return {f, j};
}

std::string HandModel::jointName(JointRef j) const {
  const auto& chain = fingers[static_cast<std::size_t>(j.finger)];
  return chain.name + "." + chain.joint_names[static_cast<std::size_t>(chain.rowOfJoint(j.joint))];
}

std::pair<int, int> HandModel::driverOf(JointRef j) const {
  for (std::size_t a = 0; a < actuators.size(); ++a)
    for (std::size_t d = 0; d < actuators[a].drives.size(); ++d)
      if (actuators[a].drives[d].joint == j) return {static_cast<int>(a), static_cast<int>(d)};
  return {-1, -1};
}

int HandModel::tendonIndex(const std::string& tendon_name) const {
  for (std::size_t t = 0; t < tendons.size(); ++t)
    if (tendons[t].name == tendon_name) return static_cast<int>(t);
  return -1;
}

int HandModel::clutchOfActuator(int actuator) const {
  for (std::size_t c = 0; c < clutches.size(); ++c)
    if (clutches[c].actuator == actuator) return static_cast<int>(c);
  return -1;
}

int HandModel::totalDof() const {
  int n = 0;
  for (const auto& f : fingers) n += f.dof();
  return n;
}

const NamedPose* HandModel::pose(const std::string& pose_name) const {
  for (const auto& p : poses)
    if (p.name == pose_name) return &p;
  return nullptr;
}

int KinematicTree::linkIndex(const std::string& link_name) const {
  for (std::size_t i = 0; i < links.size(); ++i)
    if (links[i].name == link_name) return static_cast<int>(i);
  return -1;
}

int KinematicTree::jointIndex(const std::string& joint_name) const {
  for (std::size_t i = 0; i < joints.size(); ++i)
    if (joints[i].name == joint_name) return static_cast<int>(i);
  return -1;
}

JointRef HandModel::findJoint(const std::string& joint_name) const {
  const JointRef dotted = jointRef(joint_name);
  if (dotted.finger >= 0) return dotted;
  const int j = tree.jointIndex(joint_name);
  if (j >= 0 && !tree.joints[static_cast<std::size_t>(j)].copies.empty())
    return tree.joints[static_cast<std::size_t>(j)].copies.front();
  return {};
}

std::vector<std::pair<std::string, Eigen::Isometry3d>> HandModel::linkPoses(
    const std::vector<kinematics::JointVector>& q) const {
  if (q.size() != fingers.size())
    throw std::invalid_argument("linkPoses: expected joint values for " +
                                std::to_string(fingers.size()) + " fingers, got " +
                                std::to_string(q.size()));
  std::vector<kinematics::ChainFrames> frames;
  frames.reserve(fingers.size());
  for (std::size_t f = 0; f < fingers.size(); ++f)
    frames.push_back(kinematics::forwardKinematics(fingers[f], q[f]));
  std::vector<std::pair<std::string, Eigen::Isometry3d>> out;
  if (!tree.empty()) {
    for (const TreeLink& l : tree.links) {
      Eigen::Isometry3d frame = Eigen::Isometry3d::Identity();
      if (l.finger >= 0) {
        const auto f = static_cast<std::size_t>(l.finger);
        frame = fingers[f].base * frames[f].at(l.row + 1);
      }
      out.emplace_back(l.name, frame * l.in_frame);
    }
    return out;
  }
  out.emplace_back("palm", Eigen::Isometry3d::Identity());
  for (std::size_t f = 0; f < fingers.size(); ++f)
    for (std::size_t r = 0; r < fingers[f].rows.size(); ++r)
      out.emplace_back(fingers[f].name + ".link" + std::to_string(r + 1),
                       fingers[f].base * frames[f].at(static_cast<int>(r) + 1));
  return out;
}

}  // namespace handsim::hand
