// SPDX-License-Identifier: GPL-3.0-or-later
// The compiled, immutable model of a simulation (docs/development.md): what MuJoCo calls
// mjModel. Loaders build it once from a hand file and object files; any number of states
// (sim::SimState) run on one model, e.g. two grasp candidates on two threads.
#pragma once

#include <Eigen/Geometry>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "handsim/collision/collision_shape.hpp"
#include "handsim/collision/convex_hull.hpp"
#include "handsim/collision/kdop_tree.hpp"
#include "handsim/geometry/loaded_model.hpp"
#include "handsim/geometry/mass_properties.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/sim/body_table.hpp"
#include "handsim/sim/options.hpp"

namespace handsim::sim {

/// What the contact stage collides: a triangle mesh in the body's frame with its k-DOP tree
/// (seed 000 sec. IV: built once) and a bounding sphere for the cheapest rejection. A body that
/// collides as its convex hull (`shape` Hull) keeps the hull, and its mesh is the hull's
/// triangulation: that is what it collides with (and shows) everywhere, against another hull
/// (or a convex mesh) through the convex narrow phase, against a mesh through the k-DOP
/// pipeline.
struct CollisionBody {
  collision::CollisionShape shape = collision::CollisionShape::Mesh;
  /// Body frame [m]: the hull a Hull body collides as; for a Mesh body, its hull when the mesh
  /// is convex (then exactly its shape: pairs with a Hull body use the convex narrow phase),
  /// else empty.
  collision::ConvexHull hull;
  geometry::TriangleMesh mesh;  ///< body frame [m], with face normals
  collision::KdopTree tree;     ///< over `mesh`; empty when the body has no triangles
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();  ///< bounding-sphere centre, body frame [m]
  double radius = 0.0;                               ///< bounding-sphere radius [m]
  /// Half extents of the mesh's bounding box in the body frame, about `centre` [m]: an
  /// oriented box in the world, the second rejection of the hand's link-link pairs.
  Eigen::Vector3d half_extent = Eigen::Vector3d::Zero();
  /// The exact ball the body is, body frame, when its file gave one sphere primitive
  /// (geometry::LoadedModel::onlySphere): then contacts with a sphere or a convex hull, and
  /// with the ground, are the closed forms of docs/collision.md ("Analytic spheres"), and the
  /// bounds above are the ball's; `mesh` (its tessellation) remains for every other pair.
  std::optional<geometry::Sphere> sphere;
  bool empty() const { return tree.empty(); }
};

/// Makes `body` the ball `sphere` (CollisionBody::sphere, with its bounding sphere and box);
/// nothing changes when `sphere` is empty or the body has no triangles.
void setCollisionSphere(CollisionBody& body, const std::optional<geometry::Sphere>& sphere);

/// Builds the tree (k = 14, 18 or 26 directions), the bounding sphere and box of `mesh`; with
/// `shape` Hull, of the convex hull of `mesh` (throws std::invalid_argument, with qhull's
/// message, when the mesh is flat). A convex Mesh body keeps its hull too.
CollisionBody makeCollisionBody(geometry::TriangleMesh mesh, int k,
                                collision::CollisionShape shape = collision::CollisionShape::Mesh);

/// False only when the bounding boxes of two bodies (at their poses, body -> world) are
/// separated by more than `margin` [m] along one of the 15 axes of the separating-axis test
/// (Gottschalk, Lin and Manocha, "OBBTree", SIGGRAPH 1996): then their meshes cannot touch.
bool boundingBoxesOverlap(const CollisionBody& a, const Eigen::Isometry3d& a_pose,
                          const CollisionBody& b, const Eigen::Isometry3d& b_pose, double margin);

/// The broad phase of one pair of bodies at their poses (body -> world): false when their
/// bounding spheres are apart, or their bounding boxes by more than 1e-6 m (far above the
/// triangle test's tolerance): then they cannot touch. Empty bodies never touch.
bool bodiesMayTouch(const CollisionBody& a, const Eigen::Isometry3d& a_pose, const CollisionBody& b,
                    const Eigen::Isometry3d& b_pose);

/// The geometry of one rigid body, loaded once and shared by the contact stage and the viewport:
/// what is drawn (shapes with their colours) and what collides (all shapes merged).
struct BodyGeometry {
  std::string source;            ///< file the shapes were read from ("" when none)
  /// File of a separate drawn-only mesh (a hand's "visual_mesh"), "" when `source` is drawn.
  std::string visual_source;
  geometry::LoadedModel visual;  ///< body frame [m], as drawn
  CollisionBody collision;       ///< body frame [m], what contacts are computed with
};

/// The BodyGeometry of shapes read from `source` (drawn as they are, colliding as `shape`):
/// the collision body of all shapes merged, the ball when they are one sphere. Throws
/// io::InputError naming `source` when the hull cannot be built (a flat mesh). The loaders of
/// handsim/formats/model_loader.hpp build every body read from a file with it.
BodyGeometry bodyGeometryOf(geometry::LoadedModel shapes, const std::string& source, int kdop_k,
                            collision::CollisionShape shape = collision::CollisionShape::Mesh);

/// The same drawn shapes colliding as `shape` (the collision body rebuilt from the drawn shapes,
/// as loadBodyGeometry builds it, when the shape changes). Throws io::InputError naming the
/// source when the hull cannot be built (a flat mesh).
std::shared_ptr<const BodyGeometry> withCollisionShape(const BodyGeometry& geometry,
                                                       collision::CollisionShape shape, int kdop_k);

/// The hand's link and palm geometry (HandModel::palm_mesh, HandModel::link_meshes).
struct HandGeometry {
  BodyGeometry palm;                             ///< palm frame
  std::vector<std::vector<BodyGeometry>> links;  ///< [finger][row], in the frame {row + 1}
  /// Hand body pairs that never collide with each other (docs/free-objects.md, "Contacts
  /// between bodies"), as the sorted pairs of their indices: link (f, r) is body
  /// `link_offset[f] + r`, the palm is body `link_offset.back()`. Filled by loadHandGeometry:
  /// pairs of links of different fingers, or a link and the palm, that touch in the rest pose
  /// (every joint at 0, clamped into its limits), adjacent by construction like the
  /// BarrettHand's knuckles on its palm. Empty `link_offset`: no pair is excluded.
  std::vector<std::pair<std::size_t, std::size_t>> excluded_pairs;
  std::vector<std::size_t> link_offset;  ///< (nf + 1)
  /// True when the two hand bodies (finger -1: the palm) never collide.
  bool excluded(int finger_a, int row_a, int finger_b, int row_b) const;
};

/// Reads one hand body the hand names by file: its mesh `path` (may be empty: drawn only), its
/// drawn-only `visual_path` (may be empty), colliding as `shape`. sim::loadHandGeometry
/// (handsim/formats/model_loader.hpp) reads mesh files; the engine reads none.
using HandBodyReader = std::function<BodyGeometry(
    const std::string& path, const std::string& visual_path, collision::CollisionShape shape)>;

/// The hand's link and palm geometry, every body built once: in-memory shapes (URDF hands,
/// hand::BodyShapes) here, bodies named by file (HandModel::palm_mesh, link_meshes and their
/// visual meshes) by `read`, a link with neither through `read` with empty paths. Then the
/// pairs touching in the rest pose (HandGeometry::excluded_pairs).
std::shared_ptr<const HandGeometry> buildHandGeometry(const hand::HandModel& hand, int kdop_k,
                                                      const HandBodyReader& read);

/// buildHandGeometry from what the hand holds in memory: a body without shapes is empty. Throws
/// std::invalid_argument when the hand names a mesh file (sim::loadHandGeometry,
/// handsim/formats/model_loader.hpp, reads those).
std::shared_ptr<const HandGeometry> handGeometryInMemory(const hand::HandModel& hand, int kdop_k);

/// An object of the scene: its geometry, material and mass. Where it starts and how fast it
/// moves then are the run's (RunPlan::object_pose_world, RunPlan::object_twist_world), where it
/// is and how it moves the state's (SimState::object_pose_world, object_twist_world).
struct ObjectModel {
  std::string name;    ///< shown to the user (the file stem by default)
  std::string source;  ///< file the mesh was read from, as resolved ("" when made in code)
  double scale = 1.0;  ///< the file's coordinates were multiplied by this [-]
  std::shared_ptr<const BodyGeometry> geometry;  ///< object frame [m]; never null
  /// Coulomb coefficient between the hand and this object [-], used by the grasp analysis.
  double friction = 0.5;
  /// Torsional friction length mu_spin of this object's contacts [m] (scenario object key
  /// "torsional_m"); negative: the scene's ConstraintContactOptions::torsional. Two objects
  /// touching use the smaller (as for friction). Constraint model only (docs/free-objects.md,
  /// "Torsional friction").
  double torsional = -1.0;
  /// Fixed objects stay at their pose; the hand cannot move them (seed 000's experiment). A
  /// free object (false) moves under gravity and its contacts (docs/free-objects.md); it needs
  /// a mass (a closed mesh).
  bool fixed = true;
  /// The distinct vertices of the collision mesh, object frame [m]: the points a free object
  /// rests on the ground with (filled by compileModel).
  std::vector<Eigen::Vector3d> support_points;
  /// Uniform density the mass properties were computed with [kg/m^3].
  double density = kDefaultDensity;
  /// Mass, centre of mass and inertia of the closed collision mesh (divergence theorem,
  /// docs/mass-properties.md), object frame. Zero mass when the mesh is open or flat: see
  /// `warnings`.
  geometry::MassProperties mass;
  /// What the loader found questionable (an open mesh, a flipped winding), for the user.
  std::vector<std::string> warnings;
  /// Default density: water, 1000 kg/m^3 (a filled plastic bottle is close to it).
  static constexpr double kDefaultDensity = 1000.0;
};

/// Computes object.mass from its collision mesh at `density` [kg/m^3]; an open or flat mesh
/// gets zero mass and a warning in object.warnings naming the object and what is wrong.
void computeMassProperties(ObjectModel& object, double density);

struct PenaltyGeometry;  // sim/penalty_contacts.hpp

/// The compiled model: hand, geometry, objects and options. Immutable once built; share it as
/// std::shared_ptr<const Model>. The hand and its geometry are shared pointers too, so a model
/// recompiled with another object list (compileModel) reuses the loaded link meshes.
struct Model {
  std::shared_ptr<const hand::HandModel> hand_ptr;
  std::shared_ptr<const HandGeometry> hand_geometry;
  std::vector<ObjectModel> objects;
  Options options;
  /// Every body: the ground, the palm, the links, the objects (sim/body_table.hpp); contacts
  /// name theirs by these ids.
  BodyTable bodies;
  /// Seed 004's volume penalty model (options.contact.volumePenalty(), else null): the body pairs
  /// that can touch, the ground's box, each mesh's closure (sim/penalty_contacts.hpp).
  std::shared_ptr<const PenaltyGeometry> penalty;

