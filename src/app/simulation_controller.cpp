// SPDX-License-Identifier: GPL-3.0-or-later
#include "simulation_controller.hpp"

#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/hand/transmission_ik.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/unreachable_target.hpp"
#include "handsim/planner/grasp_defaults.hpp"
#include "handsim/sim/arm_motion.hpp"
#include "handsim/sim/object_names.hpp"
#include "handsim/sim/step.hpp"
#include "handsim/sim/teleport.hpp"
#include "handsim/sim/trapezoidal_profile.hpp"
#include "handsim/tools/grasp_closing.hpp"
#include "handsim/tools/lift_and_shake.hpp"

namespace handsim::app {

namespace {
// The run's timer: each tick advances the run and asks the viewport for a frame, drawn at once
// (OsgViewport::requestFrame), so the timer sets the frame rate. 14 ms (71 fps) rather than
// 16: at 16 ms the application made 62.4 fps on llvmpipe, no margin for a late tick before it
// falls under 60 (docs/performance.md, viewport).
constexpr int kFramePeriodMs = 14;
// At most this much simulated time per frame, so a slow machine falls behind real time
// instead of freezing the window (the status bar shows the real-time factor).
// A step costs microseconds, so even software-rendered 4 fps keeps real time.
constexpr double kMaxSimSecondsPerFrame = 0.25;
// Longest wall-clock gap the accumulator accepts (e.g. after a modal dialog).
constexpr double kMaxRealGap = 0.25;
// A saved scene without trajectories still needs a length to run from the command line.
constexpr double kDefaultSavedDuration = 1.0;
// Lift Palm: the trapezoid's speed and acceleration along "up" [m/s, m/s^2], and the time the
// run goes on after it so that whether the object stays shows.
constexpr double kLiftVelocity = 0.05;
constexpr double kLiftAcceleration = 0.25;
constexpr double kLiftSettleSeconds = 0.5;
}  // namespace

SimulationController::SimulationController(QObject* parent) : QObject(parent) {
  timer_.setInterval(kFramePeriodMs);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &SimulationController::onTick);
  loadHand("barrett");
}

SimulationController::~SimulationController() = default;

void SimulationController::replaceScene(sim::Scenario scene,
                                        std::shared_ptr<const sim::Model> model) {
  setRunning(false);
  perturb_object_ = -1;
  scene_ = std::move(scene);
  scene_.objects = model->objects;  // with the names the model made unique
  run_ = std::make_unique<sim::Run>(std::move(model), sim::RunPlan{});
  segments_.clear();
  closing_tendons_.clear();
  scenario_tendons_.clear();
  duration_ = 0.0;
}

SimulationController::PreparedHand SimulationController::prepareHand(
    const std::string& id_or_path, const std::string& palm_link) {
  // Everything that can fail (the hand file, its link meshes) comes first: a bad hand leaves
  // the scene as it was.
  auto hand = std::make_shared<const hand::HandModel>(
      palm_link.empty() ? hand::loadHand(id_or_path) : hand::loadHand(id_or_path, palm_link));
  return {id_or_path, palm_link, sim::compileModel(std::move(hand), {}, sim::Options{})};
}

void SimulationController::loadHand(const std::string& id_or_path,
                                    const std::string& palm_link) {
  installHand(prepareHand(id_or_path, palm_link));
}

void SimulationController::installHand(const PreparedHand& prepared) {
  pushUndo("hand");
  // The objects stay in the world where they are (a new hand meets the same scene).
  std::vector<sim::ObjectModel> objects;
  std::vector<Eigen::Isometry3d> poses;
  std::vector<sim::Twist> twists;
  sim::Options options = sim::Options{};
  if (run_) {
    objects = run_->model().objects;
    poses = scene_.plan.object_pose_world;
    twists = scene_.plan.object_twist_world;
    options = run_->model().options;
  }
  poses.resize(objects.size(), Eigen::Isometry3d::Identity());
  if (!twists.empty()) twists.resize(objects.size(), sim::Twist::Zero());
  const sim::Model& m = *prepared.model;
  auto model = objects.empty() && run_ == nullptr
                   ? prepared.model
                   : sim::compileModel(m.hand_ptr, objects, options, m.hand_geometry);
  sim::Scenario scene;
  scene.hand_ref = prepared.source;
  scene.palm_link = prepared.palm_link;
  scene.hand = m.hand_ptr;
  scene.options = options;
  scene.objects = objects;
  scene.plan.object_pose_world = poses;
  scene.plan.object_twist_world = twists;
  replaceScene(std::move(scene), std::move(model));
  resetRun();
  Q_EMIT handChanged();
  Q_EMIT objectsChanged();
  Q_EMIT trajectoriesChanged();
  Q_EMIT snapshotChanged();
}

