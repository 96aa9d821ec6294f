// SPDX-License-Identifier: GPL-3.0-or-later
// What a hand file may leave unsaid about grasping, inferred from the hand's kinematics
// (docs/planner.md, "Hands that name no closing actuators"): the palm normal, the actuators
// that close the fingers and which way, and the direction the hand approaches an object. A
// URDF without a handsim sidecar names none of these, so without them the planner could not
// close such a hand.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <vector>

#include "handsim/hand/hand_model.hpp"

namespace handsim::planner {

struct GraspDefaults {
  /// Palm frame, unit: the side of the palm the fingers close towards. For a hand whose
  /// fingers close towards each other rather than towards one side (a gripper, a BarrettHand
  /// with its fingers straight) it is the fingers' mean direction.
  Eigen::Vector3d palm_normal = Eigen::Vector3d::UnitZ();
  /// The fingers' mean direction at the reference posture (base to tip), palm frame, unit.
  Eigen::Vector3d finger_direction = Eigen::Vector3d::UnitZ();
  /// True when the fingers close towards each other (no common side): then the closing
  /// actuators are those that bring the fingertips together.
  bool pinch = false;
  /// Actuators that close the fingers (indices into hand.actuators, ascending), and per
  /// entry the end of its range that closes: +1 the upper end, -1 the lower end.
  std::vector<int> closing_actuators;
  std::vector<int> closing_directions;
  /// The approach: along the palm normal, from the mean of the finger bases [m] (palm frame;
  /// a finger's base is where its first joint not driven by a wrist sits).
  Eigen::Vector3d approach_palm = Eigen::Vector3d::UnitZ();
  Eigen::Vector3d approach_origin_palm = Eigen::Vector3d::Zero();
};

/// Infers the grasp defaults of `hand` from its kinematics alone (its "grasp" key is ignored):
/// every actuator is moved alone from the reference posture (each actuator at 0 clamped into
/// its range) to each end of its range and the fingertips' displacements (palm frame) are
/// measured. An actuator that drives the same joint of every finger of a hand of three or
/// more whose fingers start at one point (a wrist copied into each chain) is left out. The
/// palm normal is the sum over the actuators of the displacements to both ends of the range
/// (a spread, symmetric about the reference, cancels; a flexion has the longer range on its
/// closing side), perpendicular to the finger direction; when these do not agree (the sum is
/// shorter than a fifth of the summed lengths of the tips' sideways displacements, as when
/// fingers close against each other) the hand is a pinch hand and the normal is the finger
/// direction. A closing actuator moves the tips
/// towards the palm normal (normal hands) or towards their common centroid (pinch hands) by
/// at least half of the tips' total displacement, towards the end that does so most; spreads,
/// which move the tips sideways, do not. Throws std::invalid_argument for a hand without
/// fingers.
GraspDefaults inferGraspDefaults(const hand::HandModel& hand);

/// True when the hand file names what closes the hand (closing actuators or tendons): then
/// the planner takes the file's grasp key as it is.
bool namesClosing(const hand::HandModel& hand);

/// The hand as the planner and the validator use it: `hand` itself when it names closing
/// actuators or tendons, else a copy with the inferred closing actuators, approach and
/// approach origin. A closing actuator that closes towards the lower end of its range is
/// mirrored in the copy (range and ratios negated, so its upper end closes, as the closing
/// runs expect): its positions in grasp records are the negated joint-side values.
hand::HandModel withGraspDefaults(const hand::HandModel& hand);
std::shared_ptr<const hand::HandModel> withGraspDefaults(
    std::shared_ptr<const hand::HandModel> hand);

/// Actuator positions of the planner's hand (withGraspDefaults: an actuator that closes towards
/// its lower end is mirrored there) as positions of `hand` itself: mirrored entries negated, the
/// rest as they are. For showing a planned grasp on the user's hand. Throws
/// std::invalid_argument when `planned` has not one entry per actuator.
std::vector<double> handActuatorPositions(const hand::HandModel& hand,
                                          const Eigen::VectorXd& planned);

/// What the planner closes and how it approaches, and where that comes from: the one account
/// that `handsim-cli hands --describe`, Python's `Hand.grasp_defaults` and the GUI's planner
/// panel show.
struct GraspSummary {
  enum class Source { File, Inferred, None };
  Source source = Source::None;  ///< the file's "grasp" key, inferGraspDefaults, or no fingers
  /// Closing actuators (indices into hand.actuators) and the end of each range that closes
  /// (+1 upper, -1 lower; a file's are upper).
  std::vector<int> closing_actuators, closing_directions;
  std::vector<int> closing_tendons;  ///< from the file only
  std::vector<int> not_closing;      ///< the other actuators (spreads, wrists, ...), ascending
  Eigen::Vector3d approach_palm = Eigen::Vector3d::UnitZ();
  Eigen::Vector3d approach_origin_palm = Eigen::Vector3d::Zero();
  GraspDefaults inferred;  ///< with Source::Inferred: the whole inference (normal, pinch, ...)
};

/// The grasp summary of `hand` (its file's key when it names closing actuators or tendons).
GraspSummary graspSummary(const hand::HandModel& hand);

/// "file", "inferred" or "none".
const char* sourceName(GraspSummary::Source source);

}  // namespace handsim::planner