  const hand::HandModel& hand() const { return *hand_ptr; }
  /// Actuators, tendons and clutches of the hand (sizes of the state's vectors).
  std::size_t actuatorCount() const { return hand_ptr->actuators.size(); }
  std::size_t fingerCount() const { return hand_ptr->fingers.size(); }
};

/// What builds the hand's geometry when compileModel is given none (after its checks).
using HandGeometryLoader = std::shared_ptr<const HandGeometry> (*)(const hand::HandModel& hand,
                                                                   int kdop_k);

/// Compiles a model, reading no file. Pass the hand's geometry (built for the same hand) to
/// reuse it; null builds it with `load` (kdop_k from the options): by default from the hand's
/// in-memory shapes (handGeometryInMemory). The overload without `geometry`
/// (handsim/formats/model_loader.hpp) loads the hand's mesh files. Throws
/// std::invalid_argument for bad options, an object without geometry, or a free object without
/// mass.
std::shared_ptr<const Model> compileModel(std::shared_ptr<const hand::HandModel> hand,
                                          std::vector<ObjectModel> objects, Options options,
                                          std::shared_ptr<const HandGeometry> geometry,
                                          HandGeometryLoader load = handGeometryInMemory);

/// The same model with other objects (sharing hand, geometry and options).
std::shared_ptr<const Model> withObjects(const Model& model, std::vector<ObjectModel> objects);

/// The torsional friction length of object `o`'s contacts [m]: its own (ObjectModel::torsional)
/// when it gives one, else the scene's (ConstraintContactOptions::torsional); 0 in a model
/// without torsional friction (the volume penalty model).
inline double objectTorsional(const Model& model, int o) {
  const ConstraintContactOptions* c = model.options.contact.constraint();
  if (!c) return 0.0;
  const double own = model.objects[static_cast<std::size_t>(o)].torsional;
  return own >= 0.0 ? own : c->torsional;
}

/// True when some contact of the model can carry a torsional friction moment (default model).
bool anyTorsional(const Model& model);

}  // namespace handsim::sim