sim::RunPlan SimulationController::plan() const {
  sim::RunPlan p = scene_.plan;
  p.duration = duration();
  p.kept_rows = kKeptRows;
  return p;
}

sim::Scenario SimulationController::scenario() const {
  sim::Scenario sc = scene_;
  sc.plan = run_->plan();
  // The start poses and velocities are the scene's plan's (the run's plan has them as of the
  // last reset; an object added since is in the scene's only).
  sc.plan.object_pose_world = scene_.plan.object_pose_world;
  sc.plan.object_twist_world = scene_.plan.object_twist_world;
  // So are the palm's and the arm's (moved since the last reset by the palm or arm controls);
  // they go together, since the arm's base is where they put it.
  sc.plan.palm_pose_world = scene_.plan.palm_pose_world;
  sc.plan.arm.initial = scene_.plan.arm.initial;
  sc.objects = run_->model().objects;
  if (!(sc.plan.duration > 0.0)) sc.plan.duration = kDefaultSavedDuration;
  return sc;
}

void SimulationController::saveScene(const std::string& path) const {
  sim::saveScenario(scenario(), path);
}

void SimulationController::newScene() {
  auto cube = readObjectFile(hand::assetDirectory() + "/objects/cube.wrl", 1.0,
                             sim::Options{}.contact.kdop_k);
  PreparedHand barrett = prepareHand("barrett");
  pushUndo("new");    // New can be undone like any edit
  setRunning(false);  // before the old run goes: listeners read the controller
  const bool was_quiet = quiet_;
  quiet_ = true;
  std::unique_ptr<sim::Run> old = std::move(run_);  // nothing of it stays: no objects, options
  installHand(barrett);
  old.reset();
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  // Above the palm between the three finger bases, where the closing fingers meet.
  pose.translation() = Eigen::Vector3d(0.0, 0.025, 0.13);
  reportWarnings(cube);
  addObject(std::move(cube), pose);
  quiet_ = was_quiet;
}

sim::ObjectModel SimulationController::readObjectFile(const std::string& path, double scale,
                                                      int kdop_k) {
  geometry::MeshLoadOptions options;
  options.scale = scale;
  sim::ObjectModel object = sim::loadObject(
      path, options, QFileInfo(QString::fromStdString(path)).completeBaseName().toStdString(),
      kdop_k);
  object.scale = scale;
  return object;
}

void SimulationController::reportWarnings(const sim::ObjectModel& object) {
  for (const std::string& w : object.warnings) Q_EMIT warning(QString::fromStdString(w));
}

int SimulationController::importObject(const std::string& path, const Eigen::Isometry3d& pose) {
  // Throws io::InputError before anything changes.
  sim::ObjectModel object = sim::loadObject(
      path, {}, QFileInfo(QString::fromStdString(path)).completeBaseName().toStdString(),
      run_->model().options.contact.kdop_k);
  for (const std::string& w : object.warnings) Q_EMIT warning(QString::fromStdString(w));
  return addObject(std::move(object), pose);
}

sim::ObjectModel SimulationController::loadObjectFile(const std::string& path, double scale) {
  sim::ObjectModel object = readObjectFile(path, scale, contactKdop());
  reportWarnings(object);
  return object;
}

sim::Placement SimulationController::placeInReach(const sim::ObjectModel& object,
                                                  bool ground) const {
  sim::PlacementOptions options;
  if (ground) options.ground_z = 0.0;
  return sim::placeObjectInReach(run_->model(), liveState(), object, options);
}

int SimulationController::addObject(sim::ObjectModel object, const Eigen::Isometry3d& pose) {
  pushUndo("add object");
  std::vector<sim::ObjectModel> objects = run_->model().objects;
  std::vector<Eigen::Isometry3d> poses = liveState().object_pose_world;
  objects.push_back(std::move(object));
  poses.push_back(pose);
  setObjects(std::move(objects), std::move(poses));
  return static_cast<int>(this->objects().size()) - 1;
}

void SimulationController::removeObject(int index) {
  if (index < 0 || index >= static_cast<int>(objects().size())) return;
  pushUndo("remove object");
  std::vector<sim::ObjectModel> objects = run_->model().objects;
  std::vector<Eigen::Isometry3d> poses = liveState().object_pose_world;
  objects.erase(objects.begin() + index);
  poses.erase(poses.begin() + index);
  // Its start velocity goes with it (the others keep theirs).
  std::vector<sim::Twist>& twists = scene_.plan.object_twist_world;
  if (static_cast<std::size_t>(index) < twists.size()) twists.erase(twists.begin() + index);
  setObjects(std::move(objects), std::move(poses));
}

