// SPDX-License-Identifier: GPL-3.0-or-later
// Eigengrasps: the low-dimensional posture space the grasp planner searches (docs/planner.md,
// "Eigengrasps"; the hand file key in docs/hand-format.md).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"

namespace handsim::planner {

/// Postures p = clamp(origin + D a) for amplitudes a, clamped into the actuator ranges.
struct EigengraspBasis {
  Eigen::VectorXd origin;          ///< [actuator unit] (na)
  Eigen::MatrixXd directions;      ///< na x k [actuator unit per unit amplitude]
  Eigen::VectorXd lower, upper;    ///< amplitude bounds (k): each direction alone stays in range
  std::vector<std::string> names;  ///< (k)
  bool computed = false;           ///< true: from computeEigengrasps, not the hand file
  int size() const { return static_cast<int>(directions.cols()); }
};

/// The hand file's eigengrasps when it has them, else computeEigengrasps(hand, k, 400, seed)
/// with k = min(na, 2) for hands of up to 4 actuators and min(na, 6) for larger ones.
/// Throws std::invalid_argument for a hand without actuators.
EigengraspBasis eigengraspBasis(const hand::HandModel& hand, std::uint64_t seed = 1);

/// A basis given by its origin (na) and directions (na x k) [actuator unit], with the amplitude
/// bounds of eigengraspBasis (each direction alone keeps the origin inside every range).
/// Throws std::invalid_argument for wrong sizes, non-finite values, an origin outside the
/// actuator ranges or a zero direction.
EigengraspBasis eigengraspBasisFrom(const hand::HandModel& hand, const Eigen::VectorXd& origin,
                                    const Eigen::MatrixXd& directions);

/// Principal components of `samples` closing postures sampled within the actuator ranges
/// (docs/planner.md, "Computed eigengrasps"): each actuator is scaled by its range, the k
/// leading eigenvectors of the sample covariance become the directions (back in actuator
/// units), the sample mean the origin. Deterministic for a seed.
EigengraspBasis computeEigengrasps(const hand::HandModel& hand, int k, int samples,
                                   std::uint64_t seed);

/// The posture of amplitudes `a` (k), clamped into each actuator's range [actuator unit].
Eigen::VectorXd postureOf(const hand::HandModel& hand, const EigengraspBasis& basis,
                          const Eigen::VectorXd& a);

/// The amplitudes whose posture is nearest `posture` in the least-squares sense (unclamped).
Eigen::VectorXd amplitudesOf(const EigengraspBasis& basis, const Eigen::VectorXd& posture);

/// The "eigengrasps" block for a hand file or URDF sidecar (docs/hand-format.md), as JSON text:
/// how a computed basis is saved.
std::string eigengraspJson(const hand::HandModel& hand, const EigengraspBasis& basis);

}  // namespace handsim::planner
