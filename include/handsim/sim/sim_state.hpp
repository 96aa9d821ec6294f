// SPDX-License-Identifier: GPL-3.0-or-later
// The mutable state of a simulation (docs/development.md): what MuJoCo calls mjData. Every
// field that changes during a run lives here, with its unit, frame and size; the model
// (sim::Model) never changes. Sizes: na actuators, nf fingers (each finger's joint vectors
// have its dof entries), nt tendons, nc clutches, no objects.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "handsim/collision/contact_scratch.hpp"
#include "handsim/collision/convex_contact.hpp"
#include "handsim/contact/contact.hpp"
#include "handsim/contact/patch_friction.hpp"
#include "handsim/contact/projected_gauss_seidel.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/types.hpp"
#include "handsim/sim/body_pair.hpp"
#include "handsim/sim/penalty_state.hpp"
#include "handsim/sim/resting_pairs.hpp"

namespace handsim::sim {

using contact::Contact;
using contact::kGround;
using contact::kPalm;

/// An external force on one link, applied during the following steps (e.g. a probe).
struct LinkLoad {
  int finger = -1;
  int row = -1;                                           ///< the link rigid with frame {row + 1}
  Eigen::Vector3d point_world = Eigen::Vector3d::Zero();  ///< application point [m]
  Eigen::Vector3d force_world = Eigen::Vector3d::Zero();  ///< force on the link [N]
};

/// Twist of a rigid body: a linear velocity then the angular velocity, both in the world frame
/// [m/s; rad/s]. For an object the linear part is the velocity of its centre of mass; for the
/// palm that of its frame origin (each field says which).
using Twist = Eigen::Matrix<double, 6, 1>;

/// What the step needs of one free object (a body of the constraint solver), computed at the
/// start of each step.
struct FreeBodyScratch {
  int object = -1;                                            ///< index into Model::objects
  Eigen::Vector3d com_world = Eigen::Vector3d::Zero();        ///< centre of mass [m]
  Eigen::Matrix3d inertia_world = Eigen::Matrix3d::Zero();    ///< about the COM [kg m^2]
  Eigen::Matrix3d inverse_inertia_world = Eigen::Matrix3d::Zero();
  Eigen::Vector3d free_angular = Eigen::Vector3d::Zero();     ///< midpoint w of the step [rad/s]
};

/// What the continuous collision stage (sim/continuous_collision.hpp) keeps of one object during
/// a step.
struct ContinuousScratch {
  Eigen::Isometry3d start = Eigen::Isometry3d::Identity();  ///< pose at the step's start
  /// Centre of a sphere that holds the body at every pose along the step's motion, world [m].
  Eigen::Vector3d sphere_centre = Eigen::Vector3d::Zero();
  double sphere_radius = 0.0;  ///< [m]
  double travel = 0.0;         ///< motion over the step: COM travel plus turn times reach [m]
  double end = 1.0;            ///< fraction of the step's motion it ends at [-]
  bool moving = false;         ///< free, not stopped
};

/// Scratch memory of the step stages: sized by makeState (or by the first step of a copied
/// state), grown (never shrunk) when a step needs more constraint rows than any before, so
/// steps after the first few do not allocate. Not physics: nothing here is read across steps,
/// and copying a state does not copy it (a history of states stays small).
struct StepWorkspace {
  StepWorkspace() = default;
  StepWorkspace(const StepWorkspace&) {}
  StepWorkspace& operator=(const StepWorkspace&) { return *this; }
  StepWorkspace(StepWorkspace&&) = default;
  StepWorkspace& operator=(StepWorkspace&&) = default;
  ~StepWorkspace() = default;

