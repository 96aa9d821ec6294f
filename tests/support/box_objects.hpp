// SPDX-License-Identifier: GPL-3.0-or-later
// Boxes and other meshes as scenario objects for the engine's tests, the BarrettHand they share,
// and the closed-form inertia they are checked against (tests/sim/*_test.cpp).
#pragma once

#include <Eigen/Geometry>
#include <memory>
#include <string>
#include <vector>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/step.hpp"

namespace handsim::test {

/// A box of edge lengths `size` [m] centred on its frame's origin, free or fixed, its mass
/// properties from the mesh at `density` [kg/m^3]. Where it starts is the plan's or the
/// state's (at(), stateAt()).
inline sim::ObjectModel boxObject(const std::string& name, const Eigen::Vector3d& size, bool free,
                                  double density) {
  auto g = std::make_shared<sim::BodyGeometry>();
  g->collision = sim::makeCollisionBody(geometry::makeBox(size), 18);
  sim::ObjectModel o;
  o.name = name;
  o.geometry = g;
  o.fixed = !free;
  sim::computeMassProperties(o, density);
  return o;
}

/// A free object of `mesh` (centred on its frame) of `mass` [kg] (uniform density, from the
/// mesh's volume).
inline sim::ObjectModel meshObject(const std::string& name, geometry::TriangleMesh mesh,
                                   double mass) {
  auto g = std::make_shared<sim::BodyGeometry>();
  g->collision = sim::makeCollisionBody(std::move(mesh), 18);
  sim::ObjectModel o;
  o.name = name;
  o.geometry = g;
  o.fixed = false;
  sim::computeMassProperties(o, 1000.0);
  sim::computeMassProperties(o, mass / o.mass.volume_m3);
  return o;
}

/// A start pose: the frame moved to `p` in the world, not turned.
inline Eigen::Isometry3d at(const Eigen::Vector3d& p) {
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.translation() = p;
  return pose;
}

/// A start twist: the centre of mass moving at `v` [m/s], the body turning at `w` [rad/s],
/// world frame.
inline sim::Twist twist(const Eigen::Vector3d& v,
                        const Eigen::Vector3d& w = Eigen::Vector3d::Zero()) {
  sim::Twist t;
  t << v, w;
  return t;
}

/// sim::makeState with the palm at the world origin and the objects at `poses` (one per
/// object of the model), moving with `twists` (one per object; empty: all at rest).
inline sim::SimState stateAt(const sim::Model& model, const std::vector<Eigen::Isometry3d>& poses,
                             const std::vector<double>& actuators = {},
                             const std::vector<sim::Twist>& twists = {}) {
  return sim::makeState(model, actuators, Eigen::Isometry3d::Identity(), poses, twists);
}

/// The shipped BarrettHand, loaded once (the engine tests' hand, far from their objects).
inline std::shared_ptr<const hand::HandModel> barrettHand() {
  static const auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  return hand;
}

/// A solid box's inertia about its centre, body axes, worked by hand: m/12 (b^2 + c^2), ...
inline Eigen::Matrix3d boxInertia(const Eigen::Vector3d& s, double m) {
  return Eigen::Vector3d(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(),
                         s.x() * s.x() + s.y() * s.y())
             .asDiagonal() *
         (m / 12.0);
}

}  // namespace handsim::test
