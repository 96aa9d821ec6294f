// SPDX-License-Identifier: GPL-3.0-or-later
// Discrete oriented polytopes (k-DOPs): the intersection of k/2 slabs along fixed directions
// (Klosowski, Held, Mitchell, Sowizral, Zikan, "Efficient Collision Detection Using Bounding
// Volume Hierarchies of k-DOPs", IEEE TVCG 4(1), 1998).
#pragma once

#include <Eigen/Core>

namespace handsim::collision {

/// Largest number of slab directions (k = 26 -> 13).
inline constexpr int kMaxKdopAxes = 13;

/// True for the supported k: 14, 18 or 26.
bool isSupportedKdop(int k);

/// Slab directions of a k-DOP (k/2 of them), unnormalised integer vectors so that projections
/// of a vertex are exact sums of its coordinates. The first three are x, y, z for every k;
/// then 14: the 4 corner diagonals (1,+-1,+-1); 18: the 6 edge diagonals (1,+-1,0), (1,0,+-1),
/// (0,1,+-1); 26: corner then edge diagonals. Throws std::invalid_argument for another k.
/// Returns a pointer to k/2 directions.
const Eigen::Vector3d* kdopDirections(int k);

}  // namespace handsim::collision
