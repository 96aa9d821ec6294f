// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "handsim/formats/scenario.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/recorder.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/sim_state.hpp"
#include "handsim/sim/trajectory_segments.hpp"
#include "handsim/tools/placement.hpp"

namespace handsim::app {

/// One move of a user trajectory, as the trajectory panel and scene files hold it.
using TrajectorySegment = sim::TrajectorySegment;

/// Owns the simulation for the application (STYLE.md: the GUI is a thin shell): the scene as a
/// scenario (sim::Scenario, what Save Scene writes), its compiled model and one sim::Run, plus
/// the pacing (the real-time accumulator) and the history for scrubbing. Widgets send commands
/// (slider set points, poses, trajectories, play/pause); they are applied between steps. Every
/// change of the shown state emits snapshotChanged.
class SimulationController : public QObject {
  Q_OBJECT
 public:
  explicit SimulationController(QObject* parent = nullptr);
  ~SimulationController() override;

  /// A hand read and compiled (its link meshes and trees built), ready to install: what
  /// prepareHand returns on any thread.
  struct PreparedHand {
    std::string source;                       ///< id or path it was loaded from
    std::string palm_link;                    ///< the URDF link that is the palm, or ""
    std::shared_ptr<const sim::Model> model;  ///< the hand without objects, default options
  };
  /// Reads a built-in id or a hand file and builds its geometry: the slow part of loadHand,
  /// touching nothing of a controller, so it runs on any thread. Throws io::InputError.
  /// `palm_link` names the link of a URDF that is the palm: the joints from the root to it
  /// become the arm (docs/arm.md); empty: the sidecar's or the root link.
  static PreparedHand prepareHand(const std::string& id_or_path,
                                  const std::string& palm_link = {});
  /// Replaces the hand by a prepared one; the scene's objects stay where they are in the world
  /// (with the scene's options). Clears trajectories and history.
  void installHand(const PreparedHand& prepared);
  /// Replaces the hand by a built-in id or a hand file (prepareHand then installHand). Throws
  /// io::InputError and keeps the current hand when the file is bad.
  void loadHand(const std::string& id_or_path, const std::string& palm_link = {});
  /// Back to the scene handsim starts with (File > New): the BarrettHand and a 5 cm cube
  /// above the palm between the fingers, default options, no trajectories.
  void newScene();
  const hand::HandModel& hand() const { return run_->model().hand(); }
  /// The compiled model (hand, link and object geometry, options) the viewport draws.
  const sim::Model& model() const { return run_->model(); }
  /// Id or path the hand was loaded from (what a scene file stores).
  const std::string& handSource() const { return scene_.hand_ref; }
  /// The scene as a scenario file holds it: hand, palm pose, objects at their start poses,
  /// options, initial positions, trajectories, controller, duration (duration() when the
  /// run has no set length, at least 1 s).
  sim::Scenario scenario() const;
  /// Writes scenario() atomically (sim::saveScenario). Throws on I/O errors.
  void saveScene(const std::string& path) const;

  /// The state shown: the live state, or a recorded one while scrubbing the history.
  const sim::SimState& state() const {
    return scrubbing_ ? history_[static_cast<std::size_t>(scrub_index_)] : run_->state();
  }
  const sim::SimState& liveState() const { return run_->state(); }
  const sim::Recorder& recorder() const { return run_->recorder(); }