void SimulationController::setObjectFree(int index, bool free) {
  if (index < 0 || index >= static_cast<int>(objects().size())) return;
  std::vector<sim::ObjectModel> objects = run_->model().objects;
  sim::ObjectModel& o = objects[static_cast<std::size_t>(index)];
  if (o.fixed == !free) return;
  if (free && !(o.mass.mass_kg > 0.0)) {
    Q_EMIT warning(tr("%1 has no mass (its mesh is not closed), so it cannot move freely")
                       .arg(QString::fromStdString(o.name)));
    return;
  }
  pushUndo("free");
  o.fixed = !free;
  std::vector<Eigen::Isometry3d> poses = liveState().object_pose_world;
  setObjects(std::move(objects), std::move(poses));
}

void SimulationController::setObjectFriction(int index, double mu, double torsional_m) {
  if (index < 0 || index >= static_cast<int>(objects().size())) return;
  if (!(mu >= 0.0) || !std::isfinite(mu) || !std::isfinite(torsional_m)) {
    Q_EMIT warning(tr("friction must be finite and not negative"));
    return;
  }
  std::vector<sim::ObjectModel> objects = run_->model().objects;
  sim::ObjectModel& o = objects[static_cast<std::size_t>(index)];
  const double torsional = torsional_m < 0.0 ? -1.0 : torsional_m;
  if (o.friction == mu && o.torsional == torsional) return;
  pushUndo("friction");
  o.friction = mu;
  o.torsional = torsional;
  std::vector<Eigen::Isometry3d> poses = liveState().object_pose_world;
  setObjects(std::move(objects), std::move(poses));
}

void SimulationController::setObjectDensity(int index, double density) {
  if (index < 0 || index >= static_cast<int>(objects().size())) return;
  std::vector<sim::ObjectModel> objects = run_->model().objects;
  sim::ObjectModel& o = objects[static_cast<std::size_t>(index)];
  if (!(density > 0.0) || !std::isfinite(density)) {
    Q_EMIT warning(tr("the density must be finite and positive"));
    return;
  }
  if (!(o.mass.mass_kg > 0.0)) {
    Q_EMIT warning(tr("%1 has no volume (its mesh is not closed), so it has no mass to set")
                       .arg(QString::fromStdString(o.name)));
    return;
  }
  if (density == o.density) return;
  pushUndo("density");
  o.warnings.clear();
  sim::computeMassProperties(o, density);
  o.density = density;
  std::vector<Eigen::Isometry3d> poses = liveState().object_pose_world;
  setObjects(std::move(objects), std::move(poses));
}

void SimulationController::setObjectMass(int index, double mass_kg) {
  if (index < 0 || index >= static_cast<int>(objects().size())) return;
  const double volume = objects()[static_cast<std::size_t>(index)].mass.volume_m3;
  if (!(volume > 0.0) || !(mass_kg > 0.0) || !std::isfinite(mass_kg)) {
    Q_EMIT warning(tr("the mass must be finite and positive, and the object closed"));
    return;
  }
  setObjectDensity(index, mass_kg / volume);
}

void SimulationController::replaceObjectGeometry(int index, sim::ObjectModel object) {
  if (index < 0 || index >= static_cast<int>(objects().size())) return;
  std::vector<sim::ObjectModel> objects = run_->model().objects;
  sim::ObjectModel& o = objects[static_cast<std::size_t>(index)];
  object.name = o.name;
  object.fixed = o.fixed || !(object.mass.mass_kg > 0.0);
  object.friction = o.friction;
  object.torsional = o.torsional;
  if (o.geometry->collision.shape != object.geometry->collision.shape) {
    // It collides as it did (e.g. as its convex hull), now at the new size.
    try {
      object.geometry =
          sim::withCollisionShape(*object.geometry, o.geometry->collision.shape, contactKdop());
    } catch (const std::exception& e) {
      Q_EMIT warning(QString::fromUtf8(e.what()));
      return;
    }
  }
  if (object.mass.mass_kg > 0.0 && o.density != object.density) {
    object.warnings.clear();
    sim::computeMassProperties(object, o.density);
    object.density = o.density;
  }
  pushUndo("scale");
  o = std::move(object);
  std::vector<Eigen::Isometry3d> poses = liveState().object_pose_world;
  setObjects(std::move(objects), std::move(poses));
}

void SimulationController::setGroundEnabled(bool enabled) {
  if (enabled == groundEnabled()) return;
  pushUndo("ground");
  sim::Options options = run_->model().options;
  options.ground.enabled = enabled;
  scene_.options = options;
  const sim::Model& m = run_->model();
  run_->setModel(sim::compileModel(m.hand_ptr, m.objects, options, m.hand_geometry));
  followRecorderColumns();
  Q_EMIT objectsChanged();
  Q_EMIT snapshotChanged();
}

