// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <vector>

#include "handsim/grasp/grasp_contact.hpp"

namespace handsim::grasp {

/// Primitive wrenches of a grasp, one column per friction-cone edge of every contact, 6 x
/// (sum over contacts of edges), contact by contact.
///
/// Each contact's Coulomb cone is replaced by `cone_edges` forces with unit normal component,
/// f_j = n + mu (cos(2 pi j / m) t1 + sin(2 pi j / m) t2), j = 0..m-1, where (t1, t2) is a fixed
/// tangent basis of the contact (t1 = normalised e x n with e the coordinate axis least aligned
/// with n). Frictionless contacts (mu = 0) contribute the single force n. The column is
/// w = (f, (p - torque_reference) x f / torque_radius): force [N per unit normal force] and
/// torque divided by torque_radius [m] so that both halves have the same unit.
///
/// Throws std::invalid_argument when cone_edges < 3, torque_radius is not positive and finite,
/// or a contact has a non-finite value, a zero normal or a negative friction coefficient.
/// Normals need not be exactly unit: they are normalised.
Eigen::Matrix<double, 6, Eigen::Dynamic> primitiveWrenches(
    const std::vector<GraspContact>& contacts, int cone_edges,
    const Eigen::Vector3d& torque_reference, double torque_radius);

}  // namespace handsim::grasp
