// SPDX-License-Identifier: GPL-3.0-or-later
#include "simulation_controller.hpp"

#include <optional>

#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <map>

#include "handsim/geometry/mesh_loader.hpp"
#include "handsim/hand/hand_loader.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/hand/transmission_ik.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/unreachable_target.hpp"
#include "handsim/sim/scenario.hpp"
#include "handsim/sim/trapezoidal_profile.hpp"

namespace handsim::app {

namespace {
constexpr int kFramePeriodMs = 16;
// At most this much simulated time per frame, so a slow machine falls behind real time
// instead of freezing the window (the status bar shows the real-time factor).
// A step costs microseconds, so even software-rendered 4 fps keeps real time.
constexpr double kMaxSimSecondsPerFrame = 0.25;
// Longest wall-clock gap the accumulator accepts (e.g. after a modal dialog).
constexpr double kMaxRealGap = 0.25;
// Auto grasp: time a closing actuator (or tendon) takes over its whole range at full speed,
// and how many such times it takes to reach full speed.
constexpr double kAutoGraspRangeSeconds = 1.5;
constexpr double kAutoGraspRampFraction = 0.25;
}  // namespace

/// The hand model and the objects that refer to it (Simulator and Recorder keep references
/// to the model, so they live and die together).
struct SimulationController::Engine {
  explicit Engine(hand::HandModel h, sim::SimOptions options)
      : hand(std::move(h)), simulator(hand, options), recorder(hand) {}
  hand::HandModel hand;
  sim::Simulator simulator;
  sim::Recorder recorder;
  /// A scenario's grasp controller (seed 002), restarted with every run; the recorder reads
  /// its variables through channels that point at this storage.
  std::optional<sim::HybridGraspOptions> grasp_options;
  std::optional<sim::HybridGraspController> grasp;
};

SimulationController::SimulationController(QObject* parent) : QObject(parent) {
  timer_.setInterval(kFramePeriodMs);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &SimulationController::onTick);
  loadHand("barrett");
}

SimulationController::~SimulationController() = default;

const hand::HandModel& SimulationController::hand() const {
  return engine_->hand;
}
const sim::Recorder& SimulationController::recorder() const {
  return engine_->recorder;
}

void SimulationController::loadHand(const std::string& id_or_path) {
  hand::HandModel model = hand::loadHand(id_or_path);  // throws before anything changes
  setRunning(false);
  engine_ = std::make_unique<Engine>(std::move(model), sim::SimOptions{});
  objects_dirty_ = true;
  hand_source_ = id_or_path;
  segments_.clear();
  tendon_targets_.clear();
  scenario_tendons_.clear();
  initial_tendons_.clear();
  initial_.clear();
  duration_ = 0.0;
  resetRun();
  Q_EMIT handChanged();
  Q_EMIT trajectoriesChanged();
  Q_EMIT snapshotChanged();
}

int SimulationController::importObject(const std::string& path, const Eigen::Isometry3d& pose) {
  sim::WorldObject object;
  object.model = geometry::loadMesh(path);  // throws io::InputError; scene untouched
  object.source = path;
  object.name = QFileInfo(QString::fromStdString(path)).completeBaseName().toStdString();
  object.pose = pose;
  return addObject(std::move(object));
}

int SimulationController::addObject(sim::WorldObject object) {
  objects_.push_back(std::move(object));
  objectsEdited(true);
  return static_cast<int>(objects_.size()) - 1;
}

void SimulationController::removeObject(int index) {
  if (index < 0 || index >= static_cast<int>(objects_.size())) return;
  objects_.erase(objects_.begin() + index);
  objectsEdited(true);
}

void SimulationController::setObjectPose(int index, const Eigen::Isometry3d& pose) {
  if (index < 0 || index >= static_cast<int>(objects_.size())) return;
  objects_[static_cast<std::size_t>(index)].pose = pose;
  objectsEdited(false);
}

