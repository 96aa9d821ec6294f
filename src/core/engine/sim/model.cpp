// SPDX-License-Identifier: GPL-3.0-or-later
// Compiling the model: the bodies' k-DOP trees are built once (seed 000 sec. IV), here and
// nowhere else; the contact stage and the viewport share them. Mesh files are read in
// src/core/formats (model_loader.cpp), never here.
#include "handsim/sim/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "handsim/collision/tree_collision.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/sim/object_names.hpp"
#include "handsim/sim/penalty_contacts.hpp"

namespace handsim::sim {

void validateOptions(const Options& o) {
  auto bad = [](const std::string& field, const std::string& why) {
    throw std::invalid_argument("options." + field + " " + why);
  };
  if (!(o.dt > 0.0) || !std::isfinite(o.dt)) bad("dt", "must be positive and finite");
  if (!o.gravity_world.allFinite()) bad("gravity_world", "must be finite");
  if (o.contact.kdop_k != 14 && o.contact.kdop_k != 18 && o.contact.kdop_k != 26)
    bad("contact.kdop_k", "must be 14, 18 or 26");
  if (o.solver.sweeps < 1) bad("solver.sweeps", "must be at least 1");
  if (!(o.contact.mu >= 0.0) || !std::isfinite(o.contact.mu))
    bad("contact.mu", "must be finite and not negative");
  if (!std::isfinite(o.ground.height)) bad("ground.height", "must be finite");
  if (std::isnan(o.ground.friction) || std::isinf(o.ground.friction))
    bad("ground.friction", "must be finite (negative: each object's own)");
  if (const ConstraintContactOptions* c = o.contact.constraint()) {
    if (!(c->stiffness >= 0.0) || !std::isfinite(c->stiffness))
      bad("contact.stiffness", "must be finite and not negative");
    if (!(c->slop >= 0.0) || !std::isfinite(c->slop))
      bad("contact.slop", "must be finite and not negative");
    if (!(c->sink_rate >= 0.0 && c->sink_rate <= 1.0))
      bad("contact.sink_rate", "must lie in [0, 1]");
    if (!(c->object_push >= 0.0 && c->object_push <= 1.0))
      bad("contact.object_push", "must lie in [0, 1]");
    if (!(c->torsional >= 0.0) || !std::isfinite(c->torsional))
      bad("contact.torsional", "must be finite and not negative");
  }
  if (const VolumePenaltyOptions* v = o.contact.volumePenalty()) {
    const contact::PenaltyContactParams& p = v->penalty;
    auto positiveField = [&](const char* field, double x) {
      if (!(x > 0.0) || !std::isfinite(x))
        bad(std::string("contact.penalty.") + field, "must be positive and finite");
    };
    auto nonNegativeField = [&](const char* field, double x) {
      if (!(x >= 0.0) || !std::isfinite(x))
        bad(std::string("contact.penalty.") + field, "must be finite and not negative");
    };
    positiveField("stiffness_n_per_m", p.stiffness_n_per_m);
    nonNegativeField("damping_ns_per_m", p.damping_ns_per_m);
    nonNegativeField("first_contact_gain", p.first_contact_gain);
    nonNegativeField("first_contact_delay", p.first_contact_delay);
    positiveField("target_depth_m", p.target_depth_m);
    positiveField("filter_damping_ratio", p.filter_damping_ratio);
    positiveField("filter_natural_frequency_radps", p.filter_natural_frequency_radps);
    nonNegativeField("viscous_ns_per_m", p.viscous_ns_per_m);
    nonNegativeField("tanh_slope_s_per_m", p.tanh_slope_s_per_m);
    if (!(v->anchor.stiffness_n_per_m > 0.0) || !std::isfinite(v->anchor.stiffness_n_per_m))
      bad("contact.anchor.stiffness_n_per_m", "must be positive and finite");
    if (!(v->anchor.damping_ns_per_m >= 0.0) || !std::isfinite(v->anchor.damping_ns_per_m))
      bad("contact.anchor.damping_ns_per_m", "must be finite and not negative");
  }
  if (!(o.solver.row_floor > 0.0) || !std::isfinite(o.solver.row_floor))
    bad("solver.row_floor", "must be positive and finite");
  if (!(o.solver.tolerance >= 0.0) || !std::isfinite(o.solver.tolerance))
    bad("solver.tolerance", "must be non-negative and finite");
  if (!(o.solver.warm_start_radius >= 0.0) || !std::isfinite(o.solver.warm_start_radius))
    bad("solver.warm_start_radius", "must be non-negative and finite");
  if (!(o.solver.standstill_speed >= 0.0) || !std::isfinite(o.solver.standstill_speed))
    bad("solver.standstill_speed", "must be finite and not negative");
}

CollisionBody makeCollisionBody(geometry::TriangleMesh mesh, int k,
                                collision::CollisionShape shape) {
  CollisionBody b;
  if (shape == collision::CollisionShape::Hull && !mesh.triangles.empty()) {
    b.shape = shape;
    b.hull = collision::buildConvexHull(mesh);
    mesh = b.hull.triangles;
  } else if (!mesh.triangles.empty()) {
    // A convex mesh is its own hull: kept for the pairs with a hull body (queryBodyPair).
    try {
      collision::ConvexHull hull = collision::buildConvexHull(mesh);
      if (collision::isBoundaryOfHull(mesh, hull)) b.hull = std::move(hull);
    } catch (const std::invalid_argument&) {
      // flat: no hull
    }
  }
  if (mesh.normals.size() != mesh.triangles.size()) mesh.updateNormals();
  b.mesh = std::move(mesh);
  if (b.mesh.triangles.empty()) return b;
  const geometry::Aabb box = geometry::boundingBox(b.mesh);
  b.centre = 0.5 * (box.min + box.max);
  b.half_extent = 0.5 * (box.max - box.min);
  for (const auto& t : b.mesh.triangles)
    for (int i : t)
      b.radius =
          std::max(b.radius, (b.mesh.vertices[static_cast<std::size_t>(i)] - b.centre).norm());
  collision::KdopTreeOptions opt;
  opt.k = k;
  b.tree = collision::KdopTree(b.mesh, opt);
  return b;
}

void setCollisionSphere(CollisionBody& body, const std::optional<geometry::Sphere>& sphere) {
  if (!sphere || body.empty()) return;
  body.sphere = sphere;
  // The tessellation's vertices lie on the ball, so these bounds hold its mesh too.
  body.centre = sphere->centre;
  body.radius = sphere->radius;
  body.half_extent = Eigen::Vector3d::Constant(sphere->radius);
}

bool boundingBoxesOverlap(const CollisionBody& a, const Eigen::Isometry3d& a_pose,
                          const CollisionBody& b, const Eigen::Isometry3d& b_pose, double margin) {
  const Eigen::Matrix3d A = a_pose.linear(), B = b_pose.linear();
  const Eigen::Vector3d d = b_pose * b.centre - a_pose * a.centre;
  const Eigen::Matrix3d R = A.transpose() * B;  // B's axes in A's frame
  const Eigen::Matrix3d abs_r = R.cwiseAbs().array() + 1e-12;
  const Eigen::Vector3d t = A.transpose() * d;  // centre offset in A's frame
  const Eigen::Vector3d& ea = a.half_extent;
  const Eigen::Vector3d& eb = b.half_extent;
  // A's face axes, then B's.
  for (int i = 0; i < 3; ++i)
    if (std::abs(t[i]) > ea[i] + abs_r.row(i).dot(eb) + margin) return false;
  for (int j = 0; j < 3; ++j)
    if (std::abs(t.dot(R.col(j))) > abs_r.col(j).dot(ea) + eb[j] + margin) return false;
  // The nine edge-edge axes A_i x B_j.
  for (int i = 0; i < 3; ++i) {
    const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const double ra = ea[i1] * abs_r(i2, j) + ea[i2] * abs_r(i1, j);
      const double rb = eb[j1] * abs_r(i, j2) + eb[j2] * abs_r(i, j1);
      if (std::abs(t[i2] * R(i1, j) - t[i1] * R(i2, j)) > ra + rb + margin) return false;
    }
  }
  return true;
}

