// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp sweeps (seed 002 sec. VII-A, Table I): for each initial palm pose around an object,
// check the start for collision, close the hand with the simulator (contacts, clutches), and
// rate the closed grasp by its wrench space.
#include "handsim/grasp/grasp_sweep.hpp"

#include <atomic>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>

#include "../io/json_document.hpp"
#include "handsim/geometry/mesh_loader.hpp"
#include "handsim/grasp/grasp_contact.hpp"
#include "handsim/hand/hand_loader.hpp"
#include "handsim/sim/scenario.hpp"
#include "handsim/sim/step.hpp"

namespace handsim::grasp {

namespace {

using io::JsonDocument;
using json = nlohmann::json;

std::filesystem::path resolve(const std::filesystem::path& dir, const std::string& rel) {
  std::error_code ec;
  const std::filesystem::path local = dir / rel;
  if (std::filesystem::is_regular_file(local, ec)) return local;
  return std::filesystem::path(hand::assetDirectory()) / rel;
}

std::vector<double> gridAxis(const JsonDocument& doc, const json& grid, const std::string& ptr,
                             const char* key) {
  const std::string p = JsonDocument::child(ptr, key);
  const auto v = doc.numbers(doc.require(grid, ptr, key), p, 3);
  const double n = v[2];
  if (n < 1 || n > 1000 || std::floor(n) != n)
    doc.fail(p, "expected [first, last, count] with a whole count from 1 to 1000");
  std::vector<double> out;
  for (int i = 0; i < static_cast<int>(n); ++i)
    out.push_back(n == 1 ? v[0] : v[0] + (v[1] - v[0]) * i / (n - 1));
  return out;
}

}  // namespace

SweepSpec loadSweepSpec(const std::string& path) {
  const JsonDocument doc = JsonDocument::load(path);
  const json& root = doc.object(doc.root(), "");
  doc.allowOnly(root, "",
                {"format", "version", "description", "closing", "object", "palm_orientation",
                 "grid", "palm_positions_m", "friction", "cone_edges", "torque_radius_m"});
  if (doc.string(doc.require(root, "", "format"), "/format") != "handsim-sweep")
    doc.fail("/format", "expected \"handsim-sweep\"");
  if (doc.integer(doc.require(root, "", "version"), "/version") != 1)
    doc.fail("/version", "unsupported version");
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();

  SweepSpec spec;
  spec.source_file = path;
  // The closing motion is an ordinary scenario (hand, start, trajectories, step, duration).
  const std::string closing = doc.string(doc.require(root, "", "closing"), "/closing");
  sim::Scenario sc;
  try {
    sc = sim::loadScenario(resolve(dir, closing).string());
  } catch (const io::InputError& e) {
    doc.fail("/closing", e.what());
  }
  spec.hand = sc.hand;
  spec.closing = sc.plan;
  // Only the first and last states are recorded: a sweep keeps the final grasp.
  spec.closing.record_every = std::numeric_limits<int>::max();
  spec.options = sc.options;

  const json& obj = doc.object(doc.require(root, "", "object"), "/object");
  doc.allowOnly(obj, "/object", {"mesh", "scale", "name"});
  const std::string mesh = doc.string(doc.require(obj, "/object", "mesh"), "/object/mesh");
  geometry::MeshLoadOptions mo;
  if (const json* s = doc.optional(obj, "scale")) {
    mo.scale = doc.rational(*s, "/object/scale");
    if (!(mo.scale > 0.0)) doc.fail("/object/scale", "must be positive");
  }
  const std::filesystem::path mesh_path = resolve(dir, mesh);
  const std::string name = obj.contains("name") ? doc.string(obj["name"], "/object/name")
                                                : std::filesystem::path(mesh).stem().string();
  try {
    spec.object = sim::loadObject(mesh_path.string(), mo, name, spec.options.contact.kdop_k);
  } catch (const io::InputError& e) {
    doc.fail("/object/mesh", e.what());
  }
  const geometry::TriangleMesh& merged = spec.object.geometry->collision.mesh;
  const geometry::Aabb box = geometry::boundingBox(merged);
  if (box.empty()) doc.fail("/object/mesh", "the object has no triangles");
  spec.object_centre = 0.5 * (box.min + box.max);

  // Palm orientation in the object frame, as a pose without translation.
  Eigen::Matrix3d palm_rotation = Eigen::Matrix3d::Identity();
  if (const json* o = doc.optional(root, "palm_orientation")) {
    if (o->contains("translation_m"))
      doc.fail("/palm_orientation/translation_m",
               "positions come from 'grid' or 'palm_positions_m'");
    palm_rotation = doc.pose(*o, "/palm_orientation").linear();
  }

  std::vector<Eigen::Vector3d> positions;
  const json* grid = doc.optional(root, "grid");
  const json* list = doc.optional(root, "palm_positions_m");
  if (!!grid == !!list) doc.fail("", "give exactly one of 'grid' or 'palm_positions_m'");
  if (grid) {
    doc.object(*grid, "/grid");
    doc.allowOnly(*grid, "/grid", {"x_m", "y_m", "z_m"});
    const auto xs = gridAxis(doc, *grid, "/grid", "x_m");
    const auto ys = gridAxis(doc, *grid, "/grid", "y_m");
    const auto zs = gridAxis(doc, *grid, "/grid", "z_m");
    // x fastest, then y, then z (a layer per z value).
    for (double z : zs)
      for (double y : ys)
        for (double x : xs) positions.emplace_back(x, y, z);
  } else {
    doc.array(*list, "/palm_positions_m");
    for (std::size_t i = 0; i < list->size(); ++i)
      positions.push_back(doc.vector3((*list)[i], JsonDocument::child("/palm_positions_m", i)));
  }
  if (positions.empty()) doc.fail("", "the sweep has no poses");
  if (positions.size() > 1000000) doc.fail("", "more than a million poses");
  for (const auto& p : positions) {
    Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
    pose.linear() = palm_rotation;
    pose.translation() = p;
    spec.palm_poses.push_back(pose);
  }

  if (const json* f = doc.optional(root, "friction")) {
    spec.friction = doc.rational(*f, "/friction");
    if (spec.friction < 0.0) doc.fail("/friction", "must not be negative");
  }
  if (const json* e = doc.optional(root, "cone_edges")) {
    spec.quality.cone_edges = doc.integer(*e, "/cone_edges");
    if (spec.quality.cone_edges < 3 || spec.quality.cone_edges > 64)
      doc.fail("/cone_edges", "expected 3 to 64");
  }
  spec.quality.torque_radius = torqueRadius(merged, spec.object_centre);
  if (const json* r = doc.optional(root, "torque_radius_m")) {
    spec.quality.torque_radius = doc.rational(*r, "/torque_radius_m");
    if (!(spec.quality.torque_radius > 0.0)) doc.fail("/torque_radius_m", "must be positive");
  }
  return spec;
}

std::shared_ptr<const sim::Model> compileSweepModel(const SweepSpec& spec) {
  return sim::compileModel(spec.hand, {spec.object}, spec.options);
}

SweepResult evaluateSweepPose(const SweepSpec& spec, int index,
                              const std::shared_ptr<const sim::Model>& model) {
  const Eigen::Isometry3d& palm = spec.palm_poses.at(static_cast<std::size_t>(index));
  SweepResult r;
  r.index = index;
  r.palm_position = palm.translation();
  // Everything runs in the palm frame: the object is placed by the palm pose's inverse.
  sim::RunPlan plan = spec.closing;
  plan.object_pose_world = {palm.inverse()};
  sim::Run run(model, std::move(plan));
  r.start_collision = sim::handTouchesObjects(*model, run.state());
  if (r.start_collision) return r;
  run.runToEnd();

  const sim::SimState& s = run.state();
  r.contacts = static_cast<int>(s.contacts.size());
  GraspQualityOptions q = spec.quality;
  q.torque_reference = s.object_pose_world[0] * spec.object_centre;
  r.quality = evaluateGrasp(graspContactsOn(s.contacts, 0, spec.friction), q);
  return r;
}

std::vector<SweepResult> runSweep(const SweepSpec& spec, const std::vector<int>& indices,
                                  unsigned threads,
                                  const std::function<void(const SweepResult&)>& done) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  threads =
      std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(1, indices.size())));
  // One model for every thread: the link and object trees are built once.
  const std::shared_ptr<const sim::Model> model = compileSweepModel(spec);
  std::vector<SweepResult> results(indices.size());
  std::atomic<std::size_t> next{0};
  std::mutex report;
  std::exception_ptr failure;
  auto worker = [&]() {
    try {
      for (std::size_t i = next++; i < indices.size(); i = next++) {
        results[i] = evaluateSweepPose(spec, indices[i], model);
        if (done) {
          const std::lock_guard<std::mutex> lock(report);
          done(results[i]);
        }
      }
    } catch (...) {
      const std::lock_guard<std::mutex> lock(report);
      if (!failure) failure = std::current_exception();
      next = indices.size();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
  return results;
}

SweepSummary summarize(const std::vector<SweepResult>& results) {
  SweepSummary s;
  std::vector<double> eps;
  for (const auto& r : results) {
    ++s.configurations;
    if (!r.start_collision) ++s.collision_free;
    if (r.quality.force_closure) {
      ++s.force_closure;
      eps.push_back(r.quality.epsilon);
    }
  }
  if (!eps.empty()) {
    double sum = 0.0;
    for (double e : eps) sum += e;
    s.epsilon_mean = sum / static_cast<double>(eps.size());
    if (eps.size() > 1) {
      double sq = 0.0;
      for (double e : eps) sq += (e - s.epsilon_mean) * (e - s.epsilon_mean);
      s.epsilon_std = std::sqrt(sq / static_cast<double>(eps.size() - 1));
    }
  }
  return s;
}

std::string sweepCsv(const std::vector<SweepResult>& results) {
  std::ostringstream out;
  out << "index,x,y,z,start_collision,contacts,force_closure,epsilon,volume\n";
  out << std::setprecision(17);
  for (const auto& r : results)
    out << r.index << ',' << r.palm_position.x() << ',' << r.palm_position.y() << ','
        << r.palm_position.z() << ',' << (r.start_collision ? 1 : 0) << ',' << r.contacts << ','
        << (r.quality.force_closure ? 1 : 0) << ',' << r.quality.epsilon << ',' << r.quality.volume
        << '\n';
  return out.str();
}

std::vector<SweepResult> parseSweepCsv(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::string line;
  std::vector<SweepResult> out;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (number == 1) {
      if (line.rfind("index,x,y,z,", 0) != 0)
        throw io::InputError({file, 1, 1, ""}, "not a sweep result file (unexpected header)");
      continue;
    }
    if (line.empty()) continue;
    std::istringstream row(line);
    SweepResult r;
    char c[8];
    int collision = 0, closure = 0;
    row >> r.index >> c[0] >> r.palm_position.x() >> c[1] >> r.palm_position.y() >> c[2] >>
        r.palm_position.z() >> c[3] >> collision >> c[4] >> r.contacts >> c[5] >> closure >> c[6] >>
        r.quality.epsilon >> c[7] >> r.quality.volume;
    if (!row || r.index < 0)
      throw io::InputError({file, number, 1, ""}, "cannot read this result row");
    r.start_collision = collision != 0;
    r.quality.force_closure = closure != 0;
    out.push_back(r);
  }
  return out;
}

}  // namespace handsim::grasp
