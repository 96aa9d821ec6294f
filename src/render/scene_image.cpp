// SPDX-License-Identifier: GPL-3.0-or-later
// The software rasteriser of scene_image.hpp: every triangle is moved into the camera frame,
// clipped against the near plane, projected, and filled pixel by pixel with edge functions; the
// z-buffer keeps the nearest (inverse depth, which is linear in screen space). Flat shading
// with a head light, both sides lit.
#include "scene_image.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "handsim/sim/step.hpp"

namespace handsim::render {

namespace {

using Colour = std::array<std::uint8_t, 3>;

struct Target {
  Image& image;
  std::vector<double> inv_depth;  ///< 1 / depth of the nearest surface so far; 0: none
};

// Projection of a camera-frame point (depth d = -z > 0) to pixel coordinates.
Eigen::Vector2d toPixel(const Camera& cam, const Eigen::Vector3d& p) {
  const double f = 0.5 * cam.height / std::tan(0.5 * cam.fov_y);
  const double d = -p.z();
  return {0.5 * cam.width + f * p.x() / d, 0.5 * cam.height - f * p.y() / d};
}

// Fills one camera-frame triangle already in front of the near plane.
// `lit` in [0, 1] shades the colour; negative: from the head light.
void fill(Target& t, const Camera& cam, const std::array<Eigen::Vector3d, 3>& p, Colour c,
          double lit) {
  std::array<Eigen::Vector2d, 3> s;
  std::array<double, 3> w;
  for (int i = 0; i < 3; ++i) {
    s[i] = toPixel(cam, p[i]);
    w[i] = 1.0 / -p[i].z();
  }
  const double area = (s[1] - s[0]).x() * (s[2] - s[0]).y() - (s[1] - s[0]).y() * (s[2] - s[0]).x();
  if (std::abs(area) < 1e-12) return;
  const int x0 =
      std::max(0, static_cast<int>(std::floor(std::min({s[0].x(), s[1].x(), s[2].x()}))));
  const int x1 = std::min(cam.width - 1,
                          static_cast<int>(std::ceil(std::max({s[0].x(), s[1].x(), s[2].x()}))));
  const int y0 =
      std::max(0, static_cast<int>(std::floor(std::min({s[0].y(), s[1].y(), s[2].y()}))));
  const int y1 = std::min(cam.height - 1,
                          static_cast<int>(std::ceil(std::max({s[0].y(), s[1].y(), s[2].y()}))));
  if (x0 > x1 || y0 > y1) return;
  // Head light: the brighter the more the face turns to the eye (at the origin).
  const Eigen::Vector3d n = (p[1] - p[0]).cross(p[2] - p[0]);
  const Eigen::Vector3d centre = (p[0] + p[1] + p[2]) / 3.0;
  const double nn = n.norm() * centre.norm();
  if (lit < 0.0) lit = nn > 0.0 ? 0.35 + 0.65 * std::abs(n.dot(centre)) / nn : 0.35;
  Colour shaded;
  for (int k = 0; k < 3; ++k)
    shaded[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(
        std::lround(std::min(255.0, c[static_cast<std::size_t>(k)] * lit)));
  auto edge = [](const Eigen::Vector2d& a, const Eigen::Vector2d& b, double x, double y) {
    return (b.x() - a.x()) * (y - a.y()) - (b.y() - a.y()) * (x - a.x());
  };
  for (int y = y0; y <= y1; ++y) {
    for (int x = x0; x <= x1; ++x) {
      const double px = x + 0.5, py = y + 0.5;
      const double b0 = edge(s[1], s[2], px, py) / area;
      const double b1 = edge(s[2], s[0], px, py) / area;
      const double b2 = edge(s[0], s[1], px, py) / area;
      if (b0 < 0.0 || b1 < 0.0 || b2 < 0.0) continue;
      const double inv = b0 * w[0] + b1 * w[1] + b2 * w[2];
      const std::size_t at = static_cast<std::size_t>(y) * static_cast<std::size_t>(cam.width) +
                             static_cast<std::size_t>(x);
      if (inv <= t.inv_depth[at] || inv > 1.0 / cam.near_m || inv < 1.0 / cam.far_m) continue;
      t.inv_depth[at] = inv;
      std::copy(shaded.begin(), shaded.end(), t.image.rgb.begin() + static_cast<long>(3 * at));
    }
  }
}

// A world triangle: into the camera frame, clipped by the near plane (0, 1 or 2 triangles).
void drawTriangle(Target& t, const Camera& cam, const Eigen::Isometry3d& cam_from_world,
                  const Eigen::Vector3d& a, const Eigen::Vector3d& b, const Eigen::Vector3d& c,
                  Colour colour, double lit = -1.0) {
  const std::array<Eigen::Vector3d, 3> p{cam_from_world * a, cam_from_world * b,
                                         cam_from_world * c};
  std::array<Eigen::Vector3d, 4> poly;
  int n = 0;
  for (int i = 0; i < 3; ++i) {
    const Eigen::Vector3d& u = p[static_cast<std::size_t>(i)];
    const Eigen::Vector3d& v = p[static_cast<std::size_t>((i + 1) % 3)];
    const double du = -u.z() - cam.near_m, dv = -v.z() - cam.near_m;
    if (du >= 0.0) poly[static_cast<std::size_t>(n++)] = u;
    if ((du >= 0.0) != (dv >= 0.0))
      poly[static_cast<std::size_t>(n++)] = u + (v - u) * (du / (du - dv));
  }
  for (int i = 1; i + 1 < n; ++i)
    fill(t, cam,
         {poly[0], poly[static_cast<std::size_t>(i)], poly[static_cast<std::size_t>(i + 1)]},
         colour, lit);
}

void drawMesh(Target& t, const Camera& cam, const Eigen::Isometry3d& cam_from_world,
              const geometry::TriangleMesh& mesh, const Eigen::Isometry3d& pose_world,
              Colour colour) {
  const Eigen::Isometry3d to_cam = cam_from_world * pose_world;
  for (const auto& tri : mesh.triangles)
    drawTriangle(t, cam, to_cam, mesh.vertices[static_cast<std::size_t>(tri[0])],
                 mesh.vertices[static_cast<std::size_t>(tri[1])],
                 mesh.vertices[static_cast<std::size_t>(tri[2])], colour);
}

void drawDot(Image& image, const Eigen::Vector3d& uvd, int radius, Colour colour) {
  const int cu = static_cast<int>(std::floor(uvd.x())), cv = static_cast<int>(std::floor(uvd.y()));
  for (int y = cv - radius; y <= cv + radius; ++y)
    for (int x = cu - radius; x <= cu + radius; ++x) {
      if (x < 0 || y < 0 || x >= image.width || y >= image.height) continue;
      if ((x - cu) * (x - cu) + (y - cv) * (y - cv) > radius * radius) continue;
      const std::size_t at =
          3 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(image.width) +
               static_cast<std::size_t>(x));
      std::copy(colour.begin(), colour.end(), image.rgb.begin() + static_cast<long>(at));
    }
}

// The world pose of link `row` of finger `f` (its mesh is in frame {row + 1}).
Eigen::Isometry3d linkWorld(const sim::Model& model, const sim::SimState& s, std::size_t f,
                            std::size_t row) {
  return sim::fingerBaseWorld(model, s, static_cast<int>(f)) *
         s.link_frames[f].at(static_cast<int>(row) + 1);
}

}  // namespace

Eigen::Isometry3d Camera::cameraFromWorld() const {
  const Eigen::Vector3d back = eye_world - target_world;
  if (!(back.norm() > 0.0) || !eye_world.allFinite() || !target_world.allFinite())
    throw std::invalid_argument("camera: eye and target must be finite and apart");
  const Eigen::Vector3d z = back.normalized();
  const Eigen::Vector3d x0 = up_world.cross(z);
  if (!(x0.norm() > 1e-9 * up_world.norm()) || !up_world.allFinite())
    throw std::invalid_argument("camera: up must not lie along the view direction");
  const Eigen::Vector3d x = x0.normalized();
  const Eigen::Vector3d y = z.cross(x);
  Eigen::Isometry3d world_from_cam = Eigen::Isometry3d::Identity();
  world_from_cam.linear().col(0) = x;
  world_from_cam.linear().col(1) = y;
  world_from_cam.linear().col(2) = z;
  world_from_cam.translation() = eye_world;
  return world_from_cam.inverse();
}

Eigen::Vector3d Camera::project(const Eigen::Vector3d& p_world) const {
  const Eigen::Vector3d p = cameraFromWorld() * p_world;
  const Eigen::Vector2d uv = toPixel(*this, p);
  return {uv.x(), uv.y(), -p.z()};
}

Camera framingCamera(const sim::Model& model, const sim::SimState& s, int width, int height) {
  geometry::Aabb box;
  box.extend(s.palm_pose_world.translation());
  for (std::size_t f = 0; f < s.link_frames.size(); ++f)
    for (int i = 0; i < s.link_frames[f].count; ++i)
      box.extend(sim::fingerBaseWorld(model, s, static_cast<int>(f)) *
                 s.link_frames[f].at(i).translation());
  for (std::size_t o = 0; o < model.objects.size() && o < s.object_pose_world.size(); ++o)
    for (const auto& v : model.objects[o].geometry->collision.mesh.vertices)
      box.extend(s.object_pose_world[o] * v);
  Camera cam;
  cam.width = width;
  cam.height = height;
  cam.target_world = 0.5 * (box.min + box.max);
  const double radius = std::max(0.05, 0.5 * (box.max - box.min).norm());
  const double distance = 1.15 * radius / std::sin(0.5 * cam.fov_y);
  cam.eye_world = cam.target_world + distance * Eigen::Vector3d(1.0, -1.0, 0.7).normalized();
  return cam;
}

Image renderScene(const sim::Model& model, const sim::SimState& s, const Camera& cam,
                  const SceneStyle& style) {
  if (cam.width < 1 || cam.height < 1 || cam.width > 8192 || cam.height > 8192)
    throw std::invalid_argument("image size: expected 1..8192 pixels each way, got " +
                                std::to_string(cam.width) + " x " + std::to_string(cam.height));
  if (!(cam.fov_y > 0.0 && cam.fov_y < 3.1) || !(cam.near_m > 0.0 && cam.far_m > cam.near_m))
    throw std::invalid_argument("camera: fov_y must lie in (0, 3.1) rad and 0 < near < far");
  const Eigen::Isometry3d cam_from_world = cam.cameraFromWorld();
  Image image;
  image.width = cam.width;
  image.height = cam.height;
  const std::size_t pixels =
      static_cast<std::size_t>(cam.width) * static_cast<std::size_t>(cam.height);
  image.rgb.resize(3 * pixels);
  for (std::size_t i = 0; i < pixels; ++i)
    std::copy(style.background.begin(), style.background.end(),
              image.rgb.begin() + static_cast<long>(3 * i));
  Target t{image, std::vector<double>(pixels, 0.0)};

  if (model.hand_geometry) {
    drawMesh(t, cam, cam_from_world, model.hand_geometry->palm.collision.mesh, s.palm_pose_world,
             style.palm);
    const auto& links = model.hand_geometry->links;
    for (std::size_t f = 0; f < links.size() && f < s.link_frames.size(); ++f)
      for (std::size_t row = 0; row < links[f].size(); ++row)
        if (static_cast<int>(row) + 1 < s.link_frames[f].count)
          drawMesh(t, cam, cam_from_world, links[f][row].collision.mesh,
                   linkWorld(model, s, f, row), style.links);
  }
  for (std::size_t o = 0; o < model.objects.size() && o < s.object_pose_world.size(); ++o)
    drawMesh(t, cam, cam_from_world, model.objects[o].geometry->collision.mesh,
             s.object_pose_world[o], style.objects);
  if (style.ground && model.options.ground.enabled) {
    // A square around the point under the camera's target, large enough to fill the view.
    const double h = model.options.ground.height;
    const double r = 4.0 * std::max(0.1, (cam.eye_world - cam.target_world).norm());
    const Eigen::Vector3d c(cam.target_world.x(), cam.target_world.y(), h);
    const Eigen::Vector3d a = c + Eigen::Vector3d(-r, -r, 0), b = c + Eigen::Vector3d(r, -r, 0),
                          d = c + Eigen::Vector3d(r, r, 0), e = c + Eigen::Vector3d(-r, r, 0);
    // One shade for the whole plane (per-triangle head-light shading would split it in two).
    drawTriangle(t, cam, cam_from_world, a, b, d, style.ground_colour, 0.9);
    drawTriangle(t, cam, cam_from_world, a, d, e, style.ground_colour, 0.9);
  }
  if (style.contacts) {
    for (const auto* list : {&s.contacts, &s.object_contacts, &s.link_contacts})
      for (const auto& c : *list) {
        const Eigen::Vector3d uvd = cam.project(c.point_world);
        if (uvd.z() > cam.near_m)
          drawDot(image, uvd, style.contact_radius_px, style.contact_colour);
      }
  }
  return image;
}

}  // namespace handsim::render
