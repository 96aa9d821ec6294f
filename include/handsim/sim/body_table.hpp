// SPDX-License-Identifier: GPL-3.0-or-later
// The bodies of a compiled model (MuJoCo's bodies and geoms): the ground, the palm, every link
// and every object, each with an id, a kind, a name and the geometry it collides and is drawn
// with. Contacts name their two bodies by these ids (contact::Contact::body_a, body_b).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "handsim/contact/contact.hpp"
#include "handsim/geometry/loaded_model.hpp"
#include "handsim/hand/hand_model.hpp"

namespace handsim::sim {

struct CollisionBody;  // sim/model.hpp
struct HandGeometry;
struct ObjectModel;

/// What a body is.
enum class BodyKind : std::uint8_t {
  Ground,  ///< the half-space z <= height (GroundOptions); there even when disabled
  Palm,    ///< the hand's base, moved by the plan (or the arm)
  Link,    ///< a finger link, moved by its joints
  Object,  ///< an object of the scene, fixed or free
};

/// "ground", "palm", "link" or "object".
const char* bodyKindName(BodyKind kind);

/// One body of the model.
struct Body {
  int id = -1;  ///< index into BodyTable::bodies
  BodyKind kind = BodyKind::Ground;
  /// "ground", "palm", "<finger>.<joint>" for a link that a joint moves (the recorder's column
  /// prefix, HandModel::jointName, e.g. "F3.J2"), "<finger>.link<row + 1>" for a link fixed to
  /// the one before, the object's name (ObjectModel::name, unique) for an object.
  std::string name;
  int finger = -1;  ///< a link's finger (index into HandModel::fingers), else -1
  int row = -1;     ///< a link's row: the link rigid with frame {row + 1}, else -1
  int object = -1;  ///< an object's index into Model::objects, else -1
  /// What it collides with, in its own frame; null for the ground (a half-space). Owned by the
  /// model's geometry (HandGeometry, ObjectModel::geometry), which lives as long as the model.
  const CollisionBody* collision = nullptr;
  /// What is drawn, in its own frame; null for the ground.
  const geometry::LoadedModel* visual = nullptr;
  /// True when contact forces cannot move it: the ground, the palm (the plan moves it), a
  /// fixed object. Links move through their drives, free objects freely.
  bool fixed = true;
};

/// Every body of a model, in a fixed order: the ground (id 0), the palm (id 1), the links
/// finger by finger and row by row, then the objects in Model::objects order.
struct BodyTable {
  std::vector<Body> bodies;
  std::vector<int> first_link;  ///< per finger: the id of its row-0 link (nf)
  int first_object = 2;         ///< the id of object 0

  static constexpr int kGroundId = 0;
  static constexpr int kPalmId = 1;
  int link(int finger, int row) const { return first_link[static_cast<std::size_t>(finger)] + row; }
  int object(int o) const { return first_object + o; }
  const Body& operator[](int id) const { return bodies[static_cast<std::size_t>(id)]; }
  std::size_t size() const { return bodies.size(); }
  /// The body with this name, or -1.
  int find(const std::string& name) const;

  /// The body that pushes in `c` (Contact's "link" side: a link, or for an object contact the
  /// ground, the palm or another object) and the body pushed (the object, or for a link-link
  /// contact the other link or the palm). The normal points from the first into the second.
  int pusher(const contact::Contact& c) const;
  int pushed(const contact::Contact& c) const;
};

/// The body table of a hand with these link geometries and objects (compileModel builds it).
/// Throws std::invalid_argument when the geometry was built for another hand.
BodyTable makeBodyTable(const hand::HandModel& hand, const HandGeometry& geometry,
                        const std::vector<ObjectModel>& objects);

/// Writes Contact::body_a and body_b of every contact in `contacts` from the table.
void nameContactBodies(const BodyTable& table, std::vector<contact::Contact>& contacts);

}  // namespace handsim::sim
