// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/hand/hand_model.hpp"

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

}  // namespace handsim::hand
