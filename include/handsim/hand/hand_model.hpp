// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "handsim/collision/collision_shape.hpp"
#include "handsim/geometry/loaded_model.hpp"
#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::hand {

/// A movable joint of the hand: finger index and the joint's index among that finger's
/// movable joints (the position in its joint vectors).
struct JointRef {
  int finger = -1;
  int joint = -1;
  bool operator==(const JointRef& o) const { return finger == o.finger && joint == o.joint; }
};

/// A joint driven by an actuator: q_joint = ratio * actuator_position + offset (seed 000
/// eq. 1-4; the offset is a URDF mimic joint's).
struct JointDrive {
  JointRef joint;
  double ratio = 1.0;   ///< joint units (rad or m) per actuator unit
  double offset = 0.0;  ///< [rad or m]
};

/// Position servo of one actuator. Gains act on the actuator's primary joint (drives[0]):
/// with s = ratio_0 * a the primary joint angle, the servo applies
/// tau_s = clamp(kp (s_ref - s) + kd (sd_ref - sd), +-torque_limit) at that joint, which is
/// the same PD law on encoder counts with the gains rescaled by ratio_0^2.
struct ServoGains {
  double kp = 5.0;              ///< [N m/rad] (or N/m for a prismatic primary joint)
  double kd = 0.45;             ///< [N m s/rad]
  double torque_limit = 3.0;    ///< [N m]
  double rotor_inertia = 0.01;  ///< motor rotor inertia reflected to the primary joint [kg m^2]
};

/// One motor. Its position is in `unit` (e.g. encoder counts); joints follow linearly.
struct Actuator {
  std::string name;
  std::string unit = "rad";        ///< "counts", "rad" or "m"
  double lower = 0.0;              ///< range [unit]
  double upper = 0.0;              ///< range [unit]
  std::vector<JointDrive> drives;  ///< drives[0] is the primary joint
  ServoGains servo;
};

/// A breakaway clutch between an actuator and the inner joint of a finger (seed 000 sec. II.D;
/// the BarrettHand TorqueSwitch). While broken away the inner joint is locked at its angle and
/// the motor drives only the outer joint, with the inner joint's share of the motion added to
/// it: q_outer = (r_outer + r_inner) a - r_inner a_break (seed 000 eq. 10 for r = 1/125, 1/375).
struct ClutchModel {
  int actuator = -1;
  JointRef inner;
  JointRef outer;
  double tau_break = 1.26;  ///< torque on the inner joint that disengages the clutch [N m]
  /// +1 when the finger closes as the actuator's position grows (seed 000's BarrettHand), -1
  /// when it closes as the position falls (e.g. a URDF whose fingers close towards negative
  /// angles): the clutch breaks only while closing and re-engages while opening.
  int closing_direction = 1;
};

/// One joint a tendon pulls: the tendon's excursion grows by pulley_radius * q, and a return
/// spring pulls the joint back to `rest`.
struct TendonJoint {
  JointRef joint;
  double pulley_radius = 0.008;  ///< [m]
  double spring = 0.02;          ///< return spring [N m/rad]
  double rest = 0.0;             ///< spring's rest angle [rad]
  double damping = 0.002;        ///< viscous joint damping [N m s/rad]
};

/// A tendon-driven, under-actuated finger drive (seed 002, the KTHand): a motor retracts the
/// tendon by `position`; the tendon, of stiffness `stiffness`, cannot push, so its tension is
/// T = stiffness * max(0, position - sum_j r_j q_j), and each joint feels r_j T minus its
/// spring and damping. A phalanx stopped by an object lets the others keep closing.
struct Tendon {
  std::string name;
  std::vector<TendonJoint> joints;
  double stiffness = 20000.0;  ///< [N/m]
  double lower = 0.0;          ///< retraction range [m]
  double upper = 0.05;         ///< [m]
};

/// A named set of joint values (e.g. seed 001's "V" pose). q[f] has fingers[f].dof() entries.
struct NamedPose {
  std::string name;
  std::vector<std::vector<double>> q;  ///< [rad or m] per finger, per movable joint
};

/// A posture synergy (GraspIt!'s "eigengrasp"): a direction in actuator space along which the
/// grasp planner moves the hand (docs/hand-format.md, "Eigengrasps"; docs/planner.md).
struct Eigengrasp {
  std::string name;
  std::vector<double> direction;  ///< per actuator [actuator unit per unit amplitude] (na)
};

/// A preset contact point of the grasp planner's contact energies (docs/planner.md, "Contact
/// points"): a point on a hand body and its outward normal, in the body's frame: the palm frame
/// when `finger` is -1, else the frame {row + 1} of that finger's link.
struct PresetContactPoint {
  int finger = -1;
  int row = -1;
  Eigen::Vector3d point_body = Eigen::Vector3d::Zero();    ///< [m]
  Eigen::Vector3d normal_body = Eigen::Vector3d::UnitZ();  ///< unit, out of the body
};

