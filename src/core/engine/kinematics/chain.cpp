// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/kinematics/chain.hpp"

#include <cmath>
#include <stdexcept>

namespace handsim::kinematics {

DhRow placementRow(const Eigen::Isometry3d& placement, const Eigen::Vector3d& axis, JointType type,
                   double lower, double upper) {
  const double n = axis.norm();
  if (!(n > 0.0) || !std::isfinite(n) || !placement.matrix().allFinite())
    throw std::invalid_argument("placementRow: the axis must be non-zero and finite");
  DhRow row;
  row.form = JointFrameForm::Placement;
  row.placement = placement;
  row.axis = axis / n;
  row.type = type;
  row.lower = lower;
  row.upper = upper;
  return row;
}

Eigen::Isometry3d dhTransform(const DhRow& row, double q) {
  if (row.form == JointFrameForm::Placement) {
    if (row.type == JointType::Revolute)
      return row.placement * Eigen::Isometry3d(Eigen::AngleAxisd(q, row.axis));
    if (row.type == JointType::Prismatic)
      return row.placement * Eigen::Isometry3d(Eigen::Translation3d(q * row.axis));
    return row.placement;
  }
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

JointAxis jointAxisLocal(const DhRow& row) {
  if (row.form == JointFrameForm::Placement)
    return {row.placement.translation(), row.placement.linear() * row.axis};
  return {Eigen::Vector3d::Zero(), Eigen::Vector3d::UnitZ()};
}

JointAxis jointAxisInBase(const DhRow& row, const Eigen::Isometry3d& frame_before) {
  if (row.form == JointFrameForm::Placement)
    return {frame_before * row.placement.translation(),
            frame_before.linear() * (row.placement.linear() * row.axis)};
  return {frame_before.translation(), frame_before.linear().col(2)};
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