void SimulationController::liftPalm(double height) {
  if (!(height > 0.0) || !std::isfinite(height)) return;
  scrubbing_ = false;
  const sim::SimState& s = run_->state();
  sim::PalmMotion motion;
  const double lift_end =
      sim::appendPalmLift(motion, sim::liftDirection(run_->model().options.gravity_world), height,
                          kLiftVelocity, kLiftAcceleration, s.time);
  run_->setLivePalmMotion(std::move(motion));
  live_lift_ = true;
  // A run with an end (e.g. after Auto Grasp, which may have stopped already) goes on past it
  // until the lift has ended and the object had time to slip.
  QString until;
  if (duration() > 0.0) {
    live_end_ = std::max(live_end_, lift_end + kLiftSettleSeconds);
    until = tr("; the run goes on to t = %1 s").arg(live_end_, 0, 'f', 3);
  }
  Q_EMIT statusMessage(tr("Lifting the palm %1 mm from t = %2 s%3")
                           .arg(height * 1000.0, 0, 'f', 0)
                           .arg(s.time, 0, 'f', 3)
                           .arg(until));
  if (!running_) play();
}

void SimulationController::followRecorderColumns() {
  // A free object brings its recorder columns (pose, velocities, kinetic energy, contact
  // forces per body pair; the ground's with the ground plane): the run's recorder takes them
  // over with the rows recorded so far, so the plot dock lists the new signals at once and
  // the run's curves stay.
  run_->updateRecorderColumns();
}

void SimulationController::clearObjects() {
  if (!objects().empty()) pushUndo("clear objects");
  setObjects({}, {});
}

void SimulationController::setObjects(std::vector<sim::ObjectModel> objects,
                                      std::vector<Eigen::Isometry3d> poses) {
  sim::makeObjectNamesUnique(objects);  // two cube.wrl: cube and cube_2
  scene_.objects = objects;
  scene_.plan.object_pose_world = poses;
  // Start velocities stay the plan's; an object added starts at rest.
  if (!scene_.plan.object_twist_world.empty())
    scene_.plan.object_twist_world.resize(objects.size(), sim::Twist::Zero());
  // The hand's meshes and trees are shared with the new model; only the list changes.
  run_->setModel(sim::withObjects(run_->model(), std::move(objects)));
  run_->state().object_pose_world = std::move(poses);
  run_->state().contacts.clear();
  followRecorderColumns();
  for (sim::SimState& h : history_) {
    h.object_pose_world = run_->state().object_pose_world;
    h.contacts.clear();
  }
  Q_EMIT objectsChanged();
  Q_EMIT snapshotChanged();
}

void SimulationController::setObjectPose(int index, const Eigen::Isometry3d& pose) {
  if (index < 0 || index >= static_cast<int>(objects().size()) || !pose.matrix().allFinite())
    return;
  pushUndo("object pose");
  // A change of state only: the object's tree stays as it was built.
  scene_.plan.object_pose_world[static_cast<std::size_t>(index)] = pose;
  sim::teleportObject(run_->model(), run_->state(), index, pose);
  scrubbing_ = false;
  Q_EMIT snapshotChanged();  // only transforms: redraw without rebuilding geometry
}

void SimulationController::jogPalm(const Eigen::Isometry3d& delta) {
  setPalmPose(liveState().palm_pose_world * delta);
}

void SimulationController::setPalmPose(const Eigen::Isometry3d& pose) {
  if (!pose.matrix().allFinite()) return;
  pushUndo("palm pose");
  scene_.plan.palm_pose_world = pose;
  sim::teleportPalm(run_->model(), run_->state(), pose);
  scrubbing_ = false;
  Q_EMIT snapshotChanged();
}

void SimulationController::setArmJoint(int joint, double value) {
  const hand::ArmModel& arm = hand().arm;
  if (arm.empty() || joint < 0 || joint >= arm.dof() || !std::isfinite(value)) return;
  if (running_ && scene_.plan.arm.drives()) return;
  const kinematics::DhRow& row = arm.chain.rows[static_cast<std::size_t>(arm.chain.rowOfJoint(joint))];
  value = std::clamp(value, row.lower, row.upper);
  Eigen::VectorXd q = liveState().arm_position;
  if (q.size() != arm.dof()) q = Eigen::VectorXd::Zero(arm.dof());
  if (q[joint] == value) return;
  q[joint] = value;
  pushUndo("arm pose");
  // The base stays where the run put it; the palm goes where the arm now holds it.
  const Eigen::Isometry3d palm = armBaseWorld() * sim::armPalmPose(arm.chain, q);
  scene_.plan.arm.initial.assign(q.data(), q.data() + q.size());
  scene_.plan.palm_pose_world = palm;
  scrubbing_ = false;
  if (!running_ && liveState().step == 0) {
    resetRun();  // the start pose: the run starts from it
  } else {
    sim::teleportPalm(run_->model(), run_->state(), palm);
    run_->state().arm_position = q;
  }
  Q_EMIT snapshotChanged();
}

void SimulationController::setActuatorCommand(int actuator, double value) {
  if (actuator < 0 || actuator >= static_cast<int>(liveState().actuator_command.size())) return;
  std::vector<double> values = liveState().actuator_command;
  values[static_cast<std::size_t>(actuator)] = value;
  setActuatorCommands(values);
}

