// SPDX-License-Identifier: GPL-3.0-or-later
// Planner constraints (docs/planner.md, "Constraints"): a support plane under the object that
// no part of the hand may pass, a cone the palm's approach axis must lie in, and a box the
// palm's origin must lie in. All in the object frame.
#pragma once

#include <Eigen/Geometry>
#include <optional>
#include <string>
#include <vector>

#include "handsim/kinematics/types.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::planner {

/// The plane { x : normal . (x - point) = 0 }, object frame; the hand must stay on the side
/// `normal` points to (a table under the object: normal +z, point at the object's bottom).
struct SupportPlane {
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    ///< [m]
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< unit
  bool operator==(const SupportPlane& o) const { return point == o.point && normal == o.normal; }
};

/// The palm's approach axis (hand.approach_palm in the object frame) must make an angle of at
/// most `half_angle` with `axis`.
struct ApproachCone {
  Eigen::Vector3d axis = -Eigen::Vector3d::UnitZ();  ///< unit, object frame
  double half_angle = M_PI;                          ///< [rad]
  bool operator==(const ApproachCone& o) const {
    return axis == o.axis && half_angle == o.half_angle;
  }
};

/// The palm frame's origin must lie in this axis-aligned box of the object frame.
struct PalmRegion {
  Eigen::Vector3d lower = Eigen::Vector3d::Constant(-1e9);  ///< [m]
  Eigen::Vector3d upper = Eigen::Vector3d::Constant(1e9);   ///< [m]
  bool operator==(const PalmRegion& o) const { return lower == o.lower && upper == o.upper; }
};

struct PlannerConstraints {
  std::optional<SupportPlane> support_plane;
  std::optional<ApproachCone> approach_cone;
  std::optional<PalmRegion> palm_region;
  bool any() const { return support_plane || approach_cone || palm_region; }
  bool operator==(const PlannerConstraints& o) const {
    return support_plane == o.support_plane && approach_cone == o.approach_cone &&
           palm_region == o.palm_region;
  }
};

/// Throws std::invalid_argument for a zero normal or axis, a half angle outside (0, pi], or a
/// region with lower > upper; normalises the normal and the axis.
PlannerConstraints checkedConstraints(PlannerConstraints c);

/// How far the hand's collision geometry (palm and links, every vertex of their meshes) of
/// the configuration in `state` (world = object frame) reaches below `plane` [m]: the largest
/// -normal . (v - point) over the vertices, negative when the whole hand is above it.
double handDepthBelowPlane(const sim::Model& model, const sim::SimState& state,
                           const SupportPlane& plane);

/// The palm's approach axis of `palm_object` within the cone.
bool approachWithinCone(const hand::HandModel& hand, const Eigen::Isometry3d& palm_object,
                        const ApproachCone& cone);

/// The palm's origin within the region.
bool palmWithinRegion(const Eigen::Isometry3d& palm_object, const PalmRegion& region);

/// The configuration in `state` (palm pose in the object frame, link frames current) satisfies
/// every constraint (the plane with a tolerance of 1e-9 m).
bool satisfiesConstraints(const sim::Model& model, const sim::SimState& state,
                          const PlannerConstraints& c);

/// The closed hand (`q` per finger, the palm at `palm_object` while the object ended at
/// `object_pose` in the world) in the final object frame, in `state` (a state of `model`).
void setClosedConfiguration(const sim::Model& model, const Eigen::Isometry3d& palm_object,
                            const std::vector<kinematics::JointVector>& q,
                            const Eigen::Isometry3d& object_pose, sim::SimState& state);

/// Text that tells support planes apart (for caches keyed by the plane): "" for none, else
/// the point and normal written exactly.
std::string supportPlaneKey(const std::optional<SupportPlane>& plane);

/// The command-line forms (docs/planner.md): "px,py,pz,nx,ny,nz" or "bottom" (the plane
/// through the lowest vertex of `object_mesh` along -z, normal +z); "ax,ay,az,DEG";
/// "xmin,ymin,zmin,xmax,ymax,zmax". Throw std::invalid_argument naming the flag.
SupportPlane parseSupportPlane(const std::string& text, const geometry::TriangleMesh& object_mesh);
ApproachCone parseApproachCone(const std::string& text);
PalmRegion parsePalmRegion(const std::string& text);

}  // namespace handsim::planner