  std::vector<std::vector<hand::EffectiveDrive>> drives;  ///< [f][j] at the current clutches
  std::vector<dynamics::DynamicsTerms> terms;             ///< D, H, C per finger
  std::vector<kinematics::JointVector> external;          ///< J^T f of loads and contacts (nf)
  std::vector<kinematics::JointVector> qdd_drive;         ///< joint accelerations of the drive (nf)
  dynamics::LagrangeEulerScratch lagrange_euler;          ///< per-row memory, the longest finger's
  Eigen::MatrixXd mass;                    ///< actuator-space inertia R^T D R + J (na x na)
  Eigen::LDLT<Eigen::MatrixXd> mass_ldlt;  ///< its factorisation
  Eigen::VectorXd bias;                    ///< R^T (H + C - external) (na)
  Eigen::VectorXd force;                   ///< servo, tendon and spring forces minus bias (na)
  // The generalised velocities of the constraint solver are the na actuator velocities, then
  // per free body its COM velocity and angular velocity (world): n = na + 6 nb.
  Eigen::VectorXd acceleration;            ///< generalised accelerations (n)
  Eigen::VectorXd velocity_old;            ///< velocities at the start of the step (n)
  Eigen::VectorXd velocity;                ///< velocities at its end (n)
  Eigen::VectorXd velocity_impact;  ///< after the impact impulses, before the step (n)
  /// Pseudo-velocities of the position correction (n): they move the free objects out of a
  /// penetration over the step but are not kept as velocity (split impulse; no kinetic energy
  /// comes from pushing bodies apart).
  Eigen::VectorXd velocity_position;
  std::vector<FreeBodyScratch> bodies;  ///< the free objects of this step (nb)
  std::vector<int> body_of_object;      ///< body index of each object, -1 fixed (no)
  Eigen::VectorXi row_normal;           ///< per row: its normal row if a tangent row, else -1
  /// Per row: the other tangent row of its friction cone (the two tangents of one contact name
  /// each other), else -1 (normal, limit and torsional rows).
  Eigen::VectorXi row_partner;
  Eigen::VectorXd row_mu;               ///< per row: Coulomb coefficient of a tangent row
  /// Per friction row its direction: a unit tangent of a sliding row, the contact normal of a
  /// torsional row (row_spin 1).
  std::vector<Eigen::Vector3d> tangents;
  std::vector<std::uint8_t> row_spin;  ///< per row: 1 for a torsional friction row
  /// Per object contact: where its friction rows act, the point pulled towards the centre of
  /// its flat patch (contact/patch_friction.hpp); the normal row stays at the point (capacity).
  std::vector<Eigen::Vector3d> friction_points;
  contact::PatchFrictionScratch patch_friction;  ///< scratch of contact::patchFrictionPoints
  Eigen::VectorXd lower, upper;            ///< actuator ranges narrowed by joint limits (na)
  std::vector<std::pair<Eigen::Index, double>> limit_rows;  ///< (actuator, +1 lower/-1 upper)
  Eigen::MatrixXd rows;                                     ///< constraint rows J (capacity x n)
  Eigen::VectorXd row_bias;             ///< right-hand sides c of J v >= c (capacity)
  Eigen::MatrixXd minv_rows;            ///< M^-1 J^T (n x capacity)
  Eigen::MatrixXd delassus;             ///< J M^-1 J^T (capacity x capacity)
  Eigen::VectorXd lambda;               ///< impulses (capacity)
  Eigen::VectorXd lambda_impact;         ///< impulses of the impact (capacity)
  Eigen::VectorXd row_push;              ///< position correction's right-hand sides (capacity)
  Eigen::VectorXd lambda_position;       ///< position correction's impulses (capacity)
  contact::PgsScratch pgs;               ///< the solves' active-set refinement (capacity)
  collision::ContactScratch collision;  ///< narrow-phase buffers (pairs, patches)
  /// Leaf pairs of the last descent per mesh pair, replayed while the pair barely moves
  /// (temporal coherence; the contacts are those of a full descent bit for bit).
  collision::FrontierCache frontier;
  /// Body-pair queries answered from SimState::resting_pairs, and all body-pair queries of the
  /// constraint model, since this workspace was made (statistics, not physics).
  std::uint64_t resting_reuses = 0, pair_queries = 0;
  PenaltyWorkspace penalty;                   ///< volume penalty stage (sim/penalty_contacts.hpp)
  std::vector<ContinuousScratch> continuous;  ///< continuous collision stage, per object (no)
  /// Number of leading SimState::object_contacts that are constraints (the rest are reported).
  std::size_t object_rows = 0;
  /// World pose of every link of the step, finger by finger (sum of the fingers' rows).
  std::vector<Eigen::Isometry3d> link_poses;
  /// World centre of every link's bounding sphere, same order (the broad phase's first test).
  std::vector<Eigen::Vector3d> link_centres;
  /// World centre of every object's bounding sphere (no).
  std::vector<Eigen::Vector3d> object_centres;
  /// Intersection points of one contact patch, for its corners (object-object contacts) [m].
  std::vector<Eigen::Vector3d> patch_points;
  /// The convex narrow phase's buffers and last manifold (queryBodyPair of two hulls).
  collision::ConvexScratch convex;
  collision::ConvexManifold manifold;
  /// The contacts of the body pair being queried (queryBodyPair's output).
  std::vector<BodyPairContact> pair_contacts;
  // Warm start of the contact solve (SolverOptions::warm_start): the contacts and limit
  // reactions of the last step, copied from the state when detectContacts begins (so a copied
  // state, which comes without this scratch, warm starts the same), and per current contact
  // the index of its match among them (-1 none).
  std::vector<contact::Contact> previous_contacts, previous_object_contacts,
      previous_link_contacts;
  std::vector<double> previous_limit_reaction;
  std::vector<int> warm_match;
  std::vector<std::uint8_t> warm_taken;
};

/// How an actuator is driven: by its position servo towards the reference (trajectory or
/// command), or by a torque given directly (SimState::actuator_torque).
enum class ActuatorMode : std::uint8_t { Position, Torque };

/// Everything that changes during a run. Joint quantities describe the state at `time`;
/// accelerations, torques, servo forces and contacts are those of the step that ended at
/// `time`. Frames: {W} world, {P} palm, {k0} base of finger k, {ki} its DH frames.
struct SimState {
  double time = 0.0;      ///< [s]
  std::int64_t step = 0;  ///< number of steps taken