bool bodiesMayTouch(const CollisionBody& a, const Eigen::Isometry3d& a_pose, const CollisionBody& b,
                    const Eigen::Isometry3d& b_pose) {
  constexpr double kBoxMargin = 1e-6;  // [m]
  if (a.empty() || b.empty()) return false;
  if ((a_pose * a.centre - b_pose * b.centre).norm() > a.radius + b.radius) return false;
  return boundingBoxesOverlap(a, a_pose, b, b_pose, kBoxMargin);
}

namespace {

// makeCollisionBody, its error (a hull of a flat mesh) an io::InputError naming `source`.
CollisionBody collisionBodyOf(geometry::TriangleMesh mesh, int k, collision::CollisionShape shape,
                              const std::string& source) {
  try {
    return makeCollisionBody(std::move(mesh), k, shape);
  } catch (const std::invalid_argument& e) {
    throw io::InputError({source, 0, 0, ""},
                         std::string(e.what()) + " (use \"collision\": \"mesh\")");
  }
}

}  // namespace

BodyGeometry bodyGeometryOf(geometry::LoadedModel shapes, const std::string& source, int kdop_k,
                            collision::CollisionShape shape) {
  BodyGeometry g;
  g.source = source;
  g.visual = std::move(shapes);
  g.collision = collisionBodyOf(g.visual.merged(), kdop_k, shape, source);
  setCollisionSphere(g.collision, g.visual.onlySphere());
  return g;
}

