// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Geometry>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "handsim/grasp/grasp_quality.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"

namespace handsim::grasp {

/// A grasp sweep (seed 002 sec. VII-A): many initial hand poses around one object; for each,
/// whether the hand starts in collision, and the quality of the grasp it closes to.
/// File format: docs/grasp-sweep.md.
struct SweepSpec {
  std::string source_file;
  std::shared_ptr<const hand::HandModel> hand;
  sim::ObjectModel object;                    ///< in its own frame
  std::vector<Eigen::Isometry3d> palm_poses;  ///< palm frame in the object frame, per pose
  /// The closing scenario's plan (start, trajectories, controller, duration); each pose runs
  /// it with the palm at the world origin and the object placed by the pose's inverse, gravity
  /// as the closing scenario states it in that frame.
  sim::RunPlan closing;
  sim::Options options;         ///< the closing scenario's
  double friction = 0.5;        ///< Coulomb coefficient hand-object [-]
  GraspQualityOptions quality;  ///< cone edges, torque radius [m]; the torque
                                ///< reference is the object's bounding-box centre
  Eigen::Vector3d object_centre = Eigen::Vector3d::Zero();  ///< in the object frame [m]
};

/// Reads a sweep file; errors throw io::InputError with file, line, column and field.
SweepSpec loadSweepSpec(const std::string& path);

/// The outcome of one pose.
struct SweepResult {
  int index = -1;
  Eigen::Vector3d palm_position = Eigen::Vector3d::Zero();  ///< in the object frame [m]
  bool start_collision = false;  ///< hand and object intersect before closing
  int contacts = 0;              ///< contacts when closed
  GraspQuality quality;          ///< of the closed grasp (default when start_collision)
};

/// The model every pose of a sweep runs on (hand, its meshes, the object, the options):
/// compiled once, shared by all threads.
std::shared_ptr<const sim::Model> compileSweepModel(const SweepSpec& spec);

/// Evaluates pose `index` as one sim::Run on `model` (from compileSweepModel).
SweepResult evaluateSweepPose(const SweepSpec& spec, int index,
                              const std::shared_ptr<const sim::Model>& model);

/// Evaluates `indices` on `threads` threads (0: all cores). `done` (may be empty) is called
/// after each pose, from one thread at a time, with the result. Results come back in the order
/// of `indices`; each is independent of the thread that computed it.
std::vector<SweepResult> runSweep(const SweepSpec& spec, const std::vector<int>& indices,
                                  unsigned threads,
                                  const std::function<void(const SweepResult&)>& done = {});

/// Seed 002's Table I over a set of results.
struct SweepSummary {
  int configurations = 0;
  int collision_free = 0;
  int force_closure = 0;
  double epsilon_mean = 0.0;  ///< over force-closure grasps
  double epsilon_std = 0.0;   ///< sample standard deviation over force-closure grasps
};
SweepSummary summarize(const std::vector<SweepResult>& results);

/// CSV of results: header "index,x,y,z,start_collision,contacts,force_closure,epsilon,volume".
std::string sweepCsv(const std::vector<SweepResult>& results);
/// Parses rows written by sweepCsv (to resume a sweep); throws io::InputError naming the line.
std::vector<SweepResult> parseSweepCsv(const std::string& text, const std::string& file);

}  // namespace handsim::grasp
