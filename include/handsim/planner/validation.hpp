// SPDX-License-Identifier: GPL-3.0-or-later
// Validation presets (docs/planner.md, "Validation"): the grasp is closed in the engine by
// the hand's own drives, the object set free, and a load applied per direction; each preset
// follows a published protocol (or handsim's own lift-and-shake, grasp/grasp_sweep.hpp).
#pragma once

#include <Eigen/Geometry>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "handsim/planner/energy.hpp"

namespace handsim::planner {

/// The peers' way of holding a grasp (docs/planner.md, "Holding"): once the hand has closed
/// with its own drives, every movable joint gets a PD position servo of its own (no clutches,
/// tendons or couplings) whose target is the closed joint value moved by `squeeze` in the
/// joint's closing direction, as MuJoCo's and Isaac Gym's position actuators hold the
/// fingers in BODex and DexGraspNet. A joint stopped by the object at its closed value then
/// pushes with kp * squeeze.
struct PdHold {
  double kp_revolute = 10.0;         ///< [N m/rad]
  double kd_revolute = 0.1;          ///< [N m s/rad]
  double kp_prismatic = 1000.0;      ///< [N/m]
  double kd_prismatic = 20.0;        ///< [N s/m]
  double squeeze_revolute = 0.05;    ///< [rad]
  double squeeze_prismatic = 0.003;  ///< [m]
  double effort_limit = 1000.0;      ///< [N m or N]
  double rotor_inertia = 1e-3;       ///< reflected at each joint [kg m^2 or kg]
};

struct ValidationPreset {
  std::string name;
  enum class Load {
    Field,      ///< a uniform acceleration along each direction in turn, palm still
    Lift,       ///< gravity along -z of the object frame, the palm lifts along +z
    LiftShake,  ///< grasp::HoldTestSpec's lift and shake (grasp::evaluateSweepPose)
  };
  Load load = Load::Field;
  std::vector<Eigen::Vector3d> directions;  ///< object frame, unit (Field)
  double acceleration = 9.81;               ///< field strength [m/s^2]
  double duration = 1.0;                    ///< per direction, after closing [s]
  double friction = 0.5;                    ///< Coulomb coefficient hand-object [-]
  double mass_kg = 0.0;                     ///< object mass; 0: from `density`
  double density = 1000.0;                  ///< [kg/m^3]
  // Verdict per direction.
  bool require_contact = false;  ///< the hand must still touch the object at the end
  double max_displacement = std::numeric_limits<double>::infinity();  ///< of the COM [m]
  double max_rotation = std::numeric_limits<double>::infinity();      ///< [rad]
  int min_links = 0;  ///< hand bodies (links, palm) touching at the end
  // Lift.
  double lift_height = 0.2;        ///< [m]
  double lift_speed = 0.2;         ///< [m/s]
  double lift_acceleration = 1.0;  ///< [m/s^2]
  /// How the closed hand holds the object under the load: its real drives (clutches,
  /// tendons, torque limits; the default) or `pd` (PdHold). Not for lift-shake.
  enum class Hold { Drives, Pd };
  Hold hold = Hold::Drives;
  PdHold pd;
  /// A direction ends early once the grasp holds in a steady state (docs/planner.md,
  /// "Steady holds end a direction early"): for `steady_window` [s] after the load is fully on
  /// (after the lift, for Lift) the object stays within `steady_displacement` [m] (its centre
  /// of mass) and `steady_rotation` [rad] of where the window began, relative to the palm,
  /// touching the hand at every step, every joint slower than `steady_joint_speed` [rad/s or
  /// m/s], and the creep this allows, extrapolated over the rest of the duration
  /// (steady_displacement (1 + rest / window)^2), keeps the verdict (past no limit, below 1 mm
  /// when contact must remain). 0: every direction runs its whole duration.
  double steady_window = 0.2;
  double steady_displacement = 1e-5;
  double steady_rotation = 1e-4;
  double steady_joint_speed = 1e-3;
  std::string source;              ///< the protocol's citation
};

/// The named presets: "six-directions", "tug", "lift", "lift-shake" (docs/planner.md).
/// Throws std::invalid_argument listing them for another name.
ValidationPreset validationPreset(const std::string& name);
std::vector<std::string> validationPresetNames();

/// "drives" / "pd"; parseHold throws std::invalid_argument listing them.
const char* holdName(ValidationPreset::Hold h);
ValidationPreset::Hold parseHold(const std::string& name);

/// The hand as PdHold holds it: one actuator per movable joint (named like the joint, unit
/// rad or m, range the joint's limits, ratio 1), a PD servo with PdHold's gains, no clutches
/// and no tendons; geometry, chains and masses unchanged.
hand::HandModel pdHoldHand(const hand::HandModel& hand, const PdHold& pd);

/// The closing direction of every movable joint of `hand`, in pdHoldHand's actuator order:
/// the sign of its drive's ratio when a closing actuator drives it, of its pulley radius when
/// a closing tendon pulls it, else 0.
std::vector<double> closingDirections(const hand::HandModel& hand);

/// The outcome along one direction.
struct DirectionOutcome {
  Eigen::Vector3d direction = Eigen::Vector3d::Zero();  ///< object frame (the load's)
  double displacement = 0.0;           ///< COM displacement in the palm frame at the end [m]
  std::optional<double> rotation;      ///< object rotation relative to the palm [rad]
  std::optional<double> time_to_slip;  ///< first time past the limits, from the load [s]
  /// When the direction ended early in a steady hold: its time from the load [s] (the values
  /// above are then those of that time). Nothing: it ran the preset's whole duration.
  std::optional<double> steady_at;
  int contacts = 0;                    ///< hand-object contacts at the end
  int links = 0;                       ///< distinct hand bodies touching at the end
  bool passed = false;
};

struct ValidationOutcome {
  std::string preset;
  ValidationPreset::Hold hold = ValidationPreset::Hold::Drives;
  bool start_collision = false;  ///< the hand intersects the object before closing
  bool passed = false;           ///< every direction passed
  bool force_closure = false;    ///< of the closed grasp, with the preset's friction
  /// The hand closed on the held object (the floating one escaped; docs/planner.md, "When the
  /// floating object escapes"), released when the load came on.
  bool held = false;
  double epsilon = 0.0, volume = 0.0;
  std::vector<DirectionOutcome> directions;
};

/// The models a preset runs on for one hand and object, compiled once (immutable, shared by
/// threads).
struct Validator {
  ValidationPreset preset;
  ClosingOptions closing;
  std::shared_ptr<const hand::HandModel> hand;
  sim::ObjectModel object;                                ///< as given (its own frame)
  /// Object free at the preset's mass (fixed, density 1, for lift-shake), gravity off; with
  /// the support table as object 1 when a support plane was given (not for lift-shake).
  std::shared_ptr<const sim::Model> closing_model;
  /// Object free, per direction; the table stays for `lift` (Get a Grip lifts from a table)
  /// and goes when the load comes on for the others (their protocols hold the object in air).
  std::vector<std::shared_ptr<const sim::Model>> loaded;
  /// Hold pd: the pdHoldHand on the loaded models (per direction).
  std::vector<std::shared_ptr<const sim::Model>> pd_loaded;
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  double radius = 0.0;
  std::optional<SupportPlane> support_plane;  ///< object frame
};

/// The hand as withGraspDefaults makes it (as the planner closes it). `support_plane`: the
/// table under the object (supportTable) is a body while the hand closes, so the fingers
/// close against it as they did when the grasp was planned. Throws std::invalid_argument for
/// a bad preset or an object without volume.
Validator makeValidator(std::shared_ptr<const hand::HandModel> hand, const sim::ObjectModel& object,
                        const ValidationPreset& preset, const ClosingOptions& closing = {},
                        const std::optional<SupportPlane>& support_plane = std::nullopt);

/// Closes the grasp (palm pose in the object frame, pre-grasp actuator positions) and runs the
/// preset. Deterministic.
ValidationOutcome validateGrasp(const Validator& v, const Eigen::Isometry3d& palm_object,
                                const Eigen::VectorXd& pregrasp);

}  // namespace handsim::planner
