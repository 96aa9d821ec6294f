// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"

namespace handsim::hand {

/// Reads a hand file (docs/hand-format.md). Every problem throws io::InputError naming the
/// file, line, column and JSON pointer: syntax errors, missing or unknown fields, wrong
/// types, non-finite numbers, limits with min > max, inertias that are not physically valid
/// (not positive definite, principal moments violating the triangle inequality), joints
/// driven twice, clutches on joints their actuator does not drive, poses of the wrong size.
/// Movable joints that no actuator drives get their own direct actuator named "F1.J2"
/// (unit rad or m, ratio 1, range = the joint's limits).
HandModel loadHandFile(const std::string& path);

/// Parses hand-file text; `file_name` is used in error messages and to resolve mesh paths.
HandModel parseHandFile(const std::string& text, const std::string& file_name);

/// Directory holding the shipped assets: $HANDSIM_ASSET_DIR if set, else the source tree's
/// assets/ folder recorded at build time.
std::string assetDirectory();

/// Ids of the hands shipped in assetDirectory()/hands (file names without .json), sorted.
std::vector<std::string> builtinHandIds();

/// The folders of $HANDSIM_HAND_PATH (colon-separated, empty entries skipped; none when unset):
/// where hand files that are not shipped (a URDF corpus, a lab's own hands) are looked up by a
/// relative path, so scenarios can name them without an absolute path (docs/scenario-format.md).
std::vector<std::string> handSearchPath();

/// `path` found in the first folder of handSearchPath() that holds it as a regular file; empty
/// when `path` is absolute or found in none.
std::string findOnHandSearchPath(const std::string& path);

/// Loads a shipped hand by id, or a hand file when `id_or_path` names an existing file (a
/// ".urdf" file goes to loadUrdfHand, urdf_reader.hpp), else a relative path found on
/// handSearchPath(). Throws io::InputError listing the known ids when none matches.
HandModel loadHand(const std::string& id_or_path);

/// The same with the link that is the palm (a URDF hand on an arm, docs/arm.md; empty: the
/// sidecar's or the root link). Throws io::InputError for a palm link on a hand file.
HandModel loadHand(const std::string& id_or_path, const std::string& palm_link);

}  // namespace handsim::hand
