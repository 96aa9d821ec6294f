// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/planner/constraints.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/sim/step.hpp"

namespace handsim::planner {
namespace {

// Comma-separated numbers, exactly `count` of them.
std::vector<double> numbers(const std::string& text, std::size_t count, const char* what,
                            const char* form) {
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::size_t used = 0;
    double v = 0.0;
    try {
      v = std::stod(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    while (used < item.size() && item[used] == ' ') ++used;
    if (used == 0 || used != item.size() || !std::isfinite(v))
      throw std::invalid_argument(std::string(what) + ": '" + item + "' is not a number (write " +
                                  form + ")");
    out.push_back(v);
  }
  if (out.size() != count)
    throw std::invalid_argument(std::string(what) + ": expected " + std::to_string(count) +
                                " numbers (" + form + "), got " + std::to_string(out.size()));
  return out;
}

// Largest depth of a body's vertices below the plane [m] (-inf for an empty body).
double bodyDepth(const sim::CollisionBody& body, const Eigen::Isometry3d& pose,
                 const SupportPlane& p) {
  if (body.mesh.vertices.empty()) return -HUGE_VAL;
  // The bounding sphere first: wholly above by more than its radius, no vertex can be below.
  const double centre_height = p.normal.dot(pose * body.centre - p.point);
  if (centre_height - body.radius > 0.0) return -(centre_height - body.radius);
  double depth = -HUGE_VAL;
  for (const Eigen::Vector3d& v : body.mesh.vertices)
    depth = std::max(depth, -p.normal.dot(pose * v - p.point));
  return depth;
}

}  // namespace

PlannerConstraints checkedConstraints(PlannerConstraints c) {
  if (c.support_plane) {
    const double n = c.support_plane->normal.norm();
    if (!(n > 1e-12) || !c.support_plane->point.allFinite())
      throw std::invalid_argument("support plane: the normal must be non-zero and finite");
    c.support_plane->normal /= n;
  }
  if (c.approach_cone) {
    const double n = c.approach_cone->axis.norm();
    if (!(n > 1e-12)) throw std::invalid_argument("approach cone: the axis must be non-zero");
    c.approach_cone->axis /= n;
    if (!(c.approach_cone->half_angle > 0.0) || c.approach_cone->half_angle > M_PI)
      throw std::invalid_argument("approach cone: the half angle must be in (0, 180] degrees");
  }
  if (c.palm_region) {
    const PalmRegion& r = *c.palm_region;
    if (!(r.lower.array() <= r.upper.array()).all())
      throw std::invalid_argument("palm region: every lower bound must be <= its upper bound");
  }
  return c;
}

double handDepthBelowPlane(const sim::Model& model, const sim::SimState& state,
                           const SupportPlane& plane) {
  const sim::HandGeometry& g = *model.hand_geometry;
  double depth = bodyDepth(g.palm.collision, state.palm_pose_world, plane);
  for (std::size_t f = 0; f < g.links.size(); ++f)
    for (std::size_t r = 0; r < g.links[f].size(); ++r)
      depth = std::max(depth, bodyDepth(g.links[f][r].collision,
                                        sim::linkPoseWorld(model, state, static_cast<int>(f),
                                                           static_cast<int>(r)),
                                        plane));
  return depth;
}

bool approachWithinCone(const hand::HandModel& hand, const Eigen::Isometry3d& palm_object,
                        const ApproachCone& cone) {
  const Eigen::Vector3d u = (palm_object.linear() * hand.approach_palm).normalized();
  return std::acos(std::clamp(u.dot(cone.axis), -1.0, 1.0)) <= cone.half_angle;
}

bool palmWithinRegion(const Eigen::Isometry3d& palm_object, const PalmRegion& region) {
  const Eigen::Vector3d p = palm_object.translation();
  return (p.array() >= region.lower.array()).all() && (p.array() <= region.upper.array()).all();
}

bool satisfiesConstraints(const sim::Model& model, const sim::SimState& state,
                          const PlannerConstraints& c) {
  if (c.approach_cone && !approachWithinCone(model.hand(), state.palm_pose_world, *c.approach_cone))
    return false;
  if (c.palm_region && !palmWithinRegion(state.palm_pose_world, *c.palm_region)) return false;
  if (c.support_plane && handDepthBelowPlane(model, state, *c.support_plane) > 1e-9) return false;
  return true;
}

void setClosedConfiguration(const sim::Model& model, const Eigen::Isometry3d& palm_object,
                            const std::vector<kinematics::JointVector>& q,
                            const Eigen::Isometry3d& object_pose, sim::SimState& state) {
  state.palm_pose_world = object_pose.inverse() * palm_object;
  const auto& fingers = model.hand().fingers;
  for (std::size_t f = 0; f < fingers.size() && f < q.size(); ++f) {
    state.q[f] = q[f];
    state.link_frames[f] = kinematics::forwardKinematics(fingers[f], q[f]);
  }
}

std::string supportPlaneKey(const std::optional<SupportPlane>& plane) {
  if (!plane) return "";
  std::ostringstream out;
  out.precision(17);
  out << plane->point.x() << ',' << plane->point.y() << ',' << plane->point.z() << ','
      << plane->normal.x() << ',' << plane->normal.y() << ',' << plane->normal.z();
  return out.str();
}

SupportPlane parseSupportPlane(const std::string& text, const geometry::TriangleMesh& mesh) {
  SupportPlane p;
  if (text == "bottom") {
    if (mesh.vertices.empty()) throw std::invalid_argument("--support-plane: the object is empty");
    double z = HUGE_VAL;
    for (const auto& v : mesh.vertices) z = std::min(z, v.z());
    p.point = Eigen::Vector3d(0.0, 0.0, z);
    return p;
  }
  const auto v = numbers(text, 6, "--support-plane", "px,py,pz,nx,ny,nz in m, or bottom");
  p.point = Eigen::Vector3d(v[0], v[1], v[2]);
  p.normal = Eigen::Vector3d(v[3], v[4], v[5]);
  if (!(p.normal.norm() > 1e-12))
    throw std::invalid_argument("--support-plane: the normal must not be zero");
  p.normal.normalize();
  return p;
}

ApproachCone parseApproachCone(const std::string& text) {
  const auto v = numbers(text, 4, "--approach-cone", "ax,ay,az,DEG");
  ApproachCone c;
  c.axis = Eigen::Vector3d(v[0], v[1], v[2]);
  if (!(c.axis.norm() > 1e-12))
    throw std::invalid_argument("--approach-cone: the axis must not be zero");
  c.axis.normalize();
  if (!(v[3] > 0.0) || v[3] > 180.0)
    throw std::invalid_argument("--approach-cone: the half angle must be in (0, 180] degrees");
  c.half_angle = v[3] * M_PI / 180.0;
  return c;
}

PalmRegion parsePalmRegion(const std::string& text) {
  const auto v = numbers(text, 6, "--palm-region", "xmin,ymin,zmin,xmax,ymax,zmax in m");
  PalmRegion r;
  r.lower = Eigen::Vector3d(v[0], v[1], v[2]);
  r.upper = Eigen::Vector3d(v[3], v[4], v[5]);
  if (!(r.lower.array() <= r.upper.array()).all())
    throw std::invalid_argument("--palm-region: every minimum must be <= its maximum");
  return r;
}

}  // namespace handsim::planner