std::shared_ptr<const BodyGeometry> withCollisionShape(const BodyGeometry& geometry,
                                                       collision::CollisionShape shape,
                                                       int kdop_k) {
  auto g = std::make_shared<BodyGeometry>(geometry);
  if (shape == geometry.collision.shape || geometry.collision.empty()) return g;
  // From the exact mesh: the collision mesh of a Mesh body, else the drawn shapes (a Hull
  // body's mesh is its hull).
  const bool from_mesh = geometry.collision.shape == collision::CollisionShape::Mesh;
  g->collision = collisionBodyOf(from_mesh ? geometry.collision.mesh : geometry.visual.merged(),
                                 kdop_k, shape, geometry.source);
  setCollisionSphere(g->collision, geometry.collision.sphere);
  return g;
}

std::shared_ptr<const HandGeometry> buildHandGeometry(const hand::HandModel& hand, int kdop_k,
                                                      const HandBodyReader& read) {
  auto g = std::make_shared<HandGeometry>();
  // URDF hands carry their shapes in memory (hand::BodyShapes), already placed in the frames.
  const auto fromShapes = [kdop_k](const hand::BodyShapes& s, collision::CollisionShape shape) {
    BodyGeometry b;
    b.source = s.source;
    b.visual = s.visual.shapes.empty() ? s.collision : s.visual;
    const geometry::LoadedModel& from = s.collision.shapes.empty() ? s.visual : s.collision;
    geometry::TriangleMesh mesh = from.merged();
    try {
      b.collision = makeCollisionBody(mesh, kdop_k, shape);
    } catch (const std::invalid_argument&) {
      // A URDF body whose shapes span no volume (a flat plate) has no hull: it keeps its mesh.
      b.collision = makeCollisionBody(std::move(mesh), kdop_k);
    }
    setCollisionSphere(b.collision, from.onlySphere());
    return b;
  };
  g->palm = hand.palm_shapes.empty()
                ? read(hand.palm_mesh, hand.palm_visual_mesh, hand.palm_collision)
                : fromShapes(hand.palm_shapes, hand.palm_collision);
  g->links.resize(hand.fingers.size());
  for (std::size_t f = 0; f < hand.fingers.size(); ++f)
    for (std::size_t r = 0; r < hand.fingers[f].rows.size(); ++r) {
      if (f < hand.link_shapes.size() && r < hand.link_shapes[f].size() &&
          !hand.link_shapes[f][r].empty()) {
        g->links[f].push_back(fromShapes(hand.link_shapes[f][r], hand.linkCollision(f, r)));
        continue;
      }
      const std::string path = f < hand.link_meshes.size() && r < hand.link_meshes[f].size()
                                   ? hand.link_meshes[f][r]
                                   : std::string();
      const std::string visual =
          f < hand.link_visual_meshes.size() && r < hand.link_visual_meshes[f].size()
              ? hand.link_visual_meshes[f][r]
              : std::string();
      g->links[f].push_back(read(path, visual, hand.linkCollision(f, r)));
    }
  // Hand bodies touching in the rest pose are adjacent: excluded from link-link contacts.
  g->link_offset.push_back(0);
  for (const auto& links : g->links) g->link_offset.push_back(g->link_offset.back() + links.size());
  std::vector<const CollisionBody*> bodies;
  std::vector<Eigen::Isometry3d> poses;
  std::vector<int> finger_of;
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const kinematics::Chain& chain = hand.fingers[f];
    kinematics::JointVector q = kinematics::JointVector::Zero(chain.dof());
    int j = 0;
    for (const kinematics::DhRow& row : chain.rows)
      if (row.type != kinematics::JointType::Fixed) {
        q[j] = std::clamp(0.0, row.lower, row.upper);
        ++j;
      }
    const kinematics::ChainFrames frames = kinematics::forwardKinematics(chain, q);
    for (std::size_t r = 0; r < g->links[f].size(); ++r) {
      bodies.push_back(&g->links[f][r].collision);
      poses.push_back(chain.base * frames.at(static_cast<int>(r) + 1));
      finger_of.push_back(static_cast<int>(f));
    }
  }
  bodies.push_back(&g->palm.collision);
  poses.push_back(Eigen::Isometry3d::Identity());
  finger_of.push_back(-1);
  for (std::size_t a = 0; a < bodies.size(); ++a)
    for (std::size_t b = a + 1; b < bodies.size(); ++b) {
      if (finger_of[a] == finger_of[b] || bodies[a]->empty() || bodies[b]->empty()) continue;
      if ((poses[a] * bodies[a]->centre - poses[b] * bodies[b]->centre).norm() >
          bodies[a]->radius + bodies[b]->radius)
        continue;
      if (collision::anyContact(bodies[a]->tree, bodies[b]->tree, poses[a].inverse() * poses[b]))
        g->excluded_pairs.emplace_back(a, b);
    }
  return g;
}

