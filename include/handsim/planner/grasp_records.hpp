// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp records (docs/planner.md, "Records"): JSON Lines, one grasp per line, each line
// complete (hand, object, run, pose, postures, contacts, quality, validation).
#pragma once

#include <string>
#include <vector>

#include "handsim/planner/planner.hpp"
#include "handsim/planner/validation.hpp"

namespace handsim::planner {

/// The run a grasp came from: what merging shards and reading back need.
struct RunInfo {
  std::uint64_t seed = 1;
  std::string strategy;
  std::string energy;
  int grasps = 0;
  std::int64_t candidates = 0;  ///< the budget
  double friction = 0.5;
  double distinct_fraction = 0.2;
  double distinct_angle = 0.0;  ///< [rad]
  double radius = 0.0;          ///< the object's radius the distinctness uses [m]
  int shard = 0, shards = 1;
  PlannerConstraints constraints;  ///< written as "constraints" when any is set
};

struct GraspRecord {
  std::string hand;           ///< id
  std::string hand_source;    ///< file ("" for built-in)
  std::string object;         ///< name
  std::string object_source;  ///< mesh file
  double object_scale = 1.0;
  std::vector<std::string> actuators;  ///< names, the order of every posture
  RunInfo run;
  PlannedGrasp grasp;
  std::vector<ValidationOutcome> validation;
};

/// The RunInfo of a plan.
RunInfo runInfo(const PlannerOptions& options, const PlannerModel& pm);

/// The records of grasps planned by planGrasps(pm, options) for `hand` and `object` (the
/// object as loaded: its name, source file and scale are recorded), no validation yet: what
/// `handsim-cli plan` and Python's handsim.plan write.
std::vector<GraspRecord> plannedGraspRecords(const hand::HandModel& hand,
                                             const sim::ObjectModel& object,
                                             const PlannerOptions& options, const PlannerModel& pm,
                                             const std::vector<PlannedGrasp>& grasps);

/// One line (no newline) / all lines (each ended by a newline).
std::string graspRecordLine(const GraspRecord& r);
std::string graspRecordsText(const std::vector<GraspRecord>& records);

/// Parses lines written by graspRecordsText (blank lines skipped); errors throw io::InputError
/// naming the file, line, column and field.
std::vector<GraspRecord> parseGraspRecords(const std::string& text, const std::string& file);
std::vector<GraspRecord> loadGraspRecords(const std::string& path);
/// Written atomically (io::writeFileAtomically).
void saveGraspRecords(const std::string& path, const std::vector<GraspRecord>& records);

/// An object for planning or validation: `source` is a mesh file, or the name of a shipped
/// object (assets/objects/NAME.wrl, e.g. "cube"), scaled by `scale`. Throws io::InputError.
sim::ObjectModel loadPlanObject(const std::string& source, double scale = 1.0);

/// The records of one run merged from its shards' records: every shard of the same run
/// (same seed, options, hand and object) exactly once, then selectGrasps. Throws
/// std::invalid_argument when the shards disagree, repeat or miss one.
std::vector<GraspRecord> mergeShardRecords(const std::vector<std::vector<GraspRecord>>& shards);

}  // namespace handsim::planner