void SimulationController::objectsEdited(bool geometry) {
  // A drag edits poses many times per frame; the contact model takes them once, before the
  // next step.
  objects_dirty_ = true;
  if (geometry)
    Q_EMIT objectsChanged();
  else
    Q_EMIT snapshotChanged();  // only transforms: redraw without rebuilding geometry
}

void SimulationController::syncObjectsToSimulator() {
  if (!objects_dirty_) return;
  objects_dirty_ = false;
  try {
    engine_->simulator.setObjects(objects_);
  } catch (const std::exception& e) {
    // A hand whose link meshes cannot be read still runs, without contacts.
    Q_EMIT warning(tr("contacts disabled: %1").arg(QString::fromUtf8(e.what())));
  }
}

void SimulationController::jogPalm(const Eigen::Isometry3d& delta) {
  setPalmPose(palm_pose_ * delta);
}

void SimulationController::setPalmPose(const Eigen::Isometry3d& pose) {
  if (!pose.matrix().allFinite()) return;
  // world = palm * object_in_palm must not change for any object.
  const Eigen::Isometry3d change = pose.inverse() * palm_pose_;
  for (sim::WorldObject& o : objects_) o.pose = change * o.pose;
  palm_pose_ = pose;
  objectsEdited(false);
}

void SimulationController::clearObjects() {
  objects_.clear();
  objectsEdited(true);
}

void SimulationController::teleport(const std::vector<double>& positions) {
  for (std::size_t a = 0; a < positions.size(); ++a) {
    live_.actuator_position[a] = positions[a];
    live_.actuator_velocity[a] = 0.0;
    live_.actuator_acceleration[a] = 0.0;
    live_.actuator_command[a] = positions[a];
    live_.actuator_reference[a] = positions[a];
  }
  engine_->simulator.syncJoints(live_);
}

void SimulationController::setActuatorCommand(int actuator, double value) {
  if (actuator < 0 || actuator >= static_cast<int>(live_.actuator_command.size())) return;
  std::vector<double> values = live_.actuator_command;
  values[static_cast<std::size_t>(actuator)] = value;
  setActuatorCommands(values);
}

void SimulationController::setActuatorCommands(const std::vector<double>& values) {
  if (values.size() != live_.actuator_command.size()) return;
  for (double v : values)
    if (!std::isfinite(v)) return;
  const std::vector<double> clamped = hand::clampActuators(engine_->hand, values);
  scrubbing_ = false;
  if (running_) {
    live_.actuator_command = clamped;
  } else {
    teleport(clamped);
  }
  Q_EMIT snapshotChanged();
}

std::vector<double> SimulationController::actuatorsForJoints(
    const std::vector<kinematics::JointVector>& q) const {
  return hand::actuatorsForJoints(engine_->hand, q, live_.actuator_command, live_.clutches);
}

Eigen::Vector3d SimulationController::fingertip(int finger) const {
  const kinematics::Chain& chain = engine_->hand.fingers.at(static_cast<std::size_t>(finger));
  return chain.base *
         kinematics::fingertipPosition(chain, state().q[static_cast<std::size_t>(finger)]);
}

std::optional<double> SimulationController::fingertipPhi(int finger) const {
  const kinematics::Chain& chain = engine_->hand.fingers.at(static_cast<std::size_t>(finger));
  if (!kinematics::isPlanarThreeLinkFinger(chain)) return {};
  const auto frames =
      kinematics::forwardKinematics(chain, state().q[static_cast<std::size_t>(finger)]);
  const int plane = static_cast<int>(chain.rows.size()) - 3;
  const Eigen::Matrix3d R = frames.at(plane).linear().transpose() * frames.tip().linear();
  return std::atan2(R(1, 0), R(0, 0));
}

QString SimulationController::moveFingertip(int finger, const Eigen::Vector3d& target,
                                            std::optional<double> phi) {
  hand::FingertipIkOptions options;
  options.phi = phi;
  try {
    setActuatorCommands(hand::fingertipActuators(engine_->hand, finger, target,
                                                 live_.actuator_position, live_.clutches, options));
  } catch (const kinematics::UnreachableTarget& e) {
    return tr("Unreachable: the fingertip misses the target by %1 mm (%2); the hand stays where "
              "it was")
        .arg(e.miss() * 1000.0, 0, 'f', 1)
        .arg(QString::fromUtf8(e.what()));
  } catch (const std::invalid_argument& e) {
    return QString::fromUtf8(e.what());
  }
  return {};
}

