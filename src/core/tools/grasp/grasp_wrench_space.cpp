// SPDX-License-Identifier: GPL-3.0-or-later
// Primitive wrenches of a grasp with linearised Coulomb cones.
// References: C. Ferrari and J. Canny, "Planning optimal grasps", ICRA 1992, sec. 2 (contact
// wrenches, linearised friction cones, unit-normal-force primitive forces); A. T. Miller and
// P. K. Allen, "GraspIt!", IEEE RAM 11(4) 2004, sec. on grasp quality (torques scaled by a
// characteristic object length so forces and torques are commensurate).
#include "handsim/grasp/grasp_wrench_space.hpp"

#include <Eigen/Geometry>
#include <cmath>
#include <stdexcept>
#include <string>

namespace handsim::grasp {
namespace {

constexpr double kPi = 3.14159265358979323846;

bool finite(const Eigen::Vector3d& v) {
  return v.allFinite();
}

/// A tangent direction of `n` that depends only on n, so that the same contact always gets
/// the same cone edges (determinism) and edges 0, m/4, m/2, 3m/4 are shared by every m that
/// is a multiple of 4 (the cones are nested when m doubles).
Eigen::Vector3d firstTangent(const Eigen::Vector3d& n) {
  int axis = 0;
  for (int k = 1; k < 3; ++k)
    if (std::abs(n[k]) < std::abs(n[axis])) axis = k;
  return Eigen::Vector3d::Unit(axis).cross(n).normalized();
}

}  // namespace

Eigen::Matrix<double, 6, Eigen::Dynamic> primitiveWrenches(
    const std::vector<GraspContact>& contacts, int cone_edges,
    const Eigen::Vector3d& torque_reference, double torque_radius) {
  if (cone_edges < 3)
    throw std::invalid_argument("grasp: cone_edges must be at least 3, got " +
                                std::to_string(cone_edges));
  if (!(torque_radius > 0.0) || !std::isfinite(torque_radius))
    throw std::invalid_argument("grasp: torque_radius must be positive and finite [m]");
  if (!finite(torque_reference))
    throw std::invalid_argument("grasp: torque_reference must be finite");
  Eigen::Index columns = 0;
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const auto& c = contacts[i];
    const std::string which = "grasp: contact " + std::to_string(i) + ": ";
    if (!finite(c.point) || !finite(c.normal) || !std::isfinite(c.friction))
      throw std::invalid_argument(which + "non-finite point, normal or friction");
    if (c.normal.norm() < 1e-9) throw std::invalid_argument(which + "zero normal");
    if (c.friction < 0.0) throw std::invalid_argument(which + "negative friction coefficient");
    columns += c.friction > 0.0 ? cone_edges : 1;
  }

  Eigen::Matrix<double, 6, Eigen::Dynamic> w(6, columns);
  Eigen::Index col = 0;
  for (const auto& c : contacts) {
    const Eigen::Vector3d n = c.normal.normalized();
    const Eigen::Vector3d arm = (c.point - torque_reference) / torque_radius;
    // Unit normal component for every edge: the L1 wrench space then bounds the sum of the
    // normal forces, as in Ferrari & Canny and GraspIt!.
    const auto put = [&](const Eigen::Vector3d& f) {
      w.col(col).head<3>() = f;
      w.col(col).tail<3>() = arm.cross(f);
      ++col;
    };
    if (c.friction > 0.0) {
      const Eigen::Vector3d t1 = firstTangent(n);
      const Eigen::Vector3d t2 = n.cross(t1);
      for (int j = 0; j < cone_edges; ++j) {
        const double a = 2.0 * kPi * j / cone_edges;
        put(n + c.friction * (std::cos(a) * t1 + std::sin(a) * t2));
      }
    } else {
      put(n);
    }
  }
  return w;
}

}  // namespace handsim::grasp
