// SPDX-License-Identifier: GPL-3.0-or-later
#include "scene_graph.hpp"

#include <algorithm>
#include <map>
#include <osg/BlendFunc>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/LineWidth>
#include <osg/Point>
#include <osg/PolygonMode>
#include <osg/Shape>
#include <osg/ShapeDrawable>
#include <utility>

#include "handsim/collision/kdop_polytope.hpp"
#include "handsim/geometry/mesh_loader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::app {
namespace {

constexpr double kLinkRadius = 0.009;  // [m] stand-in link thickness (BarrettHand-like)
constexpr double kFrameAxis = 0.02;    // [m] length of drawn frame axes
const osg::Vec4 kBoundsColour(1.0f, 0.9f, 0.2f, 1.0f);

osg::Matrixd toOsg(const Eigen::Isometry3d& t) {
  // OSG multiplies row vectors from the left, so its matrix is Eigen's transposed.
  osg::Matrixd m;
  const Eigen::Matrix4d e = t.matrix();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) m(r, c) = e(c, r);
  return m;
}

osg::Vec3 toOsg(const Eigen::Vector3d& v) {
  return osg::Vec3(static_cast<float>(v.x()), static_cast<float>(v.y()), static_cast<float>(v.z()));
}

osg::ref_ptr<osg::Material> makeMaterial(const osg::Vec4& color) {
  osg::ref_ptr<osg::Material> m = new osg::Material;
  m->setColorMode(osg::Material::OFF);
  m->setDiffuse(osg::Material::FRONT_AND_BACK, color);
  m->setAmbient(osg::Material::FRONT_AND_BACK,
                osg::Vec4(color.r() * 0.35f, color.g() * 0.35f, color.b() * 0.35f, color.a()));
  m->setSpecular(osg::Material::FRONT_AND_BACK, osg::Vec4(0.25f, 0.25f, 0.25f, color.a()));
  m->setShininess(osg::Material::FRONT_AND_BACK, 32.0f);
  return m;
}

// Flat-shaded triangles: three vertices per triangle, each with the face normal, so edges of
// boxes and facets of coarse meshes stay crisp.
osg::ref_ptr<osg::Geometry> meshGeometry(const geometry::TriangleMesh& mesh) {
  osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array;
  osg::ref_ptr<osg::Vec3Array> normals = new osg::Vec3Array;
  vertices->reserve(mesh.triangles.size() * 3);
  normals->reserve(mesh.triangles.size() * 3);
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    const auto& tri = mesh.triangles[t];
    const Eigen::Vector3d& a = mesh.vertices[static_cast<std::size_t>(tri[0])];
    const Eigen::Vector3d& b = mesh.vertices[static_cast<std::size_t>(tri[1])];
    const Eigen::Vector3d& c = mesh.vertices[static_cast<std::size_t>(tri[2])];
    Eigen::Vector3d n = (b - a).cross(c - a);
    const double len = n.norm();
    if (len > 0.0) n /= len;
    for (const Eigen::Vector3d* p : {&a, &b, &c}) {
      vertices->push_back(toOsg(*p));
      normals->push_back(toOsg(n));
    }
  }
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setVertexArray(vertices);
  g->setNormalArray(normals, osg::Array::BIND_PER_VERTEX);
  g->addPrimitiveSet(new osg::DrawArrays(GL_TRIANGLES, 0, static_cast<GLsizei>(vertices->size())));
  g->setUseDisplayList(false);
  g->setUseVertexBufferObjects(true);
  return g;
}

osg::ref_ptr<osg::Geode> modelGeode(const geometry::LoadedModel& model, bool own_colours) {
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  for (const geometry::MeshShape& shape : model.shapes) {
    osg::ref_ptr<osg::Geometry> g = meshGeometry(shape.mesh);
    if (own_colours) {
      const Eigen::Vector3f& c = shape.diffuse_color;
      g->getOrCreateStateSet()->setAttributeAndModes(
          makeMaterial(osg::Vec4(c.x(), c.y(), c.z(), 1.0f)));
    }
    geode->addDrawable(g);
  }
  return geode;
}

