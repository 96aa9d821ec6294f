// SPDX-License-Identifier: GPL-3.0-or-later
#include "arm_json.hpp"
#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/planner/grasp_defaults.hpp"

namespace handsim::cli {
namespace {

const char* typeName(kinematics::JointType t, bool continuous) {
  if (continuous) return "continuous";
  switch (t) {
    case kinematics::JointType::Revolute:
      return "revolute";
    case kinematics::JointType::Prismatic:
      return "prismatic";
    default:
      return "fixed";
  }
}

nlohmann::ordered_json vectorJson(const Eigen::Vector3d& v) { return {v.x(), v.y(), v.z()}; }

/// What the planner closes and how it approaches (planner::graspSummary): the file's "grasp"
/// key, or what the kinematics imply for a hand that names nothing (docs/planner.md).
nlohmann::ordered_json graspJson(const hand::HandModel& h) {
  const planner::GraspSummary g = planner::graspSummary(h);
  const auto name = [&h](int a) { return h.actuators[static_cast<std::size_t>(a)].name; };
  nlohmann::ordered_json closing = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < g.closing_actuators.size(); ++i)
    closing.push_back({{"actuator", name(g.closing_actuators[i])},
                       {"closes_to", g.closing_directions[i] > 0 ? "upper" : "lower"}});
  nlohmann::ordered_json others = nlohmann::ordered_json::array();
  for (int a : g.not_closing) others.push_back(name(a));
  nlohmann::ordered_json tendons = nlohmann::ordered_json::array();
  for (int t : g.closing_tendons) tendons.push_back(h.tendons[static_cast<std::size_t>(t)].name);
  nlohmann::ordered_json out = {{"source", planner::sourceName(g.source)},
                                {"closing_actuators", closing},
                                {"closing_tendons", tendons},
                                {"not_closing", others},
                                {"approach_palm", vectorJson(g.approach_palm)},
                                {"approach_origin_palm_m", vectorJson(g.approach_origin_palm)}};
  if (g.source == planner::GraspSummary::Source::Inferred) {
    out["pinch"] = g.inferred.pinch;
    out["palm_normal"] = vectorJson(g.inferred.palm_normal);
    out["finger_direction"] = vectorJson(g.inferred.finger_direction);
  }
  return out;
}

/// One hand in detail: joints (the URDF tree's, or the chains' for hand files), actuators
/// with every drive (ratio, offset), couplings (mimic joints, shared copies), chains.
nlohmann::ordered_json describe(const hand::HandModel& h) {
  nlohmann::ordered_json joints = nlohmann::ordered_json::array();
  nlohmann::ordered_json couplings = nlohmann::ordered_json::array();
  if (!h.tree.empty()) {
    for (const auto& j : h.tree.joints) {
      nlohmann::ordered_json e = {
          {"name", j.name},
          {"type", typeName(j.type, j.continuous)},
          {"parent", h.tree.links[static_cast<std::size_t>(j.parent_link)].name},
          {"child", h.tree.links[static_cast<std::size_t>(j.child_link)].name}};
      if (j.type != kinematics::JointType::Fixed) {
        e["limits"] = {j.lower, j.upper};
        e["effort"] = j.effort;
        e["velocity"] = j.velocity;
        nlohmann::ordered_json copies = nlohmann::ordered_json::array();
        for (const auto& c : j.copies) copies.push_back(h.jointName(c));
        e["copies"] = copies;
      }
      joints.push_back(e);
      if (j.mimic >= 0)
        couplings.push_back({{"kind", "mimic"},
                             {"joint", j.name},
                             {"master", h.tree.joints[static_cast<std::size_t>(j.mimic)].name},
                             {"multiplier", j.multiplier},
                             {"offset", j.offset}});
      if (j.copies.size() > 1) {
        nlohmann::ordered_json copies = nlohmann::ordered_json::array();
        for (const auto& c : j.copies) copies.push_back(h.jointName(c));
        couplings.push_back({{"kind", "shared"}, {"joint", j.name}, {"copies", copies}});
      }
    }
  } else {
    for (std::size_t f = 0; f < h.fingers.size(); ++f) {
      const auto& c = h.fingers[f];
      for (int j = 0; j < c.dof(); ++j) {
        const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
        joints.push_back({{"name", h.jointName({static_cast<int>(f), j})},
                          {"type", typeName(row.type, false)},
                          {"limits", {row.lower, row.upper}}});
      }
    }
  }
  nlohmann::ordered_json actuators = nlohmann::ordered_json::array();
  for (const auto& a : h.actuators) {
    nlohmann::ordered_json drives = nlohmann::ordered_json::array();
    for (const auto& d : a.drives)
      drives.push_back({{"joint", h.jointName(d.joint)}, {"ratio", d.ratio}, {"offset", d.offset}});
    actuators.push_back({{"name", a.name},
                         {"unit", a.unit},
                         {"range", {a.lower, a.upper}},
                         {"drives", drives},
                         {"servo",
                          {{"kp", a.servo.kp},
                           {"kd", a.servo.kd},
                           {"torque_limit", a.servo.torque_limit},
                           {"rotor_inertia", a.servo.rotor_inertia}}}});
  }
  for (const auto& c : h.clutches)
    couplings.push_back({{"kind", "clutch"},
                         {"actuator", h.actuators[static_cast<std::size_t>(c.actuator)].name},
                         {"inner", h.jointName(c.inner)},
                         {"outer", h.jointName(c.outer)}});
  nlohmann::ordered_json chains = nlohmann::ordered_json::array();
  for (const auto& c : h.fingers) {
    nlohmann::ordered_json names = nlohmann::ordered_json::array();
    double mass = 0.0;
    for (std::size_t r = 0; r < c.rows.size(); ++r) {
      names.push_back(c.joint_names[r]);
      mass += c.links[r].mass;
    }
    chains.push_back({{"name", c.name}, {"joints", names}, {"mass", mass}});
  }
  nlohmann::ordered_json poses = nlohmann::ordered_json::array();
  for (const auto& p : h.poses) poses.push_back(p.name);
  nlohmann::ordered_json closing = nlohmann::ordered_json::array();
  for (int a : h.closing_actuators) closing.push_back(h.actuators[static_cast<std::size_t>(a)].name);
  return {{"id", h.id},
          {"name", h.name},
          {"file", h.source_file},
          {"links", h.tree.links.size()},
          {"joints", joints},
          {"actuators", actuators},
          {"couplings", couplings},
          {"chains", chains},
          {"poses", poses},
          {"closing_actuators", closing},
          {"grasp", graspJson(h)},
          {"warnings", h.warnings},
          {"arm", h.arm.empty() ? nlohmann::ordered_json(nullptr)
                                : armJson(h.arm, armValues(h.arm, "", false, "arm"))}};
}

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--describe", "--palm"}, {});
  if (args.help()) {
    std::cout << "usage: handsim-cli hands [--describe ID|FILE]\n\n"
                 "Lists the built-in hands (assets/hands, or $HANDSIM_ASSET_DIR/hands): id, name,\n"
                 "fingers with their joints, degrees of freedom, actuators and clutches.\n"
                 "--describe ID|FILE  one hand (a built-in id, a hand file or a .urdf) in detail:\n"
                 "                    {\"hand\": {id, name, file, links, joints [{name, type,\n"
                 "                    parent, child, limits, effort, velocity, copies}],\n"
                 "                    actuators [{name, unit, range, drives [{joint, ratio,\n"
                 "                    offset}], servo}], couplings [{kind: mimic|shared|clutch,\n"
                 "                    ...}], chains [{name, joints, mass}], poses,\n"
                 "                    closing_actuators, warnings, arm}}\n"
                 "--palm LINK         with --describe: the URDF link that is the palm; the\n"
                 "                    joints from the root link to it are the arm, described\n"
                 "                    under \"arm\" (null without one; docs/arm.md) at its zero\n"
                 "                    pose: {base_link, palm_link, file, joints [{name, type,\n"
                 "                    limits, value}], palm_in_base, frames}\n";
    return kOk;
  }
  args.requirePositional(0, "no arguments");
  if (const auto which = args.value("--describe")) {
    printJson({{"hand", describe(hand::loadHand(*which, args.value("--palm").value_or("")))}});
    return kOk;
  }
  if (args.has("--palm")) throw UsageError("--palm goes with --describe");
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
                          {"tau_break", c.tau_break},
                          {"closing_direction", c.closing_direction}});
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
