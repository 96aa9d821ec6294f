// SPDX-License-Identifier: GPL-3.0-or-later
// Mesh files into a model's bodies: read here, the bodies built by the engine (sim/model.cpp).
#include "handsim/formats/model_loader.hpp"

#include <filesystem>
#include <sstream>
#include <string>
#include <utility>

namespace handsim::sim {

namespace {

BodyGeometry readBody(const std::string& path, const geometry::MeshLoadOptions& options, int k,
                      const std::string& visual_path = "",
                      collision::CollisionShape shape = collision::CollisionShape::Mesh) {
  if (path.empty()) {
    // Drawn only: takes no part in contacts.
    BodyGeometry g;
    g.visual_source = visual_path;
    if (!visual_path.empty()) g.visual = geometry::loadMesh(visual_path, options);
    return g;
  }
  BodyGeometry g = bodyGeometryOf(geometry::loadMesh(path, options), path, k, shape);
  g.visual_source = visual_path;
  // A drawn-only mesh replaces what is shown; contacts keep the (simpler) collision mesh.
  if (!visual_path.empty()) g.visual = geometry::loadMesh(visual_path, options);
  return g;
}

}  // namespace

std::shared_ptr<const BodyGeometry> loadBodyGeometry(const std::string& path,
                                                     const geometry::MeshLoadOptions& options,
                                                     int kdop_k) {
  return std::make_shared<const BodyGeometry>(readBody(path, options, kdop_k));
}

std::shared_ptr<const HandGeometry> loadHandGeometry(const hand::HandModel& hand, int kdop_k) {
  return buildHandGeometry(hand, kdop_k,
                           [kdop_k](const std::string& path, const std::string& visual_path,
                                    collision::CollisionShape shape) {
                             return readBody(path, {}, kdop_k, visual_path, shape);
                           });
}

ObjectModel loadObject(const std::string& path, const geometry::MeshLoadOptions& options,
                       const std::string& name, int kdop_k, double density) {
  ObjectModel o;
  o.geometry = loadBodyGeometry(path, options, kdop_k);
  o.source = path;
  o.scale = options.scale;
  o.name = name.empty() ? std::filesystem::path(path).stem().string() : name;
  computeMassProperties(o, density);
  return o;
}

std::shared_ptr<const Model> compileModel(std::shared_ptr<const hand::HandModel> hand,
                                          std::vector<ObjectModel> objects, Options options) {
  return compileModel(std::move(hand), std::move(objects), std::move(options), nullptr,
                      loadHandGeometry);
}

bool looksLikeMillimetres(const geometry::TriangleMesh& mesh, double* extent_m, double limit_m) {
  geometry::Aabb box;
  for (const Eigen::Vector3d& v : mesh.vertices) box.extend(v);
  const double extent = box.empty() ? 0.0 : (box.max - box.min).maxCoeff();
  if (extent_m) *extent_m = extent;
  return extent > limit_m;
}

std::string millimetreWarning(const std::string& path, double extent_m) {
  std::ostringstream out;
  out.precision(4);
  out << path << ": the mesh is " << extent_m
      << " m across, far larger than a hand (about 0.2 m); its coordinates are probably in "
         "millimetres: give the object \"scale\": 0.001";
  return out.str();
}

}  // namespace handsim::sim
