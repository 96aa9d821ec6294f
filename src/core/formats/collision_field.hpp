// SPDX-License-Identifier: GPL-3.0-or-later
// The "collision" key of hand files, URDF sidecars and scenario objects (internal to
// handsim_core): "mesh" or "hull" (docs/collision.md, "Collision shapes").
#pragma once

#include <string>

#include "handsim/collision/collision_shape.hpp"
#include "json_document.hpp"

namespace handsim::io {

/// The shape `object`'s "collision" key names (at JSON pointer `pointer` + "/collision"), or
/// `fallback` without the key. An unknown name fails with the file, line and field.
inline collision::CollisionShape readCollisionShape(const JsonDocument& doc,
                                                    const JsonDocument::json& object,
                                                    const std::string& pointer,
                                                    collision::CollisionShape fallback) {
  const JsonDocument::json* value = doc.optional(object, "collision");
  if (!value) return fallback;
  const std::string field = JsonDocument::child(pointer, "collision");
  const std::string name = doc.string(*value, field);
  const auto shape = collision::collisionShapeFromName(name);
  if (!shape) doc.fail(field, "expected \"mesh\" or \"hull\", got \"" + io::excerpt(name) + "\"");
  return *shape;
}

}  // namespace handsim::io
