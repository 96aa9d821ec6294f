// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/planner/grasp_records.hpp"

#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>
#include <stdexcept>

#include "../../formats/json_document.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/io/atomic_file.hpp"

namespace handsim::planner {
namespace {

using json = nlohmann::ordered_json;
using io::JsonDocument;

json vec(const Eigen::VectorXd& v) {
  json out = json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) out.push_back(v[i]);
  return out;
}
json vec3(const Eigen::Vector3d& v) {
  return json::array({v.x(), v.y(), v.z()});
}

json outcomeJson(const ValidationOutcome& o) {
  json dirs = json::array();
  for (const auto& d : o.directions) {
    json j = {{"direction", vec3(d.direction)}, {"displacement_m", d.displacement}};
    j["rotation_rad"] = d.rotation ? json(*d.rotation) : json(nullptr);
    j["time_to_slip_s"] = d.time_to_slip ? json(*d.time_to_slip) : json(nullptr);
    // Only when the direction ended early in a steady hold.
    if (d.steady_at) j["steady_at_s"] = *d.steady_at;
    j["contacts"] = d.contacts;
    j["links"] = d.links;
    j["passed"] = d.passed;
    dirs.push_back(j);
  }
  json j = {{"preset", o.preset}};
  // Written only when not the default, so files of the drives' hold read and write unchanged.
  if (o.hold != ValidationPreset::Hold::Drives) j["hold"] = holdName(o.hold);
  j["passed"] = o.passed;
  j["start_collision"] = o.start_collision;
  // Only when the hand closed on the held object, so other files read and write unchanged.
  if (o.held) j["held"] = true;
  j["force_closure"] = o.force_closure;
  j["epsilon"] = o.epsilon;
  j["volume"] = o.volume;
  j["directions"] = dirs;
  return j;
}

// Reading one line: JsonDocument's located errors, with the line number of the file.
struct LineReader {
  const JsonDocument& doc;
  Eigen::VectorXd vector(const nlohmann::json& v, const std::string& p, int size = -1) const {
    const auto n = doc.numbers(v, p, size);
    return Eigen::Map<const Eigen::VectorXd>(n.data(), static_cast<Eigen::Index>(n.size()));
  }
  std::optional<double> maybe(const nlohmann::json& v, const std::string& p) const {
    if (v.is_null()) return std::nullopt;
    return doc.number(v, p);
  }
};

PlannerConstraints readConstraints(const JsonDocument& doc, const nlohmann::json& v,
                                   const std::string& p) {
  using nj = nlohmann::json;
  const nj& c = doc.object(v, p);
  doc.allowOnly(c, p, {"support_plane", "approach_cone", "palm_region"});
  PlannerConstraints out;
  if (const nj* s = doc.optional(c, "support_plane")) {
    const std::string q = p + "/support_plane";
    doc.allowOnly(doc.object(*s, q), q, {"point_m", "normal"});
    SupportPlane plane;
    plane.point = doc.vector3(doc.require(*s, q, "point_m"), q + "/point_m");
    plane.normal = doc.vector3(doc.require(*s, q, "normal"), q + "/normal");
    if (!(plane.normal.norm() > 1e-12)) doc.fail(q + "/normal", "must not be zero");
    out.support_plane = plane;
  }
  if (const nj* s = doc.optional(c, "approach_cone")) {
    const std::string q = p + "/approach_cone";
    doc.allowOnly(doc.object(*s, q), q, {"axis", "half_angle_rad"});
    ApproachCone cone;
    cone.axis = doc.vector3(doc.require(*s, q, "axis"), q + "/axis");
    if (!(cone.axis.norm() > 1e-12)) doc.fail(q + "/axis", "must not be zero");
    cone.half_angle = doc.number(doc.require(*s, q, "half_angle_rad"), q + "/half_angle_rad");
    if (!(cone.half_angle > 0.0) || cone.half_angle > M_PI)
      doc.fail(q + "/half_angle_rad", "must be in (0, pi]");
    out.approach_cone = cone;
  }
  if (const nj* s = doc.optional(c, "palm_region")) {
    const std::string q = p + "/palm_region";
    doc.allowOnly(doc.object(*s, q), q, {"min_m", "max_m"});
    PalmRegion region;
    region.lower = doc.vector3(doc.require(*s, q, "min_m"), q + "/min_m");
    region.upper = doc.vector3(doc.require(*s, q, "max_m"), q + "/max_m");
    if (!(region.lower.array() <= region.upper.array()).all())
      doc.fail(q + "/max_m", "every maximum must be >= its minimum");
    out.palm_region = region;
  }
  return out;
}

json constraintsJson(const PlannerConstraints& c) {
  json j = json::object();
  if (c.support_plane)
    j["support_plane"] = {{"point_m", vec3(c.support_plane->point)},
                          {"normal", vec3(c.support_plane->normal)}};
  if (c.approach_cone)
    j["approach_cone"] = {{"axis", vec3(c.approach_cone->axis)},
                          {"half_angle_rad", c.approach_cone->half_angle}};
  if (c.palm_region)
    j["palm_region"] = {{"min_m", vec3(c.palm_region->lower)},
                        {"max_m", vec3(c.palm_region->upper)}};
  return j;
}

// "run": how the grasp's run was made (seed, strategy, energy, counts, shard, constraints).
RunInfo readRunInfo(const JsonDocument& doc, const nlohmann::json& root) {
  using nj = nlohmann::json;
  RunInfo info;
  const nj& run = doc.object(doc.require(root, "", "run"), "/run");
  doc.allowOnly(
      run, "/run",
      {"seed", "strategy", "energy", "grasps", "candidates", "friction", "distinct_fraction",
       "distinct_angle_rad", "radius_m", "shard", "shards", "constraints"});
  const nj& seed = doc.require(run, "/run", "seed");
  if (!seed.is_number_unsigned()) doc.fail("/run/seed", "expected a whole number >= 0");
  info.seed = seed.get<std::uint64_t>();
  info.strategy = doc.string(doc.require(run, "/run", "strategy"), "/run/strategy");
  info.energy = doc.string(doc.require(run, "/run", "energy"), "/run/energy");
  info.grasps = doc.integer(doc.require(run, "/run", "grasps"), "/run/grasps");
  info.candidates = doc.integer(doc.require(run, "/run", "candidates"), "/run/candidates");
  info.friction = doc.number(doc.require(run, "/run", "friction"), "/run/friction");
  info.distinct_fraction =
      doc.number(doc.require(run, "/run", "distinct_fraction"), "/run/distinct_fraction");
  info.distinct_angle =
      doc.number(doc.require(run, "/run", "distinct_angle_rad"), "/run/distinct_angle_rad");
  info.radius = doc.number(doc.require(run, "/run", "radius_m"), "/run/radius_m");
  info.shard = doc.integer(doc.require(run, "/run", "shard"), "/run/shard");
  info.shards = doc.integer(doc.require(run, "/run", "shards"), "/run/shards");
  if (info.shards < 1 || info.shard < 0 || info.shard >= info.shards)
    doc.fail("/run/shard", "expected 0 <= shard < shards");
  if (const nj* c = doc.optional(run, "constraints"))
    info.constraints = readConstraints(doc, *c, "/run/constraints");
  return info;
}

// "palm_object": the palm's pose in the object frame (a proper rotation to 1e-6).
Eigen::Isometry3d readPalmObject(const JsonDocument& doc, const nlohmann::json& root) {
  using nj = nlohmann::json;
  Eigen::Isometry3d palm_object = Eigen::Isometry3d::Identity();
  const nj& p = doc.object(doc.require(root, "", "palm_object"), "/palm_object");
  doc.allowOnly(p, "/palm_object", {"translation_m", "rotation"});
  palm_object.translation() =
      doc.vector3(doc.require(p, "/palm_object", "translation_m"), "/palm_object/translation_m");
  const auto m =
      doc.numbers(doc.require(p, "/palm_object", "rotation"), "/palm_object/rotation", 9);
  Eigen::Matrix3d rot;
  for (int i = 0; i < 9; ++i) rot(i / 3, i % 3) = m[static_cast<std::size_t>(i)];
  if (!(rot.transpose() * rot).isApprox(Eigen::Matrix3d::Identity(), 1e-6) || rot.determinant() < 0)
    doc.fail("/palm_object/rotation", "not a rotation matrix");
  palm_object.linear() = rot;
  return palm_object;
}

// "closed": the grasp the hand closed to (posture, joints, quality, contacts), `na` actuators.
ClosedGrasp readClosed(const JsonDocument& doc, const LineReader& rd, const nlohmann::json& root,
                       int na) {
  using nj = nlohmann::json;
  const std::string cp = "/closed";
  const nj& c = doc.object(doc.require(root, "", "closed"), cp);
  doc.allowOnly(c, cp,
                {"posture", "joints", "time_s", "stalled", "held", "force_closure", "epsilon",
                 "volume", "contacts"});
  ClosedGrasp cg;
  cg.posture = rd.vector(doc.require(c, cp, "posture"), cp + "/posture", na);
  const nj& joints = doc.array(doc.require(c, cp, "joints"), cp + "/joints");
  for (std::size_t f = 0; f < joints.size(); ++f)
    cg.q.push_back(rd.vector(joints[f], JsonDocument::child(cp + "/joints", f)));
  cg.time = doc.number(doc.require(c, cp, "time_s"), cp + "/time_s");
  cg.stalled = doc.boolean(doc.require(c, cp, "stalled"), cp + "/stalled");
  if (const nj* h = doc.optional(c, "held")) cg.held = doc.boolean(*h, cp + "/held");
  cg.quality.force_closure =
      doc.boolean(doc.require(c, cp, "force_closure"), cp + "/force_closure");
  cg.quality.epsilon = doc.number(doc.require(c, cp, "epsilon"), cp + "/epsilon");
  cg.quality.volume = doc.number(doc.require(c, cp, "volume"), cp + "/volume");
  const nj& contacts = doc.array(doc.require(c, cp, "contacts"), cp + "/contacts");
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const std::string p = JsonDocument::child(cp + "/contacts", i);
    const nj& cj = doc.object(contacts[i], p);
    doc.allowOnly(cj, p, {"finger", "row", "point_object_m", "normal_into_object", "force_N"});
    contact::Contact k;
    k.object = 0;
    k.finger = doc.integer(doc.require(cj, p, "finger"), p + "/finger");
    k.row = doc.integer(doc.require(cj, p, "row"), p + "/row");
    if (k.finger < 0) k.other = contact::kPalm;
    k.point_world = doc.vector3(doc.require(cj, p, "point_object_m"), p + "/point_object_m");
    k.normal_world =
        doc.vector3(doc.require(cj, p, "normal_into_object"), p + "/normal_into_object");
    k.force = doc.number(doc.require(cj, p, "force_N"), p + "/force_N");
    cg.contacts.push_back(k);
  }
  return cg;
}

