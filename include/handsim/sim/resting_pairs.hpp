// SPDX-License-Identifier: GPL-3.0-or-later
// Resting-pair reuse (docs/collision.md, "Resting pairs"; issue 19 item 5): a body pair whose
// relative pose has moved less than a tolerance since its contacts were last computed keeps
// those contacts, carried along with body A, instead of running the narrow phase again. The
// memory is part of the simulation state (SimState::resting_pairs), so a copied state steps
// exactly like its original and a reset state starts without it.
#pragma once

#include <Eigen/Geometry>
#include <cstddef>
#include <vector>

#include "handsim/sim/body_pair.hpp"

namespace handsim::sim {

struct CollisionBody;  // sim/model.hpp
struct StepWorkspace;  // sim/sim_state.hpp

/// One body pair that touched at its last query (its anchor).
struct RestingPair {
  int body_a = -1;  ///< BodyTable ids of the pair, in the order queried
  int body_b = -1;
  /// B's pose in A's frame when the contacts were computed (the anchor).
  Eigen::Isometry3d b_in_a = Eigen::Isometry3d::Identity();
  std::size_t first = 0;  ///< its contacts in RestingPairs::contacts: [first, first + count)
  std::size_t count = 0;
};

/// The memory of resting-pair reuse: the touching pairs of this step and of the last, with
/// their anchors' contacts, point and normal (from A into B) in A's frame [m], depth [m]. A
/// pair is remembered from one step to the next only if it is queried and touches in both.
/// Capacities only grow, so a run reaches a steady state without allocation.
struct RestingPairs {
  std::vector<RestingPair> pairs, previous_pairs;
  std::vector<BodyPairContact> contacts, previous_contacts;
  /// Makes this step's pairs the previous ones and starts an empty list (the contact stage
  /// calls it once per step, before its queries).
  void beginStep();
  bool empty() const { return pairs.empty() && previous_pairs.empty(); }
};

/// An upper bound of how far any point of body B has moved relative to body A between the
/// relative poses `b_in_a_before` and `b_in_a_now` [m]: |dt| + ||dR||_F (|c_B| + r_B), where c_B,
/// r_B are B's bounding sphere in its own frame (||dR p|| <= ||dR||_F |p|).
double relativeDisplacementBound(const Eigen::Isometry3d& b_in_a_before,
                                 const Eigen::Isometry3d& b_in_a_now, const CollisionBody& b);

/// queryBodyPair with resting-pair reuse: when the previous step's pairs of `memory` hold
/// contacts of (body_a, body_b) computed at a relative pose from which B has moved at most
/// `tolerance` relative to A (relativeDisplacementBound), those contacts are written to `out`,
/// carried to the world by A's pose, each depth increased by B's approach along its normal:
/// the narrow phase's answer at a relative pose within `tolerance` (docs/collision.md, section
/// 4c). Otherwise the pair is queried and, if it touches, its contacts become the pair's new
/// anchor; either way a touching pair joins this step's pairs. `tolerance` 0 queries every
/// time (no memory is kept). Allocates only while the lists grow to the most seen. Counts the
/// query in `work.pair_queries`, a reuse in `work.resting_reuses`.
void queryRestingPair(const CollisionBody& a, const Eigen::Isometry3d& a_pose, int body_a,
                      const CollisionBody& b, const Eigen::Isometry3d& b_pose, int body_b,
                      PatchPoints points, double tolerance, RestingPairs& memory,
                      StepWorkspace& work, std::vector<BodyPairContact>& out);

}  // namespace handsim::sim
