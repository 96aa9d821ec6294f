// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Geometry>
#include <optional>
#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::hand {

/// What inverse kinematics does with the joints a branch shares with other branches (a
/// wrist before the fingers of a URDF hand: TreeJoint::copies has more than one entry).
enum class SharedJoints {
  Locked,  ///< shared joints keep their current values; only the branch's own joints move
  Free     ///< shared joints move too, and with them every other branch below them
};

/// The point of the hand that inverse kinematics places: a point rigid with frame
/// {row + 1} of fingers[finger].
struct IkEndpoint {
  std::string name;  ///< what it is, for messages ("finger 'index_distal'", "link 'x'")
  int finger = -1;
  int row = -1;
  Eigen::Isometry3d in_frame = Eigen::Isometry3d::Identity();  ///< the point's frame in {row+1}
};

/// The tip of finger `finger`: for hand files the origin of its last frame (as
/// kinematics::fingertipPosition); for URDF hands the frame of the last link, in file order,
/// rigid with that frame (a fingertip link fixed beyond the distal one, else the distal link).
/// Throws std::invalid_argument for a bad index.
IkEndpoint fingerEndpoint(const HandModel& hand, int finger);
/// Which point of a finger a fingertip API places or reports (issue 22, item 3), named
/// explicitly: one default everywhere (C++, handsim-cli, Python, the GUI), the other by name.
enum class FingerPoint {
  Tip,       ///< "tip": fingerEndpoint's point, the tip link where the file has one
  LastFrame  ///< "last_frame": the origin of the finger's last joint frame {kn}
};
/// "tip" or "last_frame".
const char* fingerPointName(FingerPoint point);
/// The point named "tip" or "last_frame"; throws std::invalid_argument naming `what` (e.g.
/// "--point") and the accepted names otherwise.
FingerPoint fingerPointFromName(const std::string& name, const std::string& what = "point");
/// Finger `finger`'s chain ending at `point`: for Tip with a tip link beyond the last joint
/// frame, the chain with one fixed placement row appended (same joints, so q, limits and
/// Jacobian columns are unchanged); otherwise the finger's chain. Its last frame is the point.
/// Throws std::invalid_argument for a bad index.
kinematics::Chain fingerPointChain(const HandModel& hand, int finger, FingerPoint point);
/// The point's position in the palm (URDF: root link) frame [m] for joint values q.
Eigen::Vector3d fingerPointPosition(const HandModel& hand, int finger,
                                    const Eigen::Ref<const Eigen::VectorXd>& q,
                                    FingerPoint point);

/// The frame of a link: a URDF link name, or "<finger>.link<k>" (frame {k}) for hand files.
/// Throws std::invalid_argument for an unknown link or one rigid with the palm / root link.
IkEndpoint linkEndpoint(const HandModel& hand, const std::string& link_name);

/// Settings of handInverseKinematics().
struct HandIkOptions {
  SharedJoints shared = SharedJoints::Locked;
  /// Target orientation of the endpoint frame in the palm (root link) frame, if wanted.
  std::optional<Eigen::Matrix3d> target_rotation_palm;
  double orientation_weight = 0.05;  ///< [m/rad], weight of the orientation error
  double accept = 1e-9;              ///< largest accepted position miss [m] (throwing form)
  double tolerance = 1e-13;          ///< stop when the task error norm is below this [m]
  int max_iterations = 300;
};

/// Result of solveHandIk().
struct HandIkResult {
  std::vector<kinematics::JointVector> q;  ///< joint values of the whole hand, per finger
  double position_error = 0.0;             ///< |p(q) - target| [m]
  double orientation_error = 0.0;          ///< [rad], 0 when no orientation was asked for
  /// The coordinates solved over: actuator indices, or -1 - j for an undriven joint j of the
  /// endpoint's finger.
  std::vector<int> coordinates;
  bool converged = false;
};

/// Inverse kinematics of one point of a hand (docs/kinematics.md, "Hand IK on trees"), in
/// the hand's actuated coordinates: every joint is q = ratio a + offset of the actuator that
/// drives it (HandModel::actuators, clutches engaged), so all copies of a shared URDF joint
/// take one value and a mimic joint follows its master. The coordinates are the actuators
/// (and undriven joints) that move the endpoint, minus, with SharedJoints::Locked, those that
/// drive a shared joint. Each coordinate stays in its range narrowed by the limits of every
/// joint it drives. Damped least squares (Levenberg-Marquardt; Wampler 1986) with the
/// Jacobian dp/da_k = sum_j r_kj J(:, j), from `q_now` and then from a grid of starts like
/// kinematics::nearestReachable. `target_palm` [m] in the palm (URDF: root link) frame;
/// `q_now` [finger][joint] the hand's current values: the joints of no coordinate keep them
/// exactly. Throws std::invalid_argument for wrong sizes or a non-finite target.
HandIkResult solveHandIk(const HandModel& hand, const IkEndpoint& endpoint,
                         const Eigen::Vector3d& target_palm,
                         const std::vector<kinematics::JointVector>& q_now,
                         const HandIkOptions& options = {});

/// solveHandIk() that throws kinematics::UnreachableTarget (the miss [m], and the endpoint
/// finger's joint values of the nearest point found) when the position miss exceeds
/// options.accept (or, with an orientation, when the orientation misses by more than 1e-6 rad).
std::vector<kinematics::JointVector> handInverseKinematics(
    const HandModel& hand, const IkEndpoint& endpoint, const Eigen::Vector3d& target_palm,
    const std::vector<kinematics::JointVector>& q_now, const HandIkOptions& options = {});

}  // namespace handsim::hand
