// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's shaking metric (sec. III.B, Fig. 5-6; docs/free-objects.md, "Shaking a grasp"):
// the kinetic energy of a grasped object against the kinetic energy it would have if it were
// carried rigidly by the prescribed palm motion, and the ratio of the two over a time window.
#pragma once

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <limits>
#include <vector>

#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

/// The kinetic energy [J] of a body of `mass` [kg] and inertia `inertia_world` (about its COM,
/// world axes) whose COM is at `com_world`, if it were welded to the palm where it is now: its
/// COM moves with v_palm + w_palm x (com - palm origin), it turns with w_palm.
/// `palm_twist_world`: the palm origin's velocity, then its angular velocity (world).
double carriedKineticEnergy(double mass, const Eigen::Matrix3d& inertia_world,
                            const Eigen::Vector3d& com_world,
                            const Eigen::Isometry3d& palm_pose_world, const Twist& palm_twist_world);

/// The scalar of one cell of seed 004's maps, from sampled energies.
struct EnergyRatio {
  static constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  /// ∫ E dt / ∫ E_carried dt over the window (trapezoids on the samples inside it); NaN when
  /// the carried integral is 0 (the palm did not move).
  double integral_ratio = kNaN;
  /// The largest ∫ E dt / ∫ E_carried dt over every sub-window of the given length that starts
  /// at a sample (a burst of jitter that the whole window's average would hide); NaN when the
  /// window is shorter than the sub-window.
  double peak_window_ratio = kNaN;
  double energy_integral = 0.0;          ///< ∫ E dt [J s]
  double carried_energy_integral = 0.0;  ///< ∫ E_carried dt [J s]
  int samples = 0;                       ///< samples with from <= t <= to
};

/// `time` increasing [s]; `energy` the object's kinetic energy and `carried` its carried
/// kinetic energy at those times [J]. Integrates over the samples with from <= t <= to (within
/// 1e-9 of to - from: sample times are sums of steps);
/// `sub_window` [s] > 0 is the length of the windows of peak_window_ratio. Throws
/// std::invalid_argument for sizes that differ, a time that does not increase, to <= from or
/// sub_window <= 0.
EnergyRatio kineticEnergyRatio(const std::vector<double>& time, const std::vector<double>& energy,
                               const std::vector<double>& carried, double from, double to,
                               double sub_window);

}  // namespace handsim::sim
