// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::kinematics {

/// How sampleWorkspace picks joint values inside the limits.
enum class WorkspaceSampling {
  Grid,   ///< every combination of samples_per_joint evenly spaced values, limits included
  Random  ///< random_samples independent uniform draws from a seeded generator
};

/// Options of sampleWorkspace.
struct WorkspaceOptions {
  WorkspaceSampling sampling = WorkspaceSampling::Grid;
  /// Grid: values per joint, both limits included (>= 2). Joints whose limits coincide or that
  /// are held take one value.
  int samples_per_joint = 10;
  /// Random: number of configurations drawn.
  std::size_t random_samples = 10000;
  /// Random: seed of the std::mt19937_64 generator; the same seed gives the same points on
  /// every platform.
  std::uint64_t seed = 1;
  /// Point budget: a grid or draw count above it throws std::invalid_argument.
  std::size_t max_points = 2000000;
  /// Joints held at one value instead of sampled: (movable joint index, value [rad or m]).
  std::vector<std::pair<int, double>> held;
};

/// Number of configurations sampleWorkspace would produce for these options (throws
/// std::invalid_argument for options it would reject, except the budget).
std::size_t workspaceSampleCount(const Chain& chain, const WorkspaceOptions& options);

/// The sampled joint configurations (each chain.dof() entries [rad or m]). Grid order: joint 0
/// varies slowest, the last joint fastest; grid value k of n for joint j is
/// lower_j + k (upper_j - lower_j) / (n - 1). Throws std::invalid_argument naming the problem
/// (samples_per_joint < 2, a held joint out of range or outside its limits, budget exceeded).
std::vector<JointVector> workspaceJointSamples(const Chain& chain, const WorkspaceOptions& options);

/// Fingertip positions in the finger base frame {k0} [m], one per workspaceJointSamples entry
/// and in the same order.
std::vector<Eigen::Vector3d> sampleWorkspace(const Chain& chain, const WorkspaceOptions& options);

/// Axis-aligned bounding box and reach of a point set.
struct WorkspaceSummary {
  std::size_t count = 0;                          ///< number of points
  Eigen::Vector3d min = Eigen::Vector3d::Zero();  ///< smallest x, y, z [m]
  Eigen::Vector3d max = Eigen::Vector3d::Zero();  ///< largest x, y, z [m]
  double min_reach = 0.0;  ///< smallest distance from the origin given to summarizeWorkspace [m]
  double max_reach = 0.0;  ///< largest such distance [m]
};

/// Bounding box and min/max distance from `origin` (same frame as the points). Throws
/// std::invalid_argument for an empty set.
WorkspaceSummary summarizeWorkspace(const std::vector<Eigen::Vector3d>& points,
                                    const Eigen::Vector3d& origin = Eigen::Vector3d::Zero());

/// The part of `chain` from row `first_row` to the tip, as a chain of its own whose base frame
/// {k0} is frame {first_row} of `chain` with the joints before it at their values in `q`
/// (chain.dof() entries; later entries are ignored). Its base transform is palm -> that frame.
/// E.g. the dexterous3 finger's planar J1-J3 part: distalChain(F1, 2, q). Throws
/// std::invalid_argument when first_row is not in [0, rows).
Chain distalChain(const Chain& chain, int first_row, const Eigen::Ref<const Eigen::VectorXd>& q);

/// Reach range of a planar finger, from the first planar axis.
struct PlanarReach {
  double min_reach = 0.0;  ///< [m]
  double max_reach = 0.0;  ///< [m]
};
/// Exact reach range of a planar three-link finger (the last three rows revolute with
/// alpha = 0, d = 0; see isPlanarThreeLinkFinger) within its joint limits, measured from the
/// origin of frame {n-3} (the first planar joint's frame): the distance does not depend on the
/// first planar joint, so its extremes over the box of the other two joints are found among the
/// box corners, the critical points on its edges and the interior critical points (all links
/// collinear, or the tip on the first axis). Throws std::invalid_argument for other chains.
PlanarReach planarWorkspaceBounds(const Chain& chain);

}  // namespace handsim::kinematics