std::shared_ptr<const HandGeometry> handGeometryInMemory(const hand::HandModel& hand, int kdop_k) {
  const auto noFiles = [&hand](const std::string& path, const std::string& visual_path,
                               collision::CollisionShape) {
    if (!path.empty() || !visual_path.empty())
      throw std::invalid_argument("hand '" + hand.name + "' names the mesh file '" +
                                  (path.empty() ? visual_path : path) +
                                  "': the engine reads no files (sim::loadHandGeometry, "
                                  "handsim/formats/model_loader.hpp, does)");
    return BodyGeometry();
  };
  return buildHandGeometry(hand, kdop_k, noFiles);
}

bool HandGeometry::excluded(int finger_a, int row_a, int finger_b, int row_b) const {
  if (link_offset.empty()) return false;
  auto index = [this](int f, int r) {
    return f < 0 ? link_offset.back()
                 : link_offset[static_cast<std::size_t>(f)] + static_cast<std::size_t>(r);
  };
  const std::size_t a = index(finger_a, row_a), b = index(finger_b, row_b);
  const std::pair<std::size_t, std::size_t> key(std::min(a, b), std::max(a, b));
  return std::binary_search(excluded_pairs.begin(), excluded_pairs.end(), key);
}

void computeMassProperties(ObjectModel& o, double density) {
  o.density = density;
  o.mass = {};
  o.warnings.clear();
  // A ball (the file's one sphere primitive, CollisionBody::sphere): its closed form, not its
  // tessellation's (which lies inside the ball: 1.6 % less mass at 32 segments).
  if (const auto& ball = o.geometry->collision.sphere) {
    constexpr double kPi = 3.14159265358979323846;
    const double r = ball->radius;
    o.mass.volume_m3 = 4.0 / 3.0 * kPi * r * r * r;
    o.mass.mass_kg = density * o.mass.volume_m3;
    o.mass.centre_of_mass = ball->centre;
    o.mass.inertia_com = Eigen::Matrix3d::Identity() * (0.4 * o.mass.mass_kg * r * r);
    if (!(o.mass.volume_m3 > 0.0) || !std::isfinite(o.mass.volume_m3)) {
      o.mass = {};
      o.warnings.push_back("object '" + o.name + "': its sphere's volume is not finite and " +
                           "positive; its mass is set to 0");
    }
    return;
  }
  // The file's shape (the drawn one), also for a body that collides as its convex hull.
  const bool hull = o.geometry->collision.shape == collision::CollisionShape::Hull &&
                    !o.geometry->visual.shapes.empty();
  const geometry::TriangleMesh file_mesh =
      hull ? o.geometry->visual.merged() : geometry::TriangleMesh();
  const geometry::TriangleMesh& mesh = hull ? file_mesh : o.geometry->collision.mesh;
  if (mesh.triangles.empty()) {
    o.warnings.push_back("object '" + o.name + "' has no triangles: no mass");
    return;
  }
  geometry::ClosednessReport closed;
  try {
    closed = geometry::checkClosed(mesh);
  } catch (const std::invalid_argument& e) {
    // Coordinates the check cannot weld (e.g. a scale of 1e118): no mass, said so.
    o.warnings.push_back("object '" + o.name + "': " + e.what() + "; its mass is set to 0");
    return;
  }
  if (!closed.closed) {
    o.warnings.push_back("object '" + o.name + "' is not a closed mesh (" +
                         std::to_string(closed.boundary_edges) + " boundary, " +
                         std::to_string(closed.non_manifold_edges) + " non-manifold, " +
                         std::to_string(closed.inconsistently_oriented_edges) +
                         " inconsistently oriented edges): its mass is unknown, set to 0");
    return;
  }
  try {
    o.mass = geometry::massProperties(mesh, density);
    if (o.mass.winding_flipped)
      o.warnings.push_back("object '" + o.name +
                           "' is wound inwards; its faces were reversed "
                           "for the mass properties");
  } catch (const std::invalid_argument& e) {
    o.mass = {};
    o.warnings.push_back("object '" + o.name + "': " + e.what() + "; its mass is set to 0");
  }
}

