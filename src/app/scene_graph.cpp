// SPDX-License-Identifier: GPL-3.0-or-later
#include "scene_graph.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <osg/LOD>
#include <osg/BlendFunc>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/LineWidth>
#include <osg/Point>
#include <osg/PolygonMode>
#include <osg/PolygonOffset>
#include <osg/Shape>
#include <osg/ShapeDrawable>
#include <utility>

#include "handsim/collision/kdop_polytope.hpp"
#include "handsim/formats/mesh_loader.hpp"
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

// Indexed triangles with crease-angle normals: a corner takes the area-weighted mean normal of
// the triangles around its vertex that turn less than kCreaseDeg from its own face, so the edges
// of boxes stay crisp while rounded links and scanned meshes shade smoothly. Corners with the
// same position and normal share one vertex: a 100k-triangle closed mesh draws about 50k
// vertices instead of 300k, which is what a software rasteriser's vertex stage pays for.
constexpr double kCreaseDeg = 40.0;

osg::ref_ptr<osg::Geometry> meshGeometry(const geometry::TriangleMesh& mesh) {
  const std::size_t nt = mesh.triangles.size();
  // Weld by exact position (loaders may repeat vertices per face).
  std::vector<int> weld(mesh.vertices.size());
  {
    std::map<std::array<double, 3>, int> seen;
    for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
      const Eigen::Vector3d& p = mesh.vertices[v];
      weld[v] = seen.emplace(std::array<double, 3>{p.x(), p.y(), p.z()}, static_cast<int>(v))
                    .first->second;
    }
  }
  std::vector<Eigen::Vector3d> face(nt);  // area-weighted (length = 2 area)
  std::vector<std::vector<int>> around(mesh.vertices.size());
  for (std::size_t t = 0; t < nt; ++t) {
    const auto& tri = mesh.triangles[t];
    const Eigen::Vector3d& a = mesh.vertices[static_cast<std::size_t>(tri[0])];
    face[t] = (mesh.vertices[static_cast<std::size_t>(tri[1])] - a)
                  .cross(mesh.vertices[static_cast<std::size_t>(tri[2])] - a);
    for (int i : tri) around[static_cast<std::size_t>(weld[static_cast<std::size_t>(i)])].push_back(
        static_cast<int>(t));
  }
  const double cos_crease = std::cos(kCreaseDeg * 3.14159265358979323846 / 180.0);
  osg::ref_ptr<osg::Vec3Array> vertices = new osg::Vec3Array;
  osg::ref_ptr<osg::Vec3Array> normals = new osg::Vec3Array;
  osg::ref_ptr<osg::DrawElementsUInt> indices = new osg::DrawElementsUInt(GL_TRIANGLES);
  indices->reserve(nt * 3);
  // (welded vertex, quantised normal) -> output index
  std::map<std::pair<int, std::array<int, 3>>, unsigned> out;
  for (std::size_t t = 0; t < nt; ++t) {
    const double len = face[t].norm();
    if (!(len > 0.0)) continue;  // degenerate: nothing to draw
    const Eigen::Vector3d own = face[t] / len;
    for (int i : mesh.triangles[t]) {
      const int w = weld[static_cast<std::size_t>(i)];
      Eigen::Vector3d n = Eigen::Vector3d::Zero();
      for (int u : around[static_cast<std::size_t>(w)]) {
        const double lu = face[static_cast<std::size_t>(u)].norm();
        if (lu > 0.0 && face[static_cast<std::size_t>(u)].dot(own) >= cos_crease * lu)
          n += face[static_cast<std::size_t>(u)];
      }
      n = n.norm() > 0.0 ? n.normalized() : own;
      const std::array<int, 3> key{static_cast<int>(std::lround(n.x() * 1e5)),
                                   static_cast<int>(std::lround(n.y() * 1e5)),
                                   static_cast<int>(std::lround(n.z() * 1e5))};
      const auto [it, fresh] = out.emplace(std::make_pair(w, key), vertices->size());
      if (fresh) {
        vertices->push_back(toOsg(mesh.vertices[static_cast<std::size_t>(w)]));
        normals->push_back(toOsg(n));
      }
      indices->push_back(it->second);
    }
  }
  osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
  g->setVertexArray(vertices);
  g->setNormalArray(normals, osg::Array::BIND_PER_VERTEX);
  g->addPrimitiveSet(indices);
  g->setUseDisplayList(false);
  g->setUseVertexBufferObjects(true);
  return g;
}