void SimulationController::setActuatorCommands(const std::vector<double>& values) {
  if (values.size() != liveState().actuator_command.size()) return;
  for (double v : values)
    if (!std::isfinite(v)) return;
  const std::vector<double> clamped = hand::clampActuators(hand(), values);
  scrubbing_ = false;
  if (running_) {
    if (clamped != liveState().actuator_command) pushSetPointUndo();
    run_->state().actuator_command = clamped;
  } else if (liveState().step == 0) {
    // A pose set before a run starts is where it starts (and what a saved scene starts from).
    pushUndo("start pose");
    scene_.plan.initial = clamped;
    resetRun();
  } else {
    if (clamped != liveState().actuator_command) pushSetPointUndo();
    sim::teleportActuators(run_->model(), run_->state(), clamped);
  }
  Q_EMIT snapshotChanged();
}

std::vector<double> SimulationController::actuatorsForJoints(
    const std::vector<kinematics::JointVector>& q) const {
  return hand::actuatorsForJoints(hand(), q, liveState().actuator_command, liveState().clutches);
}

Eigen::Vector3d SimulationController::fingertip(int finger) const {
  // The fingertip every API means (hand::FingerPoint::Tip), the point moveFingertip and
  // followFingertip place.
  return hand::fingerPointPosition(hand(), finger, state().q.at(static_cast<std::size_t>(finger)),
                                   hand::FingerPoint::Tip);
}

