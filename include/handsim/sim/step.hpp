// SPDX-License-Identifier: GPL-3.0-or-later
// The staged step (docs/simulation.md): free functions over (const Model&, SimState&), each
// reading only what the stages before it wrote, in the order step() runs them:
//
//   detectContacts     bounding volumes and narrow phase: link-object contacts (geometry)
//   computeActuation   servo efforts from the references (or the torques given), tendon tensions
//   computeDynamics    Lagrange-Euler D, H, C per finger, reflected to actuator space
//   solveContacts      contact and limit impulses (projected Gauss-Seidel): contact forces
//   updateClutches     seed 000 eq. 9 from this step's contact forces; a clutch that breaks
//                      away or re-engages changes the transmission, so dynamics and contacts
//                      are solved again for the new one
//   computeJointTorques joint accelerations and the torques the drive applied
//   integrate          semi-implicit Euler on the actuators, limits
//   forwardPosition    transmission (eq. 1-4, 10) and forward kinematics of the new state
//   checkRunaway       counted warnings for runaway joint speeds and contact forces
//
// The references (SimState::actuator_reference and _velocity, tendon_position) are inputs
// written before the step, by sim::Run from trajectories and commands.
#pragma once

#include <vector>

#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

/// A state at rest on `model`: actuators at `actuator_positions` (empty: 0 clamped into each
/// range), commanded and referenced to stay there; tendons at the end of their range nearest
/// 0; the palm at `palm_pose_world`; objects at `object_poses_world` (object frame -> {W}, one
/// per model object; empty: every object at the world origin) moving with
/// `object_twists_world` (velocity of the centre of mass then angular velocity, {W}, one per
/// model object; empty: all at rest; a fixed object's entry is ignored, it stays at rest);
/// clutches engaged; link frames computed; workspace sized. The model holds no poses or
/// velocities: a run's start is its plan's (RunPlan::object_pose_world and object_twist_world,
/// which Run::reset passes here). Throws std::invalid_argument on a wrong size or a
/// non-finite value.
SimState makeState(const Model& model, const std::vector<double>& actuator_positions = {},
                   const Eigen::Isometry3d& palm_pose_world = Eigen::Isometry3d::Identity(),
                   const std::vector<Eigen::Isometry3d>& object_poses_world = {},
                   const std::vector<Twist>& object_twists_world = {});

/// Sizes the scratch of `state` for `model` (makeState does; step() does it for a copied
/// state, whose scratch is not copied).
void sizeWorkspace(const Model& model, SimState& state);

/// One fixed step of length model.options.dt: every stage below, in order.
void step(const Model& model, SimState& state);

/// Joint positions and velocities from the actuator state and clutches (eq. 1-4, 10), then
/// the link frames. Call it after editing actuator positions or velocities by hand.
void forwardPosition(const Model& model, SimState& state);

/// Resizes the object arrays of `state` to model.objects (objects beyond the old count start at
/// the world origin at rest: place and move them by setting SimState::object_pose_world and
/// object_twist_world), e.g. after the model was recompiled with another object.
void matchObjects(const Model& model, SimState& state);

// --- the stages --------------------------------------------------------------------------

/// Contacts between every link with a mesh and every object, at the link frames of the
/// state (SimState::contacts, world frame, forces 0).
void detectContacts(const Model& model, SimState& state);
/// Servo efforts (PD on the reference, at the primary joint; the given torque, clamped, for an
/// actuator in Torque mode) and tendon tensions.
void computeActuation(const Model& model, SimState& state);
/// Effective drives at the current clutch states, D, H, C per finger with gravity turned
/// into each finger's base frame, external loads, and the actuator-space inertia and forces.
void computeDynamics(const Model& model, SimState& state);
/// Unilateral velocity constraints of contacts and actuator ranges, solved together: first the
/// impact (an impulse, not felt by the clutch), then the step's accelerations; a contact's
/// impulse over dt is its sustained normal force (SimState::contacts[i].force).
void solveContacts(const Model& model, SimState& state);
/// Seed 000 eq. 9 load on each clutch from this step's contact forces and the external loads,
/// then the state machine (break-away while closing, re-engagement while opening). Returns
/// true when a clutch changed.
bool updateClutches(const Model& model, SimState& state);
/// Joint accelerations and the torques the drive applied (inverse dynamics of the step with
/// the contact forces as external forces).
void computeJointTorques(const Model& model, SimState& state);
/// Semi-implicit Euler on the actuators, clamped into their (joint-limit-narrowed) ranges;
/// advances time.
void integrate(const Model& model, SimState& state);
/// Counts a warning for every joint faster than kRunawayJointSpeed and every contact force
/// above kRunawayContactForce (sim/stability.hpp), and for non-finite ones: numerical trouble
/// is reported, never silent.
void checkRunaway(const Model& model, SimState& state);

// --- contact models ------------------------------------------------------------------------

/// A stage of the step: a free function over the model and the state.
using Stage = void (*)(const Model& model, SimState& state);

/// One contact model as the step sees it (ContactOptions::model): the same four stages for
/// every model, chosen once per step by contactModelStages. The constraint model detects
/// contacts from geometry and lets solveContacts find their forces (its other stages do
/// nothing); the volume penalty model of seed 004 computes forces from the overlap volumes
/// after the dynamics and reports them after the solve (sim/penalty_contacts.hpp). A new model
/// adds an alternative to ContactOptions::model and a case to contactModelStages
/// (docs/development.md, "Where code goes").
struct ContactModelStages {
  const char* name;  ///< as files call it: "default", "seed004"
  /// Before the dynamics: where the bodies touch (the contacts the solve will constrain).
  Stage detect;
  /// After the dynamics: forces the model computes itself, added to the accelerations.
  Stage add_forces;
  /// After the dynamics were computed again (a clutch changed the transmission): the same
  /// forces added again, without computing them anew.
  Stage add_forces_again;
  /// After each solve: the contacts and their forces written to the state for the clutch, the
  /// torques, the recorder and the viewport.
  Stage report;
};

/// The stages of `model`'s contact model.
const ContactModelStages& contactModelStages(const Model& model);

// --- frames --------------------------------------------------------------------------------

/// Finger f's base frame {k0} -> world.
Eigen::Isometry3d fingerBaseWorld(const Model& model, const SimState& state, int finger);
/// The frame {row + 1} of finger f (the link that row moves) -> world.
Eigen::Isometry3d linkPoseWorld(const Model& model, const SimState& state, int finger, int row);

/// Velocity [m/s] of the world point `p_world` carried by the palm's prescribed motion:
/// v_P + w_P x (p - o_P).
Eigen::Vector3d palmPointVelocityWorld(const SimState& state, const Eigen::Vector3d& p_world);

/// True when the palm or any link intersects any object in the state's configuration; stops at
/// the first intersecting triangle pair (a grasp candidate that starts in collision).
bool handTouchesObjects(const Model& model, const SimState& state);

/// Records a warning (counted always, its text kept for the first few).
void addWarning(SimState& state, const std::string& what);

}  // namespace handsim::sim
