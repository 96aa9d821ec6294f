// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/hand/hand_loader.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli fk --hand ID (--q v1,v2,... [--deg] | --counts c1,c2,...)\n\n"
    "Forward kinematics of every finger.\n"
    "  --hand ID      built-in hand id (see `handsim-cli hands`) or a hand file\n"
    "  --q LIST       joint values of all fingers, finger by finger in hand-file order\n"
    "                 (rad, m for prismatic joints; degrees for revolute ones with --deg)\n"
    "  --counts LIST  actuator positions in actuator order, e.g. the BarrettHand's\n"
    "                 qM1,qM2,qM3,qM4 encoder counts; out-of-range values are clamped and\n"
    "                 reported under \"warnings\"\n\n"
    "Output: {\"hand\", \"fingers\": [{\"name\", \"q\" (rad or m), \"tip\" (palm frame, m),\n"
    "\"tip_local\" (finger base frame {k0}, m), \"frames\": [16 numbers row-major per frame\n"
    "{k0}..{kn}, palm frame]}], \"warnings\"}\n";

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--hand", "--q", "--counts"}, {"--deg"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(0, "no positional arguments");
  const hand::HandModel h = hand::loadHand(args.required("--hand"));
  const bool has_q = args.has("--q"), has_counts = args.has("--counts");
  if (has_q == has_counts) throw UsageError("give exactly one of --q or --counts");
  std::vector<kinematics::JointVector> q;
  std::vector<std::string> warnings;
  if (has_counts) {
    if (args.has("--deg")) throw UsageError("--deg applies to --q only");
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
    fingers.push_back({{"name", c.name},
                       {"q", vectorJson(q[f])},
                       {"tip", toJson(Eigen::Vector3d(c.base * frames.tip().translation()))},
                       {"tip_local", toJson(Eigen::Vector3d(frames.tip().translation()))},
                       {"frames", fr}});
  }
  printJson({{"hand", h.id}, {"fingers", fingers}, {"warnings", warnings}});
  return kOk;
}

const CommandRegistration reg({"fk", "forward kinematics of every finger", run});

}  // namespace
}  // namespace handsim::cli