osg::ref_ptr<osg::Drawable> capsule(const Eigen::Vector3d& p0, const Eigen::Vector3d& p1,
                                    double radius) {
  const Eigen::Vector3d axis = p1 - p0;
  osg::ref_ptr<osg::Capsule> shape = new osg::Capsule(
      toOsg(0.5 * (p0 + p1)), static_cast<float>(radius), static_cast<float>(axis.norm()));
  shape->setRotation(osg::Quat());
  osg::Quat q;
  q.makeRotate(osg::Vec3(0, 0, 1), toOsg(axis.normalized()));
  shape->setRotation(q);
  osg::ref_ptr<osg::TessellationHints> hints = new osg::TessellationHints;
  hints->setDetailRatio(0.6f);
  return new osg::ShapeDrawable(shape, hints);
}

// Lines drawn in flat colour: lighting would shade them by their (meaningless) normals.
osg::ref_ptr<osg::Geode> unlitGeode(const osg::ref_ptr<osg::Geometry>& g) {
  g->getOrCreateStateSet()->setMode(GL_LIGHTING,
                                    osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(g);
  return geode;
}

osg::ref_ptr<osg::Node> axesNode(double length) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  const float l = static_cast<float>(length);
  const osg::Vec3 ends[3] = {{l, 0, 0}, {0, l, 0}, {0, 0, l}};
  const osg::Vec4 colours[3] = {{1, 0.1f, 0.1f, 1}, {0.1f, 0.8f, 0.1f, 1}, {0.2f, 0.3f, 1, 1}};
  for (int i = 0; i < 3; ++i) {
    v->push_back(osg::Vec3());
    v->push_back(ends[i]);
    c->push_back(colours[i]);
    c->push_back(colours[i]);
  }
  g->setVertexArray(v);
  g->setColorArray(c, osg::Array::BIND_PER_VERTEX);
  g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 6));
  osg::StateSet* ss = g->getOrCreateStateSet();
  ss->setMode(GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  ss->setAttributeAndModes(new osg::LineWidth(2.0f));
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  geode->addDrawable(g);
  return geode;
}

osg::ref_ptr<osg::Node> boxOutline(const osg::BoundingBox& b) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  for (int i = 0; i < 8; ++i) v->push_back(b.corner(static_cast<unsigned>(i)));
  g->setVertexArray(v);
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  c->push_back(kBoundsColour);
  g->setColorArray(c, osg::Array::BIND_OVERALL);
  const GLushort edges[] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 2, 1, 3, 4, 6, 5, 7, 0, 4, 1, 5, 2, 6, 3, 7};
  g->addPrimitiveSet(new osg::DrawElementsUShort(GL_LINES, 24, edges));
  return unlitGeode(g);
}

// Wireframe of the root k-DOP of the tree the contact stage uses (the model's, not a copy): the
// edges between the faces of the polytope its slabs cut (not the diagonals inside a face).
// Nothing for an empty tree.
osg::ref_ptr<osg::Node> kdopOutline(const collision::KdopTree& tree) {
  if (tree.empty()) return nullptr;
  const geometry::TriangleMesh poly = collision::kdopNodePolytope(tree, 0);
  std::map<std::pair<int, int>, std::vector<std::size_t>> edge_triangles;
  for (std::size_t t = 0; t < poly.triangles.size(); ++t)
    for (int e = 0; e < 3; ++e) {
      const int a = poly.triangles[t][static_cast<std::size_t>(e)];
      const int b = poly.triangles[t][static_cast<std::size_t>((e + 1) % 3)];
      edge_triangles[{std::min(a, b), std::max(a, b)}].push_back(t);
    }
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  for (const auto& [edge, triangles] : edge_triangles) {
    const bool crease = triangles.size() != 2 ||
                        poly.normals[triangles[0]].dot(poly.normals[triangles[1]]) < 1.0 - 1e-9;
    if (!crease) continue;
    v->push_back(toOsg(poly.vertices[static_cast<std::size_t>(edge.first)]));
    v->push_back(toOsg(poly.vertices[static_cast<std::size_t>(edge.second)]));
  }
  if (v->empty()) return nullptr;
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setVertexArray(v);
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  c->push_back(kBoundsColour);
  g->setColorArray(c, osg::Array::BIND_OVERALL);
  g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, static_cast<GLsizei>(v->size())));
  return unlitGeode(g);
}

