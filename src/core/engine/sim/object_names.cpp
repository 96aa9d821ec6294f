// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/object_names.hpp"

#include <set>
#include <string>

namespace handsim::sim {

void makeObjectNamesUnique(std::vector<ObjectModel>& objects) {
  std::set<std::string> taken;  // names given so far and names later objects bring
  for (const ObjectModel& o : objects) taken.insert(o.name);
  std::set<std::string> given;
  for (ObjectModel& o : objects) {
    if (given.insert(o.name).second) continue;
    std::string name;
    for (int k = 2;; ++k) {
      name = o.name + "_" + std::to_string(k);
      if (taken.count(name) == 0) break;
    }
    o.name = name;
    taken.insert(name);
    given.insert(name);
  }
}

}  // namespace handsim::sim
