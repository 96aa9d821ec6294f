// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <vector>

#include "handsim/contact/contact.hpp"

namespace handsim::grasp {

/// One point contact with Coulomb friction as the grasp analysis sees it (hard finger: the
/// finger can push along the normal and rub tangentially, but cannot pull or twist).
///
/// Sign convention: `normal` points INTO the object, i.e. along the force the finger applies,
/// as in the simulator's contact::Contact (one convention everywhere).
struct GraspContact {
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    ///< contact point [m], any fixed frame
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< unit, INTO the object, same frame
  double friction = 0.0;  ///< Coulomb coefficient of the material pair [-], >= 0
};

/// The grasp contact for a simulator contact (world frame), `friction` the coefficient of the
/// link/object material pair [-].
inline GraspContact fromSimContact(const contact::Contact& c, double friction) {
  return {c.point_world, c.normal_world, friction};
}

/// The grasp contacts on world object `object` among the simulator's contacts (e.g.
/// SimState::contacts), in their order, all with friction coefficient `friction` [-].
inline std::vector<GraspContact> graspContactsOn(const std::vector<contact::Contact>& contacts,
                                                 int object, double friction) {
  std::vector<GraspContact> out;
  for (const auto& c : contacts)
    if (c.object == object) out.push_back(fromSimContact(c, friction));
  return out;
}

}  // namespace handsim::grasp