  // --- where the hand and the objects are ------------------------------------------------
  Eigen::Isometry3d palm_pose_world = Eigen::Isometry3d::Identity();  ///< {P} -> {W}
  /// Velocity of the palm (origin of {P}, then angular) during the step, world frame [m/s;
  /// rad/s]: zero unless the run's plan moves the palm (RunPlan::palm_motion); the contact
  /// rows add it to link velocities.
  Twist palm_twist_world = Twist::Zero();
  /// Acceleration of the palm (origin, then angular), world frame [m/s^2; rad/s^2]: the finger
  /// dynamics feel the origin's as a change of gravity (docs/free-objects.md).
  Twist palm_acceleration_world = Twist::Zero();
  /// Positions of the arm's joints (hand::ArmModel; empty without an arm) [rad or m]: set by
  /// sim::Run from RunPlan::arm; the palm is where the arm's forward kinematics puts it when
  /// the arm drives it (docs/arm.md).
  Eigen::VectorXd arm_position;
  std::vector<Eigen::Isometry3d> object_pose_world;                   ///< object frame -> {W} (no)
  /// Velocity of each object's centre of mass, then its angular velocity, world frame
  /// [m/s; rad/s] (no); zero for fixed objects.
  std::vector<Twist> object_twist_world;
  /// A force then a torque on each free object from outside the simulation (the GUI's drag
  /// perturbation, a probe), acting at its centre of mass, world frame [N; N m]; kept between
  /// steps. Empty or shorter than the objects: none on the rest (no).
  std::vector<Twist> object_applied_wrench_world;
  /// 1 for a free object the numerical guards stopped (it stays where it was, like a fixed
  /// one; docs/free-objects.md), else 0 (no).
  std::vector<std::uint8_t> object_stopped;

