// SPDX-License-Identifier: GPL-3.0-or-later
// The end of the step: semi-implicit Euler on the actuators and the free objects, the joints
// following the actuators through the transmission with their forward kinematics, and the
// runaway warnings that make numerical trouble visible.
#include <algorithm>
#include <cmath>
#include <string>

#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/sim/stability.hpp"
#include "handsim/sim/step.hpp"
#include "stages.hpp"

namespace handsim::sim {

using stages::idx;

void integrate(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  const double dt = model.options.dt;
  StepWorkspace& w = s.work;
  // Semi-implicit Euler; the clamp only removes rounding beyond the limits.
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    const auto ai = idx(a);
    double vel = w.velocity[ai];
    double p = std::clamp(s.actuator_position[a] + vel * dt, w.lower[ai], w.upper[ai]);
    if (!std::isfinite(p) || !std::isfinite(vel)) {
      addWarning(s, hand.actuators[a].name + ": state became non-finite; held in place");
      p = s.actuator_position[a];
      vel = 0.0;
      w.acceleration[ai] = 0.0;
    }
    s.actuator_position[a] = p;
    s.actuator_velocity[a] = vel;
    s.actuator_acceleration[a] = w.acceleration[ai];
  }
  stages::integrateObjects(model, s);
  s.time += dt;
  ++s.step;
}

void forwardPosition(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  hand::effectiveDrives(hand, s.clutches, s.work.drives);
  const auto& drives = s.work.drives;
  for (std::size_t f = 0; f < drives.size(); ++f) {
    for (std::size_t j = 0; j < drives[f].size(); ++j) {
      const auto& e = drives[f][j];
      const auto a = static_cast<std::size_t>(e.actuator);
      const auto jj = idx(j);
      s.q[f][jj] = e.ratio * s.actuator_position[a] + e.offset;
      s.qd[f][jj] = e.ratio * s.actuator_velocity[a];
    }
    kinematics::forwardKinematics(hand.fingers[f], s.q[f], s.link_frames[f]);
  }
}

void checkRunaway(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  for (std::size_t f = 0; f < s.qd.size(); ++f)
    for (Eigen::Index j = 0; j < s.qd[f].size(); ++j)
      if (!(std::abs(s.qd[f][j]) <= kRunawayJointSpeed))
        addWarning(s, "runaway: " + hand.jointName({static_cast<int>(f), static_cast<int>(j)}) +
                          " moves at " + std::to_string(s.qd[f][j]) + " (bound " +
                          std::to_string(kRunawayJointSpeed) + ")");
  for (const std::vector<Contact>* list : {&s.contacts, &s.link_contacts})
    for (const Contact& c : *list)
      if (!(c.force <= kRunawayContactForce))
        addWarning(s, "runaway: a contact on " +
                          hand.fingers[static_cast<std::size_t>(c.finger)].name + " pushes with " +
                          std::to_string(c.force) + " N (bound " +
                          std::to_string(kRunawayContactForce) + " N)");
}

}  // namespace handsim::sim
