// SPDX-License-Identifier: GPL-3.0-or-later
// The mechanics the free-object tests check against, worked from the state: the kinetic energy
// of the free objects, 1/2 m v^2 + 1/2 w^T I w with the inertia turned into the world, and an
// object's centre of mass in the world.
#pragma once

#include <Eigen/Geometry>

#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::test {

inline double freeKineticEnergy(const sim::Model& model, const sim::SimState& s) {
  double e = 0.0;
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    if (model.objects[o].fixed) continue;
    const double m = model.objects[o].mass.mass_kg;
    const Eigen::Matrix3d R = s.object_pose_world[o].linear();
    const Eigen::Matrix3d inertia = R * model.objects[o].mass.inertia_com * R.transpose();
    const Eigen::Vector3d v = s.object_twist_world[o].head<3>();
    const Eigen::Vector3d w = s.object_twist_world[o].tail<3>();
    e += 0.5 * m * v.squaredNorm() + 0.5 * w.dot(inertia * w);
  }
  return e;
}

inline Eigen::Vector3d centreOfMassWorld(const sim::Model& model, const sim::SimState& s,
                                         std::size_t o) {
  return s.object_pose_world[o] * model.objects[o].mass.centre_of_mass;
}

}  // namespace handsim::test
