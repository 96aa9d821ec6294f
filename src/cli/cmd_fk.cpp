// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>

#include "arm_json.hpp"
#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/hand/hand_ik.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli fk --hand ID (--q v1,v2,... [--deg] | --counts c1,c2,... |\n"
    "                                 --set JOINT=VALUE[,JOINT=VALUE...] [--deg])\n\n"
    "Forward kinematics of every finger and every link.\n"
    "  --hand ID      built-in hand id (see `handsim-cli hands`), a hand file or a .urdf file\n"
    "  --q LIST       joint values of all fingers, finger by finger in hand-file order\n"
    "                 (rad, m for prismatic joints; degrees for revolute ones with --deg)\n"
    "  --counts LIST  actuator positions in actuator order, e.g. the BarrettHand's\n"
    "                 qM1,qM2,qM3,qM4 encoder counts; out-of-range values are clamped and\n"
    "                 reported under \"warnings\"\n"
    "  --set LIST     joints by name: URDF joint names (a shared joint moves all its copies,\n"
    "                 mimic joints follow their master and cannot be set) or \"F1.J2\" names of\n"
    "                 hand files; joints not named stay at 0 clamped into their limits;\n"
    "                 values outside the limits are clamped and reported under \"warnings\"\n\n"
    "Output: {\"hand\", \"fingers\": [{\"name\", \"q\" (rad or m), \"tip\" (palm frame, m),\n"
    "\"tip_local\" (finger base frame {k0}, m), \"frames\": [16 numbers row-major per frame\n"
    "{k0}..{kn}, palm frame]}], \"links\": [{\"name\", \"pose\": [16 numbers row-major]}] (every\n"
    "URDF link in the root link's frame; for hand files \"palm\" and \"F1.link1\"...), m,\n"
    "\"warnings\"}\n\n"
    "Hands on an arm (docs/arm.md): --palm LINK names the URDF link that is the palm; the\n"
    "joints from the root link to it are the arm, a group of their own: --q, --counts and --set\n"
    "are the hand's joints (below the palm), frames and links are in the palm frame, and\n"
    "  --arm LIST     the arm's joints: v1,v2,... or NAME=VALUE,... (default: 0 clamped into\n"
    "                 the limits; degrees for revolute ones with --deg)\n"
    "adds \"arm\": {\"base_link\", \"palm_link\", \"joints\": [{\"name\", \"type\", \"limits\",\n"
    "\"value\"}], \"palm_in_base\" (16 numbers), \"frames\" (the arm's frames in its base)}.\n";

