// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "handsim/grasp/grasp_contact.hpp"
#include "handsim/grasp/grasp_quality.hpp"

namespace handsim::grasp {

/// A grasp to evaluate, as read from a contacts file (format in docs/grasp.md).
struct GraspInput {
  std::vector<GraspContact> contacts;  ///< normals already flipped to point INTO the object
  GraspQualityOptions options;         ///< torque_reference = object_centre [m], radius [m]
};

/// Reads a contacts file: {"contacts": [{"point": [m], "normal": [unit, OUT of the object, as
/// the simulator reports], "friction": mu}], "object_centre": [m], "torque_radius_m": r,
/// "cone_edges": n (optional, default 8)}. Errors throw io::InputError with file, line,
/// column and the JSON pointer of the bad value.
GraspInput loadGraspInput(const std::string& path);

/// The same from text; `file` names it in error messages.
GraspInput parseGraspInput(const std::string& text, const std::string& file);

}  // namespace handsim::grasp