// One entry of "validation" at `p`: a preset's outcome and its directions.
ValidationOutcome readValidation(const JsonDocument& doc, const LineReader& rd,
                                 const nlohmann::json& vj, const std::string& p) {
  using nj = nlohmann::json;
  ValidationOutcome o;
  o.preset = doc.string(doc.require(vj, p, "preset"), p + "/preset");
  if (const nj* h = doc.optional(vj, "hold")) {
    const std::string name = doc.string(*h, p + "/hold");
    if (name != "drives" && name != "pd") doc.fail(p + "/hold", "expected \"drives\" or \"pd\"");
    o.hold = parseHold(name);
  }
  o.passed = doc.boolean(doc.require(vj, p, "passed"), p + "/passed");
  o.start_collision = doc.boolean(doc.require(vj, p, "start_collision"), p + "/start_collision");
  if (const nj* h = doc.optional(vj, "held")) o.held = doc.boolean(*h, p + "/held");
  o.force_closure = doc.boolean(doc.require(vj, p, "force_closure"), p + "/force_closure");
  o.epsilon = doc.number(doc.require(vj, p, "epsilon"), p + "/epsilon");
  o.volume = doc.number(doc.require(vj, p, "volume"), p + "/volume");
  const nj& dirs = doc.array(doc.require(vj, p, "directions"), p + "/directions");
  for (std::size_t k = 0; k < dirs.size(); ++k) {
    const std::string dp = JsonDocument::child(p + "/directions", k);
    const nj& dj = doc.object(dirs[k], dp);
    doc.allowOnly(dj, dp,
                  {"direction", "displacement_m", "rotation_rad", "time_to_slip_s", "steady_at_s",
                   "contacts", "links", "passed"});
    DirectionOutcome d;
    d.direction = doc.vector3(doc.require(dj, dp, "direction"), dp + "/direction");
    d.displacement = doc.number(doc.require(dj, dp, "displacement_m"), dp + "/displacement_m");
    d.rotation = rd.maybe(doc.require(dj, dp, "rotation_rad"), dp + "/rotation_rad");
    d.time_to_slip = rd.maybe(doc.require(dj, dp, "time_to_slip_s"), dp + "/time_to_slip_s");
    if (dj.contains("steady_at_s"))
      d.steady_at = doc.number(dj["steady_at_s"], dp + "/steady_at_s");
    d.contacts = doc.integer(doc.require(dj, dp, "contacts"), dp + "/contacts");
    d.links = doc.integer(doc.require(dj, dp, "links"), dp + "/links");
    d.passed = doc.boolean(doc.require(dj, dp, "passed"), dp + "/passed");
    o.directions.push_back(d);
  }
  return o;
}