/// Joint values from --set: URDF hands in actuator space (shared copies and mimic joints
/// follow), hand files joint by joint.
std::vector<kinematics::JointVector> fromSet(const hand::HandModel& h, const std::string& text,
                                             bool deg, std::vector<std::string>& warnings) {
  std::vector<std::pair<std::string, double>> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--set: expected JOINT=VALUE, got '" + item + "'");
    items.emplace_back(item.substr(0, eq), parseNumber(item.substr(eq + 1), "--set"));
    start = comma + 1;
  }
  const auto isRevolute = [&](hand::JointRef j) {
    const auto& c = h.fingers[static_cast<std::size_t>(j.finger)];
    return c.rows[static_cast<std::size_t>(c.rowOfJoint(j.joint))].type ==
           kinematics::JointType::Revolute;
  };
  if (!h.tree.empty()) {
    std::vector<double> a(h.actuators.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      a[i] = std::clamp(0.0, h.actuators[i].lower, h.actuators[i].upper);
    for (const auto& [name, value] : items) {
      const int t = h.tree.jointIndex(name);
      if (t >= 0 && h.tree.joints[static_cast<std::size_t>(t)].mimic >= 0)
        throw UsageError("--set: joint '" + name + "' mimics '" +
                         h.tree.joints[static_cast<std::size_t>(
                                           h.tree.joints[static_cast<std::size_t>(t)].mimic)]
                             .name +
                         "'; set that one");
      const int ai = h.actuatorIndex(name);
      if (ai < 0) throw UsageError("--set: hand '" + h.id + "' has no movable joint '" + name + "'");
      const auto& drive = h.actuators[static_cast<std::size_t>(ai)].drives.front();
      a[static_cast<std::size_t>(ai)] = value * (deg && isRevolute(drive.joint) ? kDegToRad : 1.0);
    }
    return hand::jointPositions(h, hand::clampActuators(h, a, &warnings));
  }
  std::vector<kinematics::JointVector> q;
  for (const auto& c : h.fingers) {
    kinematics::JointVector qf(c.dof());
    for (int j = 0; j < c.dof(); ++j) {
      const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
      qf[j] = std::clamp(0.0, row.lower, row.upper);
    }
    q.push_back(qf);
  }
  for (const auto& [name, value] : items) {
    const hand::JointRef j = h.findJoint(name);
    if (j.finger < 0)
      throw UsageError("--set: hand '" + h.id + "' has no joint '" + name + "' (use F1.J2 names)");
    q[static_cast<std::size_t>(j.finger)][j.joint] =
        value * (deg && isRevolute(j) ? kDegToRad : 1.0);
  }
  const auto limits = hand::jointLimitViolations(h, q);
  warnings.insert(warnings.end(), limits.begin(), limits.end());
  return q;
}

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--hand", "--q", "--counts", "--set", "--palm", "--arm"}, {"--deg"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(0, "no positional arguments");
  const hand::HandModel h =
      hand::loadHand(args.required("--hand"), args.value("--palm").value_or(""));
  if (args.has("--arm") && h.arm.empty())
    throw UsageError("--arm: hand '" + h.id + "' has no arm (name its palm link with --palm)");
  const bool has_q = args.has("--q"), has_counts = args.has("--counts"),
             has_set = args.has("--set");
  if (int(has_q) + int(has_counts) + int(has_set) != 1)
    throw UsageError("give exactly one of --q, --counts or --set");
  std::vector<kinematics::JointVector> q;
  std::vector<std::string> warnings;
  if (has_set) {
    q = fromSet(h, *args.value("--set"), args.has("--deg"), warnings);
  } else if (has_counts) {
    if (args.has("--deg")) throw UsageError("--deg applies to --q and --set only");
    const auto counts = parseNumbers(*args.value("--counts"), "--counts");
    if (counts.size() != h.actuators.size())
      throw UsageError("--counts: hand '" + h.id + "' has " + std::to_string(h.actuators.size()) +
                       " actuators, got " + std::to_string(counts.size()) + " values");
    q = hand::jointPositions(h, hand::clampActuators(h, counts, &warnings));
  } else {
    const auto values = parseNumbers(*args.value("--q"), "--q");
    if (static_cast<int>(values.size()) != h.totalDof())
      throw UsageError("--q: hand '" + h.id + "' has " + std::to_string(h.totalDof()) +
                       " joints, got " + std::to_string(values.size()) + " values");
    std::size_t k = 0;
    for (const auto& c : h.fingers) {
      kinematics::JointVector qf(c.dof());
      for (int j = 0; j < c.dof(); ++j) {
        const bool revolute = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))].type ==
                              kinematics::JointType::Revolute;
        qf[j] = values[k++] * (args.has("--deg") && revolute ? kDegToRad : 1.0);
      }
      q.push_back(qf);
    }
    const auto limits = hand::jointLimitViolations(h, q);
    warnings.insert(warnings.end(), limits.begin(), limits.end());
  }
  nlohmann::ordered_json fingers = nlohmann::ordered_json::array();
  for (std::size_t f = 0; f < h.fingers.size(); ++f) {
    const auto& c = h.fingers[f];
    const auto frames = kinematics::forwardKinematics(c, q[f]);
    nlohmann::ordered_json fr = nlohmann::ordered_json::array();
    for (int i = 0; i < frames.count; ++i) fr.push_back(toJson(c.base * frames.at(i)));
    // The fingertip, one point for every API (hand::fingerEndpoint, the point `ik --finger`
    // and Python's fingertip() and ik() place): for URDF hands the last link rigid with the
    // last frame (a fingertip link fixed beyond it), else the last frame's origin, which is
    // "last_frame". "ik_tip" is the same point under its earlier name.
    const hand::IkEndpoint ep = hand::fingerEndpoint(h, static_cast<int>(f));
    const Eigen::Isometry3d tip_local = frames.at(ep.row + 1) * ep.in_frame;
    const Eigen::Vector3d tip = (c.base * tip_local).translation();
    fingers.push_back({{"name", c.name},
                       {"q", vectorJson(q[f])},
                       {"tip", toJson(tip)},
                       {"tip_local", toJson(Eigen::Vector3d(tip_local.translation()))},
                       {"last_frame", toJson(Eigen::Vector3d(c.base * frames.tip().translation()))},
                       {"ik_tip", toJson(tip)},
                       {"frames", fr}});
  }
  nlohmann::ordered_json links = nlohmann::ordered_json::array();
  for (const auto& [name, pose] : h.linkPoses(q))
    links.push_back({{"name", name}, {"pose", toJson(pose)}});
  nlohmann::ordered_json out = {
      {"hand", h.id}, {"fingers", fingers}, {"links", links}, {"warnings", warnings}};
  if (!h.arm.empty())
    out["arm"] = armJson(
        h.arm, armValues(h.arm, args.value("--arm").value_or(""), args.has("--deg"), "--arm"));
  printJson(out);
  return kOk;
}

const CommandRegistration reg({"fk", "forward kinematics of every finger", run});

}  // namespace
}  // namespace handsim::cli
