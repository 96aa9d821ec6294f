// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Geometry>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "handsim/grasp/grasp_quality.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/tools/run_grid.hpp"

namespace handsim::grasp {

/// The dynamic test after closing (docs/grasp-sweep.md, "Hold test"): the object is set free,
/// the palm stays still for `release` (the object seats itself in the grasp), then lifts it
/// against gravity, shakes it sideways and lets it settle; the grasp holds when the object's
/// centre of mass ends within `tolerance` of where it was, in the palm frame, after the
/// release.
struct HoldTestSpec {
  double release = 0.5;             ///< palm at rest after the object is set free [s] (>= 0)
  double lift = 0.10;               ///< lift against gravity [m] (>= 0)
  double lift_speed = 0.1;          ///< cruise speed of the lift [m/s] (> 0)
  double lift_acceleration = 0.5;   ///< acceleration of the lift [m/s^2] (> 0)
  double shake_amplitude = 0.01;    ///< A of the shake A (sin wt - sin 2wt / 2) [m] (>= 0)
  double shake_frequency_hz = 2.0;  ///< w / 2 pi [Hz] (> 0)
  int shake_cycles = 4;             ///< whole periods (>= 0; 0: no shake)
  double settle = 0.5;              ///< time at rest after the shake [s] (>= 0)
  double tolerance = 0.01;          ///< largest displacement of a held object [m] (> 0)
  /// Gravity in the object frame [m/s^2] (non-zero): object z up by default.
  Eigen::Vector3d gravity_object = Eigen::Vector3d(0.0, 0.0, -9.81);
  /// Shake direction in the palm frame (made unit and perpendicular to gravity); zero: the
  /// palm's sideways direction, gravity x palm z (palm x if gravity is along palm z).
  Eigen::Vector3d shake_direction_palm = Eigen::Vector3d::Zero();
  /// The free object's mass [kg]; 0: from `density`.
  double mass_kg = 0.0;
  double density = sim::ObjectModel::kDefaultDensity;  ///< [kg/m^3] (> 0)
};

/// Throws std::invalid_argument naming the first bad field of a hold test.
void validateHoldTest(const HoldTestSpec& hold);

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
  /// The dynamic test after each closing (the file's "hold_test" block); none: not run.
  std::optional<HoldTestSpec> hold_test;
  /// FNV-1a hash of the sweep file's and its closing scenario's text (part of sweepSpecHash).
  std::uint64_t source_hash = 0;
};

/// 16 hexadecimal digits identifying what a sweep computes: the texts of its file and closing
/// scenario, the poses, friction, quality options and the hold test (as the CLI's
/// --hold-test / --no-hold-test leave it). Every row of a results file carries it (column
/// "spec"), so a resumed sweep keeps only rows that are its own.
std::string sweepSpecHash(const SweepSpec& spec);

/// Most poses a sweep may have (a grid's counted before its positions are made).
inline constexpr std::size_t kMaxSweepPoses = 1000000;

/// Reads a sweep file; errors throw io::InputError with file, line, column and field.
SweepSpec loadSweepSpec(const std::string& path);
/// The same from the file's text; `path` names it in messages and anchors relative paths.
SweepSpec parseSweepSpec(const std::string& text, const std::string& path);

/// The outcome of one pose.
struct SweepResult {
  int index = -1;
  Eigen::Vector3d palm_position = Eigen::Vector3d::Zero();  ///< in the object frame [m]
  bool start_collision = false;  ///< hand and object intersect before closing
  int contacts = 0;              ///< contacts when closed
  GraspQuality quality;          ///< of the closed grasp (default when start_collision)
  /// The hold test's outcome (none when the spec has no hold test or the start collides).
  struct Hold {
    bool held = false;  ///< slip <= tolerance and the engine's guards did not stop the object
    double slip = 0.0;  ///< displacement of the centre of mass in the palm frame from the
                        ///< end of the release to the end of the test [m]
    double seat = 0.0;  ///< displacement during the release [m] (how far the freed object
                        ///< moved to settle in the grasp)
  };
  std::optional<Hold> hold;
  /// sweepSpecHash of the sweep the row belongs to (the CSV's "spec" column; empty in files
  /// written before it existed, and for results not yet written).
  std::string spec_hash;
};

