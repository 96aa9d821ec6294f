// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"

namespace handsim::hand {

/// One entry of a hand file's "poses" array (docs/hand-format.md), on one line:
/// {"name": "grip", "joints_deg": {"F1": [0, 60, 60, 45], ...}} with every finger in hand
/// order, revolute joints in degrees and prismatic ones in metres, 12 significant digits
/// (better than 1e-9 deg). Throws std::invalid_argument when the pose does not fit the hand
/// (finger count, joint count per finger, empty name, non-finite value).
std::string poseToJson(const HandModel& hand, const NamedPose& pose);

/// CSV of poses: header "pose,F1.J1,F1.J2,..." (every movable joint, hand order), then one row
/// per pose with SI values (rad, m) to 17 significant digits (exact round trip). Names with a
/// comma, quote or line break are quoted (RFC 4180).
std::string posesToCsv(const HandModel& hand, const std::vector<NamedPose>& poses);

/// Reads a pose file {"hand": "ID" (optional), "poses": [entries as in a hand file]}. Entries
/// take "joints_deg" or "joints" (SI); fingers left out stay at 0. Throws io::InputError with
/// file, line, column and JSON pointer for syntax errors, unknown fingers or keys, wrong value
/// counts, values outside the joint limits, duplicate names, or a "hand" other than hand.id.
std::vector<NamedPose> readPoseFile(const std::string& path, const HandModel& hand);

/// Records `pose` in the pose file at `path`: an existing file is read (readPoseFile, same
/// errors), the pose with the same name is replaced in place or the pose is appended, and the
/// file is rewritten atomically (io::writeFileAtomically) with "hand": hand.id. A missing file
/// is created. Throws std::invalid_argument when the pose does not fit the hand or lies
/// outside the joint limits.
void appendPoseToFile(const std::string& path, const HandModel& hand, const NamedPose& pose);

}  // namespace handsim::hand