osg::ref_ptr<osg::Geode> modelGeode(const geometry::LoadedModel& model, bool own_colours,
                                    std::vector<osg::ref_ptr<osg::Material>>* materials = nullptr) {
  osg::ref_ptr<osg::Geode> geode = new osg::Geode;
  for (const geometry::MeshShape& shape : model.shapes) {
    osg::ref_ptr<osg::Geometry> g = meshGeometry(shape.mesh);
    if (own_colours) {
      const Eigen::Vector3f& c = shape.diffuse_color;
      osg::ref_ptr<osg::Material> m = makeMaterial(osg::Vec4(c.x(), c.y(), c.z(), 1.0f));
      g->getOrCreateStateSet()->setAttributeAndModes(m);
      if (materials) materials->push_back(m);
    }
    geode->addDrawable(g);
  }
  return geode;
}

osg::BoundingBox boundsOf(osg::Node* node);

// Vertex clustering: vertices in one cubic cell of side `cell` merge into their mean;
// triangles that lose a corner that way vanish. Used only for drawing a mesh that is small on
// screen (a cell under about two pixels), never for contacts.
geometry::TriangleMesh clusterDecimate(const geometry::TriangleMesh& mesh, double cell) {
  std::map<std::array<long long, 3>, int> cluster_of_cell;
  std::vector<int> cluster(mesh.vertices.size());
  std::vector<Eigen::Vector3d> sum;
  std::vector<int> count;
  for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
    const Eigen::Vector3d& p = mesh.vertices[v];
    const std::array<long long, 3> key{std::llround(std::floor(p.x() / cell)),
                                       std::llround(std::floor(p.y() / cell)),
                                       std::llround(std::floor(p.z() / cell))};
    const auto [it, fresh] = cluster_of_cell.emplace(key, static_cast<int>(sum.size()));
    if (fresh) {
      sum.push_back(Eigen::Vector3d::Zero());
      count.push_back(0);
    }
    cluster[v] = it->second;
    sum[static_cast<std::size_t>(it->second)] += p;
    ++count[static_cast<std::size_t>(it->second)];
  }
  geometry::TriangleMesh out;
  out.vertices.reserve(sum.size());
  for (std::size_t c = 0; c < sum.size(); ++c) out.vertices.push_back(sum[c] / count[c]);
  std::map<std::array<int, 3>, bool> seen;
  for (const auto& t : mesh.triangles) {
    const std::array<int, 3> c{cluster[static_cast<std::size_t>(t[0])],
                               cluster[static_cast<std::size_t>(t[1])],
                               cluster[static_cast<std::size_t>(t[2])]};
    if (c[0] == c[1] || c[1] == c[2] || c[0] == c[2]) continue;
    // The same triangle twice (either winding order kept once per orientation).
    std::array<int, 3> key = c;
    std::rotate(key.begin(), std::min_element(key.begin(), key.end()), key.end());
    if (!seen.emplace(key, true).second) continue;
    out.triangles.push_back({c[0], c[1], c[2]});
  }
  return out;
}

// Meshes above this many triangles get coarser versions for when they are small on screen.
constexpr std::size_t kLodTriangles = 20000;

