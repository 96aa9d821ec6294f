// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/planner/contact_points.hpp"

#include <algorithm>
#include <cmath>

#include "handsim/planner/surface_distance.hpp"
#include "handsim/sim/step.hpp"

namespace handsim::planner {
namespace {

// The palmar faces of `mesh` (body frame): those whose normal is within acos(min_cos) of the
// direction `motion(c)` of their centroid c; their point and normal, if any.
template <typename Motion>
bool palmarPoint(const geometry::TriangleMesh& mesh, double min_cos, const Motion& motion,
                 HandContactPoint& out) {
  Eigen::Vector3d centre = Eigen::Vector3d::Zero(), normal = Eigen::Vector3d::Zero();
  double area = 0.0;
  std::vector<std::size_t> faces;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const Eigen::Vector3d& n = mesh.normals[t];
    if (n.squaredNorm() == 0.0) continue;
    const auto& tri = mesh.triangles[t];
    const Eigen::Vector3d c = (mesh.vertices[static_cast<std::size_t>(tri[0])] +
                               mesh.vertices[static_cast<std::size_t>(tri[1])] +
                               mesh.vertices[static_cast<std::size_t>(tri[2])]) /
                              3.0;
    const Eigen::Vector3d v = motion(c);
    if (!(v.norm() > 1e-12) || n.dot(v.normalized()) < min_cos) continue;
    const double a = geometry::triangleArea(mesh, t);
    centre += a * c;
    normal += a * n;
    area += a;
    faces.push_back(t);
  }
  if (!(area > 0.0) || !(normal.norm() > 1e-12)) return false;
  centre /= area;
  normal.normalize();
  // Out to the outermost palmar vertex along the mean normal: on the surface for a flat pad.
  double out_by = 0.0;
  for (std::size_t t : faces)
    for (int v : mesh.triangles[t])
      out_by = std::max(out_by, (mesh.vertices[static_cast<std::size_t>(v)] - centre).dot(normal));
  // On the surface: the mesh point nearest to it (the faces need not be coplanar).
  out.point_body = closestSurfacePoint(buildSurfaceTree(mesh), centre + out_by * normal).point;
  out.normal_body = normal;
  return true;
}

}  // namespace

std::vector<HandContactPoint> palmarContactPoints(const sim::Model& model) {
  const hand::HandModel& hand = model.hand();
  std::vector<HandContactPoint> points;
  // The palm: faces towards the approach direction.
  {
    HandContactPoint p;
    p.finger = -1;
    if (palmarPoint(
            model.hand_geometry->palm.collision.mesh, std::cos(M_PI / 4.0),
            [&](const Eigen::Vector3d&) { return hand.approach_palm; }, p))
      points.push_back(p);
  }
  // Links: two postures around mid-range, the closing actuators a little further in the second.
  const std::size_t na = model.actuatorCount();
  std::vector<double> mid(na), closer(na);
  for (std::size_t a = 0; a < na; ++a) {
    const auto& act = hand.actuators[a];
    mid[a] = closer[a] = 0.5 * (act.lower + act.upper);
  }
  std::vector<int> closing = hand.closing_actuators;
  if (closing.empty() && hand.closing_tendons.empty())
    for (std::size_t a = 0; a < na; ++a) closing.push_back(static_cast<int>(a));
  for (int a : closing) {
    const auto& act = hand.actuators[static_cast<std::size_t>(a)];
    closer[static_cast<std::size_t>(a)] += 0.01 * (act.upper - act.lower);
  }
  // Tendon hands close through their passive joints: those flex towards their upper limits.
  for (int t : hand.closing_tendons)
    for (const auto& tj : hand.tendons[static_cast<std::size_t>(t)].joints) {
      const int a = hand.driverOf(tj.joint).first;
      if (a < 0) continue;
      const auto& act = hand.actuators[static_cast<std::size_t>(a)];
      closer[static_cast<std::size_t>(a)] += 0.01 * (act.upper - act.lower);
    }
  const sim::SimState s0 = sim::makeState(model, mid);
  const sim::SimState s1 = sim::makeState(model, closer);
  const auto& links = model.hand_geometry->links;
  for (std::size_t f = 0; f < links.size(); ++f)
    for (std::size_t r = 0; r < links[f].size(); ++r) {
      const auto& mesh = links[f][r].collision.mesh;
      if (mesh.triangles.empty()) continue;
      const int fi = static_cast<int>(f), ri = static_cast<int>(r);
      const Eigen::Isometry3d t0 = sim::linkPoseWorld(model, s0, fi, ri);
      const Eigen::Isometry3d t1 = sim::linkPoseWorld(model, s1, fi, ri);
      HandContactPoint p;
      p.finger = fi;
      p.row = ri;
      // The motion of a body point, in the body's frame at the first posture.
      if (palmarPoint(
              mesh, 0.5,
              [&](const Eigen::Vector3d& c) -> Eigen::Vector3d {
                return t0.linear().transpose() * (t1 * c - t0 * c);
              },
              p))
        points.push_back(p);
    }
  return points;
}

}  // namespace handsim::planner
