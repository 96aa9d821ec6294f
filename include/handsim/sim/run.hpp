// SPDX-License-Identifier: GPL-3.0-or-later
// The one run loop (docs/development.md): the CLI's simulate, grasp sweeps, the GUI and tests
// all advance time through sim::Run. It owns the model (shared), the state, the references,
// the controller and the recorder; front ends only pace it and change things between steps.
#pragma once

#include <Eigen/Geometry>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "handsim/sim/actuator_trajectory.hpp"
#include "handsim/sim/arm_motion.hpp"
#include "handsim/sim/hybrid_grasp_controller.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/palm_motion.hpp"
#include "handsim/sim/recorder.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

/// What a run does over time: where it starts, what it follows, what controls it, how long.
/// Sizes: na actuators, nt tendons of the model's hand.
struct RunPlan {
  Eigen::Isometry3d palm_pose_world = Eigen::Isometry3d::Identity();  ///< {P} -> {W} at t = 0
  /// The palm's prescribed motion from palm_pose_world (none: it stays there). The run sets
  /// SimState::palm_pose_world, palm_twist_world and palm_acceleration_world from it each step,
  /// and records palm.x, .y, .z [m], .qw, .qx, .qy, .qz when it is not empty.
  PalmMotion palm_motion;
  /// The arm's joints (hands with an arm, docs/arm.md): where they start and, when given,
  /// their motion, which then drives the palm instead of palm_motion (the run sets the palm's
  /// pose, twist and acceleration from the arm's forward kinematics, records arm.<joint>
  /// and the palm columns, and keeps SimState::arm_position).
  ArmPlan arm;
  /// Object frame -> {W} at the start, one per model object (empty: every object at the world
  /// origin). The only place a start pose lives: the model holds none (sim::makeState), and
  /// reset() puts these back. Two grasp candidates around one object are two plans on one
  /// model.
  std::vector<Eigen::Isometry3d> object_pose_world;
  /// Each object's twist at the start: the velocity of its centre of mass, then its angular
  /// velocity, world frame [m/s; rad/s], one per model object (empty: every object at rest).
  /// The only place a start velocity lives, as object_pose_world for poses; a fixed object
  /// stays at rest whatever its entry says (sim::makeState ignores it).
  std::vector<Twist> object_twist_world;
  std::vector<double> initial;          ///< actuator positions [actuator unit] (na, or empty: 0)
  std::vector<double> initial_tendons;  ///< retractions [m] (nt, or empty: nearest 0)
  /// References per actuator (na, or empty); an actuator without one tracks its command.
  std::vector<ActuatorTrajectory> trajectories;
  /// Retraction references per tendon (nt, or empty).
  std::vector<ActuatorTrajectory> tendon_trajectories;
  /// Seed 002's hybrid force/position grasp controller, run before every step.
  std::optional<HybridGraspOptions> controller;
  double duration = 0.0;  ///< [s]; 0: no end (the GUI's free play)
  int record_every = 1;   ///< record every N-th step; the first and last states always
  /// At most this many rows stay in memory (Recorder::setKeptRows: evenly thinned, the
  /// latest kept); 0 keeps all. For endless runs; a CSV of every row comes from streaming
  /// (Recorder::streamCsv).
  std::size_t kept_rows = 0;
};

/// A run of one state on one model.
/// The stage before sim::step: the palm's twist and acceleration at the end of the step (from
/// `palm`, started at `palm_start_world`; none when it is empty), each actuator's servo
/// reference there (its trajectory of `plan`, else its command) and each tendon's position.
/// Run::step calls it; benchmarks that time the stages one by one call it too.
void writeReferences(const RunPlan& plan, const PalmMotion& palm,
                     const Eigen::Isometry3d& palm_start_world, SimState& s, double t_next);

