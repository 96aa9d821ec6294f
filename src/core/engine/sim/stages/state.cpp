// SPDX-License-Identifier: GPL-3.0-or-later
// The state's setup and the small services every stage uses: a state at rest, the workspace
// sized so no step allocates, object arrays, frames, counted warnings (stages.hpp).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "handsim/hand/transmission.hpp"
#include "handsim/sim/penalty_contacts.hpp"
#include "handsim/sim/step.hpp"
#include "stages.hpp"

namespace handsim::sim {

namespace {

constexpr std::size_t kKeptWarnings = 20;

// An optional per-item list: empty, or `expected` entries ("<what>: expected N <unit>, got M").
void checkCountOrEmpty(std::size_t given, std::size_t expected, const char* what,
                       const char* unit) {
  if (given != 0 && given != expected)
    throw std::invalid_argument(std::string(what) + ": expected " + std::to_string(expected) + " " +
                                unit + ", got " + std::to_string(given));
}

// Start twists: none, or one finite twist per model object (the message names the object).
void checkObjectTwists(const Model& model, const std::vector<Twist>& twists) {
  checkCountOrEmpty(twists.size(), model.objects.size(), "object twists", "twists");
  for (std::size_t o = 0; o < twists.size(); ++o)
    if (!twists[o].allFinite())
      throw std::invalid_argument("object " + std::to_string(o) + " ('" + model.objects[o].name +
                                  "'): start twist is not finite");
}

}  // namespace

namespace stages {

std::size_t freeObjectCount(const Model& model) {
  std::size_t n = 0;
  for (const ObjectModel& o : model.objects) n += o.fixed ? 0 : 1;
  return n;
}

void stopObject(const Model& model, SimState& s, std::size_t o, const std::string& why) {
  addWarning(s, "object '" + model.objects[o].name + "' " + why + "; it is stopped where it was");
  s.object_stopped[o] = 1;
  s.object_twist_world[o].setZero();
}

void reserveRows(StepWorkspace& w, Eigen::Index rows, Eigen::Index n) {
  if (w.rows.rows() >= rows && w.rows.cols() == n) return;
  const Eigen::Index cap = std::max<Eigen::Index>(rows, 2 * w.rows.rows());
  w.rows.resize(cap, n);
  w.row_bias.resize(cap);
  w.minv_rows.resize(n, cap);
  w.delassus.resize(cap, cap);
  w.lambda.resize(cap);
  w.lambda_impact.resize(cap);
  w.row_push.resize(cap);
  w.lambda_position.resize(cap);
  w.row_normal.resize(cap);
  w.row_partner.resize(cap);
  w.row_mu.resize(cap);
  w.tangents.resize(static_cast<std::size_t>(cap));
  w.row_spin.resize(static_cast<std::size_t>(cap));
  w.friction_points.resize(static_cast<std::size_t>(cap));
  w.pgs.reserve(cap, n);
}

}  // namespace stages

using stages::freeObjectCount;
using stages::idx;
using stages::reserveRows;

void addWarning(SimState& s, const std::string& what) {
  ++s.warning_count;
  if (s.warnings.size() < kKeptWarnings)
    s.warnings.push_back("t = " + std::to_string(s.time) + " s: " + what);
}

Eigen::Isometry3d fingerBaseWorld(const Model& model, const SimState& s, int finger) {
  return s.palm_pose_world * model.hand().fingers.at(static_cast<std::size_t>(finger)).base;
}

Eigen::Isometry3d linkPoseWorld(const Model& model, const SimState& s, int finger, int row) {
  const auto f = static_cast<std::size_t>(finger);
  return s.palm_pose_world * (model.hand().fingers.at(f).base * s.link_frames.at(f).at(row + 1));
}

SimState makeState(const Model& model, const std::vector<double>& actuator_positions,
                   const Eigen::Isometry3d& palm_pose_world,
                   const std::vector<Eigen::Isometry3d>& object_poses_world,
                   const std::vector<Twist>& object_twists_world) {
  const hand::HandModel& hand = model.hand();
  const std::size_t na = hand.actuators.size();
  checkCountOrEmpty(actuator_positions.size(), na, "initial actuator positions", "values");
  for (double v : actuator_positions)
    if (!std::isfinite(v)) throw std::invalid_argument("initial actuator position is not finite");
  if (!palm_pose_world.matrix().allFinite()) throw std::invalid_argument("palm pose is not finite");
  checkCountOrEmpty(object_poses_world.size(), model.objects.size(), "object poses", "poses");
  for (const Eigen::Isometry3d& pose : object_poses_world)
    if (!pose.matrix().allFinite()) throw std::invalid_argument("object pose is not finite");
  checkObjectTwists(model, object_twists_world);
  SimState s;
  s.palm_pose_world = palm_pose_world;
  s.actuator_position = hand::clampActuators(
      hand, actuator_positions.empty() ? std::vector<double>(na, 0.0) : actuator_positions);
  s.actuator_velocity.assign(na, 0.0);
  s.actuator_acceleration.assign(na, 0.0);
  s.actuator_command = s.actuator_position;
  s.actuator_reference = s.actuator_position;
  s.actuator_reference_velocity.assign(na, 0.0);
  s.actuator_mode.assign(na, ActuatorMode::Position);
  s.actuator_torque.assign(na, 0.0);
  s.actuator_effort.assign(na, 0.0);
  s.actuator_limit_reaction.assign(na, 0.0);
  s.clutches.assign(hand.clutches.size(), {});
  s.inner_load_torque.assign(hand.clutches.size(), 0.0);
  for (const auto& t : hand.tendons) s.tendon_position.push_back(std::clamp(0.0, t.lower, t.upper));
  s.tendon_command = s.tendon_position;
  s.tendon_tension.assign(hand.tendons.size(), 0.0);
  for (const auto& f : hand.fingers) {
    s.q.emplace_back(kinematics::JointVector::Zero(f.dof()));
    s.qd.emplace_back(kinematics::JointVector::Zero(f.dof()));
    s.qdd.emplace_back(kinematics::JointVector::Zero(f.dof()));
    s.tau.emplace_back(kinematics::JointVector::Zero(f.dof()));
  }
  s.link_frames.resize(hand.fingers.size());
  matchObjects(model, s);
  if (!object_poses_world.empty()) s.object_pose_world = object_poses_world;
  // A fixed object stays at rest (its entry, if any, is ignored).
  for (std::size_t o = 0; o < object_twists_world.size(); ++o)
    if (!model.objects[o].fixed) s.object_twist_world[o] = object_twists_world[o];
  s.contacts.reserve(64);
  s.link_contacts.reserve(64);
  s.warnings.reserve(kKeptWarnings);
  sizeWorkspace(model, s);
  forwardPosition(model, s);
  return s;
}

void sizeWorkspace(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  const std::size_t na = hand.actuators.size();
  StepWorkspace& w = s.work;
  const auto nf = hand.fingers.size();
  hand::effectiveDrives(hand, s.clutches, w.drives);
  w.terms.resize(nf);
  w.external.resize(nf);
  w.qdd_drive.resize(nf);
  // Every joint-space buffer at its finger's size, the per-row scratch at the longest finger's:
  // chains of any length, and no step allocates for them.
  std::size_t longest = 0;
  for (std::size_t f = 0; f < nf; ++f) {
    const kinematics::Chain& chain = hand.fingers[f];
    const Eigen::Index dof = chain.dof();
    w.external[f] = kinematics::JointVector::Zero(dof);
    w.qdd_drive[f] = kinematics::JointVector::Zero(dof);
    w.terms[f].D = kinematics::JointMatrix::Zero(dof, dof);
    w.terms[f].H = kinematics::JointVector::Zero(dof);
    w.terms[f].C = kinematics::JointVector::Zero(dof);
    longest = std::max(longest, chain.rows.size());
  }
  w.lagrange_euler.pseudo.reserve(longest);
  w.lagrange_euler.delta.reserve(longest);
  w.lagrange_euler.acceleration.reserve(longest);
  w.lagrange_euler.joint.reserve(longest);
  w.mass = Eigen::MatrixXd::Zero(idx(na), idx(na));
  // Sized (and its status set) by one factorisation, so the first step allocates nothing
  // either; LDLT(size) would leave the status uninitialised.
  w.mass_ldlt.compute(Eigen::MatrixXd::Identity(idx(na), idx(na)));
  for (Eigen::VectorXd* v : {&w.bias, &w.force, &w.lower, &w.upper})
    *v = Eigen::VectorXd::Zero(idx(na));
  // Generalised velocities: the actuators, then 6 per free object (a slot each, kept while a
  // guard has stopped it).
  const std::size_t nb = freeObjectCount(model);
  const Eigen::Index n = idx(na + 6 * nb);
  for (Eigen::VectorXd* v :
       {&w.acceleration, &w.velocity_old, &w.velocity, &w.velocity_impact, &w.velocity_position})
    *v = Eigen::VectorXd::Zero(n);
  w.bodies.assign(nb, {});
  w.body_of_object.assign(model.objects.size(), -1);
  for (std::size_t o = 0, b = 0; o < model.objects.size(); ++o)
    if (!model.objects[o].fixed) w.bodies[b++].object = static_cast<int>(o);
  w.limit_rows.reserve(2 * na);
  std::size_t links = 0;
  for (const auto& chain : hand.fingers) links += chain.rows.size();
  w.link_poses.reserve(links);
  w.link_centres.reserve(links);
  w.object_centres.reserve(model.objects.size());
  s.object_contacts.reserve(64);
  reserveRows(w, idx(2 * na + 16), n);
}

void matchObjects(const Model& model, SimState& s) {
  const std::size_t old = s.object_pose_world.size();
  s.object_pose_world.resize(model.objects.size());
  s.object_twist_world.resize(model.objects.size(), Twist::Zero());
  s.object_stopped.resize(model.objects.size(), 0);
  for (std::size_t o = old; o < model.objects.size(); ++o)
    s.object_pose_world[o] = Eigen::Isometry3d::Identity();
  sizePenaltyState(model, s);  // volume penalty model: one memory per body pair
}

Eigen::Vector3d palmPointVelocityWorld(const SimState& s, const Eigen::Vector3d& p_world) {
  return s.palm_twist_world.head<3>() +
         s.palm_twist_world.tail<3>().cross(p_world - s.palm_pose_world.translation());
}

}  // namespace handsim::sim
