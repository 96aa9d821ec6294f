// SPDX-License-Identifier: GPL-3.0-or-later
// handsim-mesh-import FILE SCALE WELD: reads FILE with Assimp 5.2 and writes the triangles to
// stdout as geometry::encodeMeshReply lays them out. loadMesh runs this program in a child
// process under time and memory limits (docs/vrml.md), because Assimp's parsers can abort,
// crash or loop forever on a damaged file and must not take the CLI, the GUI or Python with
// them. Exit status: 0 with the reply on stdout; 2 with the problem on stderr when the file
// cannot be read; 3 when memory ran out; 64 on wrong arguments.
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <array>
#include <assimp/Importer.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <new>
#include <string>

#include "handsim/formats/mesh_loader.hpp"
#include "handsim/io/input_error.hpp"

// An AddressSanitizer build of this program checks its own memory but not Assimp's leaks: the
// process exits at once, and a leak report would turn every import into a failure.
#if defined(__SANITIZE_ADDRESS__)
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
#endif
#endif

namespace handsim::geometry {
namespace {

constexpr int kFileError = 2;
constexpr int kOutOfMemory = 3;
constexpr int kUsage = 64;

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

// Assimp reports its own std::bad_alloc as an error string rather than letting it through.
bool isOutOfMemory(const std::string& assimp_error) {
  return assimp_error.find("bad_alloc") != std::string::npos;
}

LoadedModel importWithAssimp(const std::string& path, double scale, bool weld_vertices) {
  Assimp::Importer importer;
  // Points and lines carry no surface: let Assimp drop them.
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                              aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  const aiScene* scene = importer.ReadFile(
      path, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_SortByPType);
  if (!scene || !scene->mRootNode || (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE)) {
    if (isOutOfMemory(importer.GetErrorString())) throw std::bad_alloc();
    throw io::InputError({path, 0, 0, {}},
                         std::string("cannot load mesh: ") + importer.GetErrorString());
  }
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
            // Some of Assimp's parsers pass a file's face indices through unchecked.
            for (unsigned i = 0; i < 3; ++i)
              if (face.mIndices[i] >= mesh->mNumVertices)
                throw io::InputError({path, 0, 0, {}},
                                     "face " + std::to_string(f) + " of mesh " +
                                         std::to_string(node->mMeshes[k]) + " uses vertex " +
                                         std::to_string(face.mIndices[i]) + " but the mesh has " +
                                         std::to_string(mesh->mNumVertices) +
                                         " vertices (the file is probably damaged)");
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
          if (weld_vertices) weld(s.mesh);
          s.mesh.transform(xf);
          model.shapes.push_back(std::move(s));
        }
        for (unsigned c = 0; c < node->mNumChildren; ++c) walk(node->mChildren[c], xf);
      };
  walk(scene->mRootNode, Eigen::Affine3d::Identity());
  if (model.shapes.empty()) model.warnings.push_back(path + ": no triangles in the file");
  if (scale != 1.0)
    for (auto& s : model.shapes) s.mesh.transform(Eigen::Affine3d(Eigen::Scaling(scale)));
  return model;
}

int run(int argc, char** argv) {
  const std::string usage = "usage: handsim-mesh-import FILE SCALE WELD(0|1)\n";
  if (argc != 4) {
    std::cerr << usage;
    return kUsage;
  }
  char* end = nullptr;
  const double scale = std::strtod(argv[2], &end);
  const std::string weld_arg = argv[3];
  if (end == argv[2] || *end != '\0' || !(scale > 0.0) || !std::isfinite(scale) ||
      (weld_arg != "0" && weld_arg != "1")) {
    std::cerr << usage;
    return kUsage;
  }
  try {
    const std::string reply = encodeMeshReply(importWithAssimp(argv[1], scale, weld_arg == "1"));
    if (std::fwrite(reply.data(), 1, reply.size(), stdout) != reply.size() ||
        std::fflush(stdout) != 0) {
      std::perror("handsim-mesh-import: writing the reply");
      return 1;
    }
    return 0;
  } catch (const io::InputError& e) {
    std::cerr << e.problem() << "\n";
    return kFileError;
  } catch (const std::bad_alloc&) {
    std::cerr << "out of memory\n";
    return kOutOfMemory;
  } catch (const std::exception& e) {
    std::cerr << "cannot load mesh: " << e.what() << "\n";
    return kFileError;
  }
}

}  // namespace
}  // namespace handsim::geometry

int main(int argc, char** argv) {
  return handsim::geometry::run(argc, argv);
}
