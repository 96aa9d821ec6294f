// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/body_table.hpp"

#include <stdexcept>

#include "handsim/sim/model.hpp"

namespace handsim::sim {

const char* bodyKindName(BodyKind kind) {
  switch (kind) {
    case BodyKind::Ground:
      return "ground";
    case BodyKind::Palm:
      return "palm";
    case BodyKind::Link:
      return "link";
    case BodyKind::Object:
      return "object";
  }
  return "?";
}

int BodyTable::find(const std::string& name) const {
  for (const Body& b : bodies)
    if (b.name == name) return b.id;
  return -1;
}

int BodyTable::pusher(const contact::Contact& c) const {
  if (c.finger >= 0) return link(c.finger, c.row);
  if (c.other == contact::kGround) return kGroundId;
  if (c.other == contact::kPalm) return kPalmId;
  return object(c.other);
}

int BodyTable::pushed(const contact::Contact& c) const {
  if (c.object >= 0) return object(c.object);
  return c.other_finger >= 0 ? link(c.other_finger, c.other_row) : kPalmId;
}

BodyTable makeBodyTable(const hand::HandModel& hand, const HandGeometry& geometry,
                        const std::vector<ObjectModel>& objects) {
  if (hand.fingers.size() != geometry.links.size())
    throw std::invalid_argument("makeBodyTable: the hand geometry was built for another hand");
  BodyTable t;
  auto add = [&t](Body b) {
    b.id = static_cast<int>(t.bodies.size());
    t.bodies.push_back(std::move(b));
  };
  add({-1, BodyKind::Ground, "ground", -1, -1, -1, nullptr, nullptr, true});
  add({-1, BodyKind::Palm, "palm", -1, -1, -1, &geometry.palm.collision, &geometry.palm.visual,
       true});
  for (std::size_t f = 0; f < geometry.links.size(); ++f) {
    t.first_link.push_back(static_cast<int>(t.bodies.size()));
    for (std::size_t r = 0; r < geometry.links[f].size(); ++r) {
      const kinematics::Chain& chain = hand.fingers[f];
      std::string name = chain.name + ".link" + std::to_string(r + 1);
      for (int j = 0; j < chain.dof(); ++j)
        if (chain.rowOfJoint(j) == static_cast<int>(r))
          name = hand.jointName({static_cast<int>(f), j});
      add({-1, BodyKind::Link, name, static_cast<int>(f), static_cast<int>(r), -1,
           &geometry.links[f][r].collision, &geometry.links[f][r].visual, false});
    }
  }
  t.first_object = static_cast<int>(t.bodies.size());
  for (std::size_t o = 0; o < objects.size(); ++o)
    add({-1, BodyKind::Object, objects[o].name, -1, -1, static_cast<int>(o),
         &objects[o].geometry->collision, &objects[o].geometry->visual, objects[o].fixed});
  return t;
}

void nameContactBodies(const BodyTable& table, std::vector<contact::Contact>& contacts) {
  for (contact::Contact& c : contacts) {
    c.body_a = table.pusher(c);
    c.body_b = table.pushed(c);
  }
}

}  // namespace handsim::sim