// The object's drawing: its full geode, or for a large mesh an osg::LOD that switches (by the
// object's size on screen in pixels) between clustered versions with cells under about two pixels
// and the full mesh. `ranges` receives the LOD's default pixel ranges (restored when the full
// detail option is turned off again).
osg::ref_ptr<osg::Node> objectDrawing(const geometry::LoadedModel& model,
                                      const osg::ref_ptr<osg::Geode>& full,
                                      std::vector<std::pair<float, float>>* ranges) {
  std::size_t triangles = 0;
  for (const auto& shape : model.shapes) triangles += shape.mesh.triangles.size();
  if (triangles < kLodTriangles) return full;
  const osg::BoundingBox box = boundsOf(full.get());
  const double diagonal = static_cast<double>((box._max - box._min).length());
  if (!(diagonal > 0.0)) return full;
  osg::ref_ptr<osg::LOD> lod = new osg::LOD;
  lod->setRangeMode(osg::LOD::PIXEL_SIZE_ON_SCREEN);
  float below = 0.0f;
  for (const double cells : {24.0, 48.0, 96.0, 192.0}) {
    geometry::LoadedModel coarse;
    std::size_t coarse_triangles = 0;
    for (const auto& shape : model.shapes) {
      geometry::MeshShape s;
      s.diffuse_color = shape.diffuse_color;
      s.mesh = clusterDecimate(shape.mesh, diagonal / cells);
      coarse_triangles += s.mesh.triangles.size();
      coarse.shapes.push_back(std::move(s));
    }
    if (coarse_triangles * 2 > triangles) break;  // not worth a level
    // OSG's pixel size of a bounding sphere is its diameter on screen (osg::CullingSet's pixel
    // size vector), about the box's diagonal: up to 2 * cells pixels a cell of diagonal / cells
    // covers at most about two pixels.
    const float upto = static_cast<float>(2.0 * cells);
    lod->addChild(modelGeode(coarse, true), below, upto);
    ranges->emplace_back(below, upto);
    below = upto;
  }
  lod->addChild(full, below, std::numeric_limits<float>::max());
  ranges->emplace_back(below, std::numeric_limits<float>::max());
  return lod;
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

// What a body collides with, drawn: its merged collision mesh filled translucent (the
// collision material, blended) with every triangle edge on top in a darker, unlit colour, so a
// coarse hull shows its facets. Nothing for an empty mesh.
osg::ref_ptr<osg::Node> collisionNode(const geometry::TriangleMesh& mesh,
                                      const osg::ref_ptr<osg::Material>& material) {
  if (mesh.triangles.empty()) return nullptr;
  osg::ref_ptr<osg::Group> group = new osg::Group;
  osg::ref_ptr<osg::Geode> fill = new osg::Geode;
  fill->addDrawable(meshGeometry(mesh));
  osg::StateSet* ss = fill->getOrCreateStateSet();
  ss->setAttributeAndModes(material);
  ss->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
  ss->setMode(GL_BLEND, osg::StateAttribute::ON);
  ss->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
  // Pushed back a little so the edges drawn on the same triangles stay visible.
  ss->setAttributeAndModes(new osg::PolygonOffset(1.0f, 1.0f));
  group->addChild(fill);
  std::map<std::pair<int, int>, bool> seen;
  osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
  for (const auto& t : mesh.triangles)
    for (int e = 0; e < 3; ++e) {
      const int a = t[static_cast<std::size_t>(e)], b = t[static_cast<std::size_t>((e + 1) % 3)];
      if (!seen.emplace(std::make_pair(std::min(a, b), std::max(a, b)), true).second) continue;
      v->push_back(toOsg(mesh.vertices[static_cast<std::size_t>(a)]));
      v->push_back(toOsg(mesh.vertices[static_cast<std::size_t>(b)]));
    }
  osg::ref_ptr<osg::Geometry> edges = new osg::Geometry;
  edges->setVertexArray(v);
  osg::ref_ptr<osg::Vec4Array> c = new osg::Vec4Array;
  c->push_back(osg::Vec4(0.02f, 0.25f, 0.3f, 1.0f));
  edges->setColorArray(c, osg::Array::BIND_OVERALL);
  edges->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, static_cast<GLsizei>(v->size())));
  group->addChild(unlitGeode(edges));
  return group;
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