osg::BoundingBox boundsOf(osg::Node* node) {
  osg::BoundingBox box;
  if (auto* geode = node->asGeode())
    for (unsigned i = 0; i < geode->getNumDrawables(); ++i)
      box.expandBy(geode->getDrawable(i)->getBoundingBox());
  return box;
}

osg::ref_ptr<osg::Node> gridNode(double half, double step) {
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  const int n = static_cast<int>(half / step + 0.5);
  const float h = static_cast<float>(half);
  for (int i = -n; i <= n; ++i) {
    const float s = static_cast<float>(i * step);
    const osg::Vec4 colour =
        i == 0 ? osg::Vec4(0.55f, 0.55f, 0.6f, 1) : osg::Vec4(0.38f, 0.38f, 0.42f, 1);
    v->push_back(osg::Vec3(s, -h, 0));
    v->push_back(osg::Vec3(s, h, 0));
    v->push_back(osg::Vec3(-h, s, 0));
    v->push_back(osg::Vec3(h, s, 0));
    for (int k = 0; k < 4; ++k) c->push_back(colour);
  }
  g->setVertexArray(v);
  g->setColorArray(c, osg::Array::BIND_PER_VERTEX);
  g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, static_cast<GLsizei>(v->size())));
  return unlitGeode(g);
}

// The stand-in shape of link `row` in frame {row + 1}: the DH link runs from the origin of
// {row} along z_row by d, then along x_{row+1} by a to the origin of {row + 1}. Both points
// are fixed in {row + 1} because the joint turns about (or slides along) z_row.
osg::ref_ptr<osg::Geode> stickLink(const kinematics::DhRow& row) {
  const Eigen::Isometry3d inv = kinematics::dhTransform(row, 0.0).inverse();
  const Eigen::Vector3d origin_prev = inv.translation();
  const Eigen::Vector3d elbow(-row.a, 0.0, 0.0);
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  if ((elbow - origin_prev).norm() > 1e-6)
    geode->addDrawable(capsule(origin_prev, elbow, kLinkRadius));
  if (row.a > 1e-6) geode->addDrawable(capsule(elbow, Eigen::Vector3d::Zero(), kLinkRadius));
  if (geode->getNumDrawables() == 0)
    geode->addDrawable(
        new osg::ShapeDrawable(new osg::Sphere(osg::Vec3(), static_cast<float>(kLinkRadius))));
  return geode;
}

}  // namespace

