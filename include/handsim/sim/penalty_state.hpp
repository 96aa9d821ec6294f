// SPDX-License-Identifier: GPL-3.0-or-later
// What seed 004's penalty contact keeps per body pair across steps (SimState::penalty_pairs)
// and the scratch of its stage (StepWorkspace::penalty). docs/free-objects.md, "Seed 004's model
// in the engine"; the stage is sim/penalty_contacts.hpp.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "handsim/collision/overlap_volume.hpp"
#include "handsim/contact/contact.hpp"
#include "handsim/contact/penalty_contact.hpp"

namespace handsim::sim {

/// Memory of one body pair of the volume penalty model (one per PenaltyGeometry::pairs entry).
/// Copied with the state, so a copied state continues exactly.
struct PenaltyPairState {
  bool touching = false;           ///< the pair overlapped during the last step
  contact::LowPassState filter;    ///< eq. 4 on the equivalent depth [m, m/s]
  contact::FirstContact first;     ///< eq. 5: when this contact began and how fast
  contact::AnchorState anchor;     ///< the anchor friction's spring (world frame)
  double twist = 0.0;              ///< the anchor's torsional extension about the normal [rad]
  double reference_area = 0.0;     ///< eq. 6's A_ref (contact::referenceArea); 0 apart [m^2]
  bool open_warned = false;        ///< an open mesh of this pair was reported
};

/// One pair's wrench of the step: the force on body B at the overlap's centroid (A gets its
/// opposite there). Kept so the stage can apply it again when the clutch re-solves the step.
struct PenaltyLoad {
  int pair = -1;                                          ///< into PenaltyGeometry::pairs
  Eigen::Vector3d point_world = Eigen::Vector3d::Zero();  ///< c [m]
  Eigen::Vector3d force_on_b_world = Eigen::Vector3d::Zero();  ///< normal + friction [N]
  /// The patch's torsional friction on B (about the normal; A gets its opposite) [N m].
  Eigen::Vector3d torque_on_b_world = Eigen::Vector3d::Zero();
};

/// Scratch of the volume penalty stage; capacities only grow, so a warm run does not allocate.
struct PenaltyWorkspace {
  collision::OverlapScratch overlap;
  collision::OverlapResult result;
  std::vector<PenaltyLoad> loads;                  ///< the step's wrenches
  std::vector<contact::Contact> link_contacts;     ///< published into SimState::contacts
  std::vector<contact::Contact> object_contacts;   ///< published into SimState::object_contacts
  // A link pair's actuator-space vectors (sized to the actuator count; no allocation once warm):
  // the generalised force of a unit force along the pair's normal at c and along the link's
  // flux vector, and the inertia's answer to the first.
  Eigen::VectorXd row_normal, row_flux, answer;
};

}  // namespace handsim::sim