// The contact arrow's parts in the arrow's frame (z out of the surface), as triangle corners
// with normals: a dot at the contact point, a shaft of unit length along z (scaled to the
// arrow's length) and a cone whose base sits at z = 0 (moved to the shaft's end).
struct ArrowCorner {
  Eigen::Vector3f point, normal;
};
struct ArrowParts {
  std::vector<ArrowCorner> dot, shaft, head;
};

const ArrowParts& arrowParts() {
  static const ArrowParts parts = [] {
    constexpr int kSides = 10, kRings = 6;
    constexpr float kDot = 0.003f, kShaft = 0.0015f, kHead = 0.004f, kHeadLength = 0.01f;
    const float pi = 3.14159265f;
    ArrowParts p;
    const auto ring = [&](int j) {
      const float a = 2.0f * pi * static_cast<float>(j % kSides) / kSides;
      return Eigen::Vector3f(std::cos(a), std::sin(a), 0.0f);
    };
    // Dot: a UV sphere.
    const auto sphere = [&](int i, int j) {
      const float th = pi * static_cast<float>(i) / kRings;
      const Eigen::Vector3f u = ring(j);
      return Eigen::Vector3f(std::sin(th) * u.x(), std::sin(th) * u.y(), std::cos(th));
    };
    for (int i = 0; i < kRings; ++i)
      for (int j = 0; j < kSides; ++j)
        for (const auto& [a, b] : {std::pair{i, j}, std::pair{i + 1, j}, std::pair{i + 1, j + 1},
                                   std::pair{i, j}, std::pair{i + 1, j + 1}, std::pair{i, j + 1}}) {
          const Eigen::Vector3f n = sphere(a, b);
          p.dot.push_back({kDot * n, n});
        }
    // Shaft: an open cylinder from z = 0 to z = 1.
    for (int j = 0; j < kSides; ++j)
      for (const auto& [s, z] : {std::pair{j, 0.0f}, std::pair{j + 1, 0.0f}, std::pair{j + 1, 1.0f},
                                 std::pair{j, 0.0f}, std::pair{j + 1, 1.0f}, std::pair{j, 1.0f}}) {
        const Eigen::Vector3f n = ring(s);
        p.shaft.push_back({Eigen::Vector3f(kShaft * n.x(), kShaft * n.y(), z), n});
      }
    // Head: a cone with its base disc.
    const float slope = kHead / kHeadLength;
    for (int j = 0; j < kSides; ++j) {
      const Eigen::Vector3f a = ring(j), b = ring(j + 1);
      const Eigen::Vector3f na = Eigen::Vector3f(a.x(), a.y(), slope).normalized();
      const Eigen::Vector3f nb = Eigen::Vector3f(b.x(), b.y(), slope).normalized();
      const Eigen::Vector3f nm = (na + nb).normalized();
      p.head.push_back({kHead * a, na});
      p.head.push_back({kHead * b, nb});
      p.head.push_back({Eigen::Vector3f(0.0f, 0.0f, kHeadLength), nm});
      const Eigen::Vector3f down(0.0f, 0.0f, -1.0f);
      p.head.push_back({Eigen::Vector3f::Zero(), down});
      p.head.push_back({kHead * b, down});
      p.head.push_back({kHead * a, down});
    }
    return p;
  }();
  return parts;
}

}  // namespace