SceneGraph::SceneGraph()
    : root_(new osg::Group),
      palm_(new osg::MatrixTransform),
      hand_group_(new osg::Group),
      object_group_(new osg::Group),
      contact_group_(new osg::Group),
      grid_(gridNode(0.3, 0.02)),
      link_material_(makeMaterial(osg::Vec4(0.72f, 0.74f, 0.78f, 1.0f))),
      broken_material_(makeMaterial(osg::Vec4(0.95f, 0.55f, 0.1f, 1.0f))),
      palm_material_(makeMaterial(osg::Vec4(0.35f, 0.37f, 0.42f, 1.0f))) {
  root_->addChild(grid_);
  root_->addChild(palm_);
  // The hand hangs in the palm frame; objects and contacts are in the world, as the state
  // holds them.
  palm_->addChild(hand_group_);
  root_->addChild(object_group_);
  root_->addChild(contact_group_);
  workspace_geode_ = new osg::Geode;
  workspace_geode_->getOrCreateStateSet()->setMode(
      GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  workspace_geode_->getOrCreateStateSet()->setAttributeAndModes(new osg::Point(3.0f));
  palm_->addChild(workspace_geode_);
  hand_group_->getOrCreateStateSet()->setAttributeAndModes(link_material_);
  root_->getOrCreateStateSet()->setMode(GL_NORMALIZE, osg::StateAttribute::ON);
}

void SceneGraph::setHand(const sim::Model& model) {
  const hand::HandModel& hand = model.hand();
  const sim::HandGeometry& geometry = *model.hand_geometry;
  hand_group_->removeChildren(0, hand_group_->getNumChildren());
  links_.clear();
  link_frames_.clear();
  link_bounds_.clear();

  // The meshes the model loaded once (a bad one stopped the model from compiling, so nothing
  // here draws what does not collide).
  osg::ref_ptr<osg::Geode> palm;
  if (!geometry.palm.visual.shapes.empty()) palm = modelGeode(geometry.palm.visual, false);
  if (!palm) {
    // Box around the wrist and every finger base, so any hand gets a plausible palm.
    Eigen::Vector3d lo = Eigen::Vector3d::Zero(), hi = Eigen::Vector3d::Zero();
    for (const auto& f : hand.fingers) {
      lo = lo.cwiseMin(f.base.translation());
      hi = hi.cwiseMax(f.base.translation());
    }
    const Eigen::Vector3d pad = Eigen::Vector3d::Constant(0.015);
    lo -= pad;
    hi += pad;
    if (lo.z() < 0.0 && hi.z() > 0.05) lo.z() = 0.0;
    const Eigen::Vector3d size = hi - lo;
    palm = new osg::Geode;
    palm->addDrawable(new osg::ShapeDrawable(
        new osg::Box(toOsg(0.5 * (lo + hi)), static_cast<float>(size.x()),
                     static_cast<float>(size.y()), static_cast<float>(size.z()))));
  }
  palm->getOrCreateStateSet()->setAttributeAndModes(palm_material_);
  hand_group_->addChild(palm);

  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const kinematics::Chain& chain = hand.fingers[f];
    links_.emplace_back();
    link_frames_.emplace_back();
    link_bounds_.emplace_back();
    osg::ref_ptr<osg::MatrixTransform> base = new osg::MatrixTransform(toOsg(chain.base));
    osg::ref_ptr<osg::Node> base_axes = axesNode(kFrameAxis);
    base->addChild(base_axes);
    link_frames_.back().push_back(base_axes);
    hand_group_->addChild(base);
    for (std::size_t r = 0; r < chain.rows.size(); ++r) {
      osg::ref_ptr<osg::Geode> shape;
      osg::ref_ptr<osg::Node> bounds;
      const sim::BodyGeometry& body = geometry.links[f][r];
      if (!body.visual.shapes.empty()) {
        shape = modelGeode(body.visual, false);
        bounds = kdopOutline(body.collision.tree);
      }
      // Links without a mesh take no part in contacts and are drawn as a stand-in.
      if (!shape) shape = stickLink(chain.rows[r]);
      osg::ref_ptr<osg::MatrixTransform> link = new osg::MatrixTransform;
      link->addChild(shape);
      osg::ref_ptr<osg::Node> axes = axesNode(kFrameAxis);
      link->addChild(axes);
      // Stand-ins take no part in contacts: they keep their box.
      if (!bounds) bounds = boxOutline(boundsOf(shape.get()));
      link->addChild(bounds);
      hand_group_->addChild(link);
      links_.back().push_back(link);
      link_frames_.back().push_back(axes);
      link_bounds_.back().push_back(bounds);
    }
  }
  setOptions(options_);
}

