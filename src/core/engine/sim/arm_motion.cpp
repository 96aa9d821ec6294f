// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/arm_motion.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "handsim/kinematics/dh_row.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::sim {

bool ArmPlan::drives() const {
  return std::any_of(motion.begin(), motion.end(), [](const AxisMotion& m) { return !m.empty(); });
}

double ArmPlan::end() const {
  double e = 0.0;
  for (const AxisMotion& m : motion) e = std::max(e, m.end());
  return e;
}

ArmJointState armJointsAt(const ArmPlan& plan, int dof, double t) {
  ArmJointState s;
  s.q = Eigen::VectorXd::Zero(dof);
  s.qd = Eigen::VectorXd::Zero(dof);
  s.qdd = Eigen::VectorXd::Zero(dof);
  for (int j = 0; j < dof; ++j) {
    const auto uj = static_cast<std::size_t>(j);
    if (uj < plan.initial.size()) s.q[j] = plan.initial[uj];
    if (uj < plan.motion.size()) {
      s.q[j] += plan.motion[uj].position(t);
      s.qd[j] = plan.motion[uj].velocity(t);
      s.qdd[j] = plan.motion[uj].acceleration(t);
    }
  }
  return s;
}

Eigen::Isometry3d armPalmPose(const kinematics::Chain& arm,
                              const Eigen::Ref<const Eigen::VectorXd>& q) {
  return kinematics::forwardKinematics(arm, q).tip();
}

PalmKinematics armPalmKinematics(const kinematics::Chain& arm, const Eigen::Isometry3d& base_world,
                                 const Eigen::Ref<const Eigen::VectorXd>& q,
                                 const Eigen::Ref<const Eigen::VectorXd>& qd,
                                 const Eigen::Ref<const Eigen::VectorXd>& qdd) {
  using kinematics::JointType;
  kinematics::checkJointVectorSize(arm, qd.size(), "arm joint velocities");
  kinematics::checkJointVectorSize(arm, qdd.size(), "arm joint accelerations");
  const kinematics::ChainFrames frames = kinematics::forwardKinematics(arm, q);
  const Eigen::Vector3d p = frames.tip().translation();
  // Joint axes in the base frame, in order: point, direction, type, rate.
  struct Axis {
    Eigen::Vector3d a, z;
    bool revolute;
    double qd, qdd;
  };
  std::vector<Axis> axes;
  int j = 0;
  for (std::size_t r = 0; r < arm.rows.size(); ++r) {
    const kinematics::DhRow& row = arm.rows[r];
    if (row.type == JointType::Fixed) continue;
    const kinematics::JointAxis ax =
        kinematics::jointAxisInBase(row, frames.at(static_cast<int>(r)));
    axes.push_back({ax.point, ax.direction, row.type == JointType::Revolute, qd[j], qdd[j]});
    ++j;
  }
  // Velocity of a point x rigid with the body before joint k (joints 0..k-1 move it).
  const auto pointVelocity = [&axes](const Eigen::Vector3d& x, std::size_t k) {
    Eigen::Vector3d v = Eigen::Vector3d::Zero();
    for (std::size_t i = 0; i < k; ++i)
      v += axes[i].revolute ? Eigen::Vector3d(axes[i].qd * axes[i].z.cross(x - axes[i].a))
                            : Eigen::Vector3d(axes[i].qd * axes[i].z);
    return v;
  };
  const Eigen::Vector3d v_p = pointVelocity(p, axes.size());
  Eigen::Vector3d omega = Eigen::Vector3d::Zero();  // of the body before joint k
  Eigen::Vector3d lin_acc = Eigen::Vector3d::Zero(), ang_acc = Eigen::Vector3d::Zero();
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const Axis& ax = axes[k];
    const Eigen::Vector3d z_dot = omega.cross(ax.z);  // the axis turns with the body before it
    if (ax.revolute) {
      const Eigen::Vector3d r = p - ax.a;
      const Eigen::Vector3d r_dot = v_p - pointVelocity(ax.a, k);
      lin_acc += ax.qdd * ax.z.cross(r) + ax.qd * (z_dot.cross(r) + ax.z.cross(r_dot));
      ang_acc += ax.qdd * ax.z + ax.qd * z_dot;
      omega += ax.qd * ax.z;
    } else {
      lin_acc += ax.qdd * ax.z + ax.qd * z_dot;
    }
  }
  const Eigen::Matrix3d rw = base_world.linear();
  PalmKinematics k;
  k.pose_world = base_world * frames.tip();
  k.linear_velocity_world = rw * v_p;
  k.angular_velocity_world = rw * omega;
  k.linear_acceleration_world = rw * lin_acc;
  k.angular_acceleration_world = rw * ang_acc;
  return k;
}

void checkArmPlan(const hand::ArmModel& arm, const ArmPlan& plan) {
  const auto dof = static_cast<std::size_t>(arm.dof());
  if (!plan.initial.empty() && plan.initial.size() != dof)
    throw std::invalid_argument("run plan: arm initial positions: expected " + std::to_string(dof) +
                                " entries, got " + std::to_string(plan.initial.size()));
  if (!plan.motion.empty() && plan.motion.size() != dof)
    throw std::invalid_argument("run plan: arm motions: expected " + std::to_string(dof) +
                                " entries, got " + std::to_string(plan.motion.size()));
  for (double v : plan.initial)
    if (!std::isfinite(v)) throw std::invalid_argument("run plan: arm initial position not finite");
  for (std::size_t j = 0; j < plan.motion.size(); ++j)
    for (const Sinusoid& s : plan.motion[j].sinusoids)
      if (!std::isfinite(s.amplitude) || !(s.frequency_hz > 0.0) ||
          !std::isfinite(s.frequency_hz) || !(s.cycles > 0.0) || !std::isfinite(s.cycles) ||
          !std::isfinite(s.start))
        throw std::invalid_argument(
            "run plan: arm joint '" +
            arm.chain
                .joint_names[static_cast<std::size_t>(arm.chain.rowOfJoint(static_cast<int>(j)))] +
            "': a sinusoid needs finite values, frequency and cycles > 0");
}

}  // namespace handsim::sim