SceneGraph::SceneGraph()
    : root_(new osg::Group),
      palm_(new osg::MatrixTransform),
      hand_group_(new osg::Group),
      object_group_(new osg::Group),
      arm_group_(new osg::Group),
      contact_group_(new osg::Group),
      grid_(gridNode(0.3, 0.02)),
      link_material_(makeMaterial(osg::Vec4(0.72f, 0.74f, 0.78f, 1.0f))),
      broken_material_(makeMaterial(osg::Vec4(0.95f, 0.55f, 0.1f, 1.0f))),
      palm_material_(makeMaterial(osg::Vec4(0.35f, 0.37f, 0.42f, 1.0f))),
      collision_material_(makeMaterial(osg::Vec4(0.1f, 0.75f, 0.85f, 0.55f))) {
  root_->addChild(grid_);
  root_->addChild(palm_);
  // The hand hangs in the palm frame; objects and contacts are in the world, as the state
  // holds them.
  palm_->addChild(hand_group_);
  root_->addChild(object_group_);
  // The arm a hand is mounted on: drawn in the world from its base (it has no collision
  // geometry: the arm is kinematic and does not collide, docs/arm.md).
  arm_material_ = makeMaterial(osg::Vec4(0.55f, 0.6f, 0.7f, 1.0f));
  arm_group_->setName("Arm");
  arm_group_->getOrCreateStateSet()->setAttributeAndModes(arm_material_);
  root_->addChild(arm_group_);
  root_->addChild(contact_group_);
  workspace_geode_ = new osg::Geode;
  workspace_geode_->getOrCreateStateSet()->setMode(
      GL_LIGHTING, osg::StateAttribute::OFF | osg::StateAttribute::PROTECTED);
  workspace_geode_->getOrCreateStateSet()->setAttributeAndModes(new osg::Point(3.0f));
  palm_->addChild(workspace_geode_);
  hand_group_->getOrCreateStateSet()->setAttributeAndModes(link_material_);
  root_->getOrCreateStateSet()->setMode(GL_NORMALIZE, osg::StateAttribute::ON);
  // The contact arrows: one geometry, its arrays rewritten in place by every update.
  arrows_ = new osg::Geometry;
  arrows_->setDataVariance(osg::Object::DYNAMIC);
  arrows_->setUseDisplayList(false);
  arrows_->setUseVertexBufferObjects(true);
  arrows_->setVertexArray(new osg::Vec3Array);
  arrows_->setNormalArray(new osg::Vec3Array, osg::Array::BIND_PER_VERTEX);
  arrows_->addPrimitiveSet(new osg::DrawArrays(GL_TRIANGLES, 0, 0));
  osg::ref_ptr<osg::Geode> arrows = new osg::Geode;
  arrows->addDrawable(arrows_);
  contact_group_->addChild(arrows);
  contact_group_->getOrCreateStateSet()->setAttributeAndModes(
      makeMaterial(osg::Vec4(0.1f, 0.9f, 0.3f, 1.0f)),
      osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
}

void SceneGraph::setHand(const sim::Model& model) {
  const hand::HandModel& hand = model.hand();
  const sim::HandGeometry& geometry = *model.hand_geometry;
  hand_group_->removeChildren(0, hand_group_->getNumChildren());
  links_.clear();
  link_frames_.clear();
  link_bounds_.clear();
  collision_swaps_.clear();

  // The meshes the model loaded once (a bad one stopped the model from compiling, so nothing
  // here draws what does not collide).
  osg::ref_ptr<osg::Geode> palm;
  hand_materials_.clear();
  // A separate drawn mesh carries its own colours (dark housings, rubber pads); the plain
  // collision meshes take the hand's materials.
  if (!geometry.palm.visual.shapes.empty())
    palm = modelGeode(geometry.palm.visual, !geometry.palm.visual_source.empty(), &hand_materials_);
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
  if (osg::ref_ptr<osg::Node> hull = collisionNode(geometry.palm.collision.mesh, collision_material_)) {
    hand_group_->addChild(hull);
    collision_swaps_.emplace_back(palm, hull);
  }

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
        shape = modelGeode(body.visual, !body.visual_source.empty(), &hand_materials_);
        bounds = kdopOutline(body.collision.tree);
      }
      // Links without a mesh take no part in contacts and are drawn as a stand-in.
      if (!shape) shape = stickLink(chain.rows[r]);
      osg::ref_ptr<osg::MatrixTransform> link = new osg::MatrixTransform;
      link->addChild(shape);
      if (osg::ref_ptr<osg::Node> hull = collisionNode(body.collision.mesh, collision_material_)) {
        link->addChild(hull);
        collision_swaps_.emplace_back(shape, hull);
      }
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
  setArm(hand.arm);
  setOptions(options_);
}

