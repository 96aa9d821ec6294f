// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <Eigen/Core>
#include <variant>

#include "handsim/contact/penalty_contact.hpp"

namespace handsim::sim {

/// Which contact model the step runs (scenario "contact": "model"); ContactOptions::model holds
/// the chosen model's options.
enum class ContactModel {
  /// Velocity constraints and velocity-level Coulomb friction solved by projected Gauss-Seidel
  /// (docs/simulation.md, docs/free-objects.md). Files call it "default".
  Constraint,
  /// Seed 004's penalty contact: forces from the exact overlap volume of each body pair, eq.
  /// 3-7, with eq. 8 or anchor friction (docs/free-objects.md, "Seed 004's model in the engine";
  /// sim/penalty_contacts.hpp). Files call it "seed004".
  VolumePenalty,
};

/// Friction law of the volume penalty model.
enum class PenaltyFriction {
  Anchor,  ///< stick-slip anchor spring: holds without creeping (the default)
  Tanh,    ///< seed 004 eq. 8: Coulomb with tanh plus viscous (creeps under any steady load)
};

/// How the volume penalty stage integrates eq. 6's normal force (scenario "contact":
/// "integration").
enum class PenaltyIntegration {
  /// Linearly implicit in the depth rate: stable at any step, dissipative (the default).
  Implicit,
  /// Eq. 4-6 evaluated from the state at the start of the step and held constant over it (the
  /// free bodies' symplectic Euler step then moves with it): the ODE the paper integrates with
  /// ode45, bounded by `penaltyStableStep` (docs/free-objects.md, "Explicit integration").
  Explicit,
};

/// Recommended torsional friction length [m], the default of ConstraintContactOptions::torsional:
/// a soft pad's disc patch of radius r = 6 mm under uniform pressure with mu = 0.5 resists spin
/// with 2/3 mu r f_n = 2 mm * f_n (docs/free-objects.md, "Contacts and friction that holds"). It
/// needs the converged solve (SolverOptions::warm_start and tolerance, also the defaults): with
/// the cold 50-sweep solve it makes the BarrettHand lift worse (docs/performance.md).
inline constexpr double kRecommendedTorsional = 2e-3;

/// Options of the Coulomb constraint model (ContactModel::Constraint, files' "default").
struct ConstraintContactOptions {
  /// Fraction of a contact's penetration beyond `slop` pushed back per step [-]. 0 (the
  /// default) is seed 000's pure velocity constraint; the depth estimate of coarse meshes can
  /// be far larger than the true penetration, so raise it only for fine meshes.
  double stiffness = 0.0;
  /// Penetration a contact settles at: shallower contacts may sink to it so a resting link
  /// keeps touching; deeper ones are not pushed back unless stiffness > 0 [m].
  double slop = 1e-4;
  /// Fraction of the remaining way to `slop` a fresh contact may sink per step [-].
  double sink_rate = 0.2;
  /// Fraction of a free object's penetration beyond `slop` taken out per step, for its
  /// contacts with the ground, the palm and other objects [-], by the position correction (it
  /// moves the object without giving it velocity: no energy from the push); hand contacts keep
  /// `stiffness`.
  double object_push = 0.2;
  /// Torsional friction length mu_spin [m] (scenario "contact": "torsional_m"): each contact on
  /// a free object also resists spinning about its normal with a moment of at most
  /// mu_spin * f_n, the soft-finger contact (docs/free-objects.md, "Torsional friction"). 0
  /// turns it off (point contacts that turn freely about their normal, the behaviour before it
  /// became the default).
  double torsional = kRecommendedTorsional;
  /// Resting-pair reuse [m] (sim/resting_pairs.hpp): a body pair that touches keeps the
  /// contacts computed at its last query while no point of one body has moved more than this
  /// relative to the other since; each reused point and depth is then within this distance of
  /// a fresh query's. 0 queries every pair every step.
  double resting_tolerance = 1e-9;
};

/// Options of the overlap-volume penalty model of seed 004 (ContactModel::VolumePenalty, files'
/// "seed004"). Its Coulomb coefficient is each pair's (the object's `friction`, which defaults
/// to ContactOptions::mu), not the `mu` fields of the two parameter structs below.
struct VolumePenaltyOptions {
  PenaltyFriction friction = PenaltyFriction::Anchor;  ///< the friction law
  /// Integration of the normal force.
  PenaltyIntegration integration = PenaltyIntegration::Implicit;
  /// Seed 004's gains in SI (g1, g2, gi, gt, d_t, the eq. 4 filter, eq. 8's beta and gamma).
  contact::PenaltyContactParams penalty;
  /// The anchor spring's k_t and c_t.
  contact::AnchorFrictionParams anchor;
};

/// Parameters of the contact stage (docs/simulation.md, "Contacts"): what every model uses, and
/// the chosen model with its own options.
struct ContactOptions {
  /// Directions of the bounding polytopes (14, 18 or 26; seed 000 sec. IV uses 18).
  int kdop_k = 18;
  /// Default Coulomb coefficient [-] of objects that give none (scenario "contact": "mu"):
  /// the friction of contacts on free objects (docs/free-objects.md).
  double mu = 0.5;
  /// Continuous collision of fast free objects (scenario "contact": "continuous"), both models:
  /// an object that would pass a body it touches during the step ends the step at its first
  /// touch (sim/continuous_collision.hpp, docs/free-objects.md).
  bool continuous = true;
  /// The contact model and its options (scenario "contact": "model" and the model's keys).
  /// Assign the other alternative to change the model, e.g.
  /// `options.contact.model = sim::VolumePenaltyOptions{}`.
  std::variant<ConstraintContactOptions, VolumePenaltyOptions> model;

