// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/hand/hand_loader.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli ik --hand ID --finger NAME --target x,y,z [--phi ANGLE] [--deg]\n"
    "                      [--q0 v1,...]\n\n"
    "Inverse kinematics of one finger. The target is in the finger's base frame {k0} [m].\n"
    "  BarrettHand-type fingers use the closed form (seed 000 eq. 5-7).\n"
    "  With --phi, a finger ending in three planar joints uses the closed form of seed 003:\n"
    "  the target is x,y (a third value must be 0) in the plane of those joints and ANGLE\n"
    "  the tip orientation (rad, degrees with --deg); earlier joints keep their --q0 values.\n"
    "  Other fingers use damped least squares within the joint limits, started from --q0.\n"
    "  --q0 LIST   starting / reference joint values (default: zeros clamped to the limits;\n"
    "              degrees for revolute joints with --deg)\n\n"
    "Output: {\"q\": [rad or m], \"residual\": m, \"solver\": ...}. An unreachable target exits\n"
    "with code 3 and prints {\"error\": \"unreachable\", \"miss\": m, \"message\": ...}.\n";

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--hand", "--finger", "--target", "--phi", "--q0"}, {"--deg"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(0, "no positional arguments");
  const hand::HandModel h = hand::loadHand(args.required("--hand"));
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
    printJson({{"error", "unreachable"},
               {"miss", e.miss()},
               {"message", e.what()},
               {"closest_q", vectorJson(e.closest())}});
    std::cerr << "handsim-cli ik: " << e.what() << "\n";
    return kInfeasible;
  }
  printJson(
      {{"finger", chain.name}, {"q", vectorJson(q)}, {"residual", residual}, {"solver", solver}});
  return kOk;
}

const CommandRegistration reg({"ik", "inverse kinematics of one finger", run});

}  // namespace
}  // namespace handsim::cli
