// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Geometry>

#include "handsim/kinematics/chain.hpp"

namespace handsim::dynamics {

/// Pseudo-inertia matrix J = integral(r r^T dm) of a link in its own frame, r = (x, y, z, 1)
/// (Fu, Gonzalez & Lee, section 3.2): J = [ (tr(I)/2) 1 - I , m c ; m c^T , m ] with I the
/// inertia tensor about the frame origin, c the centre of mass, m the mass
/// (docs/dynamics.md derives it). Units: [kg m^2] top-left, [kg m] off-diagonal, [kg] corner.
Eigen::Matrix4d pseudoInertia(const kinematics::LinkInertia& link);

/// The same link's pseudo-inertia in another frame: T J T^T, where `link_to_base` maps link
/// coordinates to that frame (e.g. 0T_j from forwardKinematics).
Eigen::Matrix4d pseudoInertiaInBase(const kinematics::LinkInertia& link,
                                    const Eigen::Isometry3d& link_to_base);

}  // namespace handsim::dynamics