  /// Which model `model` holds.
  ContactModel kind() const {
    return model.index() == 0 ? ContactModel::Constraint : ContactModel::VolumePenalty;
  }
  /// The constraint model's options; null when another model is chosen.
  const ConstraintContactOptions* constraint() const {
    return std::get_if<ConstraintContactOptions>(&model);
  }
  ConstraintContactOptions* constraint() { return std::get_if<ConstraintContactOptions>(&model); }
  /// The volume penalty model's options; null when another model is chosen.
  const VolumePenaltyOptions* volumePenalty() const {
    return std::get_if<VolumePenaltyOptions>(&model);
  }
  VolumePenaltyOptions* volumePenalty() { return std::get_if<VolumePenaltyOptions>(&model); }
  /// The constraint model's options, choosing that model (with its defaults) if another was.
  ConstraintContactOptions& useConstraint() {
    if (!constraint()) model = ConstraintContactOptions{};
    return *constraint();
  }
  /// The volume penalty model's options, choosing that model (with its defaults) if another
  /// was.
  VolumePenaltyOptions& useVolumePenalty() {
    if (!volumePenalty()) model = VolumePenaltyOptions{};
    return *volumePenalty();
  }
};

/// A fixed half-space z <= height in the world that free objects rest on (docs/free-objects.md).
struct GroundOptions {
  bool enabled = false;
  double height = 0.0;    ///< [m], world z
  double friction = -1.0; ///< Coulomb coefficient [-]; negative: each object's own
};

/// Parameters of the constraint solver (projected Gauss-Seidel, docs/simulation.md).
struct SolverOptions {
  /// Gauss-Seidel sweeps over the constraint rows per solve.
  int sweeps = 50;
  /// A row whose effective inverse mass is below this fraction of the largest one (plus one)
  /// constrains no actuator (e.g. a contact on a clutch-locked link) and is skipped [-].
  double row_floor = 1e-12;
  /// Each solve stops after a sweep whose largest impulse change is at most this fraction of
  /// the largest impulse [-] (0: only at the exact fixed point, a sweep that changes nothing,
  /// the behaviour before the converged solve became the default); `sweeps` stays the maximum.
  double tolerance = 1e-9;
  /// Start each solve from the last step's impulses of the same contacts (matched by the two
  /// bodies and the contact point, within `warm_start_radius`) and the last step's limit
  /// reactions, instead of from zero (docs/performance.md, "Warm start"). On by default with
  /// `tolerance` 1e-9 and ContactOptions::torsional = kRecommendedTorsional: the cold 50-sweep
  /// solve does not converge on a grasp that rests on the ground (the BarrettHand lift), and
  /// its results there are an artefact of where it stopped (docs/performance.md, "Converged
  /// solve by default"). false with tolerance 0 and torsional 0 is the earlier solve.
  bool warm_start = true;
  /// Largest distance between a contact point and last step's for the two to count as the same
  /// contact [m].
  double warm_start_radius = 1e-3;
  /// Speed below which an actuator counts as standing still when the clutch judges the
  /// closing direction; the servo's push decides then [actuator unit/s].
  double standstill_speed = 1e-9;
};

/// Everything about a run that is not the hand or the objects: the fixed step, gravity and
/// the contact and solver parameters. Part of the compiled sim::Model.
struct Options {
  double dt = 1e-3;  ///< fixed step [s]
  /// Gravitational acceleration in the world frame [m/s^2] (world z up). The palm may be
  /// placed and turned in the world (SimState::palm_pose_world); gravity turns with it.
  Eigen::Vector3d gravity_world = Eigen::Vector3d(0.0, 0.0, -9.81);
  ContactOptions contact;
  SolverOptions solver;
  GroundOptions ground;
};

/// Throws std::invalid_argument naming the first bad field (dt <= 0, non-finite values,
/// negative contact parameters, k not in {14, 18, 26}, sweeps < 1, a bad ground).
void validateOptions(const Options& options);

}  // namespace handsim::sim
