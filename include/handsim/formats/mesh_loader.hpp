// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <string>

#include "handsim/formats/vrml_reader.hpp"
#include "handsim/geometry/loaded_model.hpp"

namespace handsim::geometry {

/// Options of loadMesh.
/// The importer's default address-space limit: 2 GiB, or none in an AddressSanitizer build, whose
/// importer reserves terabytes of address space for its shadow memory.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr std::size_t kDefaultImportMemoryLimit = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr std::size_t kDefaultImportMemoryLimit = 0;
#else
inline constexpr std::size_t kDefaultImportMemoryLimit = std::size_t{2} << 30;
#endif
#else
inline constexpr std::size_t kDefaultImportMemoryLimit = std::size_t{2} << 30;
#endif

struct MeshLoadOptions {
  /// Multiplies every coordinate after loading: 0.001 reads a millimetre file into metres.
  double scale = 1.0;
  /// Merge vertices at exactly the same position (per shape) so that meshes exported with
  /// per-face normals or texture seams can still be closed (watertight) [Assimp formats only].
  bool weld_vertices = true;
  /// Wall-clock time the mesh importer process may take [s] before it is killed; its CPU time
  /// is limited to the next whole second plus one [Assimp formats only].
  double import_time_limit_s = 20.0;
  /// Address space of the mesh importer process [bytes]; 0 leaves it unlimited
  /// (kDefaultImportMemoryLimit: 2 GiB, none under AddressSanitizer) [Assimp formats only].
  std::size_t import_memory_limit_bytes = kDefaultImportMemoryLimit;
  VrmlOptions vrml;  ///< used for .wrl, .wrz, .wrl.gz, .vrml
};

/// Loads any mesh file into world coordinates [m, after `scale`]. VRML97 goes to our reader
/// (loadVrml); everything else (OBJ, STL, PLY, OFF, COLLADA, glTF...) to Assimp with
/// triangulation and the file's node transforms applied. Assimp runs in a child process,
/// handsim-mesh-import (meshImporterPath), under the time and memory limits of `options`, so
/// that its crashes and endless loops become errors. Throws handsim::io::InputError, also when
/// the importer crashes, runs out of time or memory, or cannot be started.
LoadedModel loadMesh(const std::string& path, const MeshLoadOptions& options = {});

/// The handsim-mesh-import program loadMesh runs: $HANDSIM_MESH_IMPORTER when set, else the
/// one next to the running executable, else the one in the build tree (docs/vrml.md).
std::string meshImporterPath();

/// The reply of handsim-mesh-import on its stdout: every field of `model` in a binary layout
/// (native byte order: both ends run on the same machine).
std::string encodeMeshReply(const LoadedModel& model);

/// Reads a reply written by encodeMeshReply, checking every size and vertex index against the
/// bytes present. Throws handsim::io::InputError naming `path` when the reply is malformed.
LoadedModel decodeMeshReply(const std::string& reply, const std::string& path);

}  // namespace handsim::geometry