GraspRecord readLine(const JsonDocument& doc) {
  using nj = nlohmann::json;
  const LineReader rd{doc};
  const nj& root = doc.object(doc.root(), "");
  doc.allowOnly(root, "",
                {"format", "version", "hand", "hand_source", "object", "object_source",
                 "object_scale", "run", "candidate", "actuators", "palm_object", "amplitudes",
                 "pregrasp", "energy", "closed", "validation"});
  if (doc.string(doc.require(root, "", "format"), "/format") != "handsim-grasp")
    doc.fail("/format", "expected \"handsim-grasp\"");
  if (doc.integer(doc.require(root, "", "version"), "/version") != 1)
    doc.fail("/version", "unsupported version");
  GraspRecord r;
  r.hand = doc.string(doc.require(root, "", "hand"), "/hand");
  r.hand_source = doc.string(doc.require(root, "", "hand_source"), "/hand_source");
  r.object = doc.string(doc.require(root, "", "object"), "/object");
  r.object_source = doc.string(doc.require(root, "", "object_source"), "/object_source");
  r.object_scale = doc.number(doc.require(root, "", "object_scale"), "/object_scale");
  if (!(r.object_scale > 0.0)) doc.fail("/object_scale", "must be positive");
  r.run = readRunInfo(doc, root);
  const nj& names = doc.array(doc.require(root, "", "actuators"), "/actuators");
  for (std::size_t i = 0; i < names.size(); ++i)
    r.actuators.push_back(doc.string(names[i], JsonDocument::child("/actuators", i)));
  const int na = static_cast<int>(r.actuators.size());
  PlannedGrasp& g = r.grasp;
  g.candidate = doc.integer(doc.require(root, "", "candidate"), "/candidate");
  if (g.candidate < 0) doc.fail("/candidate", "must be >= 0");
  g.palm_object = readPalmObject(doc, root);
  g.amplitudes = rd.vector(doc.require(root, "", "amplitudes"), "/amplitudes");
  g.pregrasp = rd.vector(doc.require(root, "", "pregrasp"), "/pregrasp", na);
  g.energy = doc.number(doc.require(root, "", "energy"), "/energy");
  g.closed = readClosed(doc, rd, root, na);
  if (const nj* vals = doc.optional(root, "validation")) {
    doc.array(*vals, "/validation");
    for (std::size_t i = 0; i < vals->size(); ++i) {
      const std::string p = JsonDocument::child("/validation", i);
      const nj& vj = doc.object((*vals)[i], p);
      doc.allowOnly(vj, p,
                    {"preset", "hold", "passed", "start_collision", "held", "force_closure",
                     "epsilon", "volume", "directions"});
      r.validation.push_back(readValidation(doc, rd, vj, p));
    }
  }
  return r;
}

}  // namespace

