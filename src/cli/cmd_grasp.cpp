// SPDX-License-Identifier: GPL-3.0-or-later
#include <cmath>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/grasp/grasp_input.hpp"
#include "handsim/grasp/grasp_quality.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli grasp CONTACTS.json [--edges N] [--radius R]\n\n"
    "Grasp quality from contacts: force closure, epsilon and volume of the L1 grasp wrench\n"
    "space (docs/grasp.md).\n"
    "  --edges N    edges of each linearised friction cone (default: the file's cone_edges,\n"
    "               else 8; at least 3)\n"
    "  --radius R   torque radius lambda [m]: torques are divided by it (default: the file's\n"
    "               torque_radius_m)\n\n"
    "CONTACTS.json: {\"contacts\": [{\"point\": [x,y,z] (m), \"normal_into_object\": [x,y,z]\n"
    "(unit, INTO the object, as the simulator reports), \"friction\": mu}], \"object_centre\":\n"
    "[x,y,z] (m), "
    "\"torque_radius_m\": r, \"cone_edges\": n (optional)}\n\n"
    "Output: {\"force_closure\": bool, \"epsilon\", \"volume\", \"facets\", \"weakest_direction\"\n"
    "(6 numbers: force, torque / radius), \"note\" (why the result is degenerate, or \"\")}\n";

int run(const std::vector<std::string>& argv) {
  const Args args(argv, {"--edges", "--radius"}, {});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(1, "one CONTACTS.json file");
  grasp::GraspInput in = grasp::loadGraspInput(args.positional()[0]);
  if (const auto e = args.value("--edges")) {
    const double n = parseNumber(*e, "--edges");
    if (!(n >= 3 && n <= 4096) || n != std::floor(n))
      throw UsageError("--edges: expected an integer from 3 to 4096");
    in.options.cone_edges = static_cast<int>(n);
  }
  if (const auto r = args.value("--radius")) {
    in.options.torque_radius = parseNumber(*r, "--radius");
    if (!(in.options.torque_radius > 0.0)) throw UsageError("--radius: must be positive");
  }
  // The 6-D convex hull of the wrench points grows steeply with their number (about 15 s for
  // 400 points, minutes for 1,000 contacts): refused up front above a bound, not left to run.
  // The bound is the core's (grasp::kMaxWrenchPoints), shared with Python's evaluate_grasp.
  try {
    grasp::checkWrenchPointBudget(in.contacts.size(), in.options.cone_edges);
  } catch (const std::invalid_argument& e) {
    throw UsageError(args.positional()[0] + ": " + e.what() +
                     " (fewer contacts, or fewer --edges)");
  }
  const grasp::GraspQuality q = grasp::evaluateGrasp(in.contacts, in.options);
  printJson({{"force_closure", q.force_closure},
             {"epsilon", q.epsilon},
             {"volume", q.volume},
             {"facets", q.hull_facets},
             {"weakest_direction", vectorJson(q.weakest_direction)},
             {"note", q.note}});
  return kOk;
}

const CommandRegistration reg({"grasp", "grasp quality (force closure, epsilon) of contacts", run});

}  // namespace
}  // namespace handsim::cli