std::optional<double> SimulationController::fingertipPhi(int finger) const {
  const kinematics::Chain& chain = hand().fingers.at(static_cast<std::size_t>(finger));
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
    setActuatorCommands(hand::fingertipActuators(
        hand(), finger, target, liveState().actuator_position, liveState().clutches, options));
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

double SimulationController::followFingertip(int finger, const Eigen::Vector3d& target,
                                             QString* error) {
  std::vector<double> actuators;
  try {
    actuators = hand::fingertipActuators(hand(), finger, target, liveState().actuator_position,
                                         liveState().clutches, hand::FingertipIkOptions{});
  } catch (const kinematics::UnreachableTarget& e) {
    // As close as the finger reaches.
    std::vector<kinematics::JointVector> q = liveState().q;
    q.at(static_cast<std::size_t>(finger)) = e.closest();
    actuators = actuatorsForJoints(q);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return std::numeric_limits<double>::quiet_NaN();
  }
  setActuatorCommands(actuators);
  return (fingertip(finger) - target).norm();
}

bool SimulationController::applyPose(const std::string& name) {
  const hand::NamedPose* pose = hand().pose(name);
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
  // Zero is a start pose like any other: Play, Reset Run and Save Scene start from it.
  pushUndo("zero");
  setRunning(false);
  scene_.plan.initial =
      hand::clampActuators(hand(), std::vector<double>(hand().actuators.size(), 0.0));
  resetRun();
}

std::vector<int> SimulationController::closingActuators() const {
  return hand().closing_actuators;
}

void SimulationController::autoGrasp() {
  const hand::HandModel& h = hand();
  std::vector<double> start = hand::clampActuators(h, state().actuator_position);
  sim::ClosingReferences closing;
  if (sim::canClose(h)) {
    closing = sim::closingReferences(h, start);
  } else {
    // A hand that names nothing (a URDF without a sidecar): the actuators the planner closes,
    // read from its kinematics (docs/planner.md), each towards its closing end.
    planner::GraspSummary g;
    try {
      g = planner::graspSummary(h);
    } catch (const std::exception&) {
    }
    if (g.closing_actuators.empty()) {
      Q_EMIT statusMessage(
          tr("Auto Grasp: the hand file names no closing actuators or tendons (its \"grasp\" "
             "key, see docs/hand-format.md) and none close its fingers; nothing moves"));
      return;
    }
    closing = sim::closingReferences(h, start, g.closing_actuators, g.closing_directions);
    Q_EMIT statusMessage(tr("Auto Grasp: closing %1 actuators inferred from the kinematics "
                            "(the hand file names none)")
                             .arg(g.closing_actuators.size()));
  }
  pushUndo("auto grasp");
  // The user's own closing motion replaces a scenario's tendon motions and controller.
  scenario_tendons_.clear();
  scene_.plan.initial_tendons.clear();
  scene_.plan.controller.reset();
  segments_ = sim::trajectorySegments(closing.actuators);
  // Tendons that do not close stay where runs start them.
  closing_tendons_ = std::move(closing.tendons);
  scene_.plan.initial = std::move(start);
  resetRun();  // applies the trajectories; the shown pose becomes time 0
  Q_EMIT trajectoriesChanged();
  play();
}

void SimulationController::setTrajectories(std::vector<TrajectorySegment> segments) {
  pushUndo("trajectories");
  closing_tendons_.clear();
  segments_ = std::move(segments);
  resetRun();  // a run follows one plan: new references start it anew
  Q_EMIT trajectoriesChanged();
}

void SimulationController::setPalmMotion(sim::PalmMotion motion) {
  pushUndo("palm motion");
  scene_.plan.palm_motion = std::move(motion);
  resetRun();  // the palm's recorder columns come with the plan
  Q_EMIT trajectoriesChanged();
}

void SimulationController::setTables(std::vector<TrajectorySegment> segments,
                                     sim::PalmMotion motion, bool edit) {
  if (edit) pushUndo("trajectories");
  const bool was_quiet = quiet_;
  quiet_ = true;
  setPalmMotion(std::move(motion));
  setTrajectories(std::move(segments));
  quiet_ = was_quiet;
}

void SimulationController::applyTrajectories() {
  scene_.plan.trajectories = sim::actuatorTrajectories(hand(), scene_.plan.initial, segments_);
  // Auto Grasp's tendon motion, else the loaded scenario's.
  scene_.plan.tendon_trajectories =
      !closing_tendons_.empty() ? closing_tendons_ : scenario_tendons_;
  scene_.plan.tendon_trajectories.resize(hand().tendons.size());
}

void SimulationController::setInitialPositions(std::vector<double> positions) {
  pushUndo("start pose");
  scene_.plan.initial = std::move(positions);
  resetRun();
}

double SimulationController::duration() const {
  if (duration_ > 0.0) return duration_;
  double end = 0.0;
  for (const auto& t : scene_.plan.trajectories) end = std::max(end, t.end());
  for (const auto& t : scene_.plan.tendon_trajectories) end = std::max(end, t.end());
  end = std::max(end, scene_.plan.palm_motion.end());
  return end > 0.0 ? end + 0.5 : 0.0;
}

SimulationController::PreparedScenario SimulationController::prepareScenario(
    const std::string& path) {
  sim::Scenario scenario = sim::loadScenario(path);  // throws; nothing changed yet
  auto model = sim::compileScenario(scenario);
  return {std::move(scenario), std::move(model)};
}

void SimulationController::loadScenario(const std::string& path) {
  installScenario(prepareScenario(path));
}

void SimulationController::installScenario(PreparedScenario prepared) {
  pushUndo("open");
  const double duration = prepared.scenario.plan.duration;
  replaceScene(std::move(prepared.scenario), std::move(prepared.model));
  duration_ = duration;
  scenario_tendons_ = scene_.plan.tendon_trajectories;
  // The start poses are the scenario's plan's (one per object, as the file placed them).
  for (const sim::ObjectModel& o : run_->model().objects)
    for (const std::string& w : o.warnings) Q_EMIT warning(QString::fromStdString(w));
  segments_ = sim::trajectorySegments(scene_.plan.trajectories);
  resetRun();
  Q_EMIT handChanged();
  Q_EMIT objectsChanged();
  Q_EMIT trajectoriesChanged();
  Q_EMIT snapshotChanged();
}

void SimulationController::play() {
  if (scrubbing_) scrubbing_ = false;
  if (finishedForGood()) resetRun();
  setRunning(true);
  if (idle())
    Q_EMIT statusMessage(
        tr("Nothing moves here: drag a slider, press G (Auto Grasp), add Trajectory rows or "
           "tick Free on an object"));
}

bool SimulationController::idle() const {
  const sim::RunPlan& p = run_->plan();
  const auto moving = [](const std::vector<sim::ActuatorTrajectory>& t) {
    return std::any_of(t.begin(), t.end(), [](const auto& a) { return !a.empty(); });
  };
  if (moving(p.trajectories) || moving(p.tendon_trajectories) || !p.palm_motion.empty() ||
      p.controller || live_lift_)
    return false;
  for (const sim::ObjectModel& o : run_->model().objects)
    if (!o.fixed) return false;
  const sim::SimState& s = liveState();
  for (std::size_t a = 0; a < s.actuator_position.size(); ++a)
    if (s.actuator_velocity[a] != 0.0 || std::abs(s.actuator_command[a] - s.actuator_position[a]) >
                                             1e-9 * std::max(1.0, std::abs(s.actuator_command[a])))
      return false;
  return true;
}

bool SimulationController::finishedForGood() const {
  const double end = duration();
  if (!(end > 0.0)) return false;
  const double dt = run_->model().options.dt;
  return liveState().time >= std::max(end, live_end_) - 0.5 * dt;
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
    rtf_sim_start_ = liveState().time;
    timer_.start();
  } else {
    timer_.stop();
    measured_rtf_.reset();
  }
  Q_EMIT runningChanged(running);
}

