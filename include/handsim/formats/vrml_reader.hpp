// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "handsim/geometry/loaded_model.hpp"

namespace handsim::geometry {

/// Tessellation density, where Inline files may come from, and the bounds that keep hostile
/// files from exhausting memory or time. One budget (bytes, triangles, vertices, node visits,
/// wall time) covers the whole load, the top-level file and every Inline together.
struct VrmlOptions {
  /// Segments around the axis of Sphere, Cylinder and Cone (clamped to [3, 1024]); a Sphere
  /// has segments/2 latitude bands. The relative area error of a primitive falls like
  /// 1/segments^2.
  int segments = 32;
  /// Folders, besides the one holding the top-level file, that Inline urls may resolve into;
  /// relative urls not found beside the including file are also looked up in them. An url that
  /// leads anywhere else (absolute paths, `..`, symlinks; compared as canonical paths) is
  /// skipped with a warning and never read.
  std::vector<std::string> inline_search_paths;
  /// Bytes read from files plus bytes produced by gzip decompression over the whole load; a
  /// file inlined N times counts N times [B].
  std::size_t max_total_bytes = std::size_t{256} << 20;
  double max_load_seconds = 10.0;            ///< wall-clock time of one load [s]
  std::size_t max_triangles = 20'000'000;    ///< loading fails beyond this many triangles
  std::size_t max_vertices = 20'000'000;     ///< loading fails beyond this many vertices
  int max_nesting = 64;                      ///< node / PROTO nesting depth in one file
  int max_proto_depth = 32;                  ///< PROTO instances expanded inside each other
  int max_inline_depth = 8;                  ///< Inline files loaded inside each other
  std::size_t max_node_visits = 20'000'000;  ///< bounds DEF/USE amplification
  std::size_t max_file_bytes = 256u << 20;   ///< largest file (after gzip decompression) [B]
  int max_polygon_for_ear_clipping = 5000;   ///< larger non-convex faces are fanned (warning)
};

/// Reads a VRML97 file (`#VRML V2.0 utf8`, plain or gzip-compressed) into world-coordinate
/// triangles [m]. Inline nodes with relative local paths are resolved against the including
/// file's folder, and must stay inside the top-level file's folder or a search path. Throws
/// handsim::io::InputError (file, line, column, what was expected) on a malformed or unsupported
/// file, including VRML 1.0.
LoadedModel loadVrml(const std::string& path, const VrmlOptions& options = {});

/// Same as loadVrml for text in memory (plain or gzip bytes). `name_for_errors` names the
/// text in messages; Inline paths are resolved against (and confined to) its folder.
LoadedModel parseVrml(std::string_view text, const std::string& name_for_errors,
                      const VrmlOptions& options = {});

}  // namespace handsim::geometry
