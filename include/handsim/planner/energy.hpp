// SPDX-License-Identifier: GPL-3.0-or-later
// The planner's model and energies (docs/planner.md, "Energies"): contact distance, potential
// quality, and closing quality (the hand closed by its own actuators in the engine).
#pragma once

#include <Eigen/Geometry>
#include <memory>
#include <optional>
#include <vector>

#include "handsim/grasp/grasp_quality.hpp"
#include "handsim/planner/constraints.hpp"
#include "handsim/planner/contact_points.hpp"
#include "handsim/planner/eigengrasp.hpp"
#include "handsim/planner/surface_distance.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"

namespace handsim::planner {

/// Everything the planner needs, compiled once and shared by all threads (immutable). The
/// world frame of `model` is the object's frame: the object starts at the origin and the palm
/// is placed by its pose in the object frame. Gravity is off. The object is free (it floats,
/// so fingers coupled to one motor centre it between them as they close) when its mesh is
/// closed, else fixed.
struct PlannerModel {
  std::shared_ptr<const sim::Model> model;
  SurfaceTree surface;  ///< the object's collision mesh, object frame
  std::vector<HandContactPoint> contact_points;
  EigengraspBasis eigengrasps;
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();  ///< bounding-box centre, object frame [m]
  double radius = 0.0;    ///< torque radius: largest vertex distance from `centre` [m]
  double friction = 0.5;  ///< Coulomb coefficient hand-object of the quality measures [-]
  int cone_edges = 8;
  bool object_free = false;  ///< the object floats while the hand closes
};

/// Compiles the planner's model. The hand as withGraspDefaults makes it (a hand file or URDF
/// that names no closing actuators gets inferred ones; planner/grasp_defaults.hpp).
/// `contact_points` empty: palmarContactPoints. Throws
/// std::invalid_argument for an object without triangles or a hand without actuators.
PlannerModel compilePlannerModel(std::shared_ptr<const hand::HandModel> hand,
                                 const sim::ObjectModel& object, double friction = 0.5,
                                 std::vector<HandContactPoint> contact_points = {},
                                 std::uint64_t eigengrasp_seed = 1);

/// The object as the hand closes on it (docs/planner.md, "Closing quality"): hand-object
/// friction `friction`; free with the mass of `density` [kg/m^3] (or `mass_kg` when > 0) when
/// its mesh is closed, else fixed. The closing plan starts it at the origin, at rest.
sim::ObjectModel closingObject(const sim::ObjectModel& object, double friction, double density,
                               double mass_kg = 0.0);

/// The table under a support plane as a body (docs/planner.md, "Constraints"): a fixed box of
/// 1 x 1 x 0.05 m centred on its frame, friction 0.5. Where it is comes from the plane
/// (supportTablePose), not from the body: a model holds no poses.
sim::ObjectModel supportTable();
/// Where the support table of `plane` starts, its frame -> the object's frame (the planner's
/// world), for the run plan (sim::RunPlan::object_pose_world): its top face in the plane,
/// centred under `plane.point`, its thickness on the side away from `plane.normal`.
Eigen::Isometry3d supportTablePose(const SupportPlane& plane);

/// `model` (the object as object 0) with the support table added as object 1 (a plan places
/// it: closingPlan with the plane); the hand's geometry is shared.
std::shared_ptr<const sim::Model> withSupportTable(const sim::Model& model);

/// `model` with object 0 fixed where it is (docs/planner.md, "When the floating object
/// escapes"): what the hand closes on again when the floating object was pushed away.
std::shared_ptr<const sim::Model> withObjectHeld(const sim::Model& model);

/// A planner configuration: palm pose in the object frame and actuator posture.
/// Writes it into `state` (a state of pm.model) and computes the link frames.
void setConfiguration(const PlannerModel& pm, const Eigen::Isometry3d& palm_object,
                      const Eigen::VectorXd& posture, sim::SimState& state);

/// A contact point of the hand and the surface point nearest to it, object frame.
struct PointDistance {
  Eigen::Vector3d point = Eigen::Vector3d::Zero();    ///< hand point [m]
  Eigen::Vector3d normal = Eigen::Vector3d::UnitZ();  ///< its outward normal (unit)
  SurfacePoint surface;
};

/// Every preset contact point of the configuration in `state` with its nearest surface point.
std::vector<PointDistance> contactDistances(const PlannerModel& pm, const sim::SimState& state);

/// Length that weighs distance against alignment in the contact energy [m].
inline constexpr double kContactLength = 0.01;

/// The contact-distance energy of points (docs/planner.md): the mean over points of
/// |d| / kContactLength + (1 + n . m) / 2, with d the signed distance to the surface, n the
/// point's outward normal and m the surface's outward normal there (0 when the point lies on
/// the surface facing it squarely). 0 for no points.
double contactEnergy(const std::vector<PointDistance>& points);

/// Points within `threshold` [m] of the surface and facing it within 45 degrees, as grasp
/// contacts on the surface (normal into the object) with friction `friction`.
std::vector<grasp::GraspContact> virtualContacts(const std::vector<PointDistance>& points,
                                                 double threshold, double friction);

/// The potential-quality energy (docs/planner.md): contactEnergy minus (1 + epsilon) when the
/// virtual contacts within 5 mm are in force closure, else contactEnergy.
double potentialQualityEnergy(const PlannerModel& pm, const std::vector<PointDistance>& points);

/// How the hand is closed in the engine (docs/planner.md, "Closing quality").
struct ClosingOptions {
  double close_time = 1.0;   ///< the closing actuators cross their whole range in this [s]
  double settle_time = 0.4;  ///< the run lasts at most close_time + settle_time [s]
  /// A closing actuator counts as stalled below this fraction of its closing speed.
  double stall_fraction = 0.02;
  int stall_steps = 30;  ///< consecutive stalled steps (with contact) that end the closing
};

/// The run plan that closes the hand from `pregrasp` (actuators [unit], na) with the palm at
/// `palm_object`: each closing actuator and tendon driven to the upper end of its range. Object
/// 0 starts at the origin; `table`: the plane whose support table is the model's object 1
/// (withSupportTable), which starts at supportTablePose(*table). Throws std::invalid_argument
/// when the model has other objects than these.
sim::RunPlan closingPlan(const sim::Model& model, const Eigen::Isometry3d& palm_object,
                         const Eigen::VectorXd& pregrasp, const ClosingOptions& options,
                         double extra_duration = 0.0,
                         const std::optional<SupportPlane>& table = std::nullopt);

/// Steps `run` until the closing actuators stall with the hand touching the object, or
/// close_time + settle_time has passed. Returns true when they stalled in contact.
bool runClosing(sim::Run& run, const ClosingOptions& options);

/// A grasp closed in the engine.
struct ClosedGrasp {
  bool start_collision = false;            ///< the hand intersected the object before closing
  bool stalled = false;                    ///< stopped by the object (not by the end of the time)
  /// Closed a second time with the object held (fixed): on the floating object the hand ended
  /// touching nothing (the first finger pushed it away; docs/planner.md).
  bool held = false;
  double time = 0.0;                       ///< simulated closing time [s]
  Eigen::VectorXd posture;                 ///< actuator positions at the end [unit] (na)
  std::vector<kinematics::JointVector> q;  ///< joint positions at the end, per finger
  /// Link-object contacts, then palm-object contacts, at the end, in the object's frame as it
  /// is then (a free object moves a little as the fingers centre it).
  std::vector<contact::Contact> contacts;
  Eigen::Isometry3d object_pose = Eigen::Isometry3d::Identity();  ///< at the end, world
  /// = the object frame at the start
  grasp::GraspQuality quality;  ///< of `contacts` with pm.friction
};

/// Closes the hand from `pregrasp` with its own actuators (sim::Run on pm.model) and rates
/// the grasp by its wrench space (grasp::evaluateGrasp; torques about pm.centre, divided by
/// pm.radius). Deterministic. `model` null: pm.model; else pm.model with the support table of
/// `table` (withSupportTable(*pm.model, *table)): the fingers close against the table too; only
/// contacts with object 0 count for the grasp.
ClosedGrasp closeHand(const PlannerModel& pm, const Eigen::Isometry3d& palm_object,
                      const Eigen::VectorXd& pregrasp, const ClosingOptions& options = {},
                      const std::shared_ptr<const sim::Model>& model = nullptr,
                      const std::optional<SupportPlane>& table = std::nullopt);

/// The grasp contacts of a closed state (links and palm on object 0).
std::vector<contact::Contact> objectContacts(const sim::SimState& state);

/// A closing as the planner and the validation presets run it.
struct Closing {
  sim::SimState state;   ///< at the end of the closing
  bool stalled = false;  ///< runClosing's answer
  bool held = false;     ///< the second closing, on the held object, ran
};

/// Runs `run` (on its plan's start) until runClosing ends; when object 0 floats and the hand
/// then touches nothing (the first finger pushed it away), runs the same plan again on
/// withObjectHeld (docs/planner.md, "When the floating object escapes").
Closing closeOnObject(sim::Run& run, const ClosingOptions& options);

}  // namespace handsim::planner