  // --- objects -------------------------------------------------------------------------
  /// The scene's objects (geometry, mass, material); their poses are in the state.
  const std::vector<sim::ObjectModel>& objects() const { return run_->model().objects; }
  /// Pose of object `index` in the world in the shown state.
  const Eigen::Isometry3d& objectPose(int index) const {
    return state().object_pose_world.at(static_cast<std::size_t>(index));
  }
  /// Loads a mesh file (VRML or any Assimp format) as a new object at `pose` (world). Throws
  /// io::InputError (file:line:column) and leaves the scene unchanged on failure.
  int importObject(const std::string& path, const Eigen::Isometry3d& pose);
  /// Reads a mesh file as an object (coordinates times `scale`) without adding it; its loader
  /// warnings go out as warning(). Throws io::InputError naming the file.
  sim::ObjectModel loadObjectFile(const std::string& path, double scale = 1.0);
  /// The same read on any thread (touches no controller): `kdop_k` is the scene's
  /// (contactKdop()); the warnings stay in the object (reportWarnings sends them).
  static sim::ObjectModel readObjectFile(const std::string& path, double scale, int kdop_k);
  int contactKdop() const { return run_->model().options.contact.kdop_k; }
  /// Sends an object's loader warnings out as warning().
  void reportWarnings(const sim::ObjectModel& object);
  /// Where `object` goes when imported (sim::placeObjectInReach in the live state): in front of
  /// the palm along the hand's approach, clear of the hand and the other objects, resting on
  /// the ground plane z = 0 when `ground` is true and the approach is near horizontal.
  sim::Placement placeInReach(const sim::ObjectModel& object, bool ground) const;
  /// Adds an object at `pose` (world).
  int addObject(sim::ObjectModel object, const Eigen::Isometry3d& pose);
  void removeObject(int index);
  /// Moves object `index` in the world (the run's start pose too); no geometry is rebuilt.
  void setObjectPose(int index, const Eigen::Isometry3d& pose);
  void clearObjects();
  /// Makes object `index` free (moved by gravity and contacts, docs/free-objects.md) or fixed.
  /// An object without mass (an open mesh) cannot be free: a warning, nothing changes.
  void setObjectFree(int index, bool free);
  /// The object's Coulomb coefficient [-] and torsional friction length [m] (negative: the
  /// scene's contact option torsional_m) for its free-object contacts.
  void setObjectFriction(int index, double mu, double torsional_m);
  /// Sets the uniform density of object `index` [kg/m^3] and computes its mass properties
  /// again (sim::computeMassProperties). A density that is not finite and positive, or an
  /// object without a closed mesh, gives a warning and changes nothing.
  void setObjectDensity(int index, double density);
  /// Sets the mass of object `index` [kg] through its density (mass / volume).
  void setObjectMass(int index, double mass_kg);
  /// Replaces object `index` by `object` read again at another scale (readObjectFile): pose,
  /// name, free or fixed, friction and density stay; its mass properties follow the new size.
  void replaceObjectGeometry(int index, sim::ObjectModel object);
  /// The ground plane z <= 0 that free objects rest on (sim::GroundOptions).
  bool groundEnabled() const { return run_->model().options.ground.enabled; }
  void setGroundEnabled(bool enabled);
  /// Lifts the palm by `height` [m] against gravity from now (a trapezoidal move at 0.05 m/s,
  /// 0.25 m/s^2), carrying whatever the hand holds, and plays; the run's plan is unchanged. A
  /// run with an end (Auto Grasp's, even one that has stopped there) goes on until the lift
  /// has ended plus 0.5 s; the status bar says so.
  void liftPalm(double height = 0.1);

  /// Palm frame -> world (the grid is the world's z = 0 plane; gravity is along world -z).
  /// Objects stay put in the world when the palm moves.
  const Eigen::Isometry3d& palmPose() const { return state().palm_pose_world; }
  /// Moves the palm by `delta`, expressed in the current palm frame.
  void jogPalm(const Eigen::Isometry3d& delta);
  /// Sets the palm pose in the world (and the run's start pose).
  void setPalmPose(const Eigen::Isometry3d& pose);
  /// The arm's base in {W} (docs/arm.md); identity without an arm.
  const Eigen::Isometry3d& armBaseWorld() const { return run_->armBaseWorld(); }
  /// Sets arm joint `joint` (the arm's movable joints in order) [rad or m], clamped to its
  /// limits: the arm's start pose, and the palm moves with it while the arm's base stays.
  /// Ignored while the run plays and the arm's motion drives the palm.
  void setArmJoint(int joint, double value);

  // --- perturbation (MuJoCo simulate's Ctrl + right drag) -------------------------------
  /// Pulls free object `object` at its point `grab_object` (object frame [m]) towards
  /// `target_world` [m] with a critically damped spring of kPerturbHz scaled by its mass,
  /// F = m (w^2 d - 2 w v) at the grabbed point, and a damping torque -2 w I omega about the
  /// centre of mass (I the inertia in the world frame), until clearPerturbation(); applied
  /// before every step as SimState::object_applied_wrench_world. A fixed object: false.
  bool setPerturbation(int object, const Eigen::Vector3d& grab_object,
                       const Eigen::Vector3d& target_world);
  void clearPerturbation();
  /// The object being pulled, or -1.
  int perturbedObject() const { return perturb_object_; }
  /// The grabbed point in the world in the live state, and the target [m].
  Eigen::Vector3d perturbationPoint() const;
  const Eigen::Vector3d& perturbationTarget() const { return perturb_target_; }

