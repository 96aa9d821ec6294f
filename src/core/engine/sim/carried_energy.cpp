// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/carried_energy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "handsim/sim/rigid_body.hpp"

namespace handsim::sim {

double carriedKineticEnergy(double mass, const Eigen::Matrix3d& inertia_world,
                            const Eigen::Vector3d& com_world,
                            const Eigen::Isometry3d& palm_pose_world,
                            const Twist& palm_twist_world) {
  const Eigen::Vector3d w = palm_twist_world.tail<3>();
  const Eigen::Vector3d v =
      palm_twist_world.head<3>() + w.cross(com_world - palm_pose_world.translation());
  return kineticEnergy(mass, inertia_world, v, w);
}

EnergyRatio kineticEnergyRatio(const std::vector<double>& time, const std::vector<double>& energy,
                               const std::vector<double>& carried, double from, double to,
                               double sub_window) {
  if (energy.size() != time.size() || carried.size() != time.size())
    throw std::invalid_argument("kineticEnergyRatio: time, energy and carried differ in size");
  if (!(to > from)) throw std::invalid_argument("kineticEnergyRatio: the window is empty");
  if (!(sub_window > 0.0))
    throw std::invalid_argument("kineticEnergyRatio: the sub-window must be positive");
  for (std::size_t i = 1; i < time.size(); ++i)
    if (!(time[i] > time[i - 1]))
      throw std::invalid_argument("kineticEnergyRatio: time does not increase");
  // The samples inside [from, to] and the running trapezoid integrals of both energies.
  // Sample times are sums of steps: a sample within 1e-9 of the window's length of an end
  // belongs to the window.
  const double eps = 1e-9 * (to - from);
  const auto first = static_cast<std::size_t>(
      std::lower_bound(time.begin(), time.end(), from - eps) - time.begin());
  const auto last = static_cast<std::size_t>(std::upper_bound(time.begin(), time.end(), to + eps) -
                                             time.begin());  // one past
  EnergyRatio r;
  if (last <= first) return r;
  r.samples = static_cast<int>(last - first);
  std::vector<double> e_sum(last - first, 0.0), c_sum(last - first, 0.0);
  for (std::size_t i = first + 1; i < last; ++i) {
    const double h = time[i] - time[i - 1];
    e_sum[i - first] = e_sum[i - 1 - first] + 0.5 * h * (energy[i] + energy[i - 1]);
    c_sum[i - first] = c_sum[i - 1 - first] + 0.5 * h * (carried[i] + carried[i - 1]);
  }
  r.energy_integral = e_sum.back();
  r.carried_energy_integral = c_sum.back();
  if (r.carried_energy_integral > 0.0)
    r.integral_ratio = r.energy_integral / r.carried_energy_integral;
  // Sub-windows [t_i, t_j], t_j the last sample at or before t_i + sub_window, for every i
  // whose sub-window fits before `to` (two pointers: j only moves forward).
  std::size_t j = 0;
  const std::size_t n = last - first;
  for (std::size_t i = 0; i < n; ++i) {
    const double end = time[first + i] + sub_window;
    const double slack = 1e-9 * sub_window;  // sample times are sums of steps
    if (end > time[last - 1] + slack) break;
    j = std::max(j, i);
    while (j + 1 < n && time[first + j + 1] <= end + slack) ++j;
    const double c = c_sum[j] - c_sum[i];
    if (j == i || !(c > 0.0)) continue;
    const double ratio = (e_sum[j] - e_sum[i]) / c;
    if (std::isnan(r.peak_window_ratio) || ratio > r.peak_window_ratio) r.peak_window_ratio = ratio;
  }
  return r;
}

}  // namespace handsim::sim
