// SPDX-License-Identifier: GPL-3.0-or-later
// The run loop: references and controller between the staged steps, rows into the recorder.
#include "handsim/sim/run.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "handsim/sim/stability.hpp"
#include "handsim/sim/step.hpp"

namespace handsim::sim {

Run::Run(std::shared_ptr<const Model> model, RunPlan plan) : model_(std::move(model)) {
  if (!model_) throw std::invalid_argument("Run: no model");
  setPlan(std::move(plan));
}

void Run::check(const RunPlan& p) const {
  const hand::HandModel& hand = model_->hand();
  const std::size_t na = hand.actuators.size(), nt = hand.tendons.size();
  auto sized = [](std::size_t got, std::size_t want, const char* what) {
    if (got != 0 && got != want)
      throw std::invalid_argument(std::string("run plan: ") + what + ": expected " +
                                  std::to_string(want) + " entries, got " + std::to_string(got));
  };
  sized(p.initial.size(), na, "initial actuator positions");
  sized(p.initial_tendons.size(), nt, "initial tendon retractions");
  sized(p.trajectories.size(), na, "actuator trajectories");
  sized(p.tendon_trajectories.size(), nt, "tendon trajectories");
  sized(p.object_pose_world.size(), model_->objects.size(), "object poses");
  for (const auto& pose : p.object_pose_world)
    if (!pose.matrix().allFinite()) throw std::invalid_argument("run plan: object pose not finite");
  sized(p.object_twist_world.size(), model_->objects.size(), "object twists");
  for (std::size_t o = 0; o < p.object_twist_world.size(); ++o)
    if (!p.object_twist_world[o].allFinite())
      throw std::invalid_argument("run plan: object " + std::to_string(o) + " ('" +
                                  model_->objects[o].name + "'): start twist not finite");
  for (double v : p.initial_tendons)
    if (!std::isfinite(v)) throw std::invalid_argument("run plan: tendon retraction not finite");
  if (!(p.duration >= 0.0) || !std::isfinite(p.duration))
    throw std::invalid_argument("run plan: duration must be finite and not negative");
  if (p.duration / model_->options.dt > 1e9)
    throw std::invalid_argument("run plan: more than 1e9 steps");
  if (p.record_every < 1) throw std::invalid_argument("run plan: record_every must be >= 1");
  for (int a = 0; a < 6; ++a)
    for (const Sinusoid& sin : p.palm_motion.axis(a).sinusoids)
      if (!std::isfinite(sin.amplitude) || !(sin.frequency_hz > 0.0) ||
          !std::isfinite(sin.frequency_hz) || !(sin.cycles > 0.0) || !std::isfinite(sin.cycles) ||
          !std::isfinite(sin.start))
        throw std::invalid_argument(std::string("run plan: palm motion '") +
                                    PalmMotion::axisName(a) +
                                    "': a sinusoid needs finite values, frequency and cycles > 0");
  const hand::ArmModel& arm = model_->hand().arm;
  if (arm.empty() && (!p.arm.initial.empty() || !p.arm.motion.empty()))
    throw std::invalid_argument("run plan: arm positions or motions, but the hand has no arm");
  if (!arm.empty()) checkArmPlan(arm, p.arm);
  if (p.arm.drives() && !p.palm_motion.empty())
    throw std::invalid_argument(
        "run plan: both an arm motion and a palm motion; the arm's motion moves the palm, give "
        "one of them");
}

void Run::setPlan(RunPlan plan) {
  check(plan);
  // Validates the controller against the hand before anything changes.
  std::optional<HybridGraspController> controller;
  if (plan.controller) controller.emplace(model_->hand(), *plan.controller);
  plan_ = std::move(plan);
  total_steps_ = static_cast<std::int64_t>(std::llround(plan_.duration / model_->options.dt));
  controller_.reset();
  recorder_ = makeRecorder();
  reset();
}

std::unique_ptr<Recorder> Run::makeRecorder() const {
  auto recorder = std::make_unique<Recorder>(model_->hand());
  recorder->setKeptRows(plan_.kept_rows);
  addBodyChannels(*recorder, &model_, !plan_.palm_motion.empty() || plan_.arm.drives());
  const hand::ArmModel& arm = model_->hand().arm;
  for (int j = 0; j < arm.dof(); ++j) {
    const kinematics::DhRow& row =
        arm.chain.rows[static_cast<std::size_t>(arm.chain.rowOfJoint(j))];
    recorder->addChannel(
        "arm." + arm.chain.joint_names[static_cast<std::size_t>(arm.chain.rowOfJoint(j))],
        row.type == kinematics::JointType::Prismatic ? "m" : "rad", [j](const SimState& s) {
          return j < s.arm_position.size() ? s.arm_position[j]
                                           : std::numeric_limits<double>::quiet_NaN();
        });
  }
  if (plan_.controller) {
    const std::optional<HybridGraspController>* c = &controller_;
    recorder->addChannel("controller.phase", "",
                         [c](const SimState&) { return static_cast<double>((*c)->phase()); });
    recorder->addChannel("controller.force", "N",
                         [c](const SimState&) { return (*c)->totalForce(); });
    recorder->addChannel("controller.force_reference", "N",
                         [c](const SimState&) { return (*c)->reference()[1]; });
    // x = T q: the thumb-base angle, then tendon retractions (seed 002 eq. 1).
    for (int i = 0; i < 4; ++i)
      recorder->addChannel("controller.x" + std::to_string(i + 1), i == 0 ? "rad" : "m",
                           [c, i](const SimState&) { return (*c)->x()[i]; });
  }
  return recorder;
}

bool Run::updateRecorderColumns() {
  std::unique_ptr<Recorder> fresh = makeRecorder();
  if (fresh->columns() == recorder_->columns()) return false;
  if (state_.step == 0)
    fresh->record(state_);  // nothing ran yet: the first row, complete
  else
    fresh->adoptRows(*recorder_);  // new columns read NaN before now
  recorder_ = std::move(fresh);
  return true;
}

PalmKinematics Run::armAt(double t) {
  const hand::ArmModel& arm = model_->hand().arm;
  const ArmJointState js = armJointsAt(plan_.arm, arm.dof(), t);
  state_.arm_position = js.q;
  return armPalmKinematics(arm.chain, arm_base_world_, js.q, js.qd, js.qdd);
}

void Run::applyPalmMotion(double t) {
  if (arm_drives_) {
    const PalmKinematics k = armAt(t);
    state_.palm_pose_world = k.pose_world;
    state_.palm_twist_world << k.linear_velocity_world, k.angular_velocity_world;
    state_.palm_acceleration_world << k.linear_acceleration_world, k.angular_acceleration_world;
    return;
  }
  if (palm_motion_.empty()) return;
  const PalmKinematics k = palm_motion_.at(palm_start_, t);
  state_.palm_pose_world = k.pose_world;
  state_.palm_twist_world << k.linear_velocity_world, k.angular_velocity_world;
  state_.palm_acceleration_world << k.linear_acceleration_world, k.angular_acceleration_world;
}

void Run::setLivePalmMotion(PalmMotion motion) {
  for (int a = 0; a < 6; ++a)
    for (const Sinusoid& sin : motion.axis(a).sinusoids)
      if (!std::isfinite(sin.amplitude) || !(sin.frequency_hz > 0.0) || !(sin.cycles > 0.0))
        throw std::invalid_argument("Run::setLivePalmMotion: a sinusoid needs finite values");
  palm_start_ = state_.palm_pose_world;
  palm_motion_ = std::move(motion);
  arm_drives_ = false;  // the live Cartesian motion takes over; the arm stays where it was
}

void Run::reset() {
  state_ = makeState(*model_, plan_.initial, plan_.palm_pose_world, plan_.object_pose_world,
                     plan_.object_twist_world);
  time_origin_ = state_.time;
  step_origin_ = state_.step;
  palm_motion_ = plan_.palm_motion;
  palm_start_ = plan_.palm_pose_world;
  const hand::ArmModel& arm = model_->hand().arm;
  arm_drives_ = !arm.empty() && plan_.arm.drives();
  if (!arm.empty()) {
    state_.arm_position = armJointsAt(plan_.arm, arm.dof(), 0.0).q;
    // The palm starts at the plan's pose; the arm's base is where that puts it.
    arm_base_world_ = plan_.palm_pose_world * armPalmPose(arm.chain, state_.arm_position).inverse();
  }
  if (!plan_.initial_tendons.empty())
    state_.tendon_position = state_.tendon_command = plan_.initial_tendons;
  applyPalmMotion(0.0);
  if (plan_.controller) controller_.emplace(model_->hand(), *plan_.controller);
  // What a run should know before its first step: a step beyond the stable limit of the
  // explicit servo and tendon forces, objects that start inside the hand.
  const StepLimit limit = stableStep(*model_, state_);
  if (model_->options.dt > limit.dt_max)
    addWarning(state_, "dt = " + shortNumber(model_->options.dt) + " s is above the stable step " +
                           shortNumber(limit.dt_max) + " s of " + limit.what +
                           "; the run will diverge");
  if (handTouchesObjects(*model_, state_))
    addWarning(state_,
               "an object overlaps the hand at the start; contacts push it no further "
               "in but cannot push it out");
  recorder_->clear();
  recorder_->record(state_);
}

void writeReferences(const RunPlan& plan, const PalmMotion& palm,
                     const Eigen::Isometry3d& palm_start_world, SimState& s, double t_next) {
  // The palm moves with the velocity and acceleration it has at the end of the step
  // (semi-implicit, as the joints); its pose there is set exactly after the step.
  if (!palm.empty()) {
    const PalmKinematics k = palm.at(palm_start_world, t_next);
    s.palm_twist_world << k.linear_velocity_world, k.angular_velocity_world;
    s.palm_acceleration_world << k.linear_acceleration_world, k.angular_acceleration_world;
  }
  // The servo tracks where the motor should be at the end of the step.
  for (std::size_t a = 0; a < s.actuator_reference.size(); ++a) {
    if (a < plan.trajectories.size()) {
      s.actuator_reference[a] = plan.trajectories[a].position(t_next, s.actuator_command[a]);
      s.actuator_reference_velocity[a] = plan.trajectories[a].velocity(t_next);
    } else {
      s.actuator_reference[a] = s.actuator_command[a];
      s.actuator_reference_velocity[a] = 0.0;
    }
  }
  for (std::size_t t = 0; t < s.tendon_position.size(); ++t)
    s.tendon_position[t] = t < plan.tendon_trajectories.size()
                               ? plan.tendon_trajectories[t].position(t_next, s.tendon_command[t])
                               : s.tendon_command[t];
}

void Run::step() {
  if (controller_) controller_->update(state_, model_->options.dt);
  static const PalmMotion kNoMotion;
  writeReferences(plan_, arm_drives_ ? kNoMotion : palm_motion_, palm_start_, state_,
                  state_.time + model_->options.dt);
  if (arm_drives_) {
    // As writeReferences does for the Cartesian motion: the twist and acceleration at the
    // end of the step.
    const PalmKinematics k = armAt(state_.time + model_->options.dt);
    state_.palm_twist_world << k.linear_velocity_world, k.angular_velocity_world;
    state_.palm_acceleration_world << k.linear_acceleration_world, k.angular_acceleration_world;
  }
  sim::step(*model_, state_);
  state_.time = time_origin_ + static_cast<double>(state_.step - step_origin_) * model_->options.dt;
  if (arm_drives_)
    state_.palm_pose_world = armAt(state_.time).pose_world;
  else if (!palm_motion_.empty())
    state_.palm_pose_world = palm_motion_.at(palm_start_, state_.time).pose_world;
  if (state_.step % plan_.record_every == 0 || state_.step == total_steps_)
    recorder_->record(state_);
}

void Run::runToEnd(const std::function<void(double)>& progress) {
  if (total_steps_ <= 0) throw std::logic_error("Run::runToEnd: the plan has no end");
  const std::int64_t every_percent = std::max<std::int64_t>(1, total_steps_ / 100);
  while (!finished()) {
    step();
    if (progress && state_.step % every_percent == 0)
      progress(static_cast<double>(state_.step) / static_cast<double>(total_steps_));
  }
}

void Run::setModel(std::shared_ptr<const Model> model) {
  if (!model || model->hand_ptr != model_->hand_ptr)
    throw std::invalid_argument("Run::setModel: the model must be of the same hand");
  model_ = std::move(model);
  time_origin_ = state_.time;
  step_origin_ = state_.step;
  total_steps_ = static_cast<std::int64_t>(std::llround(plan_.duration / model_->options.dt));
  matchObjects(*model_, state_);
  // Resting pairs remember contacts of the old model's bodies (an object replaced where it
  // stood would keep its predecessor's contacts): the new model queries afresh.
  state_.resting_pairs = RestingPairs{};
}

}  // namespace handsim::sim
