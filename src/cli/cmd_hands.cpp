// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/hand/hand_loader.hpp"

namespace handsim::cli {
namespace {

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {}, {});
  if (args.help()) {
    std::cout << "usage: handsim-cli hands\n\n"
                 "Lists the built-in hands (assets/hands, or $HANDSIM_ASSET_DIR/hands): id, name,\n"
                 "fingers with their joints, degrees of freedom, actuators and clutches.\n";
    return kOk;
  }
  args.requirePositional(0, "no arguments");
  nlohmann::ordered_json hands = nlohmann::ordered_json::array();
  for (const auto& id : hand::builtinHandIds()) {
    const hand::HandModel h = hand::loadHand(id);
    nlohmann::ordered_json fingers = nlohmann::ordered_json::array();
    for (const auto& c : h.fingers) {
      nlohmann::ordered_json joints = nlohmann::ordered_json::array();
      for (int j = 0; j < c.dof(); ++j)
        joints.push_back(c.joint_names[static_cast<std::size_t>(c.rowOfJoint(j))]);
      fingers.push_back({{"name", c.name}, {"joints", joints}});
    }
    nlohmann::ordered_json actuators = nlohmann::ordered_json::array();
    for (const auto& a : h.actuators) {
      nlohmann::ordered_json drives = nlohmann::ordered_json::array();
      for (const auto& d : a.drives) drives.push_back(h.jointName(d.joint));
      actuators.push_back(
          {{"name", a.name}, {"unit", a.unit}, {"range", {a.lower, a.upper}}, {"drives", drives}});
    }
    nlohmann::ordered_json clutches = nlohmann::ordered_json::array();
    for (const auto& c : h.clutches)
      clutches.push_back({{"actuator", h.actuators[static_cast<std::size_t>(c.actuator)].name},
                          {"inner", h.jointName(c.inner)},
                          {"outer", h.jointName(c.outer)},
                          {"tau_break", c.tau_break}});
    nlohmann::ordered_json poses = nlohmann::ordered_json::array();
    for (const auto& p : h.poses) poses.push_back(p.name);
    hands.push_back({{"id", h.id},
                     {"name", h.name},
                     {"file", h.source_file},
                     {"fingers", fingers},
                     {"joints", h.totalDof()},
                     {"actuators", actuators},
                     {"clutches", clutches},
                     {"poses", poses}});
  }
  printJson({{"hands", hands}});
  return kOk;
}

const CommandRegistration reg({"hands", "list the built-in hands", run});

}  // namespace
}  // namespace handsim::cli
