// SPDX-License-Identifier: GPL-3.0-or-later
// What a body collides as (docs/collision.md, "Collision shapes"): chosen per body in hand files,
// URDF sidecars and scenarios ("collision": "mesh" or "hull").
#pragma once

#include <optional>
#include <string_view>

namespace handsim::collision {

/// The collision geometry of a body.
enum class CollisionShape {
  Mesh,  ///< the exact triangle mesh (k-DOP tree, exact triangle tests, contact patches)
  Hull,  ///< the convex hull of the mesh (GJK/EPA and a clipped manifold against other hulls)
};

/// The file name of a shape: "mesh" or "hull".
constexpr const char* collisionShapeName(CollisionShape s) {
  return s == CollisionShape::Hull ? "hull" : "mesh";
}

/// The shape a file names, nothing for an unknown name.
inline std::optional<CollisionShape> collisionShapeFromName(std::string_view name) {
  if (name == "mesh") return CollisionShape::Mesh;
  if (name == "hull") return CollisionShape::Hull;
  return std::nullopt;
}

}  // namespace handsim::collision
