// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>

#include "arm_json.hpp"
#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/hand/arm_ik.hpp"
#include "handsim/hand/hand_ik.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

namespace handsim::cli {
namespace {

/// The reply to an unreachable target: the miss and the nearest joint values as JSON on
/// stdout, the message on stderr, exit code 3.
int reportUnreachable(const kinematics::UnreachableTarget& e) {
  printJson({{"error", "unreachable"},
             {"miss", e.miss()},
             {"message", e.what()},
             {"closest_q", vectorJson(e.closest())}});
  std::cerr << "handsim-cli ik: " << e.what() << "\n";
  return kInfeasible;
}

const char* kHelp =
    "usage: handsim-cli ik --hand ID --finger NAME --target x,y,z [--phi ANGLE] [--deg]\n"
    "                      [--q0 v1,...]\n"
    "       handsim-cli ik --hand ID (--finger NAME | --link NAME) --target x,y,z\n"
    "                      [--shared locked|free]\n\n"
    "Inverse kinematics of one finger. The target is in the finger's base frame {k0} [m].\n"
    "  BarrettHand-type fingers use the closed form (seed 000 eq. 5-7).\n"
    "  With --phi, a finger ending in three planar joints uses the closed form of seed 003:\n"
    "  the target is x,y (a third value must be 0) in the plane of those joints and ANGLE\n"
    "  the tip orientation (rad, degrees with --deg); earlier joints keep their --q0 values.\n"
    "  Other fingers use damped least squares within the joint limits, started from --q0.\n"
    "  --q0 LIST   starting / reference joint values (default: zeros clamped to the limits;\n"
    "              degrees for revolute joints with --deg)\n\n"
    "Output: {\"q\": [rad or m], \"residual\": m, \"solver\": ...}. An unreachable target exits\n"
    "with code 3 and prints {\"error\": \"unreachable\", \"miss\": m, \"message\": ...}.\n\n"
    "URDF hands, --link or --shared: hand-level IK. The target is in the palm (URDF: root\n"
    "link) frame [m]; the finger's tip or the link's frame origin is placed by moving the\n"
    "hand's actuated coordinates from the zero pose (clamped into the limits): every copy of a\n"
    "shared (wrist) joint takes one value and mimic joints follow their masters.\n"
    "  --link NAME            a URDF link (hand files: <finger>.link<k>) instead of a tip\n"
    "  --shared locked|free   locked (default): joints shared with other fingers stay put;\n"
    "                         free: they move too, and the other fingers with them\n"
    "Output: {\"hand\", \"endpoint\", \"shared\", \"q\" (the endpoint's finger), \"fingers\":\n"
    "[{\"name\", \"q\"}], \"joints\": {name: value} (every movable joint, rad or m),\n"
    "\"residual\" (m), \"solver\"}; unreachable: exit 3 and the error object above.\n\n"
    "Arm reach (docs/arm.md): the arm's joints for a palm pose, e.g. to check that a planned\n"
    "grasp is reachable.\n"
    "       handsim-cli ik --hand FILE.urdf --palm LINK --palm-pose x,y,z[,roll,pitch,yaw]\n"
    "       handsim-cli ik --arm FILE.urdf --flange LINK --palm-pose x,y,z[,roll,pitch,yaw]\n"
    "  --palm LINK         the hand URDF's palm link: the joints from its root link are the arm\n"
    "  --arm, --flange     an arm URDF alone, its joints up to the flange link\n"
    "  --palm-pose         the palm (flange) frame in the arm's base (root link) frame: position\n"
    "                      [m] and fixed-axis roll, pitch, yaw (rad, degrees with --deg;\n"
    "                      default 0)\n"
    "  --q0 LIST           the arm's start: v1,... or NAME=VALUE,... (default: 0 in the limits)\n"
    "Damped least squares on the 6-D pose error within the joint limits, from --q0 and spread\n"
    "restarts. Output: {\"arm\": {name: value}, \"q\", \"reached\", \"miss_mm\", \"miss_deg\",\n"
    "\"solver\"}; a pose not reached (miss over 0.001 mm or 0.001 deg) exits with code 3 and\n"
    "the same object with \"error\": \"unreachable\".\n";

/// Arm reach: the arm's joints for a palm pose (hand/arm_ik.hpp).
int runArmIk(const Args& args) {
  if (args.has("--finger") || args.has("--link") || args.has("--target") || args.has("--phi") ||
      args.has("--shared"))
    throw UsageError(
        "--palm-pose solves the arm; --finger, --link, --target, --phi and --shared "
        "are for the fingers");
  hand::ArmModel arm;
  if (args.has("--arm")) {
    if (args.has("--hand") || args.has("--palm"))
      throw UsageError("give --arm FILE --flange LINK, or --hand FILE --palm LINK");
    arm = hand::loadUrdfArm(args.required("--arm"), args.required("--flange"));
  } else {
    if (args.has("--flange")) throw UsageError("--flange goes with --arm");
    arm = hand::loadHand(args.required("--hand"), args.value("--palm").value_or("")).arm;
    if (arm.empty())
      throw UsageError("--palm-pose: the hand has no arm (name its palm link with --palm)");
  }
  const bool deg = args.has("--deg");
  const auto p = parseNumbers(args.required("--palm-pose"), "--palm-pose");
  if (p.size() != 3 && p.size() != 6)
    throw UsageError("--palm-pose: give x,y,z [m] or x,y,z,roll,pitch,yaw");
  Eigen::Isometry3d target = Eigen::Isometry3d::Identity();
  target.translation() = Eigen::Vector3d(p[0], p[1], p[2]);
  if (p.size() == 6) {
    const double k = deg ? kDegToRad : 1.0;
    target.linear() = (Eigen::AngleAxisd(p[5] * k, Eigen::Vector3d::UnitZ()) *
                       Eigen::AngleAxisd(p[4] * k, Eigen::Vector3d::UnitY()) *
                       Eigen::AngleAxisd(p[3] * k, Eigen::Vector3d::UnitX()))
                          .toRotationMatrix();
  }
  const Eigen::VectorXd q0 = armValues(arm, args.value("--q0").value_or(""), deg, "--q0");
  const hand::ArmIkResult r = hand::solveArmIk(arm, target, q0);
  nlohmann::ordered_json joints = nlohmann::ordered_json::object();
  for (int j = 0; j < arm.dof(); ++j)
    joints[arm.chain.joint_names[static_cast<std::size_t>(arm.chain.rowOfJoint(j))]] = r.q[j];
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (!r.reached) out["error"] = "unreachable";
  out["arm"] = joints;
  out["q"] = vectorJson(r.q);
  out["reached"] = r.reached;
  out["miss_mm"] = r.position_error * 1e3;
  out["miss_deg"] = r.orientation_error / kDegToRad;
  out["solver"] = "damped least squares on the palm's 6-D pose error, within the joint limits";
  printJson(out);
  if (r.reached) return kOk;
  std::cerr << "handsim-cli ik: the palm pose is out of the arm's reach: the nearest pose found "
               "misses it by "
            << r.position_error * 1e3 << " mm and " << r.orientation_error / kDegToRad << " deg\n";
  return kInfeasible;
}

/// Hand-level IK (hand/hand_ik.hpp): URDF hands, or when --link or --shared is given.
int runHandIk(const Args& args, const hand::HandModel& h) {
  if (args.has("--phi") || args.has("--q0"))
    throw UsageError(
        "--phi and --q0 are for one finger's own IK; with --link, --shared or a "
        "URDF hand the hand starts from its zero pose");
  if (args.has("--finger") == args.has("--link"))
    throw UsageError("give one of --finger NAME or --link NAME");
  hand::HandIkOptions opt;
  const std::string shared = args.value("--shared").value_or("locked");
  if (shared == "locked") {
    opt.shared = hand::SharedJoints::Locked;
  } else if (shared == "free") {
    opt.shared = hand::SharedJoints::Free;
  } else {
    throw UsageError("--shared: expected locked or free, got '" + shared + "'");
  }
  hand::IkEndpoint endpoint;
  try {
    endpoint = args.has("--finger")
                   ? hand::fingerEndpoint(h, requireFinger(h, *args.value("--finger")))
                   : hand::linkEndpoint(h, *args.value("--link"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--link: ") + e.what());
  }
  const auto t = parseNumbers(args.required("--target"), "--target");
  if (t.size() != 3) throw UsageError("--target: give x,y,z in metres (palm frame)");
  std::vector<double> a(h.actuators.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = std::clamp(0.0, h.actuators[i].lower, h.actuators[i].upper);
  std::vector<kinematics::JointVector> q_now = hand::jointPositions(h, a);
  // Joints no actuator drives start at 0 clamped into their limits.
  for (std::size_t f = 0; f < h.fingers.size(); ++f)
    for (int j = 0; j < h.fingers[f].dof(); ++j)
      if (h.driverOf({static_cast<int>(f), j}).first < 0) {
        const auto& row = h.fingers[f].rows[static_cast<std::size_t>(h.fingers[f].rowOfJoint(j))];
        q_now[f][j] = std::clamp(0.0, row.lower, row.upper);
      }
  const Eigen::Vector3d target(t[0], t[1], t[2]);
  std::vector<kinematics::JointVector> q;
  try {
    q = hand::handInverseKinematics(h, endpoint, target, q_now, opt);
  } catch (const kinematics::UnreachableTarget& e) {
    return reportUnreachable(e);
  }
  const auto& chain = h.fingers[static_cast<std::size_t>(endpoint.finger)];
  const auto frames =
      kinematics::forwardKinematics(chain, q[static_cast<std::size_t>(endpoint.finger)]);
  const Eigen::Vector3d reached =
      (chain.base * frames.at(endpoint.row + 1) * endpoint.in_frame).translation();
  nlohmann::ordered_json fingers = nlohmann::ordered_json::array();
  for (std::size_t f = 0; f < h.fingers.size(); ++f)
    fingers.push_back({{"name", h.fingers[f].name}, {"q", vectorJson(q[f])}});
  nlohmann::ordered_json joints = nlohmann::ordered_json::object();
  if (!h.tree.empty()) {
    for (const auto& tj : h.tree.joints)
      if (!tj.copies.empty())
        joints[tj.name] =
            q[static_cast<std::size_t>(tj.copies.front().finger)][tj.copies.front().joint];
  } else {
    for (std::size_t f = 0; f < h.fingers.size(); ++f)
      for (int j = 0; j < h.fingers[f].dof(); ++j)
        joints[h.jointName({static_cast<int>(f), j})] = q[f][j];
  }
  printJson({{"hand", h.id},
             {"endpoint", endpoint.name},
             {"shared", shared},
             {"finger", chain.name},
             {"q", vectorJson(q[static_cast<std::size_t>(endpoint.finger)])},
             {"fingers", fingers},
             {"joints", joints},
             {"residual", (reached - target).norm()},
             {"solver", "damped least squares over the actuated coordinates"}});
  return kOk;
}

int run(const std::vector<std::string>& argv) {
  const Args args(argv,
                  {"--hand", "--finger", "--link", "--target", "--phi", "--q0", "--shared",
                   "--palm", "--palm-pose", "--arm", "--flange"},
                  {"--deg"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(0, "no positional arguments");
  if (args.has("--palm-pose")) return runArmIk(args);
  if (args.has("--arm") || args.has("--flange"))
    throw UsageError("--arm and --flange go with --palm-pose");
  const hand::HandModel h =
      hand::loadHand(args.required("--hand"), args.value("--palm").value_or(""));
  if (!h.tree.empty() || args.has("--link") || args.has("--shared")) return runHandIk(args, h);
  const auto& chain =
      h.fingers[static_cast<std::size_t>(requireFinger(h, args.required("--finger")))];
  const bool deg = args.has("--deg");
  const auto t = parseNumbers(args.required("--target"), "--target");
  Eigen::VectorXd q0 = Eigen::VectorXd::Zero(chain.dof());
  if (args.has("--q0")) {
    q0 = fingerValues(chain, *args.value("--q0"), "--q0", deg);
  } else {
    for (int j = 0; j < chain.dof(); ++j) {
      const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
      q0[j] = std::clamp(0.0, row.lower, row.upper);
    }
  }
  kinematics::JointVector q;
  std::string solver;
  double residual = 0.0;
  try {
    if (args.has("--phi")) {
      if (!kinematics::isPlanarThreeLinkFinger(chain))
        throw UsageError("--phi: finger " + chain.name + " does not end in three planar joints");
      if (t.size() != 2 && !(t.size() == 3 && t[2] == 0.0))
        throw UsageError("--target: with --phi give x,y in the finger plane (or x,y,0)");
      const double phi = parseNumber(*args.value("--phi"), "--phi") * (deg ? kDegToRad : 1.0);
      q = kinematics::planarFingerIk(chain, t[0], t[1], phi, q0);
      solver = "closed-form planar three-link (seed 003)";
      const auto frames = kinematics::forwardKinematics(chain, q);
      const Eigen::Vector3d local =
          frames.at(static_cast<int>(chain.rows.size()) - 3).inverse() * frames.tip().translation();
      residual = (local.head<2>() - Eigen::Vector2d(t[0], t[1])).norm();
    } else {
      if (t.size() != 3) throw UsageError("--target: give x,y,z in metres");
      const Eigen::Vector3d target(t[0], t[1], t[2]);
      if (kinematics::isBarrettFinger(chain)) {
        q = kinematics::barrettFingerIk(chain, target, q0);
        solver = "closed-form BarrettHand finger (seed 000 eq. 5-7)";
      } else {
        q = kinematics::inverseKinematicsNumerical(chain, target, q0);
        solver = "damped least squares";
      }
      residual = (kinematics::fingertipPosition(chain, q) - target).norm();
    }
  } catch (const kinematics::UnreachableTarget& e) {
    return reportUnreachable(e);
  }
  printJson(
      {{"finger", chain.name}, {"q", vectorJson(q)}, {"residual", residual}, {"solver", solver}});
  return kOk;
}

const CommandRegistration reg({"ik", "inverse kinematics of one finger", run});

}  // namespace
}  // namespace handsim::cli
