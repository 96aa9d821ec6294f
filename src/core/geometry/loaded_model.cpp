// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/geometry/loaded_model.hpp"

namespace handsim::geometry {

TriangleMesh LoadedModel::merged() const {
  TriangleMesh out;
  for (const auto& s : shapes) {
    const int base = static_cast<int>(out.vertices.size());
    out.vertices.insert(out.vertices.end(), s.mesh.vertices.begin(), s.mesh.vertices.end());
    for (const auto& t : s.mesh.triangles)
      out.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
  }
  out.updateNormals();
  return out;
}

std::size_t LoadedModel::triangleCount() const {
  std::size_t n = 0;
  for (const auto& s : shapes) n += s.mesh.triangles.size();
  return n;
}

}  // namespace handsim::geometry