void SceneGraph::setArm(const hand::ArmModel& arm) {
  arm_group_->removeChildren(0, arm_group_->getNumChildren());
  arm_links_.clear();
  arm_axes_.clear();
  if (arm.empty()) return;
  for (std::size_t k = 0; k <= arm.chain.rows.size(); ++k) {
    osg::ref_ptr<osg::MatrixTransform> frame = new osg::MatrixTransform;
    const hand::BodyShapes* shapes = k < arm.link_shapes.size() ? &arm.link_shapes[k] : nullptr;
    if (shapes && !shapes->visual.shapes.empty()) {
      // URDF visuals carry their materials' colours (the reader's grey where a visual has none).
      frame->addChild(modelGeode(shapes->visual, true));
    } else if (k > 0) {
      // A link without drawn geometry: a stick along its row, as for a hand's links.
      frame->addChild(stickLink(arm.chain.rows[k - 1]));
    }
    osg::ref_ptr<osg::Node> axes = axesNode(kFrameAxis);
    frame->addChild(axes);
    arm_group_->addChild(frame);
    arm_links_.push_back(frame);
    arm_axes_.push_back(axes);
  }
}

Eigen::Isometry3d SceneGraph::armFramePose(int k) const {
  if (k < 0 || static_cast<std::size_t>(k) >= arm_links_.size())
    return Eigen::Isometry3d::Identity();
  const osg::Matrixd m = arm_links_[static_cast<std::size_t>(k)]->getMatrix();
  Eigen::Isometry3d out;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out.matrix()(r, c) = m(c, r);  // osg is row-vector convention
  return out;
}

void SceneGraph::setObjects(const std::vector<sim::ObjectModel>& objects) {
  object_group_->removeChildren(0, object_group_->getNumChildren());
  objects_.clear();
  object_bounds_.clear();
  lods_.clear();
  for (const sim::ObjectModel& o : objects) {
    osg::ref_ptr<osg::MatrixTransform> t = new osg::MatrixTransform();  // placed by update()
    osg::ref_ptr<osg::Geode> geode = modelGeode(o.geometry->visual, true);
    std::vector<std::pair<float, float>> ranges;
    osg::ref_ptr<osg::Node> drawing = objectDrawing(o.geometry->visual, geode, &ranges);
    if (auto* lod = dynamic_cast<osg::LOD*>(drawing.get())) lods_.push_back({lod, ranges});
    t->addChild(drawing);
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

int SceneGraph::fingerIndexOf(const osg::NodePath& path) const {
  for (const osg::Node* node : path)
    for (std::size_t f = 0; f < links_.size(); ++f)
      for (const auto& link : links_[f])
        if (link.get() == node) return static_cast<int>(f);
  return -1;
}

void SceneGraph::setDragTarget(const std::optional<Eigen::Vector3d>& target,
                               const Eigen::Vector3d& from, bool reached) {
  if (!drag_group_) {
    drag_group_ = new osg::Group;
    drag_group_->setName("DragTarget");
    drag_sphere_ = new osg::MatrixTransform;
    auto* ball = new osg::Geode;
    ball->addDrawable(new osg::ShapeDrawable(new osg::Sphere(osg::Vec3(), 0.004f)));
    drag_sphere_->addChild(ball);
    drag_group_->addChild(drag_sphere_);
    drag_line_ = new osg::Geometry;
    drag_line_->setVertexArray(new osg::Vec3Array(2));
    auto* colours = new osg::Vec4Array(1);
    (*colours)[0] = osg::Vec4(0.95f, 0.8f, 0.1f, 1.0f);
    drag_line_->setColorArray(colours, osg::Array::BIND_OVERALL);
    drag_line_->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 2));
    drag_line_->setUseDisplayList(false);
    auto* line = new osg::Geode;
    line->addDrawable(drag_line_);
    line->getOrCreateStateSet()->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
    line->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(2.0f));
    drag_group_->addChild(line);
    reached_material_ = makeMaterial(osg::Vec4(0.1f, 0.8f, 0.3f, 1.0f));
    missed_material_ = makeMaterial(osg::Vec4(0.9f, 0.15f, 0.1f, 1.0f));
    root_->addChild(drag_group_);
  }
  drag_group_->setNodeMask(target ? ~0u : 0u);
  if (!target) return;
  drag_sphere_->setMatrix(osg::Matrixd::translate(target->x(), target->y(), target->z()));
  drag_sphere_->getOrCreateStateSet()->setAttributeAndModes(reached ? reached_material_
                                                                    : missed_material_);
  auto* v = static_cast<osg::Vec3Array*>(drag_line_->getVertexArray());
  (*v)[0] = osg::Vec3(from.x(), from.y(), from.z());
  (*v)[1] = osg::Vec3(target->x(), target->y(), target->z());
  v->dirty();
  drag_line_->dirtyBound();
}