/// One link of a hand read from URDF, and where its frame sits on the chains.
struct TreeLink {
  std::string name;
  int parent_joint = -1;  ///< index into KinematicTree::joints; -1 for the root link
  /// The chain frame the link is rigid with: frame {row + 1} of fingers[finger], or the palm
  /// frame when finger is -1 (the root link and everything fixed to it).
  int finger = -1;
  int row = -1;
  Eigen::Isometry3d in_frame = Eigen::Isometry3d::Identity();  ///< link frame in that frame
};

/// One joint of a hand read from URDF, as the file gives it.
struct TreeJoint {
  std::string name;
  kinematics::JointType type = kinematics::JointType::Fixed;
  bool continuous = false;  ///< URDF "continuous": revolute without limits
  int parent_link = -1;
  int child_link = -1;
  Eigen::Isometry3d origin = Eigen::Isometry3d::Identity();  ///< parent link -> joint frame
  Eigen::Vector3d axis = Eigen::Vector3d::UnitX();           ///< unit, joint frame
  double lower = 0.0, upper = 0.0;                           ///< [rad or m]
  double effort = 0.0;                                       ///< [N m or N], 0 = not given
  double velocity = 0.0;                                     ///< [rad/s or m/s], 0 = not given
  int mimic = -1;  ///< joint it mimics (index), -1 when none: q = multiplier q_mimic + offset
  double multiplier = 1.0;
  double offset = 0.0;
  /// The chain rows this joint became: one per chain through it (a wrist is shared).
  std::vector<JointRef> copies;
};

/// The kinematic tree of a hand read from URDF: the source of truth for its links and joints
/// (a parent index per link and joint, as RBDL and Pinocchio store it). The fingers are the
/// root-to-leaf chains derived from it (docs/hand-format.md, "URDF hands").
struct KinematicTree {
  std::vector<TreeLink> links;    ///< links[0] is the root
  std::vector<TreeJoint> joints;  ///< in file order
  bool empty() const { return links.empty(); }
  int linkIndex(const std::string& link_name) const;
  int jointIndex(const std::string& joint_name) const;
};

/// Geometry of one body kept in memory (URDF hands: several meshes and primitives per link,
/// placed by their origins): what is drawn and what collides, in the body's chain frame [m].
struct BodyShapes {
  geometry::LoadedModel visual;
  geometry::LoadedModel collision;
  std::string source;  ///< what it was read from, for messages (e.g. "link 'ffdistal'")
  bool empty() const { return visual.shapes.empty() && collision.shapes.empty(); }
};

/// The arm a hand is mounted on (docs/arm.md): the joints between a URDF's root link and the
/// link named as the palm, or an arm URDF the hand is mounted on. The arm is kinematic: its
/// joint trajectories drive the palm (sim::ArmPlan); it has no dynamics and does not collide.
struct ArmModel {
  std::string base_link;  ///< the arm's root link (URDF root)
  std::string palm_link;  ///< the link that is the palm (or the arm's flange when mounted)
  /// Root frame -> palm frame: one row per movable arm joint (joint_names), and a last fixed
  /// row when the palm sits away from the last joint's frame. chain.dof() arm joints;
  /// forwardKinematics(chain, q).tip() is the palm in the arm's base frame.
  kinematics::Chain chain;
  /// Drawn geometry per chain frame (rows + 1 entries; [0] the base), in that frame [m].
  std::vector<BodyShapes> link_shapes;
  std::string source_file;  ///< the URDF the arm was read from
  bool empty() const { return chain.rows.empty(); }
  int dof() const { return empty() ? 0 : chain.dof(); }
};

