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

#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/recorder.hpp"
#include "handsim/sim/sim_state.hpp"
#include "handsim/sim/simulator.hpp"
#include "handsim/sim/world.hpp"

namespace handsim::app {

/// One trapezoidal segment of a user trajectory, as the trajectory panel and scene files
/// hold it (sim/trapezoidal_profile.hpp). The segment starts from where the previous one of
/// the same actuator ended (or from the initial position).
struct TrajectorySegment {
  int actuator = 0;
  double to = 0.0;                ///< target [actuator unit]
  double max_velocity = 1.0;      ///< [unit/s]
  double max_acceleration = 1.0;  ///< [unit/s^2]
  double start = 0.0;             ///< earliest start [s]; later if the previous one runs on
};

/// Owns the simulation for the application (STYLE.md: the GUI is a thin shell): the hand
/// model, the fixed-step simulator, its state, the recorder, the objects and the real-time
/// accumulator. Widgets send commands (slider set points, poses, trajectories, play/pause);
/// they are applied between steps. Every change of the shown state emits snapshotChanged.
class SimulationController : public QObject {
  Q_OBJECT
 public:
  explicit SimulationController(QObject* parent = nullptr);
  ~SimulationController() override;

  /// Replaces the hand by a built-in id or a hand file. Throws io::InputError and keeps the
  /// current hand when the file is bad. Clears trajectories and history.
  void loadHand(const std::string& id_or_path);
  const hand::HandModel& hand() const;
  /// Id or path the hand was loaded from (what a scene file stores).
  const std::string& handSource() const { return hand_source_; }

  /// The state shown: the live state, or a recorded one while scrubbing the history.
  const sim::SimState& state() const { return scrubbing_ ? history_[scrub_index_] : live_; }
  const sim::SimState& liveState() const { return live_; }
  const sim::Recorder& recorder() const;

  // --- objects -------------------------------------------------------------------------
  const std::vector<sim::WorldObject>& objects() const { return objects_; }
  /// Loads a mesh file (VRML or any Assimp format) as a new object at `pose`. Throws
  /// io::InputError (file:line:column) and leaves the scene unchanged on failure.
  int importObject(const std::string& path, const Eigen::Isometry3d& pose);
  int addObject(sim::WorldObject object);
  void removeObject(int index);
  void setObjectPose(int index, const Eigen::Isometry3d& pose);
  void clearObjects();

  /// Palm frame -> world (the grid is the world's z = 0 plane). Objects stay put in the world
  /// when the palm moves, so their palm-frame poses change with it.
  const Eigen::Isometry3d& palmPose() const { return palm_pose_; }
  /// Moves the palm by `delta`, expressed in the current palm frame.
  void jogPalm(const Eigen::Isometry3d& delta);
  /// Sets the palm pose in the world, keeping objects where they are in the world.
  void setPalmPose(const Eigen::Isometry3d& pose);

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
  /// For a planar three-link finger, its current tip angle phi [rad]; nothing otherwise.
  std::optional<double> fingertipPhi(int finger) const;
  /// Applies a named pose of the hand; false when there is no such pose.
  bool applyPose(const std::string& name);
  /// All actuators to 0 (clamped), clutches engaged.
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
  void setTrajectories(std::vector<TrajectorySegment> segments);
  const std::vector<TrajectorySegment>& trajectories() const { return segments_; }
  /// The simulator's per-actuator references built from trajectories() (empty: slider set point).
  const std::vector<sim::ActuatorTrajectory>& simulatorTrajectories() const;
  /// Initial actuator positions of a run (empty: zero).
  void setInitialPositions(std::vector<double> positions);
  const std::vector<double>& initialPositions() const { return initial_; }
  /// Length of a run [s]; 0 means until the trajectories end plus half a second.
  void setDuration(double seconds) { duration_ = seconds; }
  double duration() const;
  /// Loads a scenario file (hand, initial positions, trajectories, duration). Throws
  /// io::InputError and keeps everything on failure.
  void loadScenario(const std::string& path);

  bool running() const { return running_; }
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
  /// Measured simulated seconds per wall-clock second over the last second of running.
  double measuredRealTimeFactor() const { return measured_rtf_; }

  // --- history --------------------------------------------------------------------------
  /// Recorded states (one every `historyStride()` steps, and the current one).
  int historySize() const { return static_cast<int>(history_.size()); }
  int historyStride() const { return kHistoryStride; }
  /// Shows recorded state `index` (pauses); -1 returns to the live state.
  void scrubTo(int index);
  bool scrubbing() const { return scrubbing_; }

 Q_SIGNALS:
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
  static constexpr int kHistoryStride = 10;
  void applyTrajectories();
  void stepOnce();
  void onTick();
  void teleport(const std::vector<double>& positions);
  void setRunning(bool running);
  /// Object list or poses changed: emits the signal the views need and has the simulator's
  /// contact model take the new objects before the next step.
  void objectsEdited(bool geometry);
  void syncObjectsToSimulator();

  struct Engine;
  std::unique_ptr<Engine> engine_;
  std::string hand_source_;
  sim::SimState live_;
  std::vector<sim::SimState> history_;
  std::vector<sim::WorldObject> objects_;
  Eigen::Isometry3d palm_pose_ = Eigen::Isometry3d::Identity();
  bool objects_dirty_ = true;
  std::vector<TrajectorySegment> segments_;
  /// Retraction targets of autoGrasp() per tendon [m]; empty: tendons follow their commands.
  std::vector<double> tendon_targets_;
  std::vector<sim::ActuatorTrajectory> scenario_tendons_;  ///< a loaded scenario's, per tendon
  std::vector<double> initial_tendons_;                    ///< [m] per tendon, or empty
  std::vector<double> initial_;
  double duration_ = 0.0;
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
  double measured_rtf_ = 0.0;
};

}  // namespace handsim::app