class Run {
 public:
  /// Throws std::invalid_argument when the plan does not fit the model (sizes, non-finite
  /// values, record_every < 1, negative duration) and naming a controller the hand cannot run.
  Run(std::shared_ptr<const Model> model, RunPlan plan);
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  const Model& model() const { return *model_; }
  const std::shared_ptr<const Model>& modelPtr() const { return model_; }
  const RunPlan& plan() const { return plan_; }
  const SimState& state() const { return state_; }
  /// For commands between steps (set points, object and palm poses, loads). After editing
  /// actuator positions or velocities call sim::forwardPosition(model(), state()).
  SimState& state() { return state_; }
  /// The arm's base (its URDF root frame) in {W} since the last reset: where the plan's palm pose
  /// and arm start put it (docs/arm.md); identity without an arm.
  const Eigen::Isometry3d& armBaseWorld() const { return arm_base_world_; }
  const Recorder& recorder() const { return *recorder_; }
  /// For streaming the recording to a file (Recorder::streamCsv) before runToEnd(). A new
  /// plan (setPlan) starts a new recorder.
  Recorder& recorder() { return *recorder_; }
  /// The grasp controller, if the plan has one.
  const HybridGraspController* controller() const { return controller_ ? &*controller_ : nullptr; }

  /// Back to the plan's initial state (actuators, tendons, palm, arm, object poses and twists
  /// as the plan gives them; the model is only read): time 0, controller restarted, recorder
  /// cleared and the first row recorded.
  void reset();
  /// One fixed step: the controller, the references at the end of the step (trajectories or
  /// commands), sim::step, and a recorder row when due. Afterwards state().time is the step
  /// count times dt (from the last setModel), computed, not accumulated.
  void step();
  /// Steps of the whole run, llround(duration / dt); 0 when the plan has no end.
  std::int64_t totalSteps() const { return total_steps_; }
  /// True when the plan has an end and the state has reached it.
  bool finished() const { return total_steps_ > 0 && state_.step >= total_steps_; }
  /// Steps until finished(); `progress` (may be empty) gets the fraction done about every 1%.
  /// Throws std::logic_error for a plan without an end.
  void runToEnd(const std::function<void(double)>& progress = {});

  /// From now on the palm follows `motion` (segment and sinusoid times are run times, so
  /// start them at state().time) from where it is: the GUI's Lift. The plan is unchanged;
  /// reset() goes back to its palm motion. The palm's recorder columns exist only when the
  /// plan had a palm motion.
  void setLivePalmMotion(PalmMotion motion);
  /// A new plan (trajectories, initial state, controller, duration), then reset().
  void setPlan(RunPlan plan);
  /// The same hand with other objects or options (e.g. an object added in the GUI): the state
  /// keeps everything, object arrays follow the new list (SimState::object_pose_world and
  /// object_twist_world of surviving indices are kept; new objects start at the world origin,
  /// at rest, as matchObjects does). The plan is untouched: a plan with start poses or twists
  /// for another object count must be replaced (setPlan) before reset(). Throws
  /// std::invalid_argument for a model of another hand.
  void setModel(std::shared_ptr<const Model> model);
  /// After setModel: when the model brings other recorder columns (an object made free brings
  /// its pose, energies and contact pairs; the ground plane its pairs), the recorder changes
  /// to the model's columns and keeps the rows recorded so far (Recorder::adoptRows: new
  /// columns read NaN before now); at step 0 it holds the current state's row. The state and
  /// the plan are untouched. Returns false when the columns were already the model's. A
  /// recorder streaming to a file (Recorder::streamCsv) is replaced by one that does not.
  bool updateRecorderColumns();

 private:
  void check(const RunPlan& plan) const;
  /// A recorder with the columns of the model and the plan (bodies, palm, controller).
  std::unique_ptr<Recorder> makeRecorder() const;
  void applyPalmMotion(double t);
  /// The palm from the arm at time t (arm_drives_), arm positions into the state.
  PalmKinematics armAt(double t);
  std::shared_ptr<const Model> model_;
  RunPlan plan_;
  SimState state_;
  std::unique_ptr<Recorder> recorder_;
  std::optional<HybridGraspController> controller_;
  std::int64_t total_steps_ = 0;
  PalmMotion palm_motion_;  ///< what moves the palm now: the plan's, or a live one
  Eigen::Isometry3d palm_start_ = Eigen::Isometry3d::Identity();
  bool arm_drives_ = false;  ///< the plan's arm motion moves the palm (no live palm motion)
  Eigen::Isometry3d arm_base_world_ = Eigen::Isometry3d::Identity();  ///< arm root -> {W}
  /// State time is kept as time_origin_ + (step - step_origin_) dt after every step, not
  /// summed (no rounding drift: 2000 steps of 1 ms end at exactly 2 s); the origin moves
  /// when setModel changes the step.
  double time_origin_ = 0.0;
  std::int64_t step_origin_ = 0;
};

}  // namespace handsim::sim
