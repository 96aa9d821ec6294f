// SPDX-License-Identifier: GPL-3.0-or-later
// One fixed step of the simulation (docs/simulation.md), as the list of its stages. Each stage is
// a free function over (const Model&, SimState&) in a file of its own under stages/ (the map is
// in stages/stages.hpp); each reads only what the stages before it wrote.
//
// The hand: worm-geared drives that are not back-drivable, so every joint follows its actuator
// through the transmission (q = R a + q0, R from the clutch states; seed 000 eq. 1-4 and 10), and
// the dynamics are written in actuator coordinates,
//   (R^T D R + J_rotor) a'' = tau_servo + tau_tendon - R^T (H + C - tau_ext),
// D, H, C by Lagrange-Euler (seed 000 eq. 8). The free objects: rigid bodies, six velocities each
// (seed 004 eq. 1-2). Both meet in one velocity solve.
//
// Two contact models implement the same four stages (ContactModelStages: detect, add forces, add
// them again after a clutch change, report), chosen once per step (ContactOptions::model):
//  - the constraint model ("default" in files): contacts come from geometry (detectContacts);
//    contacts and actuator limits are unilateral velocity constraints with an isotropic
//    friction cone, solved by projected Gauss-Seidel (solveContacts), impact first, then the
//    step, then a position correction that moves bodies without giving them velocity;
//  - the volume penalty model of seed 004 ("seed004" in files; penalty_contacts.hpp):
//    forces from the overlap volume of each body pair are added to the dynamics
//    (computePenaltyContacts) and the velocity solve sees only the actuator limits.
#include "handsim/sim/step.hpp"

#include "handsim/sim/continuous_collision.hpp"
#include "handsim/sim/penalty_contacts.hpp"
#include "stages/stages.hpp"

namespace handsim::sim {

namespace {

// A copied state comes without its scratch (StepWorkspace is not copied): size it again.
void ensureWorkspace(const Model& model, SimState& s) {
  const StepWorkspace& w = s.work;
  if (w.drives.size() != model.fingerCount() ||
      w.mass.rows() != stages::idx(model.actuatorCount()) ||
      w.bodies.size() != stages::freeObjectCount(model) ||
      w.body_of_object.size() != model.objects.size())
    sizeWorkspace(model, s);
  if (s.object_stopped.size() != model.objects.size()) matchObjects(model, s);
}

void nothing(const Model&, SimState&) {}
void reportPenaltyContacts(const Model& model, SimState& s) {
  publishPenaltyContacts(s);
  for (std::vector<Contact>* list : {&s.contacts, &s.object_contacts, &s.link_contacts})
    nameContactBodies(model.bodies, *list);
}

}  // namespace

const ContactModelStages& contactModelStages(const Model& model) {
  static constexpr ContactModelStages kConstraint{"default", detectContacts, nothing, nothing,
                                                  nothing};
  static constexpr ContactModelStages kVolumePenalty{"seed004", nothing, computePenaltyContacts,
                                                     applyPenaltyContacts, reportPenaltyContacts};
  switch (model.options.contact.kind()) {
    case ContactModel::Constraint:
      return kConstraint;
    case ContactModel::VolumePenalty:
      return kVolumePenalty;
  }
  return kConstraint;
}

void step(const Model& model, SimState& s) {
  ensureWorkspace(model, s);
  s.solver_sweeps = 0;  // counted by every solve below
  const ContactModelStages& contacts = contactModelStages(model);

  // Where the bodies touch, and what drives the hand.
  contacts.detect(model, s);      // geometry: every body pair's contacts (constraint model)
  computeActuation(model, s);     // servo efforts, tendon tensions
  computeDynamics(model, s);      // actuator-space inertia and forces, free bodies
  contacts.add_forces(model, s);  // overlap-volume forces into the dynamics (penalty model)

  // The velocity solve: contacts, friction and actuator limits.
  solveContacts(model, s);
  contacts.report(model, s);

  // A clutch that breaks away or re-engages changes the transmission (seed 000 eq. 10): the
  // joints follow the actuators anew, and dynamics and contact forces are solved again for it.
  if (updateClutches(model, s)) {
    forwardPosition(model, s);
    computeDynamics(model, s);
    contacts.add_forces_again(model, s);
    solveContacts(model, s);
    contacts.report(model, s);
  }

  // What the drives applied, then the new state.
  computeJointTorques(model, s);
  beginContinuousCollision(model, s);  // fast free objects may not pass through thin ones
  integrate(model, s);
  applyContinuousCollision(model, s);
  forwardPosition(model, s);
  checkRunaway(model, s);
}

}  // namespace handsim::sim
