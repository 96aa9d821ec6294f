// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <vector>

#include "handsim/sim/world.hpp"

namespace handsim::grasp {

/// One point contact with Coulomb friction as the grasp analysis sees it (hard finger: the
/// finger can push along the normal and rub tangentially, but cannot pull or twist).
///
/// Sign convention: `normal` points INTO the object, i.e. along the force the finger applies.
/// The simulator's sim::Contact stores the opposite (out of the object); convert with
/// fromSimContact().
struct GraspContact {
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    ///< contact point [m], any fixed frame
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< unit, INTO the object, same frame
  double friction = 0.0;  ///< Coulomb coefficient of the material pair [-], >= 0
};

/// The grasp contact for a simulator contact: same point, normal flipped to point into the
/// object, `friction` the coefficient of the link/object material pair [-].
inline GraspContact fromSimContact(const sim::Contact& c, double friction) {
  return {c.point, -c.normal, friction};
}

/// The grasp contacts on world object `object` among the simulator's contacts (e.g.
/// SimState::contacts), in their order, all with friction coefficient `friction` [-].
inline std::vector<GraspContact> graspContactsOn(const std::vector<sim::Contact>& contacts,
                                                 int object, double friction) {
  std::vector<GraspContact> out;
  for (const auto& c : contacts)
    if (c.object == object) out.push_back(fromSimContact(c, friction));
  return out;
}

}  // namespace handsim::grasp
