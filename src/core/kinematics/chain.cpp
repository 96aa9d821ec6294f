// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/kinematics/chain.hpp"

#include <cmath>

namespace handsim::kinematics {

Eigen::Isometry3d dhTransform(const DhRow& row, double q) {
  double theta = row.theta;
  double d = row.d;
  if (row.type == JointType::Revolute) theta += q;
  if (row.type == JointType::Prismatic) d += q;
  const double ct = std::cos(theta), st = std::sin(theta);
  const double ca = std::cos(row.alpha), sa = std::sin(row.alpha);
  Eigen::Isometry3d t;
  auto& m = t.matrix();
  m << ct, -st * ca, st * sa, row.a * ct,  //
      st, ct * ca, -ct * sa, row.a * st,   //
      0.0, sa, ca, d,                      //
      0.0, 0.0, 0.0, 1.0;
  return t;
}

int Chain::dof() const {
  int n = 0;
  for (const auto& r : rows) n += r.type != JointType::Fixed;
  return n;
}

int Chain::rowOfJoint(int j) const {
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    if (rows[r].type == JointType::Fixed) continue;
    if (j-- == 0) return r;
  }
  return -1;
}

int Chain::jointOfRow(int r) const {
  if (rows[r].type == JointType::Fixed) return -1;
  int j = 0;
  for (int i = 0; i < r; ++i) j += rows[i].type != JointType::Fixed;
  return j;
}

int Chain::jointIndex(const std::string& joint_name) const {
  for (int r = 0; r < static_cast<int>(rows.size()); ++r)
    if (joint_names[r] == joint_name) return jointOfRow(r);
  return -1;
}

}  // namespace handsim::kinematics