std::shared_ptr<const Model> compileModel(std::shared_ptr<const hand::HandModel> hand,
                                          std::vector<ObjectModel> objects, Options options,
                                          std::shared_ptr<const HandGeometry> geometry,
                                          HandGeometryLoader load) {
  if (!hand) throw std::invalid_argument("compileModel: no hand");
  validateOptions(options);
  makeObjectNamesUnique(objects);
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (!objects[i].geometry)
      throw std::invalid_argument("object " + std::to_string(i) + " ('" + objects[i].name +
                                  "') has no geometry");
    if (!(objects[i].friction >= 0.0) || !std::isfinite(objects[i].friction))
      throw std::invalid_argument("object '" + objects[i].name +
                                  "': friction must be finite and not negative");
    if (!std::isfinite(objects[i].torsional))
      throw std::invalid_argument("object '" + objects[i].name +
                                  "': torsional friction length must be finite");
    const geometry::MassProperties& mp = objects[i].mass;
    if (!objects[i].fixed && (!(mp.mass_kg > 0.0) || !std::isfinite(mp.mass_kg) ||
                              !mp.inertia_com.allFinite() || !(mp.inertia_com.trace() > 0.0)))
      throw std::invalid_argument("object '" + objects[i].name +
                                  "' is free but has no mass (a free object needs a closed mesh)");
    // The distinct vertices a free object can rest on (exact duplicates removed: mesh files
    // repeat a vertex per face).
    std::vector<Eigen::Vector3d> points = objects[i].geometry->collision.mesh.vertices;
    std::sort(points.begin(), points.end(), [](const Eigen::Vector3d& a, const Eigen::Vector3d& b) {
      return std::lexicographical_compare(a.data(), a.data() + 3, b.data(), b.data() + 3);
    });
    points.erase(std::unique(points.begin(), points.end()), points.end());
    objects[i].support_points = std::move(points);
  }
  if (geometry && geometry->links.size() != hand->fingers.size())
    throw std::invalid_argument("compileModel: the hand geometry was built for another hand");
  auto m = std::make_shared<Model>();
  m->hand_geometry = geometry ? std::move(geometry) : load(*hand, options.contact.kdop_k);
  m->hand_ptr = std::move(hand);
  m->objects = std::move(objects);
  m->options = options;
  m->bodies = makeBodyTable(*m->hand_ptr, *m->hand_geometry, m->objects);
  // Seed 004's penalty model: its body pairs, the ground's box and the meshes' closure, once.
  if (options.contact.volumePenalty()) m->penalty = buildPenaltyGeometry(*m);
  return m;
}

std::shared_ptr<const Model> withObjects(const Model& model, std::vector<ObjectModel> objects) {
  return compileModel(model.hand_ptr, std::move(objects), model.options, model.hand_geometry);
}

bool anyTorsional(const Model& model) {
  if (!model.options.contact.constraint()) return false;
  for (std::size_t o = 0; o < model.objects.size(); ++o)
    if (objectTorsional(model, static_cast<int>(o)) > 0.0) return true;
  return false;
}

}  // namespace handsim::sim