void SceneGraph::setObjects(const std::vector<sim::ObjectModel>& objects) {
  object_group_->removeChildren(0, object_group_->getNumChildren());
  objects_.clear();
  object_bounds_.clear();
  for (const sim::ObjectModel& o : objects) {
    osg::ref_ptr<osg::MatrixTransform> t = new osg::MatrixTransform(toOsg(o.initial_pose_world));
    osg::ref_ptr<osg::Geode> geode = modelGeode(o.geometry->visual, true);
    t->addChild(geode);
    osg::ref_ptr<osg::Node> bounds = kdopOutline(o.geometry->collision.tree);
    if (!bounds) bounds = boxOutline(boundsOf(geode.get()));
    t->addChild(bounds);
    object_group_->addChild(t);
    objects_.push_back(t);
    object_bounds_.push_back(bounds);
  }
  setOptions(options_);
}

bool SceneGraph::showsBrokenClutch(int finger, int row) const {
  if (finger < 0 || row < 0 || static_cast<std::size_t>(finger) >= links_.size() ||
      static_cast<std::size_t>(row) >= links_[static_cast<std::size_t>(finger)].size())
    return false;
  const osg::StateSet* ss =
      links_[static_cast<std::size_t>(finger)][static_cast<std::size_t>(row)]->getStateSet();
  return ss && ss->getAttribute(osg::StateAttribute::MATERIAL) == broken_material_.get();
}

int SceneGraph::objectIndexOf(const osg::NodePath& path) const {
  for (const osg::Node* node : path)
    for (std::size_t i = 0; i < objects_.size(); ++i)
      if (objects_[i].get() == node) return static_cast<int>(i);
  return -1;
}

void SceneGraph::update(const sim::Model& model, const sim::SimState& state) {
  const hand::HandModel& hand = model.hand();
  palm_->setMatrix(toOsg(state.palm_pose_world));
  // The link frames the state's kinematics stage computed: no forward kinematics here.
  for (std::size_t f = 0;
       f < links_.size() && f < hand.fingers.size() && f < state.link_frames.size(); ++f) {
    const kinematics::Chain& chain = hand.fingers[f];
    const kinematics::ChainFrames& frames = state.link_frames[f];
    for (std::size_t r = 0; r < links_[f].size(); ++r) {
      links_[f][r]->setMatrix(toOsg(chain.base * frames.at(static_cast<int>(r) + 1)));
      links_[f][r]->getOrCreateStateSet()->removeAttribute(osg::StateAttribute::MATERIAL);
    }
  }
  // The clutch indicator: the inner link of a finger whose clutch broke away turns orange.
  for (std::size_t c = 0; c < hand.clutches.size() && c < state.clutches.size(); ++c) {
    if (!state.clutches[c].broken) continue;
    const hand::JointRef inner = hand.clutches[c].inner;
    if (inner.finger < 0 || static_cast<std::size_t>(inner.finger) >= links_.size()) continue;
    const int row = hand.fingers[static_cast<std::size_t>(inner.finger)].rowOfJoint(inner.joint);
    auto& finger_links = links_[static_cast<std::size_t>(inner.finger)];
    if (row >= 0 && static_cast<std::size_t>(row) < finger_links.size())
      finger_links[static_cast<std::size_t>(row)]->getOrCreateStateSet()->setAttributeAndModes(
          broken_material_);
  }
  for (std::size_t i = 0; i < objects_.size() && i < state.object_pose_world.size(); ++i)
    objects_[i]->setMatrix(toOsg(state.object_pose_world[i]));
  rebuildContacts(state);
  applyTransparency();
}