  // --- direct control ------------------------------------------------------------------
  /// Set point of an actuator [its unit], clamped into its range. While paused the hand moves
  /// there at once; while running the servo drives it there.
  void setActuatorCommand(int actuator, double value);
  /// Set points for every actuator at once (same rules).
  void setActuatorCommands(const std::vector<double>& values);
  /// Actuator positions that best realise joint values at the current clutch states
  /// (hand::actuatorsForJoints; actuators no joint constrains keep their set points).
  std::vector<double> actuatorsForJoints(const std::vector<kinematics::JointVector>& q) const;
  /// Fingertip position of `finger` in the palm frame [m] in the shown state.
  Eigen::Vector3d fingertip(int finger) const;
  /// Inverse kinematics to a fingertip target in the palm frame [m] through the transmission
  /// (hand::fingertipActuators, from the current actuator positions). Returns an empty string
  /// and moves the hand, or the reason the target is unreachable (with the miss distance) and
  /// leaves the hand where it was.
  /// `phi` [rad], for planar three-link fingers only, is the angle of the last link in the
  /// finger's plane (kinematics/closed_form_ik.hpp); the target must then lie in that plane.
  QString moveFingertip(int finger, const Eigen::Vector3d& target, std::optional<double> phi = {});
  /// A fingertip target dragged in the viewport (palm frame [m]): the hand goes to the target
  /// when it can, else as close as the finger reaches (the nearest reachable joint values the
  /// solver found). Returns the fingertip's distance from the target afterwards [m] (while a
  /// run plays, the servos get the set points and the fingertip follows); NaN and `error`
  /// for a bad target.
  double followFingertip(int finger, const Eigen::Vector3d& target, QString* error = nullptr);
  /// For a planar three-link finger, its current tip angle phi [rad]; nothing otherwise.
  std::optional<double> fingertipPhi(int finger) const;
  /// Applies a named pose of the hand; false when there is no such pose.
  bool applyPose(const std::string& name);
  /// All actuators to 0 (clamped), clutches engaged: the run's start pose (the run starts anew
  /// from it, paused).
  void resetToZero();
  /// The actuators that close fingers, which autoGrasp() drives: the hand file's
  /// "grasp"/"closing_actuators" (HandModel::closing_actuators; docs/hand-format.md). For the
  /// BarrettHand M1-M3; its spread M4 stays where it is. Empty when the file names none.
  std::vector<int> closingActuators() const;
  /// Closes the hand on what lies between the fingers: from the shown pose (it becomes the
  /// run's initial state, time 0), a trapezoidal trajectory of every closingActuators() to its
  /// upper limit and of every closing tendon (HandModel::closing_tendons) to the upper end of
  /// its range; other actuators and tendons hold. Replaces the trajectories and plays.
  /// Clutches act on their own. When the hand file names no closing actuator or tendon it
  /// changes nothing and says so through statusMessage().
  void autoGrasp();

  // --- trajectories and playback --------------------------------------------------------
  /// Replaces the trajectories; the run starts anew from its initial state (a run follows one
  /// plan, so what is recorded is what a saved scene reproduces).
  void setTrajectories(std::vector<TrajectorySegment> segments);
  const std::vector<TrajectorySegment>& trajectories() const { return segments_; }
  /// The run's per-actuator references built from trajectories() (empty: slider set point).
  const std::vector<sim::ActuatorTrajectory>& simulatorTrajectories() const {
    return run_->plan().trajectories;
  }
  /// Replaces the palm's prescribed motion (trapezoidal moves and sinusoids per world axis
  /// from the scene's palm pose, sim::PalmMotion; scenario files' "palm" block). Like
  /// setTrajectories, the run starts anew, and Save Scene writes it.
  void setPalmMotion(sim::PalmMotion motion);
  const sim::PalmMotion& palmMotion() const { return scene_.plan.palm_motion; }
  /// The Trajectory panel's Apply: palm motion and trajectories together, as one undo step
  /// when `edit` (no step when the tables did not change).
  void setTables(std::vector<TrajectorySegment> segments, sim::PalmMotion motion, bool edit);
  /// Initial actuator positions of a run (empty: zero); the run starts anew from them.
  void setInitialPositions(std::vector<double> positions);
  const std::vector<double>& initialPositions() const { return scene_.plan.initial; }
  /// Length of a run [s]; 0 means until the trajectories end plus half a second.
  void setDuration(double seconds) { duration_ = seconds; }
  double duration() const;
  /// Opens a scenario (or scene) file: hand, palm pose, objects, options, initial positions,
  /// trajectories, controller, duration. Throws io::InputError and keeps everything on
  /// failure.
  void loadScenario(const std::string& path);
  /// A scenario read and compiled, ready to install (prepareScenario runs on any thread).
  struct PreparedScenario {
    sim::Scenario scenario;
    std::shared_ptr<const sim::Model> model;
  };
  static PreparedScenario prepareScenario(const std::string& path);
  void installScenario(PreparedScenario prepared);