const osg::Node* SceneGraph::dragTargetNode() const {
  return drag_group_ && drag_group_->getNodeMask() != 0u ? drag_group_.get() : nullptr;
}

int SceneGraph::objectIndexOf(const osg::NodePath& path) const {
  for (const osg::Node* node : path)
    for (std::size_t i = 0; i < objects_.size(); ++i)
      if (objects_[i].get() == node) return static_cast<int>(i);
  return -1;
}

void SceneGraph::update(const sim::Model& model, const sim::SimState& state,
                        const Eigen::Isometry3d& arm_base_world) {
  const hand::HandModel& hand = model.hand();
  palm_->setMatrix(toOsg(state.palm_pose_world));
  const hand::ArmModel& arm = hand.arm;
  if (!arm.empty() && state.arm_position.size() == arm.dof() &&
      arm_links_.size() == arm.chain.rows.size() + 1) {
    kinematics::forwardKinematics(arm.chain, state.arm_position, arm_frames_);
    for (std::size_t k = 0; k < arm_links_.size(); ++k)
      arm_links_[k]->setMatrix(toOsg(arm_base_world * arm_frames_.at(static_cast<int>(k))));
  }
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
          broken_material_, osg::StateAttribute::ON | osg::StateAttribute::OVERRIDE);
  }
  for (std::size_t i = 0; i < objects_.size() && i < state.object_pose_world.size(); ++i)
    objects_[i]->setMatrix(toOsg(state.object_pose_world[i]));
  rebuildContacts(state);
  applyTransparency();
}

