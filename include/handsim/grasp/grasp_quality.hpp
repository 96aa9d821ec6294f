// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <string>
#include <vector>

#include "handsim/geometry/triangle_mesh.hpp"
#include "handsim/grasp/grasp_contact.hpp"

namespace handsim::grasp {

/// Parameters of the grasp wrench space (docs/grasp.md).
struct GraspQualityOptions {
  int cone_edges = 8;          ///< edges of each linearised friction cone, >= 3
  double torque_radius = 1.0;  ///< lambda [m]: torques are divided by it (e.g. object radius)
  Eigen::Vector3d torque_reference = Eigen::Vector3d::Zero();  ///< torques about this [m]
};

/// The torque radius lambda of an object (GraspQualityOptions::torque_radius): the largest
/// distance of a vertex of `mesh` from `centre` [m], so torques about the centre and forces
/// weigh alike (Ferrari and Canny 1992; GraspIt! uses the same radius). 0 for an empty mesh.
double torqueRadius(const geometry::TriangleMesh& mesh, const Eigen::Vector3d& centre);

/// Result of evaluateGrasp. The wrench space is the convex hull of the union of all
/// primitive wrenches (Ferrari & Canny's L1 grasp wrench space, GraspIt!'s "epsilon").
struct GraspQuality {
  bool force_closure = false;  ///< the origin lies strictly inside the wrench space
  /// Radius of the largest origin-centred ball inside the wrench space [N per unit total
  /// normal force]; 0 unless force_closure.
  double epsilon = 0.0;
  double volume = 0.0;  ///< 6-D volume of the wrench space [-]; 0 when it is degenerate
  int hull_facets = 0;  ///< facets of the triangulated hull; 0 when it is degenerate
  /// Unit outward normal u of the hull facet nearest to (force closure) or farthest beyond
  /// (otherwise) the origin: the wrench direction the grasp resists least, with
  /// max over primitive wrenches of u . w = epsilon. Without force closure it certifies it: no
  /// primitive wrench has a component along u above 1e-10 times the largest wrench norm.
  /// Zero when the hull is degenerate.
  Eigen::Matrix<double, 6, 1> weakest_direction = Eigen::Matrix<double, 6, 1>::Zero();
  std::string note;  ///< why the result is degenerate (empty otherwise)
};

/// Most wrench points (contacts x cone edges) the front ends rate (handsim-cli grasp, Python's
/// evaluate_grasp): the 6-D convex hull of the wrench points grows steeply with their number
/// (about 15 s for 400 points, minutes for 1,000 contacts), so more are refused up front.
inline constexpr std::size_t kMaxWrenchPoints = 256;

/// Throws std::invalid_argument ("N contacts x E cone edges = P wrench points; at most 256
/// are rated") when contacts x cone_edges exceeds kMaxWrenchPoints; a cone_edges below 1
/// is left to evaluateGrasp's own check.
void checkWrenchPointBudget(std::size_t contacts, int cone_edges);

/// Grasp quality of `contacts` (docs/grasp.md; Ferrari & Canny 1992). Deterministic: the
/// hull is computed by qhull without joggling. Degenerate input (no contacts, wrenches that
/// span fewer than 6 dimensions, qhull precision failures) gives force_closure = false,
/// epsilon = 0, volume = 0 and a note instead of an exception.
/// Throws std::invalid_argument for invalid options or contacts (see primitiveWrenches).
GraspQuality evaluateGrasp(const std::vector<GraspContact>& contacts,
                           const GraspQualityOptions& options = {});

}  // namespace handsim::grasp
