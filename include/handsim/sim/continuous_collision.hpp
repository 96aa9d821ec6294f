// SPDX-License-Identifier: GPL-3.0-or-later
// Continuous collision of fast free objects, a stage of sim::step in both contact models
// (docs/free-objects.md, "Continuous collision"). The contact stages only see bodies that
// intersect at the start of a step, so a body that moves further in one step than it and a thin
// body are thick passes through it unseen (a 1 cm cube falling 0.3 m onto a 2 mm plate). This
// stage is motion clamping (conservative advancement): after the integrator, each free object
// whose motion over the step exceeds a fraction of the thinnest of it and a body its swept
// bounding sphere reaches is tested against that body at poses along the step's motion, spaced
// below that fraction; just past the first pose that touches (at most kContinuousTouchTolerance
// into the body, at least half of it) the step ends for it, with its velocity kept (scaled down
// only so that its energy does not grow), and the next step's contact stage stops it from that
// shallow penetration.
#pragma once

#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

/// An object is tested against a body when its motion over the step (the travel of its centre
/// of mass plus its turn times its reach from it), with the other body's when that one moves
/// too, exceeds this fraction of the thinner of the two (the smallest edge of its bounding box)
/// [-]; the poses tested are spaced below that fraction.
inline constexpr double kContinuousFraction = 0.5;

/// Most poses tested along one step's motion per pair of bodies (a body 0.1 mm thick passed at
/// 20 m/s needs 400 at dt 1 ms): bounds the cost of a pathological scene.
inline constexpr double kContinuousMaxPoses = 1000.0;

/// An object stopped by this stage ends its step moved past its first touch of the body by half
/// of this to all of it along its motion [m] (the default contact slop): deep enough for the
/// contact stages to see an overlap, shallow enough for them to stop it gently.
inline constexpr double kContinuousTouchTolerance = 1e-4;

/// Before the integrator: records each free object's pose at the start of the step (in
/// StepWorkspace::object_start_pose). Allocates only when the number of objects grows.
void beginContinuousCollision(const Model& model, SimState& s);

/// After the integrator: moves each free object that a tested body stops back to the first pose
/// along its step's motion that touches that body, and counts it in
/// SimState::continuous_collisions. Tested bodies: the palm, the links (at their pose at the
/// start of the step), the other objects (a moving one along its own motion), and in the
/// volume penalty model the ground. A pair that already touches at the start of the step is left to
/// the contact stage. Allocates nothing once the narrow phase's buffers are warm.
void applyContinuousCollision(const Model& model, SimState& s);

}  // namespace handsim::sim
