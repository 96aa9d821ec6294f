// SPDX-License-Identifier: GPL-3.0-or-later
// The grasp planner (docs/planner.md): searches palm poses relative to the object and
// postures in the eigengrasp subspace, closes the best candidates in the engine, and keeps
// force-closure grasps that differ by the pose distance. Deterministic for a seed, on any
// number of threads.
#pragma once

#include <Eigen/Geometry>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "handsim/planner/constraints.hpp"
#include "handsim/planner/energy.hpp"

namespace handsim::planner {

/// How candidates are searched (docs/planner.md, "Strategies").
enum class Strategy {
  /// GraspIt!'s simulated annealing (the baseline): a chain per candidate over palm pose and
  /// eigengrasp amplitudes with Ingber's schedule.
  Annealing,
  /// handsim's: an approach along the inward normal of a point sampled on the object's
  /// surface, the palm moved in until it touches, then a short local descent.
  SurfaceNormals,
};
/// "annealing" / "surface-normals"; parseStrategy throws std::invalid_argument listing them.
const char* strategyName(Strategy s);
Strategy parseStrategy(const std::string& name);

/// The energy the search descends (the closing quality always judges the result).
enum class EnergyKind { ContactDistance, PotentialQuality };
const char* energyName(EnergyKind e);
EnergyKind parseEnergy(const std::string& name);  ///< "contact" / "potential"

/// Ingber's schedule as GraspIt! uses it: T(k) = T0 exp(-c k^(1/d)).
struct AnnealingSchedule {
  double t0 = 1e6;
  double c = 7.0;
  double d = 8.0;
  std::int64_t k0 = 30000;  ///< the first step's k
  double temperature(std::int64_t k) const;
  /// Neighbour step as a fraction of each variable's range: (T / T0)^(1 / d).
  double stepFraction(std::int64_t k) const;
};

/// What a custom search energy sees of a legal configuration of the search (docs/planner.md,
/// "Custom energies"): the hand neither intersects the object nor breaks a constraint there.
struct EnergyInput {
  const PlannerModel& model;
  const Eigen::Isometry3d& palm_object;  ///< the palm in the object frame
  const Eigen::VectorXd& amplitudes;     ///< eigengrasp amplitudes (k)
  const Eigen::VectorXd& posture;        ///< actuator positions [actuator unit] (na)
  /// The preset contact points and their nearest surface points, object frame.
  const std::vector<PointDistance>& points;
  const sim::SimState& state;  ///< the configuration, link frames computed
};

/// A search energy of the caller's: lower is better; must be deterministic (the same input gives
/// the same value) for runs to repeat, and callable from several threads at once. A value that
/// is not finite stops the run with an error.
using CustomEnergy = std::function<double(const EnergyInput&)>;

struct PlannerOptions {
  Strategy strategy = Strategy::SurfaceNormals;
  EnergyKind energy = EnergyKind::ContactDistance;
  /// Replaces `energy` when set; records name the energy "custom".
  CustomEnergy custom_energy;
  /// Grasps to return: the run stops when this many distinct force-closure grasps are found
  /// (0: no limit, every candidate of the budget is tried).
  int grasps = 20;
  /// Candidates the run may try (0: 100 per grasp asked for, 2000 when grasps is 0).
  int candidates = 0;
  std::uint64_t seed = 1;
  unsigned threads = 1;  ///< 0: all cores
  /// Annealing: steps per candidate chain (GraspIt!'s 40,000 over its best list of 20 grasps
  /// is 2,000 per grasp).
  int annealing_steps = 2000;
  AnnealingSchedule schedule;
  /// Surface normals: local descent steps after the approach.
  int descent_steps = 60;
  /// Two grasps are the same when their palm positions are nearer than this fraction of the
  /// object's radius AND their orientations nearer than `angle` (GraspIt!'s 20 % and 72 deg).
  double distinct_fraction = 0.2;
  double distinct_angle = 72.0 * M_PI / 180.0;
  ClosingOptions closing;
  /// Where the hand may be (docs/planner.md, "Constraints"): a configuration that breaks one
  /// is illegal in the search like one in collision, and a grasp whose closed hand reaches
  /// below the support plane is not kept.
  PlannerConstraints constraints;
  /// Shard i of N: only candidates with index % N == i, every one kept (no distinctness and no
  /// count limit; mergeCandidates applies them), for runs split over processes.
  int shard = 0, shards = 1;
};

/// One candidate's outcome: the planned pre-grasp and the grasp it closed to.
struct PlannedGrasp {
  std::int64_t candidate = -1;  ///< index in the run's candidate sequence
  Eigen::Isometry3d palm_object = Eigen::Isometry3d::Identity();  ///< palm in object frame
  Eigen::VectorXd amplitudes;    ///< eigengrasp amplitudes of the pre-grasp (k)
  Eigen::VectorXd pregrasp;      ///< actuator positions before closing [unit] (na)
  double energy = 0.0;           ///< search energy of the pre-grasp
  /// The search could not leave collision or find a start that meets the constraints
  /// (reported, not kept).
  bool start_collision = false;
  /// The closed hand reaches below the support plane (not kept).
  bool violates_constraints = false;
  ClosedGrasp closed;
  bool forceClosure() const { return closed.quality.force_closure; }
};

/// The pose distance of docs/planner.md: max(|p_a - p_b| / (fraction * radius),
/// angle(R_a^T R_b) / angle_limit); two grasps are distinct when it is >= 1.
double poseDistance(const Eigen::Isometry3d& a, const Eigen::Isometry3d& b, double radius,
                    double fraction, double angle_limit);

/// A start in collision moved out: the palm stepped by `step` along `direction` (object
/// frame) until the hand at `posture` no longer touches the object, at most `max_steps` times.
/// The free pose, or nothing (then the candidate is reported as starting in collision; never
/// an endless retry).
std::optional<Eigen::Isometry3d> backOutOfCollision(const PlannerModel& pm,
                                                    Eigen::Isometry3d palm_object,
                                                    const Eigen::VectorXd& posture,
                                                    const Eigen::Vector3d& direction, double step,
                                                    int max_steps);

/// Progress: candidates finished, grasps accepted so far, the candidate budget.
using PlannerProgress = std::function<void(std::int64_t done, int accepted, std::int64_t budget)>;

/// What a front end may add to a run (the GUI's planner panel): `accepted` is called with each
/// grasp as it is accepted (in candidate order, on a worker thread under the run's lock: keep
/// it short); once `*stop` is true no further candidate starts or is accepted, and planGrasps
/// returns the grasps accepted so far.
struct PlannerHooks {
  std::function<void(const PlannedGrasp&)> accepted;
  const std::atomic<bool>* stop = nullptr;
};

/// The candidate budget of `options` (PlannerOptions::candidates resolved).
std::int64_t candidateBudget(const PlannerOptions& options);

/// The model candidates close on: pm.model, or with a support plane withSupportTable (the
/// table a real body the fingers close against; planCandidate's closing plan places it at
/// supportTablePose of the checked plane).
std::shared_ptr<const sim::Model> closingModel(const PlannerModel& pm,
                                               const PlannerOptions& options);

/// One candidate, alone: deterministic for (seed, index), whatever thread runs it.
/// `closing_model`: closingModel(pm, options), built here when null (pass it to share it).
PlannedGrasp planCandidate(const PlannerModel& pm, const PlannerOptions& options,
                           std::int64_t index,
                           const std::shared_ptr<const sim::Model>& closing_model = nullptr);

/// Plans grasps. Without shards: the accepted grasps (force closure, distinct from every
/// earlier accepted one), in candidate order, at most `grasps`. With shards: every candidate of
/// the shard that closed in force closure, in candidate order. Throws std::invalid_argument
/// for bad options.
std::vector<PlannedGrasp> planGrasps(const PlannerModel& pm, const PlannerOptions& options,
                                     const PlannerProgress& progress = {},
                                     const PlannerHooks& hooks = {});

/// What planGrasps returns without shards, from candidates in any order (e.g. the shards of
/// a run): sorted by candidate, force-closure ones kept if distinct, at most `grasps`.
std::vector<PlannedGrasp> selectGrasps(std::vector<PlannedGrasp> candidates, double radius,
                                       const PlannerOptions& options);

}  // namespace handsim::planner
