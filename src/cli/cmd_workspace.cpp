// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/hand/hand_ik.hpp"
#include "handsim/io/atomic_file.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/manipulability.hpp"
#include "handsim/kinematics/workspace.hpp"
#include "outputs.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli workspace --hand ID --finger NAME [--samples N | --random N [--seed S]]\n"
    "                             [--from-joint NAME] [--task position|pose|planar]\n"
    "                             [--hold JOINT=VALUE,... [--deg]] [--max-points N]\n"
    "                             [--point tip|last_frame] [--csv OUT.csv]\n\n"
    "Samples the fingertip workspace over the joint limits and reports its size and how well\n"
    "conditioned the finger is there.\n"
    "  --hand ID          built-in hand id or a hand file\n"
    "  --finger NAME      finger to sample\n"
    "  --samples N        grid: N values per joint, limits included (2 to 1000000; default 10)\n"
    "  --random N         N uniform random configurations instead of a grid\n"
    "  --seed S           seed of the random sampling (default 1)\n"
    "  --from-joint NAME  sample only the part of the finger from this joint to the tip, in\n"
    "                     that joint's frame; earlier joints at 0 (clamped into their limits)\n"
    "  --task T           Jacobian rows for the condition number: position (default), pose\n"
    "                     (position + orientation), planar (x, y, rotation about z) or\n"
    "                     planar-position (x, y); the planar tasks suit a finger moving in\n"
    "                     the x-y plane of the frame (e.g. dexterous3 --from-joint J1)\n"
    "  --hold J=V,...     hold these joints at a value instead of sampling them (rad or m;\n"
    "                     degrees for revolute joints with --deg); before --from-joint they\n"
    "                     set the frozen joints\n"
    "  --max-points N     point budget (default 2000000); a larger grid is an error\n"
    "  --point P          the finger's point sampled: tip (default; the fingertip every API\n"
    "                     means, the tip link where the file has one) or last_frame (the\n"
    "                     origin of the last joint frame)\n"
    "  --csv OUT.csv      write x,y,z (m, frame {k0}) and condition per sample, atomically\n\n"
    "Output: {\"hand\", \"finger\", \"point\", \"from_joint\", \"frame\", \"sampling\", \"points\",\n"
    "\"bbox_m\": {\"min\", \"max\"}, \"reach_m\": {\"min\", \"max\"} (from the frame origin),\n"
    "\"condition\": {\"task\", \"best\", \"median\", \"worst\", \"worst_finite\",\n"
    "\"singular_samples\"}, \"csv\"}. Condition numbers of singular samples are infinite:\n"
    "\"worst\" (and \"median\") are then null and \"singular_samples\" counts them.\n";

// A whole number in [least, most]; "--samples 2.5" or "--seed 0" are usage errors.
std::uint64_t wholeNumber(const std::string& text, const std::string& flag, double least,
                          double most) {
  const double v = parseNumber(text, flag);
  if (v < least || v != std::floor(v) || v > most)
    throw UsageError(flag + ": expected a whole number from " +
                     std::to_string(static_cast<std::uint64_t>(least)) + " to " +
                     std::to_string(static_cast<std::uint64_t>(most)) + ", got '" + text + "'");
  return static_cast<std::uint64_t>(v);
}

// Values per joint of a grid: both limits, and at most as many as the largest budget.
constexpr double kMostSamples = 1e6;

nlohmann::ordered_json finiteOrNull(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

// Index of the finger's movable joint `name`, or a UsageError listing them.
int jointOf(const kinematics::Chain& finger, const std::string& name, const std::string& flag) {
  const int j = finger.jointIndex(name);
  if (j >= 0) return j;
  std::string list;
  for (int k = 0; k < finger.dof(); ++k)
    list += (k ? ", " : "") + finger.joint_names[static_cast<std::size_t>(finger.rowOfJoint(k))];
  throw UsageError(flag + ": finger " + finger.name + " has no movable joint '" + name +
                   "' (joints: " + list + ")");
}

nlohmann::ordered_json heldJson(const kinematics::Chain& finger, const std::vector<double>& held) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (int k = 0; k < finger.dof(); ++k)
    if (!std::isnan(held[static_cast<std::size_t>(k)]))
      out[finger.joint_names[static_cast<std::size_t>(finger.rowOfJoint(k))]] =
          held[static_cast<std::size_t>(k)];
  return out;
}

