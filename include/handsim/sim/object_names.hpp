// SPDX-License-Identifier: GPL-3.0-or-later
// Names of a scene's objects: one per object, so that the recorder's columns, the plots and a
// saved scene tell two objects from the same file apart.
#pragma once

#include <vector>

#include "handsim/sim/model.hpp"

namespace handsim::sim {

/// Gives every object a name no other has: the first of each name keeps it, the others get
/// `_2`, `_3` ... (the first such name no object has; two cube.wrl give cube and cube_2).
/// compileModel and the scenario reader do it, so every front end sees the same names.
void makeObjectNamesUnique(std::vector<ObjectModel>& objects);

}  // namespace handsim::sim