bool SimulationController::applyPose(const std::string& name) {
  const hand::NamedPose* pose = engine_->hand.pose(name);
  if (!pose) return false;
  std::vector<kinematics::JointVector> q;
  for (const auto& v : pose->q) {
    kinematics::JointVector jv(static_cast<Eigen::Index>(v.size()));
    for (std::size_t i = 0; i < v.size(); ++i) jv(static_cast<Eigen::Index>(i)) = v[i];
    q.push_back(jv);
  }
  setActuatorCommands(actuatorsForJoints(q));
  return true;
}

void SimulationController::resetToZero() {
  setRunning(false);
  scrubbing_ = false;
  const std::vector<double> zero(engine_->hand.actuators.size(), 0.0);
  live_ = engine_->simulator.initialState(hand::clampActuators(engine_->hand, zero));
  history_.assign(1, live_);
  Q_EMIT snapshotChanged();
}

std::vector<int> SimulationController::closingActuators() const {
  return engine_->hand.closing_actuators;
}

void SimulationController::autoGrasp() {
  const hand::HandModel& h = engine_->hand;
  if (h.closing_actuators.empty() && h.closing_tendons.empty()) {
    Q_EMIT statusMessage(
        tr("Auto Grasp: the hand file names no closing actuators or tendons "
           "(its \"grasp\" key, see docs/hand-format.md); nothing moves"));
    return;
  }
  std::vector<double> start = hand::clampActuators(h, state().actuator_position);
  std::vector<TrajectorySegment> segments;
  for (int a : closingActuators()) {
    const hand::Actuator& act = h.actuators[static_cast<std::size_t>(a)];
    const double velocity = (act.upper - act.lower) / kAutoGraspRangeSeconds;
    if (!(velocity > 0.0)) continue;
    segments.push_back({a, act.upper, velocity,
                        velocity / (kAutoGraspRampFraction * kAutoGraspRangeSeconds), 0.0});
  }
  // Tendons that do not close stay where runs start them (applyTrajectories).
  tendon_targets_.clear();
  for (const hand::Tendon& t : h.tendons)
    tendon_targets_.push_back(std::clamp(0.0, t.lower, t.upper));
  for (int t : h.closing_tendons)
    tendon_targets_[static_cast<std::size_t>(t)] = h.tendons[static_cast<std::size_t>(t)].upper;
  // The user's own closing motion replaces a scenario's tendon motions and controller.
  scenario_tendons_.clear();
  initial_tendons_.clear();
  engine_->grasp_options.reset();
  engine_->grasp.reset();
  segments_ = std::move(segments);
  initial_ = std::move(start);
  resetRun();  // applies the trajectories; the shown pose becomes time 0
  Q_EMIT trajectoriesChanged();
  play();
}

void SimulationController::setTrajectories(std::vector<TrajectorySegment> segments) {
  tendon_targets_.clear();
  segments_ = std::move(segments);
  applyTrajectories();
  Q_EMIT trajectoriesChanged();
}

