// SPDX-License-Identifier: GPL-3.0-or-later
// The BarrettHand's breakaway clutches in the step (docs/breakaway.md): seed 000 eq. 9, the load
// on each clutch's inner link from this step's contact forces and the external loads, then the
// clutch's state machine (hand/breakaway_clutch.hpp).
#include <cmath>
#include <string>

#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/sim/step.hpp"

namespace handsim::sim {

bool updateClutches(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  bool changed = false;
  for (std::size_t c = 0; c < hand.clutches.size(); ++c) {
    const auto& cm = hand.clutches[c];
    const auto fi = static_cast<std::size_t>(cm.inner.finger);
    const int inner_row = hand.fingers[fi].rowOfJoint(cm.inner.joint);
    const Eigen::Isometry3d to_base = fingerBaseWorld(model, s, cm.inner.finger).inverse();
    const kinematics::ChainFrames& frames = s.link_frames[fi];
    // Seed 000 eq. 9 with the external loads and this step's contact forces on the inner link.
    double load = 0.0;
    for (const LinkLoad& l : s.loads)
      if (l.finger == cm.inner.finger && l.row == inner_row)
        load += hand::innerLoadTorque(hand, cm, frames, to_base * l.point_world,
                                      to_base.linear() * l.force_world);
    for (const Contact& ct : s.contacts)
      if (ct.finger == cm.inner.finger && ct.row == inner_row && ct.force > 0.0)
        load += hand::innerLoadTorque(hand, cm, frames, to_base * ct.point_world,
                                      to_base.linear() * ct.forceOnLinkWorld(),
                                      to_base.linear() * (-ct.spin_moment * ct.normal_world));
    // Another finger (or the palm) pressing on the inner link loads the clutch the same way.
    for (const Contact& ct : s.link_contacts) {
      if (!(ct.force > 0.0)) continue;
      if (ct.finger == cm.inner.finger && ct.row == inner_row)
        load += hand::innerLoadTorque(hand, cm, frames, to_base * ct.point_world,
                                      to_base.linear() * ct.forceOnLinkWorld());
      if (ct.other_finger == cm.inner.finger && ct.other_row == inner_row)
        load += hand::innerLoadTorque(hand, cm, frames, to_base * ct.point_world,
                                      to_base.linear() * ct.forceOnObjectWorld());
    }
    s.inner_load_torque[c] = load;
    const auto a = static_cast<std::size_t>(cm.actuator);
    // A finger stopped by an object does not move, but its motor still drives it closed: judge
    // the direction by the velocity, or by the servo's push when the finger stands still.
    const double rho = hand.actuators[a].drives.front().ratio;
    const double drive = std::abs(s.actuator_velocity[a]) > model.options.solver.standstill_speed
                             ? s.actuator_velocity[a]
                             : rho * s.actuator_effort[a];
    const auto ev =
        hand::updateClutch(hand, cm, s.clutches[c], s.actuator_position[a], drive, load);
    if (ev == hand::ClutchEvent::BrokeAway) {
      addWarning(s, "clutch of " + hand.actuators[a].name + " broke away at " +
                        std::to_string(s.actuator_position[a]) + " " + hand.actuators[a].unit);
      changed = true;
    } else if (ev == hand::ClutchEvent::Reengaged) {
      changed = true;
    }
  }
  return changed;
}

}  // namespace handsim::sim