RunInfo runInfo(const PlannerOptions& o, const PlannerModel& pm) {
  RunInfo r;
  r.seed = o.seed;
  r.strategy = strategyName(o.strategy);
  r.energy = o.custom_energy ? "custom" : energyName(o.energy);
  r.grasps = o.grasps;
  r.candidates = candidateBudget(o);
  r.friction = pm.friction;
  r.distinct_fraction = o.distinct_fraction;
  r.distinct_angle = o.distinct_angle;
  r.radius = pm.radius;
  r.shard = o.shard;
  r.shards = o.shards;
  r.constraints = checkedConstraints(o.constraints);
  return r;
}

std::vector<GraspRecord> plannedGraspRecords(const hand::HandModel& hand,
                                             const sim::ObjectModel& object,
                                             const PlannerOptions& options, const PlannerModel& pm,
                                             const std::vector<PlannedGrasp>& grasps) {
  const RunInfo run = runInfo(options, pm);
  std::vector<GraspRecord> records;
  records.reserve(grasps.size());
  for (const auto& g : grasps) {
    GraspRecord r;
    r.hand = hand.id;
    r.hand_source = hand.source_file;
    r.object = object.name;
    r.object_source = object.source;
    r.object_scale = object.scale;
    for (const auto& a : hand.actuators) r.actuators.push_back(a.name);
    r.run = run;
    r.grasp = g;
    records.push_back(std::move(r));
  }
  return records;
}

