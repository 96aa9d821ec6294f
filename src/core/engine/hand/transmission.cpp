// SPDX-License-Identifier: GPL-3.0-or-later
// Actuator -> joint transmission (seed 000 eq. 1-4) and the breakaway clutch (sec. II.D,
// eq. 9-10).
#include "handsim/hand/transmission.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace handsim::hand {

namespace {
constexpr double kRadToDeg = 180.0 / 3.14159265358979323846;

std::string formatValue(double v, const std::string& unit) {
  std::ostringstream s;
  if (unit == "rad") {
    s << v * kRadToDeg << " deg";
  } else {
    s << v << " " << unit;
  }
  return s.str();
}
}  // namespace

void effectiveDrives(const HandModel& hand, const std::vector<ClutchState>& clutches,
                     std::vector<std::vector<EffectiveDrive>>& out) {
  if (!clutches.empty() && clutches.size() != hand.clutches.size())
    throw std::invalid_argument("clutch states: expected " + std::to_string(hand.clutches.size()) +
                                ", got " + std::to_string(clutches.size()));
  out.resize(hand.fingers.size());
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    out[f].resize(static_cast<std::size_t>(hand.fingers[f].dof()));
    std::fill(out[f].begin(), out[f].end(), EffectiveDrive{});
  }
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    for (const auto& d : hand.actuators[a].drives) {
      auto& e =
          out[static_cast<std::size_t>(d.joint.finger)][static_cast<std::size_t>(d.joint.joint)];
      e.actuator = static_cast<int>(a);
      e.ratio = d.ratio;
      e.offset = d.offset;
    }
  }
  for (std::size_t c = 0; c < clutches.size(); ++c) {
    if (!clutches[c].broken) continue;
    const ClutchModel& cm = hand.clutches[c];
    auto& inner =
        out[static_cast<std::size_t>(cm.inner.finger)][static_cast<std::size_t>(cm.inner.joint)];
    auto& outer =
        out[static_cast<std::size_t>(cm.outer.finger)][static_cast<std::size_t>(cm.outer.joint)];
    const double ri = inner.ratio, ab = clutches[c].break_position;
    inner.offset += ri * ab;
    inner.ratio = 0.0;
    outer.ratio += ri;
    outer.offset -= ri * ab;
  }
}

void addActuatorInertia(const std::vector<EffectiveDrive>& finger_drives,
                        const kinematics::JointMatrix& d, Eigen::MatrixXd& m) {
  const auto n = static_cast<Eigen::Index>(finger_drives.size());
  for (Eigen::Index i = 0; i < n; ++i) {
    const EffectiveDrive& ei = finger_drives[static_cast<std::size_t>(i)];
    if (ei.ratio == 0.0) continue;
    for (Eigen::Index k = 0; k < n; ++k) {
      const EffectiveDrive& ek = finger_drives[static_cast<std::size_t>(k)];
      if (ek.ratio == 0.0) continue;
      m(ei.actuator, ek.actuator) += ei.ratio * d(i, k) * ek.ratio;
    }
  }
}

void narrowByJointLimits(double joint_lower, double joint_upper, double ratio, double offset,
                         double& lower, double& upper) {
  if (ratio == 0.0) return;
  double lo = (joint_lower - offset) / ratio, hi = (joint_upper - offset) / ratio;
  if (lo > hi) std::swap(lo, hi);
  lower = std::max(lower, lo);
  upper = std::min(upper, hi);
}

std::vector<std::vector<EffectiveDrive>> effectiveDrives(const HandModel& hand,
                                                         const std::vector<ClutchState>& clutches) {
  std::vector<std::vector<EffectiveDrive>> out;
  effectiveDrives(hand, clutches, out);
  return out;
}

std::vector<kinematics::JointVector> jointPositions(const HandModel& hand,
                                                    const std::vector<double>& actuator_positions,
                                                    const std::vector<ClutchState>& clutches) {
  if (actuator_positions.size() != hand.actuators.size())
    throw std::invalid_argument("actuator positions: expected " +
                                std::to_string(hand.actuators.size()) + " values, got " +
                                std::to_string(actuator_positions.size()));
  const auto drives = effectiveDrives(hand, clutches);
  std::vector<kinematics::JointVector> q(hand.fingers.size());
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    q[f].resize(hand.fingers[f].dof());
    for (std::size_t j = 0; j < drives[f].size(); ++j) {
      const auto& e = drives[f][j];
      q[f][static_cast<Eigen::Index>(j)] =
          e.ratio * actuator_positions[static_cast<std::size_t>(e.actuator)] + e.offset;
    }
  }
  return q;
}

