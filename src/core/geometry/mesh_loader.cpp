// SPDX-License-Identifier: GPL-3.0-or-later
// Mesh files other than VRML97 go through Assimp 5.2; VRML97 through our own reader (Assimp's
// VRML support is partial and would silently drop PROTOs and Extrusions).
#include "handsim/geometry/mesh_loader.hpp"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <assimp/Importer.hpp>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>

#include "handsim/io/input_error.hpp"

namespace handsim::geometry {

namespace {

std::string lowercase(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool isVrmlPath(const std::string& path) {
  const std::string p = lowercase(path);
  return endsWith(p, ".wrl") || endsWith(p, ".wrz") || endsWith(p, ".wrl.gz") ||
         endsWith(p, ".vrml");
}

Eigen::Affine3d toEigen(const aiMatrix4x4& m) {
  Eigen::Matrix4d e;
  e << m.a1, m.a2, m.a3, m.a4, m.b1, m.b2, m.b3, m.b4, m.c1, m.c2, m.c3, m.c4, m.d1, m.d2, m.d3,
      m.d4;
  return Eigen::Affine3d(e);
}

// Merges vertices at bit-identical positions so seams in the exported file do not open the
// surface.
void weld(TriangleMesh& m) {
  std::map<std::array<double, 3>, int> index;
  std::vector<int> remap(m.vertices.size());
  std::vector<Eigen::Vector3d> unique;
  for (std::size_t i = 0; i < m.vertices.size(); ++i) {
    const auto& v = m.vertices[i];
    const auto [it, inserted] =
        index.try_emplace({v.x(), v.y(), v.z()}, static_cast<int>(unique.size()));
    if (inserted) unique.push_back(v);
    remap[i] = it->second;
  }
  m.vertices = std::move(unique);
  std::vector<std::array<int, 3>> tris;
  tris.reserve(m.triangles.size());
  for (auto t : m.triangles) {
    for (int& i : t) i = remap[static_cast<std::size_t>(i)];
    if (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]) tris.push_back(t);
  }
  m.triangles = std::move(tris);
}

LoadedModel loadWithAssimp(const std::string& path, const MeshLoadOptions& options) {
  Assimp::Importer importer;
  // Points and lines carry no surface: let Assimp drop them.
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                              aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_SortByPType);
  if (!scene || !scene->mRootNode || (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE))
    throw io::InputError({path, 0, 0, {}},
                         std::string("cannot load mesh: ") + importer.GetErrorString());
  if (scene->mNumMeshes == 0)
    throw io::InputError({path, 0, 0, {}}, "no mesh data found (unrecognised or empty file)");
  LoadedModel model;
  const std::function<void(const aiNode*, const Eigen::Affine3d&)> walk =
      [&](const aiNode* node, const Eigen::Affine3d& parent) {
        const Eigen::Affine3d xf = parent * toEigen(node->mTransformation);
        for (unsigned k = 0; k < node->mNumMeshes; ++k) {
          const aiMesh* mesh = scene->mMeshes[node->mMeshes[k]];
          MeshShape s;
          s.name = mesh->mName.length ? mesh->mName.C_Str() : node->mName.C_Str();
          for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
            const aiVector3D& p = mesh->mVertices[v];
            s.mesh.vertices.emplace_back(p.x, p.y, p.z);
          }
          for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
            const aiFace& face = mesh->mFaces[f];
            if (face.mNumIndices != 3) continue;
            s.mesh.triangles.push_back({static_cast<int>(face.mIndices[0]),
                                        static_cast<int>(face.mIndices[1]),
                                        static_cast<int>(face.mIndices[2])});
          }
          if (s.mesh.triangles.empty()) continue;
          aiColor4D diffuse;
          if (mesh->mMaterialIndex < scene->mNumMaterials &&
              scene->mMaterials[mesh->mMaterialIndex]->Get(AI_MATKEY_COLOR_DIFFUSE, diffuse) ==
                  aiReturn_SUCCESS)
            s.diffuse_color = Eigen::Vector3f(diffuse.r, diffuse.g, diffuse.b);
          if (options.weld_vertices) weld(s.mesh);
          s.mesh.transform(xf);
          model.shapes.push_back(std::move(s));
        }
        for (unsigned c = 0; c < node->mNumChildren; ++c) walk(node->mChildren[c], xf);
      };
  walk(scene->mRootNode, Eigen::Affine3d::Identity());
  if (model.shapes.empty()) model.warnings.push_back(path + ": no triangles in the file");
  return model;
}

}  // namespace

LoadedModel loadMesh(const std::string& path, const MeshLoadOptions& options) {
  if (!(options.scale > 0.0) || !std::isfinite(options.scale))
    throw io::InputError({path, 0, 0, "scale"}, "scale must be a positive finite number");
  if (!std::filesystem::is_regular_file(path))
    throw io::InputError({path, 0, 0, {}}, "no such file");
  LoadedModel model =
      isVrmlPath(path) ? loadVrml(path, options.vrml) : loadWithAssimp(path, options);
  if (options.scale != 1.0)
    for (auto& s : model.shapes) s.mesh.transform(Eigen::Affine3d(Eigen::Scaling(options.scale)));
  return model;
}

}  // namespace handsim::geometry