std::string graspRecordLine(const GraspRecord& r) {
  const PlannedGrasp& g = r.grasp;
  json rot = json::array();
  for (int i = 0; i < 9; ++i) rot.push_back(g.palm_object.linear()(i / 3, i % 3));
  json joints = json::array();
  for (const auto& q : g.closed.q) joints.push_back(vec(q));
  json contacts = json::array();
  for (const auto& c : g.closed.contacts)
    contacts.push_back({{"finger", c.finger},
                        {"row", c.finger < 0 ? -1 : c.row},
                        {"point_object_m", vec3(c.point_world)},
                        {"normal_into_object", vec3(c.normal_world)},
                        {"force_N", c.force}});
  json validation = json::array();
  for (const auto& o : r.validation) validation.push_back(outcomeJson(o));
  json j = {
      {"format", "handsim-grasp"},
      {"version", 1},
      {"hand", r.hand},
      {"hand_source", r.hand_source},
      {"object", r.object},
      {"object_source", r.object_source},
      {"object_scale", r.object_scale},
      {"run",
       {{"seed", r.run.seed},
        {"strategy", r.run.strategy},
        {"energy", r.run.energy},
        {"grasps", r.run.grasps},
        {"candidates", r.run.candidates},
        {"friction", r.run.friction},
        {"distinct_fraction", r.run.distinct_fraction},
        {"distinct_angle_rad", r.run.distinct_angle},
        {"radius_m", r.run.radius},
        {"shard", r.run.shard},
        {"shards", r.run.shards}}},
      {"candidate", g.candidate},
      {"actuators", r.actuators},
      {"palm_object", {{"translation_m", vec3(g.palm_object.translation())}, {"rotation", rot}}},
      {"amplitudes", vec(g.amplitudes)},
      {"pregrasp", vec(g.pregrasp)},
      {"energy", g.energy},
      {"closed",
       {{"posture", vec(g.closed.posture)},
        {"joints", joints},
        {"time_s", g.closed.time},
        {"stalled", g.closed.stalled},
        {"force_closure", g.closed.quality.force_closure},
        {"epsilon", g.closed.quality.epsilon},
        {"volume", g.closed.quality.volume},
        {"contacts", contacts}}},
      {"validation", validation}};
  if (r.run.constraints.any()) j["run"]["constraints"] = constraintsJson(r.run.constraints);
  // Only when the hand closed on the held object, so other files read and write unchanged.
  if (g.closed.held) j["closed"]["held"] = true;
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string graspRecordsText(const std::vector<GraspRecord>& records) {
  std::string out;
  for (const auto& r : records) out += graspRecordLine(r) + "\n";
  return out;
}

std::vector<GraspRecord> parseGraspRecords(const std::string& text, const std::string& file) {
  std::vector<GraspRecord> out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    try {
      out.push_back(readLine(JsonDocument::parse(line, file)));
    } catch (const io::InputError& e) {
      io::SourceLocation where = e.location();
      where.file = file;
      where.line = number;
      throw io::InputError(where, e.problem());
    }
  }
  return out;
}

