// SPDX-License-Identifier: GPL-3.0-or-later
// Shape pairs and random relative poses shared by the narrow-phase scratch tests.
#pragma once

#include <Eigen/Geometry>
#include <random>
#include <string>
#include <vector>

#include "handsim/collision/primitives.hpp"
#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::collision::test {

/// A link mesh (A) and an object mesh (B), and how far apart [m] random poses may place them.
struct Scene {
  std::string name;
  geometry::TriangleMesh link;
  geometry::TriangleMesh object;
  double reach_m = 0.0;         ///< translations are drawn from [-reach, reach]^3
  bool face_down = false;       ///< poses stack the object's top face on the link's bottom face
  double stack_height_m = 0.0;  ///< for face_down: distance between the two box centres [m]
};

/// Spheres, boxes, a finger-link-like box against a ball, and boxes stacked face to face (whose
/// coplanar contacts chain through their overlap polygons).
inline std::vector<Scene> narrowPhaseScenes() {
  using Eigen::Vector3d;
  std::vector<Scene> scenes;
  scenes.push_back(
      {"sphere-sphere", makeUvSphere(0.03, 10, 14), makeUvSphere(0.025, 9, 12), 0.05, false, 0.0});
  scenes.push_back({"box-box", makeBox(Vector3d(0.04, 0.03, 0.02), 3),
                    makeBox(Vector3d(0.05, 0.02, 0.03), 2), 0.04, false, 0.0});
  scenes.push_back({"link-ball", makeBox(Vector3d(0.05, 0.015, 0.012), 4),
                    makeUvSphere(0.04, 16, 24), 0.06, false, 0.0});
  scenes.push_back({"cube-sphere", makeBox(Vector3d(0.04, 0.04, 0.04), 1),
                    makeUvSphere(0.03, 8, 10), 0.05, false, 0.0});
  scenes.push_back({"stacked-boxes", makeBox(Vector3d(0.04, 0.03, 0.02), 2),
                    makeBox(Vector3d(0.03, 0.03, 0.03), 2), 0.02, true, -0.025});
  return scenes;
}

/// A random pose of the scene's object in the link's frame.
inline Eigen::Isometry3d randomPose(const Scene& scene, std::mt19937& rng) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(-scene.reach_m, scene.reach_m);
  Eigen::Isometry3d p = Eigen::Isometry3d::Identity();
  if (scene.face_down) {
    std::uniform_real_distribution<double> angle(-3.0, 3.0);
    p.linear() = Eigen::AngleAxisd(angle(rng), Eigen::Vector3d::UnitZ()).matrix();
    p.translation() = Eigen::Vector3d(u(rng), u(rng), scene.stack_height_m);
    return p;
  }
  p.linear() = Eigen::Quaterniond(g(rng), g(rng), g(rng), g(rng)).normalized().toRotationMatrix();
  p.translation() = Eigen::Vector3d(u(rng), u(rng), u(rng));
  return p;
}

}  // namespace handsim::collision::test