  bool running() const { return running_; }
  /// Plays the run (from the start again when it has ended). When nothing would move (idle())
  /// the status bar says what makes the hand or an object move.
  void play();
  void pause();
  /// Back to the initial state, history cleared (trajectories kept).
  void resetRun();
  /// One fixed step (pauses first).
  void singleStep();
  /// Real-time factor the run aims at (1 = real time).
  void setSpeed(double factor);
  double speed() const { return speed_; }
  void setLoop(bool loop) { loop_ = loop; }
  bool loop() const { return loop_; }
  /// Runs the accumulator for `real_seconds` of wall-clock time, as the frame timer does;
  /// tests call it to run deterministically without waiting.
  void advance(double real_seconds);
  /// Measured simulated seconds per wall-clock second over the last second of running;
  /// nothing before the first second of a run has been measured.
  std::optional<double> measuredRealTimeFactor() const { return measured_rtf_; }
  /// True when playing would move nothing: no trajectory, tendon or palm motion, no grasp
  /// controller, no live lift, no free object, and every actuator at rest at its set point.
  bool idle() const;

  // --- undo ---------------------------------------------------------------------------
  /// Every scene edit (objects added, removed, moved, scaled, made free, their material; the
  /// start pose; trajectories; palm pose and motion; the hand; the ground plane) can be undone
  /// and redone. Edits of one kind in quick succession (a slider or a spin box being dragged)
  /// are one step. Undo and redo restore the scene and start the run anew from it.
  /// Set points changed while a run is under way (sliders, spin boxes, poses, fingertip
  /// targets) are undone too: undo puts the previous set points back and the run goes on.
  /// A slider drag is one step however long it takes: the Joints panel brackets it with
  /// beginDrag() and endDrag(), between which only the first edit keeps an undo step.
  void beginDrag();
  void endDrag();
  bool canUndo() const { return !undo_.empty(); }
  bool canRedo() const { return !redo_.empty(); }
  void undo();
  void redo();
  /// Forgets every undo step (File > New keeps none).
  void clearUndo();

  // --- history --------------------------------------------------------------------------
  /// Recorded states (one every `historyStride()` steps, and the current one).
  int historySize() const { return static_cast<int>(history_.size()); }
  /// Steps between kept history states (grows by doubling so a long free play stays bounded).
  int historyStride() const { return history_stride_; }
  /// Shows recorded state `index` (pauses); -1 returns to the live state.
  void scrubTo(int index);
  bool scrubbing() const { return scrubbing_; }
  /// The history state shown while scrubbing.
  int scrubIndex() const { return scrub_index_; }
  /// Index of the history state whose time is nearest `t` [s] (0 without history).
  int historyIndexAt(double t) const;

 Q_SIGNALS:
  /// canUndo() or canRedo() may have changed.
  void undoChanged();
  /// The shown state changed: redraw.
  void snapshotChanged();
  /// A new hand model: rebuild everything that depends on it.
  void handChanged();
  void objectsChanged();
  void trajectoriesChanged();
  void runningChanged(bool running);
  /// A new simulator warning (numerical trouble, limits).
  void warning(const QString& message);
  /// A note for the status bar that is not a simulation warning (e.g. why Auto Grasp did
  /// nothing).
  void statusMessage(const QString& message);

