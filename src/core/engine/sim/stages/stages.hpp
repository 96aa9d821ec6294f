// SPDX-License-Identifier: GPL-3.0-or-later
// What the stage files of the step (src/core/engine/sim/stages/*.cpp) share and nothing else
// sees: the sub-stages step() does not call by name and the small helpers several stages need.
// The stages themselves are declared in handsim/sim/step.hpp; the order they run in is step.cpp.
//
//   state.cpp            makeState, the workspace, object arrays, frames, warnings
//   detect_contacts.cpp  every body pair's contacts (ground, palm, objects, links)
//   dynamics.cpp         servo efforts, tendon tensions; Lagrange-Euler per finger reflected to
//                        the actuators; actuator ranges
//   free_bodies.cpp      the free objects' unconstrained step and their integration
//   constraint_rows.cpp  contact, friction and limit rows of the velocity solve
//   solve_contacts.cpp   impact and step solves, warm start, position correction
//   clutches.cpp         seed 000 eq. 9 loads and the breakaway state machine
//   joint_torques.cpp    joint accelerations and the torques the drives applied
//   integrate.cpp        semi-implicit Euler, forward kinematics, runaway warnings
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <utility>

#include "handsim/contact/contact_jacobian.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"
#include "handsim/sim/step.hpp"

namespace handsim::sim::stages {

inline Eigen::Index idx(std::size_t i) {
  return static_cast<Eigen::Index>(i);
}

/// The constraint model's options (ContactOptions::constraint). The volume penalty model solves
/// no contact rows, so its stages that run in both models (the limit rows, the position
/// correction with nothing to correct) see the constraint model's defaults.
inline const ConstraintContactOptions& constraintOptions(const Model& model) {
  static const ConstraintContactOptions kDefaults;
  const ConstraintContactOptions* c = model.options.contact.constraint();
  return c ? *c : kDefaults;
}

/// Number of objects that are free in the model (each a body of the solver unless stopped).
std::size_t freeObjectCount(const Model& model);

/// True when object o moves in this state: free in the model and not stopped by a guard.
inline bool isMoving(const Model& model, const SimState& s, std::size_t o) {
  return !model.objects[o].fixed && o < s.object_stopped.size() && !s.object_stopped[o];
}

/// Stops a free object where it is, with a counted warning (numerical guards).
void stopObject(const Model& model, SimState& s, std::size_t o, const std::string& why);

/// Adds R^T J_v(p)^T d to the actuator-space vector or row `out`: the generalised force of a unit
/// force `d_world` at `p_world` on the link of finger `finger`, row `row`, and by duality the
/// velocity along d of that link point per unit of actuator velocity (the palm's motion apart).
/// A constraint row of the velocity solve, a penalty force's share of the actuators.
template <class Out>
void addLinkPointRow(const Model& model, const SimState& s, int finger, int row,
                     const Eigen::Vector3d& p_world, const Eigen::Vector3d& d_world, Out&& out) {
  const auto f = static_cast<std::size_t>(finger);
  const Eigen::Isometry3d to_base = fingerBaseWorld(model, s, finger).inverse();
  const std::vector<hand::EffectiveDrive>& drives = s.work.drives[f];
  contact::visitLinkPointJacobianTranspose(
      model.hand().fingers[f], s.link_frames[f], row, to_base * p_world, to_base.linear() * d_world,
      [&drives, &out](int j, double g) {
        const hand::EffectiveDrive& e = drives[static_cast<std::size_t>(j)];
        if (e.ratio != 0.0) out(static_cast<Eigen::Index>(e.actuator)) += e.ratio * g;
      });
}

/// Makes room for `rows` constraint rows over n generalised velocities; the capacity only
/// grows, so a run reaches a steady state without allocation.
void reserveRows(StepWorkspace& w, Eigen::Index rows, Eigen::Index n);

/// The free objects' part of the dynamics (free_bodies.cpp): inertia in the world, the
/// unconstrained velocity change of the step, body slots of the solver.
void computeObjectDynamics(const Model& model, SimState& s);

/// The free objects' integration and numerical guards (free_bodies.cpp).
void integrateObjects(const Model& model, SimState& s);

/// How many rows of each kind the velocity solve has, in the order they are stacked: hand
/// contacts, object contacts that are constraints, link-link contacts, actuator limits, then
/// friction (two tangent rows per contact on a free object, and a torsional one when any
/// object has a torsional length).
struct RowCounts {
  Eigen::Index hand = 0, object = 0, link = 0, limit = 0, friction = 0;
  Eigen::Index total() const { return hand + object + link + limit + friction; }
  Eigen::Index firstFriction() const { return hand + object + link + limit; }
};

/// Counts the rows of the state's contacts and limit rows (constraint_rows.cpp).
RowCounts countRows(const Model& model, const SimState& s);

/// Writes the rows J (velocities of approach, so J v >= bias), their right-hand sides, and for
/// friction rows their contact, partner row and coefficient, into the workspace
/// (constraint_rows.cpp); the workspace holds room for `counts.total()` rows.
void assembleRows(const Model& model, SimState& s, const RowCounts& counts);

}  // namespace handsim::sim::stages