void SimulationController::applyTrajectories() {
  const std::size_t na = engine_->hand.actuators.size();
  std::vector<double> at = initial_.size() == na ? initial_ : std::vector<double>(na, 0.0);
  at = hand::clampActuators(engine_->hand, at);
  std::vector<sim::ActuatorTrajectory> trajectories(na);
  std::vector<double> free_at(na, 0.0);
  for (const TrajectorySegment& s : segments_) {
    if (s.actuator < 0 || static_cast<std::size_t>(s.actuator) >= na) continue;
    const auto a = static_cast<std::size_t>(s.actuator);
    const double start = std::max(s.start, free_at[a]);
    const sim::TrapezoidalProfile profile(at[a], s.to, s.max_velocity, s.max_acceleration, start);
    trajectories[a].append(profile);
    at[a] = s.to;
    free_at[a] = profile.end();
  }
  for (std::size_t a = 0; a < na; ++a)
    engine_->simulator.setTrajectory(static_cast<int>(a), trajectories[a]);
  const std::vector<hand::Tendon>& tendons = engine_->hand.tendons;
  for (std::size_t t = 0; t < tendons.size(); ++t) {
    sim::ActuatorTrajectory trajectory;
    if (t < tendon_targets_.size()) {
      // Runs start with every tendon at the end of its range nearest to 0
      // (Simulator::initialState).
      const double from = std::clamp(0.0, tendons[t].lower, tendons[t].upper);
      const double velocity = (tendons[t].upper - tendons[t].lower) / kAutoGraspRangeSeconds;
      if (velocity > 0.0)
        trajectory.append(
            sim::TrapezoidalProfile(from, tendon_targets_[t], velocity,
                                    velocity / (kAutoGraspRampFraction * kAutoGraspRangeSeconds)));
    } else if (t < scenario_tendons_.size()) {
      trajectory = scenario_tendons_[t];
    }
    engine_->simulator.setTendonTrajectory(static_cast<int>(t), trajectory);
  }
}

const std::vector<sim::ActuatorTrajectory>& SimulationController::simulatorTrajectories() const {
  return engine_->simulator.trajectories();
}

void SimulationController::setInitialPositions(std::vector<double> positions) {
  initial_ = std::move(positions);
  applyTrajectories();
}

double SimulationController::duration() const {
  if (duration_ > 0.0) return duration_;
  double end = 0.0;
  for (const auto& t : engine_->simulator.trajectories()) end = std::max(end, t.end());
  return end > 0.0 ? end + 0.5 : 0.0;
}

void SimulationController::loadScenario(const std::string& path) {
  const sim::Scenario scenario = sim::loadScenario(path);  // throws; nothing changed yet
  setRunning(false);
  engine_ = std::make_unique<Engine>(scenario.hand, scenario.options);
  objects_ = scenario.objects;
  palm_pose_ = Eigen::Isometry3d::Identity();
  objects_dirty_ = true;
  hand_source_ = scenario.hand.source_file.empty() ? scenario.hand.id : scenario.hand.source_file;
  initial_ = scenario.initial;
  initial_tendons_ = scenario.initial_tendons;
  scenario_tendons_ = scenario.tendon_trajectories;
  if (scenario.controller) {
    engine_->grasp_options = scenario.controller;
    engine_->grasp.emplace(engine_->hand, *scenario.controller);
    const std::optional<sim::HybridGraspController>* g = &engine_->grasp;
    engine_->recorder.addChannel("controller.phase", "", [g](const sim::SimState&) {
      return static_cast<double>((*g)->phase());
    });
    engine_->recorder.addChannel("controller.force", "N",
                                 [g](const sim::SimState&) { return (*g)->totalForce(); });
    engine_->recorder.addChannel("controller.force_reference", "N",
                                 [g](const sim::SimState&) { return (*g)->reference()[1]; });
    for (int i = 0; i < 4; ++i)
      engine_->recorder.addChannel("controller.x" + std::to_string(i + 1), i == 0 ? "rad" : "m",
                                   [g, i](const sim::SimState&) { return (*g)->x()[i]; });
  }
  duration_ = scenario.duration;
  segments_.clear();
  tendon_targets_.clear();
  for (std::size_t a = 0; a < scenario.trajectories.size(); ++a)
    for (const sim::TrapezoidalProfile& p : scenario.trajectories[a].segments()) {
      // A trapezoid's peak velocity is its cruise limit; for a triangular one the limit was
      // not reached, and the acceleration phase gives it back exactly.
      TrajectorySegment s;
      s.actuator = static_cast<int>(a);
      s.to = p.to();
      s.start = p.start();
      const double ta = p.accelerationTime();
      s.max_acceleration = ta > 0.0 ? p.peakVelocity() / ta : 1.0;
      s.max_velocity =
          p.triangular() ? p.peakVelocity() * 1.0000001 : std::max(p.peakVelocity(), 1e-9);
      segments_.push_back(s);
    }
  resetRun();
  Q_EMIT handChanged();
  Q_EMIT objectsChanged();
  Q_EMIT trajectoriesChanged();
  Q_EMIT snapshotChanged();
}