 private:
  /// What undo restores: the scene (hand, objects, options, plan) and the panels' rows; or,
  /// for an edit during a run, only the actuators' set points (`set_points`).
  struct SceneSnapshot {
    std::optional<std::vector<double>> set_points;
    sim::Scenario scene;
    std::shared_ptr<const sim::HandGeometry> geometry;
    std::vector<TrajectorySegment> segments;
    std::vector<sim::ActuatorTrajectory> closing_tendons;
    std::vector<sim::ActuatorTrajectory> scenario_tendons;
    double duration = 0.0;
  };
  SceneSnapshot snapshot() const;
  void restore(const SceneSnapshot& snapshot);
  /// Called before a scene edit of kind `kind`: keeps the scene as it is for undo (unless the
  /// previous edit was of the same kind less than kMergeMs ago) and forgets the redo steps.
  void pushUndo(const char* kind);
  /// The same for a set point changed during a run: keeps only the set points.
  void pushSetPointUndo();
  /// True when a drag is under way and has kept its undo step (the rest of it keeps none);
  /// marks the step kept otherwise.
  bool dragStepKept();
  bool dragging_ = false;
  bool drag_step_kept_ = false;
  static constexpr int kUndoLimit = 100;
  static constexpr qint64 kMergeMs = 1000;
  std::vector<SceneSnapshot> undo_;
  std::vector<SceneSnapshot> redo_;
  const char* undo_kind_ = nullptr;
  QElapsedTimer undo_clock_;
  bool quiet_ = false;  ///< edits made by undo, redo or New push no step of their own

  /// Applies the perturbation's wrench for the coming step.
  void applyPerturbation();
  static constexpr double kPerturbHz = 3.0;
  int perturb_object_ = -1;
  Eigen::Vector3d perturb_grab_ = Eigen::Vector3d::Zero();    ///< object frame [m]
  Eigen::Vector3d perturb_target_ = Eigen::Vector3d::Zero();  ///< world [m]

  static constexpr int kHistoryStride = 10;
  /// At most this many states in the scrubber's history; then every other one is dropped and
  /// the stride doubles (memory stays bounded in an endless free play).
  static constexpr std::size_t kHistoryLimit = 4096;
  /// Recorded rows kept for the plots in an endless free play (Recorder::setKeptRows).
  static constexpr std::size_t kKeptRows = std::size_t{1} << 17;
  /// The plan of scene_ with the GUI's trajectories, duration and record rate.
  sim::RunPlan plan() const;
  void applyTrajectories();
  void stepOnce();
  void onTick();
  /// The run has an end and reached it, and no live lift carries it further.
  bool finishedForGood() const;
  void setRunning(bool running);
  /// The objects changed: recompiles the model with the hand geometry it has (no mesh is read
  /// again) and hands it to the run between steps.
  void setObjects(std::vector<sim::ObjectModel> objects, std::vector<Eigen::Isometry3d> poses);
  /// After a model change: when the recorder's columns no longer match the model's (an object
  /// made free, the ground plane), the run's recorder changes its columns
  /// (sim::Run::updateRecorderColumns).
  void followRecorderColumns();
  /// Replaces scene and run together (a new hand or a scenario).
  void replaceScene(sim::Scenario scene, std::shared_ptr<const sim::Model> model);

  sim::Scenario scene_;  ///< hand, objects, options, plan (palm and object start poses...)
  std::unique_ptr<sim::Run> run_;
  std::vector<sim::SimState> history_;
  int history_stride_ = kHistoryStride;
  std::vector<TrajectorySegment> segments_;
  /// autoGrasp()'s tendon references, per tendon (sim::closingReferences); empty: the
  /// scenario's (scenario_tendons_).
  std::vector<sim::ActuatorTrajectory> closing_tendons_;
  std::vector<sim::ActuatorTrajectory> scenario_tendons_;  ///< a loaded scenario's, per tendon
  double duration_ = 0.0;
  /// A live lift carries the run past its plan's end to this time [s] (0: none).
  double live_end_ = 0.0;
  bool live_lift_ = false;  ///< a Lift Palm carries the palm in this run
  double speed_ = 1.0;
  bool loop_ = false;
  bool running_ = false;
  bool scrubbing_ = false;
  int scrub_index_ = 0;
  double accumulator_ = 0.0;
  std::int64_t warnings_seen_ = 0;
  QTimer timer_;
  QElapsedTimer clock_;
  QElapsedTimer rtf_clock_;
  double rtf_sim_start_ = 0.0;
  std::optional<double> measured_rtf_;
};

}  // namespace handsim::app
