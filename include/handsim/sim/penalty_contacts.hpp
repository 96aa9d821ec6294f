// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's penalty contact as a stage of sim::step (scenario "contact": {"model": "seed004"};
// docs/free-objects.md, "Seed 004's model in the engine"). For every pair of bodies that can
// touch (link-object, palm-object, object-object, object-ground) the exact overlap of the two
// closed meshes (collision::computeOverlap) gives the volume, its centroid c and eq. 3's
// direction; the equivalent depth goes through eq. 4's filter, eq. 5's first-contact gain and
// eq. 6's Kelvin-Voigt law; friction (anchor spring or eq. 8) acts on the relative velocity at c.
// The force acts on both bodies: on free objects as a wrench in their Newton-Euler step (eq. 7
// torque), on finger links as an external load in the finger dynamics (so the BarrettHand
// clutch feels it through seed 000 eq. 9).
//
// Integrator: the normal force is linearly implicit in the rate of the equivalent depth (exact
// from the flux of the bodies' velocities through the overlap's boundary; its answer to the
// force, through the spring on the end-of-step depth and eq. 4's exact update, is folded into
// the velocity update), one Gauss-Seidel pass over the pairs in a fixed order: stable for any
// step in the normal direction. Friction is explicit; `penaltyStableStep` gives its bound.
// With ContactOptions::integration Explicit, eq. 4-6 come from the state at the start of the
// step and act as a constant force over it (the ODE the paper integrates, with its step bound).
#pragma once

#include <memory>
#include <vector>

#include "handsim/collision/overlap_volume.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"
#include "handsim/sim/stability.hpp"

namespace handsim::sim {

/// `Contact::other` of a contact between the palm and an object (finger -1) in the volume penalty
/// model (the ground is -1, another object its index).
inline constexpr int kPalmContact = contact::kPalm;

/// One pair of bodies the volume penalty stage checks every step. Body A pushes B; the reported
/// contact's normal points from A into B (into the object B), its `object` is B.
struct PenaltyPair {
  enum class Kind { Link, Palm, Object, Ground };
  Kind kind = Kind::Link;
  int finger = -1;    ///< Link: the finger of body A
  int row = -1;       ///< Link: its row (the link rigid with frame {row + 1})
  int a_object = -1;  ///< Object: the object of body A (always the lower index)
  int object = -1;    ///< body B, an index into Model::objects
};

/// What the volume penalty model adds to a compiled model (built once by compileModel).
struct PenaltyGeometry {
  std::vector<PenaltyPair> pairs;  ///< in the stage's fixed order (deterministic)
  /// The ground half-space z <= height as a closed box (top face at the height, 400 m wide so
  /// it covers the world box |x|, |y| <= 100 m, 100 m deep), world frame; empty without ground.
  CollisionBody ground;
  bool palm_closed = true;                    ///< checkMeshClosure of the palm mesh
  std::vector<std::vector<char>> link_closed;  ///< [finger][row]
  std::vector<char> object_closed;            ///< per object
};

/// Half-width and depth of the ground's box [m].
inline constexpr double kGroundBoxHalfWidth = 200.0;
inline constexpr double kGroundBoxDepth = 100.0;

/// Builds the pairs and checks each mesh's closure (an open mesh's pairs fall back to the
/// winding-number inside test of collision::computeOverlap and get one counted warning each).
std::shared_ptr<const PenaltyGeometry> buildPenaltyGeometry(const Model& model);

/// The stage, after computeDynamics: clears the step's contacts, computes every touching pair's
/// force (updating SimState::penalty_pairs), adds the wrenches to the free objects'
/// accelerations and the links' loads to the actuator accelerations. Throws nothing; trouble is
/// a counted warning.
void computePenaltyContacts(const Model& model, SimState& s);

/// Adds this step's wrenches again after computeDynamics was re-run (the clutch changed the
/// transmission), and clears the published contacts so the constraint solver does not see them.
void applyPenaltyContacts(const Model& model, SimState& s);

/// After solveContacts: writes the step's contacts to SimState::contacts (links) and
/// SimState::object_contacts (palm, objects, ground) for the clutch, the torques, the recorder
/// and the viewport.
void publishPenaltyContacts(SimState& s);

/// Sizes SimState::penalty_pairs for the model (empty unless the volume penalty model).
void sizePenaltyState(const Model& model, SimState& s);

/// The largest step the volume penalty model's explicit part (friction) can take with these free
/// objects (mass and friction): for the anchor spring dt^2 k_t/m + 2 dt c_t/m < 4; for eq. 8 its
/// slope at zero slip under the object's weight, 2 m / (beta + mu gamma m |g|). The implicit
/// normal force has no bound; the explicit one (ContactOptions::integration) needs
/// dt^2 g1/m + 2 dt g2/m < 4 (the steady contact's gains; eq. 5's transient left out).
/// Infinity without free objects.
StepLimit penaltyStableStep(const Options& options, const std::vector<ObjectModel>& objects);

}  // namespace handsim::sim
