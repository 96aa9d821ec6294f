// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "handsim/geometry/loaded_model.hpp"
#include "handsim/geometry/vrml_reader.hpp"

namespace handsim::geometry {

/// Options of loadMesh.
struct MeshLoadOptions {
  /// Multiplies every coordinate after loading: 0.001 reads a millimetre file into metres.
  double scale = 1.0;
  /// Merge vertices at exactly the same position (per shape) so that meshes exported with
  /// per-face normals or texture seams can still be closed (watertight) [Assimp formats only].
  bool weld_vertices = true;
  VrmlOptions vrml;  ///< used for .wrl, .wrz, .wrl.gz, .vrml
};

/// Loads any mesh file into world coordinates [m, after `scale`]. VRML97 goes to our reader
/// (loadVrml); everything else (OBJ, STL, PLY, OFF, COLLADA, glTF...) to Assimp with
/// triangulation and the file's node transforms applied. Throws handsim::io::InputError.
LoadedModel loadMesh(const std::string& path, const MeshLoadOptions& options = {});

}  // namespace handsim::geometry
