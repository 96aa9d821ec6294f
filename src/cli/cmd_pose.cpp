// SPDX-License-Identifier: GPL-3.0-or-later
#include <filesystem>
#include <string>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/pose_io.hpp"
#include "handsim/io/atomic_file.hpp"
#include "outputs.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli pose save --hand ID --name NAME --q LIST [--deg] --out FILE.json\n"
    "                             [--csv FILE.csv]\n"
    "       handsim-cli pose list --hand ID [--file FILE.json]\n\n"
    "Records and lists named poses.\n"
    "save: stores the joint values as pose NAME in the pose file FILE.json (created if\n"
    "  missing; a pose of the same name is replaced, others are kept), written atomically.\n"
    "  --q LIST      joint values of all fingers, finger by finger in hand-file order (rad, m\n"
    "                for prismatic joints; degrees for revolute ones with --deg); values\n"
    "                outside the joint limits are errors\n"
    "  --csv FILE    also write every pose of FILE.json as CSV (pose,F1.J1,...; rad, m)\n"
    "  Output: {\"hand\", \"file\", \"pose\", \"replaced\", \"count\", \"entry\"}\n"
    "list: the hand file's named poses, and those of --file when given.\n"
    "  Output: {\"hand\", \"poses\": [{\"source\", \"name\", \"joints_deg\": {finger: [...]}}]}\n"
    "Pose file format: {\"hand\": ID, \"poses\": [hand-file pose entries]} (docs/workspace.md).\n";

nlohmann::ordered_json entryJson(const hand::HandModel& h, const hand::NamedPose& p,
                                 const std::string& source) {
  const auto entry = nlohmann::ordered_json::parse(hand::poseToJson(h, p));
  return {{"source", source}, {"name", entry["name"]}, {"joints_deg", entry["joints_deg"]}};
}

int save(const std::vector<std::string>& argv) {
  const Args args(argv, {"--hand", "--name", "--q", "--out", "--csv"}, {"--deg"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(0, "no positional arguments");
  // The pose file is read and rewritten by design; the CSV must be neither it nor the hand.
  std::vector<OutputFile> outputs{{"--out", args.required("--out")}};
  if (const auto csv = args.value("--csv")) outputs.push_back({"--csv", *csv});
  for (const auto& o : outputs) requireWritable(o);
  const hand::HandModel h = hand::loadHand(args.required("--hand"));
  requireDistinct(outputs, {h.source_file});
  hand::NamedPose pose;
  pose.name = args.required("--name");
  if (pose.name.empty()) throw UsageError("--name: a pose needs a non-empty name");
  const std::string out = args.required("--out");
  const auto values = parseNumbers(args.required("--q"), "--q");
  if (static_cast<int>(values.size()) != h.totalDof())
    throw UsageError("--q: hand '" + h.id + "' has " + std::to_string(h.totalDof()) +
                     " joints, got " + std::to_string(values.size()) + " values");
  std::size_t k = 0;
  for (const auto& c : h.fingers) {
    std::vector<double> qf;
    for (int j = 0; j < c.dof(); ++j) {
      const bool revolute =
          c.rows[static_cast<std::size_t>(c.rowOfJoint(j))].type == kinematics::JointType::Revolute;
      qf.push_back(values[k++] * (args.has("--deg") && revolute ? kDegToRad : 1.0));
    }
    pose.q.push_back(qf);
  }
  bool replaced = false;
  if (std::filesystem::exists(out)) {
    for (const auto& p : hand::readPoseFile(out, h)) replaced = replaced || p.name == pose.name;
  }
  hand::appendPoseToFile(out, h, pose);
  const auto poses = hand::readPoseFile(out, h);
  if (const auto csv = args.value("--csv"))
    io::writeFileAtomically(*csv, hand::posesToCsv(h, poses));
  printJson({{"hand", h.id},
             {"file", out},
             {"pose", pose.name},
             {"replaced", replaced},
             {"count", poses.size()},
             {"entry", entryJson(h, pose, out)},
             {"csv", args.value("--csv") ? nlohmann::ordered_json(*args.value("--csv"))
                                         : nlohmann::ordered_json(nullptr)}});
  return kOk;
}

int list(const std::vector<std::string>& argv) {
  const Args args(argv, {"--hand", "--file"}, {});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(0, "no positional arguments");
  const hand::HandModel h = hand::loadHand(args.required("--hand"));
  nlohmann::ordered_json poses = nlohmann::ordered_json::array();
  for (const auto& p : h.poses) poses.push_back(entryJson(h, p, "hand"));
  if (const auto file = args.value("--file"))
    for (const auto& p : hand::readPoseFile(*file, h)) poses.push_back(entryJson(h, p, *file));
  printJson({{"hand", h.id}, {"poses", poses}});
  return kOk;
}

int run(const std::vector<std::string>& argv) {
  if (argv.empty()) throw UsageError("expected 'save' or 'list' (see `handsim-cli pose --help`)");
  const std::string sub = argv.front();
  if (sub == "--help" || sub == "-h") {
    std::cout << kHelp;
    return kOk;
  }
  const std::vector<std::string> rest(argv.begin() + 1, argv.end());
  if (sub == "save") return save(rest);
  if (sub == "list") return list(rest);
  throw UsageError("unknown sub-command '" + sub + "' (expected 'save' or 'list')");
}

const CommandRegistration reg({"pose", "record named poses to a pose file, list named poses", run});

}  // namespace
}  // namespace handsim::cli