std::vector<double> clampActuators(const HandModel& hand, std::vector<double> positions,
                                   std::vector<std::string>* messages) {
  for (std::size_t a = 0; a < hand.actuators.size() && a < positions.size(); ++a) {
    const Actuator& act = hand.actuators[a];
    const double v = positions[a];
    const double c = std::clamp(v, act.lower, act.upper);
    if (c != v && messages) {
      messages->push_back(act.name + ": " + formatValue(v, act.unit) + " is " +
                          (v < act.lower ? "below" : "above") + " the range [" +
                          formatValue(act.lower, act.unit) + ", " +
                          formatValue(act.upper, act.unit) + "]; clamped");
    }
    positions[a] = c;
  }
  return positions;
}

std::vector<std::string> jointLimitViolations(const HandModel& hand,
                                              const std::vector<kinematics::JointVector>& q) {
  std::vector<std::string> out;
  for (std::size_t f = 0; f < hand.fingers.size() && f < q.size(); ++f) {
    const auto& chain = hand.fingers[f];
    for (int j = 0; j < chain.dof() && j < q[f].size(); ++j) {
      const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
      const double v = q[f][j];
      const double tol = 1e-9;
      if (v >= row.lower - tol && v <= row.upper + tol) continue;
      const std::string unit = row.type == kinematics::JointType::Prismatic ? "m" : "rad";
      out.push_back(hand.jointName({static_cast<int>(f), j}) + ": " + formatValue(v, unit) +
                    " is outside the limits [" + formatValue(row.lower, unit) + ", " +
                    formatValue(row.upper, unit) + "]");
    }
  }
  return out;
}

ClutchEvent updateClutch(const HandModel& hand, const ClutchModel& clutch, ClutchState& state,
                         double actuator_position, double actuator_drive,
                         double inner_load_torque) {
  // The inner joint's ratio sign tells which actuator direction closes the finger.
  const auto [act, drive] = hand.driverOf(clutch.inner);
  // The clutch's closing direction flips it for fingers that close as the actuator falls.
  const double ri =
      clutch.closing_direction *
      hand.actuators[static_cast<std::size_t>(act)].drives[static_cast<std::size_t>(drive)].ratio;
  const double closing_rate = ri * actuator_drive;
  if (!state.broken) {
    if (closing_rate > 0.0 && inner_load_torque > clutch.tau_break) {
      state.broken = true;
      state.break_position = actuator_position;
      return ClutchEvent::BrokeAway;
    }
    return ClutchEvent::None;
  }
  if (closing_rate < 0.0 && ri * (actuator_position - state.break_position) <= 0.0) {
    state.broken = false;
    return ClutchEvent::Reengaged;
  }
  return ClutchEvent::None;
}

double torqueAboutJoint(const kinematics::Chain& chain, const kinematics::ChainFrames& frames,
                        int joint, const Eigen::Vector3d& point, const Eigen::Vector3d& force,
                        const Eigen::Vector3d& moment) {
  const int row = chain.rowOfJoint(joint);
  if (row < 0) throw std::invalid_argument("torqueAboutJoint: no such joint");
  const kinematics::JointAxis axis =
      kinematics::jointAxisInBase(chain.rows[static_cast<std::size_t>(row)], frames.at(row));
  const Eigen::Vector3d& z = axis.direction;
  return z.dot((point - axis.point).cross(force)) + z.dot(moment);
}

double innerLoadTorque(const HandModel& hand, const ClutchModel& clutch,
                       const kinematics::ChainFrames& frames, const Eigen::Vector3d& point,
                       const Eigen::Vector3d& force, const Eigen::Vector3d& moment) {
  const auto& chain = hand.fingers[static_cast<std::size_t>(clutch.inner.finger)];
  const auto [act, drive] = hand.driverOf(clutch.inner);
  const double ri =
      clutch.closing_direction *
      hand.actuators[static_cast<std::size_t>(act)].drives[static_cast<std::size_t>(drive)].ratio;
  // Closing moves the joint along sign(ri); a resisting torque points the other way.
  const double tau = torqueAboutJoint(chain, frames, clutch.inner.joint, point, force, moment);
  return ri > 0.0 ? -tau : tau;
}

}  // namespace handsim::hand