void SimulationController::resetRun() {
  const bool was_running = running_;
  setRunning(false);
  scrubbing_ = false;
  applyTrajectories();
  // The run starts anew from the scene's plan: initial positions, palm and object poses,
  // trajectories, controller; the recorder restarts with the first row.
  run_->setPlan(plan());
  history_.assign(1, liveState());
  history_stride_ = kHistoryStride;
  warnings_seen_ = 0;
  live_end_ = 0.0;
  live_lift_ = false;
  Q_EMIT snapshotChanged();
  if (was_running) setRunning(true);
}

bool SimulationController::setPerturbation(int object, const Eigen::Vector3d& grab_object,
                                           const Eigen::Vector3d& target_world) {
  if (object < 0 || object >= static_cast<int>(objects().size()) ||
      objects()[static_cast<std::size_t>(object)].fixed || !grab_object.allFinite() ||
      !target_world.allFinite())
    return false;
  perturb_object_ = object;
  perturb_grab_ = grab_object;
  perturb_target_ = target_world;
  return true;
}

void SimulationController::clearPerturbation() {
  perturb_object_ = -1;
  run_->state().object_applied_wrench_world.clear();
}

Eigen::Vector3d SimulationController::perturbationPoint() const {
  if (perturb_object_ < 0) return Eigen::Vector3d::Zero();
  return liveState().object_pose_world.at(static_cast<std::size_t>(perturb_object_)) *
         perturb_grab_;
}

void SimulationController::applyPerturbation() {
  sim::SimState& s = run_->state();
  if (perturb_object_ < 0) return;
  const auto o = static_cast<std::size_t>(perturb_object_);
  if (o >= objects().size() || objects()[o].fixed || o >= s.object_pose_world.size()) {
    clearPerturbation();
    return;
  }
  const geometry::MassProperties& mp = objects()[o].mass;
  const Eigen::Isometry3d& pose = s.object_pose_world[o];
  const Eigen::Vector3d com = pose * mp.centre_of_mass;
  const Eigen::Vector3d point = pose * perturb_grab_;
  const Eigen::Vector3d v =
      s.object_twist_world[o].head<3>() + s.object_twist_world[o].tail<3>().cross(point - com);
  const double w = 2.0 * 3.14159265358979323846 * kPerturbHz;
  const Eigen::Vector3d force = mp.mass_kg * (w * w * (perturb_target_ - point) - 2.0 * w * v);
  // Rotational damping at the same rate, scaled by the inertia as the force is by the mass:
  // alone it makes the angular momentum about the centre of mass decay as exp(-2 w t), so a
  // pulled object does not spin up or swing on about the grabbed point.
  const Eigen::Matrix3d inertia_world = pose.linear() * mp.inertia_com * pose.linear().transpose();
  const Eigen::Vector3d damping = -2.0 * w * inertia_world * s.object_twist_world[o].tail<3>();
  s.object_applied_wrench_world.assign(objects().size(), sim::Twist::Zero());
  s.object_applied_wrench_world[o] << force, (point - com).cross(force) + damping;
}

