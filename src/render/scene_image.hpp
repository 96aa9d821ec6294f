// SPDX-License-Identifier: GPL-3.0-or-later
// Pictures of a scene without a display: the hand's palm and links, the objects, the ground and
// the contacts of a state, drawn from a pinhole camera into an RGB image by a software
// rasteriser (a z-buffer over the collision meshes, flat shading under a head light). Used by
// the Python module (handsim.render, docs/python.md); nothing here needs a GPU, OpenGL, Qt or
// OpenSceneGraph.
#pragma once

#include <Eigen/Geometry>
#include <array>
#include <cstdint>
#include <vector>

#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::render {

/// A pinhole camera in the world frame {W}: at `eye_world`, looking at `target_world`, with
/// `up_world` pointing up in the picture; vertical field of view `fov_y` [rad]; an image of
/// width x height pixels. Depths between near_m and far_m are drawn.
struct Camera {
  Eigen::Vector3d eye_world = Eigen::Vector3d(0.4, -0.4, 0.3);
  Eigen::Vector3d target_world = Eigen::Vector3d::Zero();
  Eigen::Vector3d up_world = Eigen::Vector3d::UnitZ();
  double fov_y = 0.7;  ///< [rad]
  int width = 640;     ///< [px]
  int height = 480;    ///< [px]
  double near_m = 0.005;
  double far_m = 50.0;

  /// World -> camera frame {C} (x right, y up, looking along -z). Throws std::invalid_argument
  /// when eye and target coincide or up is along the view direction.
  Eigen::Isometry3d cameraFromWorld() const;
  /// Pixel coordinates (column, row; row 0 at the top, pixel centres at +0.5) and the depth
  /// along the view direction [m] of a world point: (u, v, depth).
  Eigen::Vector3d project(const Eigen::Vector3d& p_world) const;
};

/// A camera that frames the hand and the objects of `state` from the front-right, above.
Camera framingCamera(const sim::Model& model, const sim::SimState& state, int width, int height);

/// What to draw and in which colours (RGB, 0-255).
struct SceneStyle {
  bool ground = true;    ///< the ground plane, when the model has one
  bool contacts = true;  ///< a dot at each contact point of the state (drawn over everything)
  int contact_radius_px = 3;
  std::array<std::uint8_t, 3> background{235, 240, 248};
  std::array<std::uint8_t, 3> palm{120, 130, 150};
  std::array<std::uint8_t, 3> links{170, 180, 200};
  std::array<std::uint8_t, 3> objects{220, 140, 60};
  std::array<std::uint8_t, 3> ground_colour{190, 190, 180};
  std::array<std::uint8_t, 3> contact_colour{220, 30, 30};
};

/// An RGB image, rows from the top, 3 bytes per pixel.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  ///< width * height * 3
};

/// Draws the scene of `state` on `model` as `camera` sees it. Throws std::invalid_argument for
/// an image size outside 1..8192 or a bad camera.
Image renderScene(const sim::Model& model, const sim::SimState& state, const Camera& camera,
                  const SceneStyle& style = {});

}  // namespace handsim::render