void SceneGraph::rebuildContacts(const sim::SimState& state) {
  contact_group_->removeChildren(0, contact_group_->getNumChildren());
  drawn_contacts_ = 0;
  if (!options_.contacts || state.contacts.empty()) return;
  drawn_contacts_ = static_cast<int>(state.contacts.size());
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  for (const sim::Contact& c : state.contacts) {
    // The arrow shows the push on the link (out of the object, world frame): 1 cm for a touch,
    // 1 cm more per 5 N, so a breakaway-sized 18 N force is clearly longer.
    const double length = std::min(0.01 + 0.002 * std::max(c.force, 0.0), 0.08);
    const Eigen::Vector3d out = -c.normal_world;
    const Eigen::Vector3d tip = c.point_world + length * out;
    geode->addDrawable(capsule(c.point_world, tip, 0.0015));
    osg::ref_ptr<osg::Cone> cone = new osg::Cone(toOsg(tip), 0.004f, 0.01f);
    osg::Quat q;
    q.makeRotate(osg::Vec3(0, 0, 1), toOsg(out));
    cone->setRotation(q);
    geode->addDrawable(new osg::ShapeDrawable(cone));
    geode->addDrawable(new osg::ShapeDrawable(new osg::Sphere(toOsg(c.point_world), 0.003f)));
  }
  geode->getOrCreateStateSet()->setAttributeAndModes(
      makeMaterial(osg::Vec4(0.1f, 0.9f, 0.3f, 1.0f)),
      osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
  contact_group_->addChild(geode);
}

void SceneGraph::applyTransparency() {
  osg::StateSet* ss = hand_group_->getOrCreateStateSet();
  const float alpha = options_.transparent ? 0.35f : 1.0f;
  for (osg::Material* m : {link_material_.get(), broken_material_.get(), palm_material_.get()}) {
    m->setAlpha(osg::Material::FRONT_AND_BACK, alpha);
  }
  if (options_.transparent) {
    ss->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
    ss->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  } else {
    ss->setMode(GL_BLEND, osg::StateAttribute::OFF);
    ss->setRenderingHint(osg::StateSet::OPAQUE_BIN);
  }
}

osg::BoundingSphere SceneGraph::contentBound() const {
  osg::BoundingSphere bound = palm_->getBound();
  bound.expandBy(object_group_->getBound());
  return bound;
}

void SceneGraph::setWorkspace(const std::vector<Eigen::Vector3d>& points) {
  workspace_geode_->removeDrawables(0, workspace_geode_->getNumDrawables());
  workspace_ = nullptr;
  if (points.empty()) return;
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  v->reserve(points.size());
  for (const Eigen::Vector3d& p : points)
    v->push_back(
        osg::Vec3(static_cast<float>(p.x()), static_cast<float>(p.y()), static_cast<float>(p.z())));
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  c->push_back(osg::Vec4(0.2f, 0.75f, 1.0f, 1.0f));
  workspace_ = new osg::Geometry;
  workspace_->setVertexArray(v);
  workspace_->setColorArray(c, osg::Array::BIND_OVERALL);
  workspace_->addPrimitiveSet(new osg::DrawArrays(GL_POINTS, 0, static_cast<GLsizei>(v->size())));
  workspace_geode_->addDrawable(workspace_);
}

void SceneGraph::setOptions(const DisplayOptions& options) {
  options_ = options;
  grid_->setNodeMask(options_.grid ? ~0u : 0u);
  for (auto& finger : link_frames_)
    for (auto& n : finger) n->setNodeMask(options_.frames ? ~0u : 0u);
  for (auto& finger : link_bounds_)
    for (auto& n : finger) n->setNodeMask(options_.bounds ? ~0u : 0u);
  for (auto& n : object_bounds_) n->setNodeMask(options_.bounds ? ~0u : 0u);
  contact_group_->setNodeMask(options_.contacts ? ~0u : 0u);
  root_->getOrCreateStateSet()->setAttributeAndModes(
      new osg::PolygonMode(osg::PolygonMode::FRONT_AND_BACK,
                           options_.wireframe ? osg::PolygonMode::LINE : osg::PolygonMode::FILL));
  applyTransparency();
}

}  // namespace handsim::app