void SceneGraph::rebuildContacts(const sim::SimState& state) {
  drawn_contacts_ = 0;
  // Every contact of the step: link-object, object-ground/palm/object, link-link and link-palm.
  const std::size_t nc = state.contacts.size(), ng = state.object_contacts.size();
  const std::size_t n = options_.contacts ? nc + ng + state.link_contacts.size() : 0;
  const ArrowParts& parts = arrowParts();
  const std::size_t per_arrow = parts.dot.size() + parts.shaft.size() + parts.head.size();
  auto* points = static_cast<osg::Vec3Array*>(arrows_->getVertexArray());
  auto* normals = static_cast<osg::Vec3Array*>(arrows_->getNormalArray());
  points->resize(n * per_arrow);
  normals->resize(n * per_arrow);
  std::size_t k = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool on_object = i >= nc && i < nc + ng;
    const sim::Contact& c = i < nc      ? state.contacts[i]
                            : on_object ? state.object_contacts[i - nc]
                                        : state.link_contacts[i - nc - ng];
    // The arrow shows the push on the contact's first body, out of the surface that pushes
    // (world frame): on the link for a link's contact (out of the object or the other link), on
    // the object for an object's contact (out of the ground, the palm or the other object).
    // 1 cm for a touch, 1 cm more per 5 N, so a breakaway-sized 18 N force is clearly longer.
    const float length = static_cast<float>(std::min(0.01 + 0.002 * std::max(c.force, 0.0), 0.08));
    Eigen::Vector3d out = on_object ? c.normal_world : Eigen::Vector3d(-c.normal_world);
    if (!(out.norm() > 0.0) || !out.allFinite()) out = Eigen::Vector3d::UnitZ();
    // The arrow's frame: z along `out`, at the contact point.
    const Eigen::Matrix3f r =
        Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), out.normalized())
            .toRotationMatrix()
            .cast<float>();
    const Eigen::Vector3f at = c.point_world.cast<float>();
    const auto put = [&](const std::vector<ArrowCorner>& part, float z_scale, float z_shift) {
      for (const ArrowCorner& v : part) {
        const Eigen::Vector3f p =
            r * Eigen::Vector3f(v.point.x(), v.point.y(), v.point.z() * z_scale + z_shift) + at;
        const Eigen::Vector3f nn = r * v.normal;
        (*points)[k].set(p.x(), p.y(), p.z());
        (*normals)[k].set(nn.x(), nn.y(), nn.z());
        ++k;
      }
    };
    put(parts.dot, 1.0f, 0.0f);
    put(parts.shaft, length, 0.0f);
    put(parts.head, 1.0f, length);
  }
  points->dirty();
  normals->dirty();
  static_cast<osg::DrawArrays*>(arrows_->getPrimitiveSet(0))
      ->setCount(static_cast<GLsizei>(n * per_arrow));
  arrows_->dirtyBound();
  drawn_contacts_ = static_cast<int>(n);
}

void SceneGraph::applyTransparency() {
  osg::StateSet* ss = hand_group_->getOrCreateStateSet();
  const float alpha = options_.transparent ? 0.35f : 1.0f;
  for (osg::Material* m : {link_material_.get(), broken_material_.get(), palm_material_.get()}) {
    m->setAlpha(osg::Material::FRONT_AND_BACK, alpha);
  }
  for (const auto& m : hand_materials_) m->setAlpha(osg::Material::FRONT_AND_BACK, alpha);
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
  if (arm_group_->getNumChildren() > 0) bound.expandBy(arm_group_->getBound());
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
  for (auto& n : arm_axes_) n->setNodeMask(options_.frames ? ~0u : 0u);
  contact_group_->setNodeMask(options_.contacts ? ~0u : 0u);
  for (auto& [drawn, hull] : collision_swaps_) {
    drawn->setNodeMask(options_.collision ? 0u : ~0u);
    hull->setNodeMask(options_.collision ? ~0u : 0u);
  }
  for (auto& [lod, ranges] : lods_)
    for (unsigned i = 0; i < lod->getNumChildren() && i < ranges.size(); ++i) {
      const bool last = i + 1 == lod->getNumChildren();
      if (options_.full_detail)
        lod->setRange(i, last ? 0.0f : std::numeric_limits<float>::max(),
                      std::numeric_limits<float>::max());
      else
        lod->setRange(i, ranges[i].first, ranges[i].second);
    }
  root_->getOrCreateStateSet()->setAttributeAndModes(
      new osg::PolygonMode(osg::PolygonMode::FRONT_AND_BACK,
                           options_.wireframe ? osg::PolygonMode::LINE : osg::PolygonMode::FILL));
  applyTransparency();
}

}  // namespace handsim::app