std::vector<GraspRecord> loadGraspRecords(const std::string& path) {
  return parseGraspRecords(io::readFile(path), path);
}

void saveGraspRecords(const std::string& path, const std::vector<GraspRecord>& records) {
  io::writeFileAtomically(path, graspRecordsText(records));
}

sim::ObjectModel loadPlanObject(const std::string& source, double scale) {
  std::error_code ec;
  std::string path = source;
  if (!std::filesystem::is_regular_file(path, ec) &&
      source.find_first_of("/\\.") == std::string::npos) {
    const std::string shipped = hand::assetDirectory() + "/objects/" + source + ".wrl";
    if (std::filesystem::is_regular_file(shipped, ec)) path = shipped;
  }
  geometry::MeshLoadOptions mo;
  mo.scale = scale;
  return sim::loadObject(path, mo, std::filesystem::path(source).stem().string());
}

std::vector<GraspRecord> mergeShardRecords(const std::vector<std::vector<GraspRecord>>& shards) {
  const GraspRecord* first = nullptr;
  for (const auto& s : shards)
    if (!s.empty()) {
      first = &s.front();
      break;
    }
  if (!first) return {};
  const RunInfo& run = first->run;
  auto same = [&](const GraspRecord& r) {
    return r.hand == first->hand && r.object == first->object &&
           r.object_source == first->object_source && r.object_scale == first->object_scale &&
           r.run.seed == run.seed && r.run.strategy == run.strategy && r.run.energy == run.energy &&
           r.run.grasps == run.grasps && r.run.candidates == run.candidates &&
           r.run.friction == run.friction && r.run.distinct_fraction == run.distinct_fraction &&
           r.run.distinct_angle == run.distinct_angle && r.run.radius == run.radius &&
           r.run.shards == run.shards && r.run.constraints == run.constraints;
  };
  std::set<int> seen;
  std::vector<PlannedGrasp> candidates;
  std::vector<GraspRecord> by_candidate;
  for (const auto& s : shards) {
    if (s.empty()) continue;
    const int shard = s.front().run.shard;
    if (!seen.insert(shard).second)
      throw std::invalid_argument("merge: shard " + std::to_string(shard) + " given twice");
    for (const auto& r : s) {
      if (!same(r) || r.run.shard != shard)
        throw std::invalid_argument(
            "merge: the files come from different runs (hand, object, "
            "seed or options differ)");
      if (r.run.shards < 2) throw std::invalid_argument("merge: a file is not a shard");
      candidates.push_back(r.grasp);
      by_candidate.push_back(r);
    }
  }
  PlannerOptions o;
  o.grasps = run.grasps;
  o.distinct_fraction = run.distinct_fraction;
  o.distinct_angle = run.distinct_angle;
  const auto selected = selectGrasps(std::move(candidates), run.radius, o);
  std::vector<GraspRecord> out;
  for (const auto& g : selected)
    for (const auto& r : by_candidate)
      if (r.grasp.candidate == g.candidate) {
        GraspRecord m = r;
        m.run.shard = 0;
        m.run.shards = 1;
        out.push_back(std::move(m));
        break;
      }
  return out;
}

}  // namespace handsim::planner