void SimulationController::play() {
  if (scrubbing_) scrubbing_ = false;
  const double end = duration();
  if (end > 0.0 && live_.time >= end) resetRun();
  setRunning(true);
}

void SimulationController::pause() {
  setRunning(false);
}

void SimulationController::setRunning(bool running) {
  if (running == running_) return;
  running_ = running;
  accumulator_ = 0.0;
  if (running) {
    clock_.start();
    rtf_clock_.start();
    rtf_sim_start_ = live_.time;
    timer_.start();
  } else {
    timer_.stop();
    measured_rtf_ = 0.0;
  }
  Q_EMIT runningChanged(running);
}

void SimulationController::resetRun() {
  const bool was_running = running_;
  setRunning(false);
  scrubbing_ = false;
  applyTrajectories();
  live_ = engine_->simulator.initialState(
      initial_.size() == engine_->hand.actuators.size() ? initial_ : std::vector<double>{});
  if (initial_tendons_.size() == live_.tendon_position.size())
    live_.tendon_position = live_.tendon_command = initial_tendons_;
  if (engine_->grasp_options) engine_->grasp.emplace(engine_->hand, *engine_->grasp_options);
  engine_->recorder.clear();
  engine_->recorder.record(live_);
  history_.assign(1, live_);
  warnings_seen_ = 0;
  Q_EMIT snapshotChanged();
  if (was_running) setRunning(true);
}

void SimulationController::stepOnce() {
  syncObjectsToSimulator();
  if (engine_->grasp) engine_->grasp->update(live_, engine_->simulator.options().dt);
  engine_->simulator.step(live_);
  engine_->recorder.record(live_);
  if (live_.step % kHistoryStride == 0) history_.push_back(live_);
  if (live_.warning_count > warnings_seen_) {
    warnings_seen_ = live_.warning_count;
    if (!live_.warnings.empty()) Q_EMIT warning(QString::fromStdString(live_.warnings.back()));
  }
}

void SimulationController::singleStep() {
  setRunning(false);
  scrubbing_ = false;
  stepOnce();
  Q_EMIT snapshotChanged();
}

void SimulationController::setSpeed(double factor) {
  if (std::isfinite(factor) && factor > 0.0) speed_ = factor;
}

void SimulationController::advance(double real_seconds) {
  const double dt = engine_->simulator.options().dt;
  accumulator_ += std::min(real_seconds, kMaxRealGap) * speed_;
  accumulator_ = std::min(accumulator_, kMaxSimSecondsPerFrame);
  const double end = duration();
  // The tolerance keeps sums of frame times such as 10 x 0.05 s from losing a step to rounding.
  while (accumulator_ >= dt * (1.0 - 1e-9)) {
    if (end > 0.0 && live_.time >= end - 0.5 * dt) {
      if (loop_) {
        resetRun();
        continue;
      }
      setRunning(false);
      break;
    }
    stepOnce();
    accumulator_ -= dt;
  }
  Q_EMIT snapshotChanged();
}

void SimulationController::onTick() {
  const double real = static_cast<double>(clock_.nsecsElapsed()) * 1e-9;
  clock_.restart();
  advance(real);
  const double window = static_cast<double>(rtf_clock_.nsecsElapsed()) * 1e-9;
  if (window >= 1.0) {
    measured_rtf_ = (live_.time - rtf_sim_start_) / window;
    rtf_sim_start_ = live_.time;
    rtf_clock_.restart();
  }
}

void SimulationController::scrubTo(int index) {
  if (index < 0 || history_.empty()) {
    scrubbing_ = false;
  } else {
    setRunning(false);
    scrubbing_ = true;
    scrub_index_ = std::min(index, static_cast<int>(history_.size()) - 1);
  }
  Q_EMIT snapshotChanged();
}

}  // namespace handsim::app
