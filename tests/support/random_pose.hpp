// SPDX-License-Identifier: GPL-3.0-or-later
// Random rigid poses for tests: a uniformly random rotation (a normalised Gaussian quaternion)
// and a translation uniform in [-spread, spread]^3 [m].
#pragma once

#include <Eigen/Geometry>
#include <random>

namespace handsim::test {

inline Eigen::Matrix3d randomRotation(std::mt19937& rng) {
  std::normal_distribution<double> g;
  return Eigen::Quaterniond(g(rng), g(rng), g(rng), g(rng)).normalized().toRotationMatrix();
}

inline Eigen::Isometry3d randomRigidPose(std::mt19937& rng, double spread) {
  std::uniform_real_distribution<double> u(-spread, spread);
  Eigen::Isometry3d p = Eigen::Isometry3d::Identity();
  p.linear() = randomRotation(rng);
  p.translation() = Eigen::Vector3d(u(rng), u(rng), u(rng));
  return p;
}

}  // namespace handsim::test