/// The immutable description of a hand, read from a hand file (docs/hand-format.md).
struct HandModel {
  std::string id;           ///< short identifier ("barrett")
  std::string name;         ///< human-readable name
  std::string description;  ///< free text, sources of the numbers
  std::string source_file;  ///< path the model was read from (empty if built in code)
  std::string palm_mesh;    ///< path of the palm mesh, resolved against the hand file; may be empty
  std::vector<kinematics::Chain> fingers;
  std::vector<std::vector<std::string>> link_meshes;  ///< [finger][row], resolved paths or ""
  /// In-memory geometry (URDF hands), used instead of palm_mesh / link_meshes when not empty.
  BodyShapes palm_shapes;
  std::vector<std::vector<BodyShapes>> link_shapes;  ///< [finger][row], or empty
  /// URDF hands: the tree the fingers were derived from (empty for hand files). With a palm
  /// link it is the palm's subtree only (the palm link is links[0]); the rest is `arm`.
  KinematicTree tree;
  /// The arm between the URDF root and the palm link, or mounted with mountOnArm (empty: the
  /// palm is placed and moved in Cartesian space only).
  ArmModel arm;
  /// What the loader found questionable but accepted (unknown URDF tags, missing inertials).
  std::vector<std::string> warnings;
  /// Contacts between links of different fingers and between a link and the palm
  /// (docs/free-objects.md). On for hand files; off for URDF hands unless their sidecar says
  /// "self_collision": true, because public URDF collision meshes are often coarse hulls that
  /// overlap in ordinary poses (docs/hand-format.md).
  bool self_collision = true;
  /// Optional drawn-only meshes ("visual_mesh" beside "mesh"): the viewport draws these while
  /// contacts use `palm_mesh` / `link_meshes`. Empty: the collision mesh is drawn.
  std::string palm_visual_mesh;
  std::vector<std::vector<std::string>> link_visual_meshes;  ///< [finger][row], paths or ""
  /// What each body collides as (docs/hand-format.md, "Collision shapes"): the palm's, and each
  /// link's ([finger][row]; missing entries: Mesh).
  collision::CollisionShape palm_collision = collision::CollisionShape::Mesh;
  std::vector<std::vector<collision::CollisionShape>> link_collision;
  collision::CollisionShape linkCollision(std::size_t finger, std::size_t row) const {
    return finger < link_collision.size() && row < link_collision[finger].size()
               ? link_collision[finger][row]
               : collision::CollisionShape::Mesh;
  }
  std::vector<Actuator> actuators;
  std::vector<ClutchModel> clutches;
  std::vector<Tendon> tendons;  ///< their joints have passive direct actuators (no servo)
  std::vector<NamedPose> poses;
  /// The hand file's "eigengrasps" (hand JSON or URDF sidecar): the posture at zero amplitude
  /// per actuator [actuator unit] (na; empty when the file gives none) and the directions.
  /// Hands without them get computed ones from the planner (planner/eigengrasp.hpp).
  std::vector<double> eigengrasp_origin;
  std::vector<Eigengrasp> eigengrasps;
  /// The hand file's preset contact points (the palm's and each link's "contact_points" in hand
  /// JSON, the sidecar's "contact_points" per URDF link), palm first, then finger by finger,
  /// link by link, in file order. Empty: the planner generates them from the meshes
  /// (planner::palmarContactPoints).
  std::vector<PresetContactPoint> contact_points;
  /// Actuators that close the fingers on an object (indices into `actuators`, in file order):
  /// what the GUI's Auto Grasp drives to the upper ends of their ranges. From the hand file's
  /// "grasp": {"closing_actuators": [...]}; empty when the file names none.
  std::vector<int> closing_actuators;
  /// Tendons that close the fingers (indices into `tendons`, in file order), retracted to the
  /// upper ends of their ranges by Auto Grasp. From "grasp": {"closing_tendons": [...]}.
  std::vector<int> closing_tendons;
  /// Direction in which the hand approaches an object, palm frame, unit length: from the
  /// hand file's "grasp": {"approach_palm": [x, y, z]} (normalised), else +z of the palm.
  /// Imported objects are placed along it (sim::placeObjectInReach).
  Eigen::Vector3d approach_palm = Eigen::Vector3d::UnitZ();
  /// A point of the approach line, palm frame [m]: "grasp": {"approach_origin_palm_m": [...]},
  /// else the mean of the finger base origins.
  Eigen::Vector3d approach_origin_palm = Eigen::Vector3d::Zero();

  /// Index of the finger named `finger_name`, or -1.
  int fingerIndex(const std::string& finger_name) const;
  /// Index of the actuator named `actuator_name`, or -1.
  int actuatorIndex(const std::string& actuator_name) const;
  /// Finds "F1.J2" style names; {-1, -1} when unknown.
  JointRef jointRef(const std::string& dotted_name) const;
  /// "F1.J2" for a joint.
  std::string jointName(JointRef j) const;
  /// Actuator driving the joint and the drive's index in its list; {-1, -1} when none.
  std::pair<int, int> driverOf(JointRef j) const;
  /// Index of the tendon named `tendon_name`, or -1.
  int tendonIndex(const std::string& tendon_name) const;
  /// Index of the clutch on `actuator`, or -1.
  int clutchOfActuator(int actuator) const;
  /// Sum of the fingers' degrees of freedom.
  int totalDof() const;
  /// Pose by name, or nullptr.
  const NamedPose* pose(const std::string& pose_name) const;
  /// A joint by the name users give it: "F1.J2", or for URDF hands the URDF joint name (which
  /// stands for all its copies: the first is returned). {-1, -1} when unknown.
  JointRef findJoint(const std::string& joint_name) const;

  /// Named link poses in the palm frame [m]: for URDF hands every URDF link (root first), for
  /// hand files "palm" and "<finger>.link<row + 1>" for every row. `q` per finger.
  std::vector<std::pair<std::string, Eigen::Isometry3d>> linkPoses(
      const std::vector<kinematics::JointVector>& q) const;
};

}  // namespace handsim::hand
