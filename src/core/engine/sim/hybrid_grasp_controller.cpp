// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 002 (KTHand), sec. V.B-C: x = T q (eq. 1), u_q = T^T D e with e from one force row and
// three position rows (eq. 2), in a closing -> hybrid -> retraction state machine.
#include "handsim/sim/hybrid_grasp_controller.hpp"

#include <algorithm>
#include <stdexcept>

namespace handsim::sim {

HybridGraspController::HybridGraspController(const hand::HandModel& hand,
                                             HybridGraspOptions options)
    : hand_(hand), opt_(std::move(options)) {
  base_actuator_ = hand.actuatorIndex("thumb_base");
  const char* tendons[3] = {"T_index", "T_middle", "T_thumb"};
  const char* fingers[3] = {"index", "middle", "thumb"};
  for (int i = 0; i < 3; ++i) {
    tendon_[i] = hand.tendonIndex(tendons[i]);
    finger_[i] = hand.fingerIndex(fingers[i]);
    if (tendon_[i] < 0 || finger_[i] < 0)
      throw std::invalid_argument(std::string("the hybrid grasp controller needs tendon '") +
                                  tendons[i] + "' and finger '" + fingers[i] + "'");
  }
  if (base_actuator_ < 0)
    throw std::invalid_argument("the hybrid grasp controller needs actuator 'thumb_base'");
}

Eigen::Vector4d HybridGraspController::output(const Eigen::Matrix4d& transform,
                                              const Eigen::Vector4d& gains,
                                              const Eigen::Vector4d& error) {
  return transform.transpose() * gains.asDiagonal() * error;
}

Eigen::Vector4d HybridGraspController::measure(const SimState& s) {
  Eigen::Vector4d q;
  q[0] = s.actuator_position[static_cast<std::size_t>(base_actuator_)];
  for (int i = 0; i < 3; ++i) q[i + 1] = s.tendon_position[static_cast<std::size_t>(tendon_[i])];
  // Tactile sensing: normal forces on every phalanx, summed per finger.
  finger_forces_.setZero();
  for (const auto& c : s.contacts)
    for (int i = 0; i < 3; ++i)
      if (c.finger == finger_[i]) finger_forces_[i] += c.force;
  const Eigen::Vector4d f(0.0, finger_forces_[0], finger_forces_[1], finger_forces_[2]);
  total_force_ = (opt_.transform * f)[1];
  x_ = opt_.transform * q;
  return q;
}

void HybridGraspController::update(SimState& s, double dt) {
  measure(s);
  phase_time_ += dt;
  auto& base_cmd = s.actuator_command[static_cast<std::size_t>(base_actuator_)];
  auto tendon_cmd = [&](int i) -> double& {
    return s.tendon_command[static_cast<std::size_t>(tendon_[i])];
  };
  auto tendon_range = [&](int i) {
    const auto& t = hand_.tendons[static_cast<std::size_t>(tendon_[i])];
    return std::make_pair(t.lower, t.upper);
  };
  switch (phase_) {
    case GraspPhase::Closing: {
      // Position control closing each finger until it touches; all touching: hybrid.
      bool all = true;
      for (int i = 0; i < 3; ++i) {
        if (finger_forces_[i] > opt_.contact_threshold) continue;
        all = false;
        tendon_cmd(i) = std::min(tendon_cmd(i) + opt_.closing_speed * dt, tendon_range(i).second);
      }
      if (all) {
        // Bumpless transfer: position references start at the current x, the force
        // reference at the current total force.
        phase_ = GraspPhase::Hybrid;
        phase_time_ = 0.0;
        reference_ = x_;
        force_at_switch_ = total_force_;
        reference_[1] = total_force_;
      }
      break;
    }
    case GraspPhase::Hybrid: {
      const double ramp = opt_.ramp_time > 0.0 ? std::min(1.0, phase_time_ / opt_.ramp_time) : 1.0;
      reference_[1] = force_at_switch_ + ramp * (opt_.desired_force - force_at_switch_);
      Eigen::Vector4d e;
      e[0] = reference_[0] - x_[0];
      e[1] = reference_[1] - total_force_;
      e[2] = reference_[2] - x_[2];
      e[3] = reference_[3] - x_[3];
      const Eigen::Vector4d u = output(opt_.transform, opt_.gains, e);
      base_cmd += u[0] * dt;
      for (int i = 0; i < 3; ++i)
        tendon_cmd(i) = std::clamp(tendon_cmd(i) + u[i + 1] * dt, tendon_range(i).first,
                                   tendon_range(i).second);
      if (opt_.hold_time >= 0.0 && phase_time_ >= opt_.hold_time) {
        phase_ = GraspPhase::Retraction;
        phase_time_ = 0.0;
      }
      break;
    }
    case GraspPhase::Retraction: {
      bool open = true;
      for (int i = 0; i < 3; ++i) {
        tendon_cmd(i) = std::max(tendon_cmd(i) - opt_.retract_speed * dt, tendon_range(i).first);
        open = open && tendon_cmd(i) <= tendon_range(i).first;
      }
      if (open) phase_ = GraspPhase::Done;
      break;
    }
    case GraspPhase::Done:
      break;
  }
}

}  // namespace handsim::sim