void SimulationController::stepOnce() {
  applyPerturbation();
  run_->step();
  const sim::SimState& s = liveState();
  if (s.step % history_stride_ == 0) {
    if (history_.size() >= kHistoryLimit && !scrubbing_) {
      // Keep states 0, 2, 4, ... (steps 0, 2 stride, ...) and double the stride.
      std::size_t kept = 0;
      for (std::size_t i = 0; i < history_.size(); i += 2) history_[kept++] = std::move(history_[i]);
      history_.resize(kept);
      history_stride_ *= 2;
    }
    if (s.step % history_stride_ == 0) history_.push_back(s);
  }
  if (s.warning_count > warnings_seen_) {
    warnings_seen_ = s.warning_count;
    if (!s.warnings.empty()) Q_EMIT warning(QString::fromStdString(s.warnings.back()));
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
  const double dt = run_->model().options.dt;
  accumulator_ += std::min(real_seconds, kMaxRealGap) * speed_;
  accumulator_ = std::min(accumulator_, kMaxSimSecondsPerFrame);
  // The tolerance keeps sums of frame times such as 10 x 0.05 s from losing a step to rounding.
  while (accumulator_ >= dt * (1.0 - 1e-9)) {
    if (finishedForGood()) {
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
    measured_rtf_ = (liveState().time - rtf_sim_start_) / window;
    rtf_sim_start_ = liveState().time;
    rtf_clock_.restart();
  }
}

SimulationController::SceneSnapshot SimulationController::snapshot() const {
  SceneSnapshot snap;
  snap.scene = scene_;
  snap.scene.objects = run_->model().objects;
  snap.scene.options = run_->model().options;
  snap.geometry = run_->model().hand_geometry;
  snap.segments = segments_;
  snap.closing_tendons = closing_tendons_;
  snap.scenario_tendons = scenario_tendons_;
  snap.duration = duration_;
  return snap;
}

void SimulationController::restore(const SceneSnapshot& snap) {
  const bool new_hand = snap.scene.hand != run_->model().hand_ptr;
  auto model =
      sim::compileModel(snap.scene.hand, snap.scene.objects, snap.scene.options, snap.geometry);
  replaceScene(snap.scene, std::move(model));
  segments_ = snap.segments;
  closing_tendons_ = snap.closing_tendons;
  scenario_tendons_ = snap.scenario_tendons;
  duration_ = snap.duration;
  resetRun();
  if (new_hand) Q_EMIT handChanged();
  Q_EMIT objectsChanged();
  Q_EMIT trajectoriesChanged();
  Q_EMIT snapshotChanged();
}

bool SimulationController::dragStepKept() {
  if (!dragging_) return false;
  if (drag_step_kept_) return true;
  drag_step_kept_ = true;
  return false;
}

void SimulationController::beginDrag() {
  dragging_ = true;
  drag_step_kept_ = false;
}

void SimulationController::endDrag() {
  dragging_ = false;
  drag_step_kept_ = false;
  undo_kind_ = nullptr;  // the next edit is a step of its own
}

void SimulationController::pushSetPointUndo() {
  static constexpr const char* kSetPoint = "set point";
  if (quiet_ || !run_ || dragStepKept()) return;
  const bool merge = !dragging_ && redo_.empty() && undo_kind_ == kSetPoint &&
                     undo_clock_.isValid() && undo_clock_.elapsed() < kMergeMs && !undo_.empty();
  undo_clock_.start();
  undo_kind_ = kSetPoint;
  if (merge) return;
  SceneSnapshot snap;
  snap.set_points = liveState().actuator_command;
  undo_.push_back(std::move(snap));
  if (undo_.size() > static_cast<std::size_t>(kUndoLimit)) undo_.erase(undo_.begin());
  redo_.clear();
  Q_EMIT undoChanged();
}

void SimulationController::pushUndo(const char* kind) {
  if (quiet_ || !run_ || dragStepKept()) return;
  const bool merge = !redo_.empty() ? false
                                    : undo_kind_ == kind && undo_clock_.isValid() &&
                                          undo_clock_.elapsed() < kMergeMs && !undo_.empty();
  undo_clock_.start();
  undo_kind_ = kind;
  if (merge) return;
  undo_.push_back(snapshot());
  if (undo_.size() > static_cast<std::size_t>(kUndoLimit)) undo_.erase(undo_.begin());
  redo_.clear();
  Q_EMIT undoChanged();
}

void SimulationController::undo() {
  if (undo_.empty()) return;
  SceneSnapshot snap = std::move(undo_.back());
  undo_.pop_back();
  undo_kind_ = nullptr;  // the next edit is a step of its own
  if (snap.set_points) {
    // A set point changed during the run: the previous ones come back, the run goes on.
    SceneSnapshot now;
    now.set_points = liveState().actuator_command;
    redo_.push_back(std::move(now));
    quiet_ = true;
    setActuatorCommands(*snap.set_points);
    quiet_ = false;
    Q_EMIT statusMessage(tr("Undone: the set points are back"));
    Q_EMIT undoChanged();
    return;
  }
  redo_.push_back(snapshot());
  quiet_ = true;
  restore(snap);
  quiet_ = false;
  Q_EMIT statusMessage(tr("Undone; the run starts anew"));
  Q_EMIT undoChanged();
}

void SimulationController::redo() {
  if (redo_.empty()) return;
  SceneSnapshot snap = std::move(redo_.back());
  redo_.pop_back();
  undo_kind_ = nullptr;
  if (snap.set_points) {
    SceneSnapshot now;
    now.set_points = liveState().actuator_command;
    undo_.push_back(std::move(now));
    quiet_ = true;
    setActuatorCommands(*snap.set_points);
    quiet_ = false;
    Q_EMIT statusMessage(tr("Redone: the set points are set again"));
    Q_EMIT undoChanged();
    return;
  }
  undo_.push_back(snapshot());
  quiet_ = true;
  restore(snap);
  quiet_ = false;
  Q_EMIT statusMessage(tr("Redone; the run starts anew"));
  Q_EMIT undoChanged();
}

void SimulationController::clearUndo() {
  undo_.clear();
  redo_.clear();
  undo_kind_ = nullptr;
  Q_EMIT undoChanged();
}

int SimulationController::historyIndexAt(double t) const {
  // History times increase with the index.
  const auto it = std::lower_bound(history_.begin(), history_.end(), t,
                                   [](const sim::SimState& s, double v) { return s.time < v; });
  if (it == history_.end()) return std::max(0, historySize() - 1);
  const int i = static_cast<int>(it - history_.begin());
  if (i > 0 && t - history_[static_cast<std::size_t>(i - 1)].time < it->time - t) return i - 1;
  return i;
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