std::string shortNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string csvNumber(double v) {
  if (!std::isfinite(v)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// --samples, --random, --seed and --max-points.
kinematics::WorkspaceOptions readSampling(const Args& args) {
  kinematics::WorkspaceOptions options;
  if (args.has("--samples") && args.has("--random"))
    throw UsageError("give at most one of --samples or --random");
  if (const auto s = args.value("--samples")) {
    options.samples_per_joint = static_cast<int>(wholeNumber(*s, "--samples", 2, kMostSamples));
  }
  if (const auto r = args.value("--random")) {
    options.sampling = kinematics::WorkspaceSampling::Random;
    options.random_samples = static_cast<std::size_t>(wholeNumber(*r, "--random", 1, 1e9));
  }
  if (const auto s = args.value("--seed")) {
    if (!args.has("--random")) throw UsageError("--seed applies to --random only");
    options.seed = wholeNumber(*s, "--seed", 1, 9007199254740992.0);
  }
  if (const auto m = args.value("--max-points"))
    options.max_points = static_cast<std::size_t>(wholeNumber(*m, "--max-points", 1, 1e12));

  return options;
}

// --task: the rows of the Jacobian whose conditioning is reported.
kinematics::TaskSpace readTask(const std::string& task_name) {
  kinematics::TaskSpace task = kinematics::TaskSpace::Position;
  if (task_name == "pose") {
    task = kinematics::TaskSpace::PositionOrientation;
  } else if (task_name == "planar") {
    task = kinematics::TaskSpace::Planar;
  } else if (task_name == "planar-position") {
    task = kinematics::TaskSpace::PlanarPosition;
  } else if (task_name != "position") {
    throw UsageError("--task: expected position, pose, planar or planar-position, got '" +
                     task_name + "'");
  }

  return task;
}

// --hold JOINT=VALUE,...: a value per movable joint of the finger, NaN where sampled.
std::vector<double> readHeld(const Args& args, const kinematics::Chain& finger) {
  // Held joints: value per movable joint of the whole finger (NaN = sampled).
  std::vector<double> held(static_cast<std::size_t>(finger.dof()),
                           std::numeric_limits<double>::quiet_NaN());
  if (const auto hold = args.value("--hold")) {
    std::size_t start = 0;
    while (start <= hold->size()) {
      const std::size_t end = std::min(hold->find(',', start), hold->size());
      const std::string item = hold->substr(start, end - start);
      const std::size_t eq = item.find('=');
      if (eq == std::string::npos)
        throw UsageError("--hold: expected JOINT=VALUE items, got '" + item + "'");
      const int k = jointOf(finger, item.substr(0, eq), "--hold");
      const auto& row = finger.rows[static_cast<std::size_t>(finger.rowOfJoint(k))];
      const bool revolute = row.type == kinematics::JointType::Revolute;
      const double scale = args.has("--deg") && revolute ? kDegToRad : 1.0;
      const double v = parseNumber(item.substr(eq + 1), "--hold") * scale;
      if (v < row.lower - 1e-12 || v > row.upper + 1e-12)
        throw UsageError("--hold: " + item + " is outside the limits of " + finger.name + "." +
                         item.substr(0, eq) + " [" + shortNumber(row.lower / scale) + ", " +
                         shortNumber(row.upper / scale) + "]");
      held[static_cast<std::size_t>(k)] = v;
      start = end + 1;
    }
  } else if (args.has("--deg")) {
    throw UsageError("--deg applies to --hold only");
  }

  return held;
}

// The grid's size against --max-points, before sampling.
void checkGridBudget(const kinematics::Chain& chain, const kinematics::WorkspaceOptions& options,
                     const std::string& finger_name) {
  // A grid has samples^k points for its k sampled joints. That product overflows 64 bits long
  // before it matters (1000000^4), and the library then reports its saturated count, so the
  // budget is checked here in floating point; k comes from the 2^k corners of the grid.
  if (options.sampling == kinematics::WorkspaceSampling::Grid) {
    kinematics::WorkspaceOptions corners_only = options;
    corners_only.samples_per_joint = 2;
    const std::size_t corners = kinematics::workspaceSampleCount(chain, corners_only);
    int sampled = 0;
    while ((std::size_t{1} << sampled) < corners) ++sampled;
    const double points = std::pow(static_cast<double>(options.samples_per_joint), sampled);
    if (points > static_cast<double>(options.max_points))
      throw UsageError("--samples " + std::to_string(options.samples_per_joint) + ": a grid over " +
                       std::to_string(sampled) + " sampled joints of " + finger_name + " has " +
                       std::to_string(options.samples_per_joint) + "^" + std::to_string(sampled) +
                       " = " + shortNumber(points) + " points, above the budget of " +
                       std::to_string(options.max_points) +
                       " (--max-points); use fewer samples per joint, --hold or --random");
  }
}

// The summary printed as JSON: bounding box, reach and the conditioning's distribution.
nlohmann::ordered_json conditionJson(std::vector<double> sorted, const std::string& task_name) {
  std::sort(sorted.begin(), sorted.end());
  const auto singular = static_cast<std::size_t>(
      std::count_if(sorted.begin(), sorted.end(), [](double v) { return !std::isfinite(v); }));
  const std::size_t finite = sorted.size() - singular;
  // Median of all samples (lower middle for an even count), singular ones included as +inf.
  const double median = sorted[(sorted.size() - 1) / 2];
  return {{"task", task_name},
          {"best", finiteOrNull(sorted.front())},
          {"median", finiteOrNull(median)},
          {"worst", finiteOrNull(sorted.back())},
          {"worst_finite",
           finite ? nlohmann::ordered_json(sorted[finite - 1]) : nlohmann::ordered_json(nullptr)},
          {"singular_samples", singular}};
}

int run(const std::vector<std::string>& argv) {
  const Args args(argv,
                  {"--hand", "--finger", "--samples", "--random", "--seed", "--from-joint",
                   "--task", "--max-points", "--csv", "--hold", "--point"},
                  {"--deg"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(0, "no positional arguments");
  std::vector<OutputFile> outputs;
  if (const auto csv = args.value("--csv")) outputs.push_back({"--csv", *csv});
  for (const auto& out : outputs) requireWritable(out);
  const hand::HandModel h = hand::loadHand(args.required("--hand"));
  requireDistinct(outputs, {h.source_file});
  const int finger_index = requireFinger(h, args.required("--finger"));
  hand::FingerPoint point = hand::FingerPoint::Tip;
  try {
    point = hand::fingerPointFromName(args.value("--point").value_or("tip"), "--point");
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // The finger's chain ending at the point sampled (a tip link appended as a fixed row).
  const kinematics::Chain finger = hand::fingerPointChain(h, finger_index, point);

  kinematics::WorkspaceOptions options = readSampling(args);
  const std::string task_name = args.value("--task").value_or("position");
  const kinematics::TaskSpace task = readTask(task_name);

  const std::vector<double> held = readHeld(args, finger);
  kinematics::Chain chain = finger;
  std::string frame = "{k0} of " + finger.name;
  const auto from = args.value("--from-joint");
  const int first = from ? jointOf(finger, *from, "--from-joint") : 0;
  if (from) {
    // Joints before the cut are frozen: at their held value, else at 0 clamped into the limits.
    Eigen::VectorXd q0 = Eigen::VectorXd::Zero(finger.dof());
    for (int k = 0; k < finger.dof(); ++k) {
      const auto& row = finger.rows[static_cast<std::size_t>(finger.rowOfJoint(k))];
      const double v = held[static_cast<std::size_t>(k)];
      q0[k] = std::isnan(v) ? std::clamp(0.0, row.lower, row.upper) : v;
    }
    chain = kinematics::distalChain(finger, finger.rowOfJoint(first), q0);
    frame = "frame of " + finger.name + "." + *from;
  }
  for (int k = first; k < finger.dof(); ++k) {
    if (!std::isnan(held[static_cast<std::size_t>(k)]))
      options.held.emplace_back(k - first, held[static_cast<std::size_t>(k)]);
  }

  checkGridBudget(chain, options, finger.name);
  const auto qs = kinematics::workspaceJointSamples(chain, options);
  std::vector<Eigen::Vector3d> points;
  std::vector<double> condition;
  points.reserve(qs.size());
  condition.reserve(qs.size());
  std::string csv = "x,y,z,condition\n";
  const bool want_csv = args.has("--csv");
  for (const auto& q : qs) {
    const auto frames = kinematics::forwardKinematics(chain, q);
    const Eigen::Vector3d p = frames.tip().translation();
    const double k = kinematics::conditionNumber(
        kinematics::taskJacobian(kinematics::geometricJacobian(chain, frames), task));
    points.push_back(p);
    condition.push_back(k);
    if (want_csv)
      csv += csvNumber(p.x()) + "," + csvNumber(p.y()) + "," + csvNumber(p.z()) + "," +
             csvNumber(k) + "\n";
  }
  const auto summary = kinematics::summarizeWorkspace(points);
  if (want_csv) io::writeFileAtomically(*args.value("--csv"), csv);

  nlohmann::ordered_json sampling;
  if (options.sampling == kinematics::WorkspaceSampling::Grid) {
    sampling = {{"kind", "grid"}, {"samples_per_joint", options.samples_per_joint}};
  } else {
    sampling = {{"kind", "random"}, {"samples", options.random_samples}, {"seed", options.seed}};
  }
  printJson({{"hand", h.id},
             {"finger", finger.name},
             {"point", hand::fingerPointName(point)},
             {"held", heldJson(finger, held)},
             {"from_joint", from ? nlohmann::ordered_json(*from) : nlohmann::ordered_json(nullptr)},
             {"frame", frame},
             {"sampling", sampling},
             {"points", summary.count},
             {"bbox_m", {{"min", toJson(summary.min)}, {"max", toJson(summary.max)}}},
             {"reach_m", {{"min", summary.min_reach}, {"max", summary.max_reach}}},
             {"condition", conditionJson(condition, task_name)},
             {"csv", want_csv ? nlohmann::ordered_json(*args.value("--csv"))
                              : nlohmann::ordered_json(nullptr)}});
  return kOk;
}

const CommandRegistration reg({"workspace", "fingertip workspace and conditioning of a finger",
                               run});

}  // namespace
}  // namespace handsim::cli