/// The models every pose of a sweep runs on (hand, its meshes, the object, the options),
/// compiled once and shared by all threads: `closing` with the object fixed; `hold` (only with
/// a hold test) the same hand and object, free, with the hold test's mass, the sweep's
/// friction and gravity turned into the palm frame.
struct SweepModels {
  std::shared_ptr<const sim::Model> closing;
  std::shared_ptr<const sim::Model> hold;
};
/// Throws std::invalid_argument for a bad hold test, an open object mesh with a hold test, or
/// poses whose orientations differ (the hold model's gravity is in the palm frame).
SweepModels compileSweepModels(const SweepSpec& spec);

/// Evaluates pose `index` as one sim::Run on `models` (from compileSweepModels).
SweepResult evaluateSweepPose(const SweepSpec& spec, int index, const SweepModels& models);

/// Evaluates `indices` on `threads` threads (0: all cores) with sim::runGrid. `done` (may be empty)
/// is called after each pose, from one thread at a time, with the result. Results come back in the
/// order of `indices`; each is independent of the thread that computed it.
std::vector<SweepResult> runSweep(const SweepSpec& spec, const std::vector<int>& indices,
                                  unsigned threads,
                                  const std::function<void(const SweepResult&)>& done = {});
/// The same on the grid engine's progress (tools/run_grid.hpp): `done` gets each result with the
/// cells done so far, their outcomes (a start collision is a refused cell) and the time left.
using SweepProgress = std::function<void(const SweepResult&, const sim::GridProgress&)>;
std::vector<SweepResult> runSweep(const SweepSpec& spec, const std::vector<int>& indices,
                                  unsigned threads, const SweepProgress& done);

/// Seed 002's Table I over a set of results.
struct SweepSummary {
  int configurations = 0;
  int collision_free = 0;
  int force_closure = 0;
  double epsilon_mean = 0.0;  ///< over force-closure grasps
  double epsilon_std = 0.0;   ///< sample standard deviation over force-closure grasps
  // Hold test (results that have one).
  int hold_tested = 0;                ///< poses with a hold result
  int held = 0;                       ///< of those, held
  int force_closure_tested = 0;       ///< force-closure grasps with a hold result
  int held_force_closure = 0;         ///< of those, held
  double epsilon_held_mean = 0.0;     ///< over force-closure grasps that held
  double epsilon_held_std = 0.0;      ///< (sample)
  double epsilon_dropped_mean = 0.0;  ///< over force-closure grasps that did not hold
  double epsilon_dropped_std = 0.0;   ///< (sample)
};
SweepSummary summarize(const std::vector<SweepResult>& results);

/// CSV of results: header
/// "index,x,y,z,start_collision,contacts,force_closure,epsilon,volume,held,slip_m,seat_m,spec"
/// (held, slip_m and seat_m empty without a hold result; spec: the row's spec_hash).
std::string sweepCsv(const std::vector<SweepResult>& results);
/// Parses rows written by sweepCsv, also those of files written before the hold test (without
/// held, slip_m and seat_m) or before the spec column; throws io::InputError naming the line.
std::vector<SweepResult> parseSweepCsv(const std::string& text, const std::string& file);
/// The rows of a results file that a sweep resumes from, every one checked against `spec`:
/// parsed as above, and each row must carry sweepSpecHash(spec) (a file of another sweep, or
/// one written before the spec column, is refused), have an index of one of the spec's poses,
/// appear once, and hold that pose's palm position. Throws io::InputError naming the line.
std::vector<SweepResult> parseResumeCsv(const std::string& text, const std::string& file,
                                        const SweepSpec& spec);

/// Largest results file a sweep resumes from [bytes] (256 MiB: over a million rows); it must
/// be a regular file (io::readInputFile).
inline constexpr std::size_t kMaxSweepResultsBytes = std::size_t{256} << 20;

}  // namespace handsim::grasp
