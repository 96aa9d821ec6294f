// SPDX-License-Identifier: GPL-3.0-or-later
// handsim-cli plan: grasp planning (docs/planner.md).
#include <chrono>
#include <cstdio>
#include <thread>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/planner/grasp_records.hpp"
#include "hold_option.hpp"
#include "outputs.hpp"
#include "validate_records.hpp"

namespace handsim::cli {
namespace {

const char* kHelp =
    "usage: handsim-cli plan OBJECT --hand H --out GRASPS.jsonl [--grasps N] [--candidates M]\n"
    "                        [--seed S] [--threads T] [--strategy surface-normals|annealing]\n"
    "                        [--energy contact|potential] [--friction MU] [--scale S]\n"
    "                        [--support-plane P] [--approach-cone C] [--palm-region R]\n"
    "                        [--validate PRESET]... [--hold drives|pd] [--full-duration]\n"
    "                        [--shard i/N]\n"
    "                        [--quiet]\n\n"
    "Plans grasps of OBJECT (a mesh file, or a shipped object such as cube, sphere, bottle)\n"
    "with hand H (docs/planner.md): candidates are searched, closed by the hand's own drives in\n"
    "the engine, and kept when in force closure and distinct from the earlier ones.\n"
    "  --out FILE        JSON Lines, one grasp per line (written atomically)\n"
    "  --grasps N        stop after N distinct force-closure grasps (default 20; 0: no limit)\n"
    "  --candidates M    candidates the run may try (default 100 per grasp)\n"
    "  --seed S          random seed (default 1): the same seed gives the same grasps\n"
    "  --threads T       worker threads (default 1; 0: all cores); results do not depend on it\n"
    "  --strategy        surface-normals (default) or annealing (GraspIt!'s, the baseline)\n"
    "  --energy          contact (default) or potential: what the search descends\n"
    "  --friction MU     Coulomb coefficient for the quality measures (default 0.5)\n"
    "  --scale S         multiply the object's coordinates by S (default 1)\n"
    "  --support-plane P a table the hand may not pass: px,py,pz,nx,ny,nz [m] in the object\n"
    "                    frame (the hand stays on the normal's side), or bottom (under the\n"
    "                    object's lowest point, normal +z)\n"
    "  --approach-cone C the palm's approach axis within DEG of ax,ay,az: ax,ay,az,DEG\n"
    "  --palm-region R   the palm's origin in the box xmin,ymin,zmin,xmax,ymax,zmax [m]\n"
    "  --validate P      run validation preset P on every grasp (six-directions, tug, lift,\n"
    "                    lift-shake); may be repeated\n"
    "  --hold drives|pd  --validate holds with the hand's drives (default) or a PD servo per\n"
    "                    joint as the peers do (docs/planner.md, \"Holding\")\n"
    "  --full-duration   every --validate direction runs its whole duration (default: it ends\n"
    "                    once the grasp holds steadily, docs/planner.md, \"Steady holds\")\n"
    "  --shard i/N       only candidates with index % N == i, every force-closure one kept;\n"
    "                    `handsim-cli merge` joins the N files into the one-process result\n"
    "  --quiet           no progress on stderr\n";

// Runs a parser whose messages start with the flag's name, its refusal as a usage error.
template <class Parse>
auto flagValue(Parse&& parse) {
  try {
    return parse();
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

// The planner's options from the flags (all but the support plane, which needs the object).
planner::PlannerOptions plannerOptions(const Args& args) {
  auto whole = [&args](const char* flag, double lo, double hi, double fallback) {
    const auto v = args.value(flag);
    if (!v) return fallback;
    const double x = parseNumber(*v, flag);
    if (x < lo || x > hi || x != std::floor(x))
      throw UsageError(std::string(flag) + ": a whole number from " + std::to_string(long(lo)) +
                       " to " + std::to_string(long(hi)));
    return x;
  };
  planner::PlannerOptions o;
  o.grasps = static_cast<int>(whole("--grasps", 0, 1e6, 20));
  o.candidates = static_cast<int>(whole("--candidates", 0, 1e8, 0));
  o.seed = static_cast<std::uint64_t>(whole("--seed", 0, 9007199254740991.0, 1));
  o.threads = static_cast<unsigned>(whole("--threads", 0, 256, 1));
  if (const auto s = args.value("--strategy")) o.strategy = planner::parseStrategy(*s);
  if (const auto e = args.value("--energy")) o.energy = planner::parseEnergy(*e);
  if (const auto s = args.value("--shard")) {
    const auto slash = s->find('/');
    if (slash == std::string::npos) throw UsageError("--shard: write i/N, e.g. 0/4");
    const double i = parseNumber(s->substr(0, slash), "--shard");
    const double n = parseNumber(s->substr(slash + 1), "--shard");
    if (n < 1 || n > 1e6 || i < 0 || i >= n || i != std::floor(i) || n != std::floor(n))
      throw UsageError("--shard: need whole numbers with 0 <= i < N");
    o.shard = static_cast<int>(i);
    o.shards = static_cast<int>(n);
  }
  if (const auto c = args.value("--approach-cone"))
    o.constraints.approach_cone = flagValue([&] { return planner::parseApproachCone(*c); });
  if (const auto r = args.value("--palm-region"))
    o.constraints.palm_region = flagValue([&] { return planner::parsePalmRegion(*r); });
  return o;
}

int run(const std::vector<std::string>& argv) {
  const Args args(argv,
                  {"--hand", "--out", "--grasps", "--candidates", "--seed", "--threads",
                   "--strategy", "--energy", "--friction", "--scale", "--validate", "--shard",
                   "--support-plane", "--approach-cone", "--palm-region", "--hold"},
                  {"--quiet", "--full-duration"});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(1, "one object");
  const std::string out = args.required("--out");
  const std::vector<OutputFile> outputs{{"--out", out}};
  requireWritable(outputs.front());
  planner::PlannerOptions o = plannerOptions(args);
  double friction = 0.5, scale = 1.0;
  if (const auto f = args.value("--friction")) {
    friction = parseNumber(*f, "--friction");
    if (!(friction >= 0.0) || friction > 100.0) throw UsageError("--friction: 0 to 100");
  }
  if (const auto s = args.value("--scale")) {
    scale = parseNumber(*s, "--scale");
    if (!(scale > 0.0) || scale > 1e6) throw UsageError("--scale: must be > 0");
  }
  std::vector<planner::ValidationPreset> presets;
  for (const auto& p : args.values("--validate")) presets.push_back(planner::validationPreset(p));
  applyHold(args.value("--hold"), presets);
  applyFullDuration(args.has("--full-duration"), presets);
  if (!presets.empty() && o.shards > 1)
    throw UsageError("--validate runs on the merged grasps: validate the merged file instead");

  const auto hand =
      std::make_shared<const hand::HandModel>(hand::loadHand(args.required("--hand")));
  const sim::ObjectModel object = planner::loadPlanObject(args.positional()[0], scale);
  requireDistinct(outputs, {hand->source_file, object.source});
  if (const auto p = args.value("--support-plane"))
    o.constraints.support_plane =
        flagValue([&] { return planner::parseSupportPlane(*p, object.geometry->collision.mesh); });
  const planner::PlannerModel pm = planner::compilePlannerModel(hand, object, friction);

  const bool quiet = args.has("--quiet");
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&]() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  double last = -1.0;
  std::int64_t tried = 0;
  const auto grasps =
      planner::planGrasps(pm, o, [&](std::int64_t done, int accepted, std::int64_t budget) {
        tried = done;
        const double t = seconds();
        if (quiet || t - last < 0.25) return;
        last = t;
        // ETA: the slower of the grasp rate and the rest of the candidate budget.
        double eta = t * double(budget - done) / double(std::max<std::int64_t>(done, 1));
        if (o.grasps > 0 && accepted > 0 && o.shards == 1)
          eta = std::min(eta, t * double(o.grasps - accepted) / double(accepted));
        std::fprintf(stderr, "\rplan: %d grasps, %lld/%lld candidates, %.1f s, ETA %.0f s   ",
                     accepted, static_cast<long long>(done), static_cast<long long>(budget), t,
                     eta);
      });
  const double plan_seconds = seconds();

  std::vector<planner::GraspRecord> records =
      planner::plannedGraspRecords(*hand, object, o, pm, grasps);
  for (const auto& preset : presets) {
    const planner::Validator v =
        planner::makeValidator(hand, object, preset, o.closing, o.constraints.support_plane);
    const unsigned n =
        o.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : o.threads;
    validateRecordsInParallel(records.size(), n, preset.name, quiet, [&](std::size_t i) {
      records[i].validation.push_back(
          planner::validateGrasp(v, records[i].grasp.palm_object, records[i].grasp.pregrasp));
    });
  }
  planner::saveGraspRecords(out, records);
  if (!quiet)
    std::fprintf(stderr, "\rplan: done, %zu grasps in %.1f s%30s\n", records.size(), seconds(), "");

  const nlohmann::ordered_json passed = passedPerPreset(records, presets);
  printJson({{"out", out},
             {"hand", hand->id},
             {"object", object.name},
             {"strategy", planner::strategyName(o.strategy)},
             {"seed", o.seed},
             {"grasps", records.size()},
             {"candidates_tried", tried},
             {"plan_seconds", plan_seconds},
             {"passed", passed},
             {"shard", std::to_string(o.shard) + "/" + std::to_string(o.shards)}});
  return kOk;
}

const CommandRegistration reg({"plan", "plan grasps of an object (seeded, multi-threaded)", run});

}  // namespace
}  // namespace handsim::cli