  // --- actuators, clutches, tendons -------------------------------------------------------
  std::vector<double> actuator_position;      ///< [actuator unit, e.g. counts] (na)
  std::vector<double> actuator_velocity;      ///< [unit/s] (na)
  std::vector<double> actuator_acceleration;  ///< [unit/s^2] (na), of the last step
  /// Set point of actuators without a trajectory, e.g. from a GUI slider [unit] (na).
  std::vector<double> actuator_command;
  std::vector<double> actuator_reference;           ///< servo reference position [unit] (na)
  std::vector<double> actuator_reference_velocity;  ///< its rate [unit/s] (na)
  /// How each actuator is driven (na): Position, its servo tracking the reference (the
  /// default), or Torque, actuator_torque applied at its primary joint with the servo off.
  std::vector<ActuatorMode> actuator_mode;
  /// Torque at the primary joint of each actuator in Torque mode [N m, or N for a prismatic
  /// one] (na), clamped to +-ServoGains::torque_limit when applied; ignored in Position mode.
  std::vector<double> actuator_torque;
  std::vector<double> actuator_effort;      ///< servo torque at the primary joint [N m] (na)
  /// Reaction of the actuator's range limits (stops) during the last step, impacts included,
  /// as a torque at its primary joint [N m or N] (na): with it the virtual work balances,
  /// sum_j r_j tau_j + rho^2 J a'' = rho (effort + limit_reaction) (+ tendon forces).
  std::vector<double> actuator_limit_reaction;
  std::vector<hand::ClutchState> clutches;  ///< (nc)
  std::vector<double> inner_load_torque;    ///< eq. 9 load, + resists closing [N m] (nc)
  std::vector<double> tendon_position;      ///< motor retraction of each tendon [m] (nt)
  std::vector<double> tendon_command;       ///< set point of tendons without a trajectory [m] (nt)
  std::vector<double> tendon_tension;       ///< tension during the last step [N] (nt)

  // --- joints ------------------------------------------------------------------------------
  std::vector<kinematics::JointVector> q;    ///< positions [rad or m] (nf x dof)
  std::vector<kinematics::JointVector> qd;   ///< velocities [rad/s or m/s]
  std::vector<kinematics::JointVector> qdd;  ///< accelerations of the last step [rad/s^2, m/s^2]
  std::vector<kinematics::JointVector> tau;  ///< torque the drive applied [N m or N]

  // --- results of the stages ---------------------------------------------------------------
  /// Forward kinematics of q: every DH frame of finger f in its base {k0} (nf). Written by the
  /// kinematics stage at the end of each step and by forwardPosition; read by the contact
  /// stage, the clutch, the recorder and the viewport.
  std::vector<kinematics::ChainFrames> link_frames;
  std::vector<LinkLoad> loads;        ///< external forces on links (the user's, kept)
  std::vector<Contact> contacts;      ///< link-object contacts of the last step, world frame
  /// Contacts of objects with the ground, the palm and each other of the last step (finger -1,
  /// Contact::other says which), world frame. The first StepWorkspace::object_rows of them are
  /// constraints; the rest (a fixed object touching the palm) are only reported (force 0).
  std::vector<Contact> object_contacts;
  /// Volume penalty model only: the memory of each body pair that can touch (eq. 4's filter, eq.
  /// 5's first contact, the anchor spring), one per Model::penalty->pairs entry; else empty.
  std::vector<PenaltyPairState> penalty_pairs;
  /// Contacts between links of different fingers, and between a link and the palm, of the last
  /// step (object -1; Contact::other_finger, other_row name the pushed link), world frame.
  /// Frictionless.
  std::vector<Contact> link_contacts;
  /// Constraint model: the contacts of each body pair that touched when last queried, kept
  /// while the pair rests (ConstraintContactOptions::resting_tolerance; sim/resting_pairs.hpp).
  /// Part of the state, so a copy steps as its original does; a new state starts empty.
  RestingPairs resting_pairs;
  /// Times the continuous collision stage ended a free object's step early, at its first touch
  /// of a body it would have passed (sim/continuous_collision.hpp), since the start.
  std::int64_t continuous_collisions = 0;
  /// Gauss-Seidel sweeps the contact solves of the last step took (the impact, the step with
  /// its active-set rounds, the position correction; 0 when no row was solved): how hard the
  /// step's contacts were to solve (SolverOptions::sweeps caps each solve).
  int solver_sweeps = 0;
  std::vector<std::string> warnings;  ///< numerical trouble, clutch events (first few kept)
  std::int64_t warning_count = 0;     ///< all warnings, including those not kept

  StepWorkspace work;  ///< scratch of the stages
};

}  // namespace handsim::sim
