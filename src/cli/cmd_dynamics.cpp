// SPDX-License-Identifier: GPL-3.0-or-later
#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/formats/hand_loader.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli dynamics --hand ID --finger NAME --q LIST --qd LIST --qdd LIST\n"
    "                            [--gravity gx,gy,gz] [--deg]\n\n"
    "Lagrange-Euler inverse dynamics of one finger (seed 000 eq. 8):\n"
    "tau = D(q) qdd + H(q, qd) + C(q).\n"
    "  --q, --qd, --qdd  joint positions, velocities, accelerations (rad, rad/s, rad/s^2; with\n"
    "                    --deg, degrees for revolute joints)\n"
    "  --gravity         gravity in the finger base frame {k0} [m/s^2]; default: (0, 0, -9.81)\n"
    "                    in the palm frame, turned into {k0}\n\n"
    "Output: {\"tau\": [N m], \"D\": [[kg m^2]], \"H\": [N m], \"C\": [N m], \"gravity\": "
    "[m/s^2]}\n";

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--hand", "--finger", "--q", "--qd", "--qdd", "--gravity"}, {"--deg"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(0, "no positional arguments");
  const hand::HandModel h = hand::loadHand(args.required("--hand"));
  const auto& chain =
      h.fingers[static_cast<std::size_t>(requireFinger(h, args.required("--finger")))];
  const bool deg = args.has("--deg");
  const Eigen::VectorXd q = fingerValues(chain, args.required("--q"), "--q", deg);
  const Eigen::VectorXd qd = fingerValues(chain, args.required("--qd"), "--qd", deg);
  const Eigen::VectorXd qdd = fingerValues(chain, args.required("--qdd"), "--qdd", deg);
  Eigen::Vector3d g = chain.base.linear().transpose() * Eigen::Vector3d(0.0, 0.0, -9.81);
  if (args.has("--gravity")) {
    const auto gv = parseNumbers(*args.value("--gravity"), "--gravity");
    if (gv.size() != 3) throw UsageError("--gravity: give gx,gy,gz");
    g = Eigen::Vector3d(gv[0], gv[1], gv[2]);
  }
  const auto terms = dynamics::lagrangeEuler(chain, q, qd, g);
  const kinematics::JointVector tau = terms.D * qdd + terms.H + terms.C;
  nlohmann::ordered_json d = nlohmann::ordered_json::array();
  for (Eigen::Index r = 0; r < terms.D.rows(); ++r) d.push_back(vectorJson(terms.D.row(r)));
  printJson({{"finger", chain.name},
             {"tau", vectorJson(tau)},
             {"D", d},
             {"H", vectorJson(terms.H)},
             {"C", vectorJson(terms.C)},
             {"gravity", toJson(g)}});
  return kOk;
}

const CommandRegistration reg({"dynamics", "inverse dynamics of one finger", run});

}  // namespace
}  // namespace handsim::cli
