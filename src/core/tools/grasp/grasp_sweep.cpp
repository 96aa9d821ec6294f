// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp sweeps (seed 002 sec. VII-A, Table I): for each initial palm pose around an object,
// check the start for collision, close the hand with the simulator (contacts, clutches), and
// rate the closed grasp by its wrench space.
#include "handsim/grasp/grasp_sweep.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string_view>

#include "../../formats/json_document.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/mesh_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/grasp/grasp_contact.hpp"
#include "handsim/io/input_file.hpp"
#include "handsim/sim/step.hpp"
#include "handsim/tools/lift_and_shake.hpp"
#include "handsim/tools/run_grid.hpp"

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

// 64-bit FNV-1a: identifies a sweep's inputs in its results file (not a security measure).
constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
std::uint64_t fnv1a(std::string_view bytes, std::uint64_t h = kFnvOffset) {
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}
std::uint64_t fnv1a(const std::string& bytes, std::uint64_t h = kFnvOffset) {
  return fnv1a(std::string_view(bytes), h);
}
template <typename T>
std::uint64_t hashValue(const T& v, std::uint64_t h) {
  return fnv1a(std::string_view(reinterpret_cast<const char*>(&v), sizeof v), h);
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

// Duration of the lift [s].
double liftDuration(const HoldTestSpec& h) {
  if (!(h.lift > 0.0)) return 0.0;
  return sim::TrapezoidalProfile(0.0, h.lift, h.lift_speed, h.lift_acceleration).duration();
}

double shakeDuration(const HoldTestSpec& h) {
  return h.shake_amplitude > 0.0 ? h.shake_cycles / h.shake_frequency_hz : 0.0;
}

double holdDuration(const HoldTestSpec& h) {
  return h.release + liftDuration(h) + shakeDuration(h) + h.settle;
}

// Unit shake direction in the world the sweep runs in, perpendicular to gravity. g_palm:
// gravity in the palm frame; palm_world: the palm's orientation in that world. Throws
// std::invalid_argument when the chosen direction is along gravity.
Eigen::Vector3d shakeDirection(const HoldTestSpec& h, const Eigen::Vector3d& g_palm,
                               const Eigen::Matrix3d& palm_world) {
  const Eigen::Vector3d down = g_palm.normalized();
  Eigen::Vector3d d = h.shake_direction_palm;
  if (d.isZero(0.0)) {
    // Sideways as an arm would shake it: across gravity and the palm normal (z).
    d = down.cross(Eigen::Vector3d::UnitZ());
    if (d.norm() < 1e-6) d = Eigen::Vector3d::UnitX();
  }
  d -= d.dot(down) * down;
  if (d.norm() < 1e-6 * h.shake_direction_palm.norm() || d.norm() < 1e-12)
    throw std::invalid_argument("hold test: shake_direction_palm is along gravity");
  return palm_world * d.normalized();
}

HoldTestSpec readHoldTest(const JsonDocument& doc, const json& block) {
  const std::string p = "/hold_test";
  doc.object(block, p);
  doc.allowOnly(
      block, p,
      {"release_s", "lift_m", "lift_speed_mps", "lift_acceleration_mps2", "shake_amplitude_m",
       "shake_frequency_hz", "shake_cycles", "settle_s", "tolerance_m", "gravity_object_mps2",
       "shake_direction_palm", "mass_kg", "density_kg_m3"});
  HoldTestSpec h;
  // A number checked by `ok`; `what` says what it must be.
  auto number = [&](const char* key, double& out, bool (*ok)(double), const char* what) {
    if (const json* v = doc.optional(block, key)) {
      const std::string field = JsonDocument::child(p, key);
      out = doc.rational(*v, field);
      if (!ok(out)) doc.fail(field, what);
    }
  };
  auto positive = [](double v) { return v > 0.0 && std::isfinite(v); };
  auto non_negative = [](double v) { return v >= 0.0 && std::isfinite(v); };
  number("release_s", h.release, non_negative, "must be >= 0");
  number("lift_m", h.lift, non_negative, "must be >= 0");
  number("lift_speed_mps", h.lift_speed, positive, "must be > 0");
  number("lift_acceleration_mps2", h.lift_acceleration, positive, "must be > 0");
  number("shake_amplitude_m", h.shake_amplitude, non_negative, "must be >= 0");
  number("shake_frequency_hz", h.shake_frequency_hz, positive, "must be > 0");
  if (const json* v = doc.optional(block, "shake_cycles")) {
    h.shake_cycles = doc.integer(*v, p + "/shake_cycles");
    if (h.shake_cycles < 0 || h.shake_cycles > 10000)
      doc.fail(p + "/shake_cycles", "expected a whole number from 0 to 10000");
  }
  number("settle_s", h.settle, non_negative, "must be >= 0");
  number("tolerance_m", h.tolerance, positive, "must be > 0");
  if (const json* v = doc.optional(block, "gravity_object_mps2")) {
    h.gravity_object = doc.vector3(*v, p + "/gravity_object_mps2");
    if (!(h.gravity_object.norm() > 0.0))
      doc.fail(p + "/gravity_object_mps2", "must not be zero (the test lifts against it)");
  }
  if (const json* v = doc.optional(block, "shake_direction_palm")) {
    h.shake_direction_palm = doc.vector3(*v, p + "/shake_direction_palm");
    if (!(h.shake_direction_palm.norm() > 0.0))
      doc.fail(p + "/shake_direction_palm", "must not be zero");
  }
  const json* mass = doc.optional(block, "mass_kg");
  const json* density = doc.optional(block, "density_kg_m3");
  if (mass && density)
    doc.fail(p + "/density_kg_m3", "give 'mass_kg' or 'density_kg_m3', not both");
  number("mass_kg", h.mass_kg, positive, "must be > 0");
  number("density_kg_m3", h.density, positive, "must be > 0");
  if (holdDuration(h) > 1e4) doc.fail(p, "the test lasts more than 10000 s");
  return h;
}

// "object": the mesh (relative to the spec's folder `dir`), its scale and name; sets
// spec.object and spec.object_centre (the centre of its bounding box).
void readSweepObject(const JsonDocument& doc, const json& root, const std::filesystem::path& dir,
                     SweepSpec& spec) {
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
}

// The palm positions in the object frame: "grid" (x fastest, then y, then z) or
// "palm_positions_m", at most kMaxSweepPoses of them.
std::vector<Eigen::Vector3d> readPalmPositions(const JsonDocument& doc, const json& root) {
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
    // Counted before the positions are made: 1000^3 would be 24 GB of them.
    if (xs.size() * ys.size() * zs.size() > kMaxSweepPoses)
      doc.fail("/grid", "more than " + std::to_string(kMaxSweepPoses) + " poses (" +
                            std::to_string(xs.size() * ys.size() * zs.size()) + ")");
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
  if (positions.size() > kMaxSweepPoses)
    doc.fail("", "more than " + std::to_string(kMaxSweepPoses) + " poses");
  return positions;
}

}  // namespace

SweepSpec loadSweepSpec(const std::string& path) {
  return parseSweepSpec(io::readInputFile(path, io::kMaxJsonInputBytes), path);
}

SweepSpec parseSweepSpec(const std::string& text, const std::string& path) {
  const JsonDocument doc = JsonDocument::parse(text, path);
  const json& root = doc.object(doc.root(), "");
  doc.allowOnly(
      root, "",
      {"format", "version", "description", "closing", "object", "palm_orientation", "grid",
       "palm_positions_m", "friction", "cone_edges", "torque_radius_m", "hold_test"});
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
  spec.source_hash = fnv1a(
      io::readInputFile(resolve(dir, closing).string(), io::kMaxJsonInputBytes), fnv1a(doc.text()));
  // Only the first and last states are recorded: a sweep keeps the final grasp.
  spec.closing.record_every = std::numeric_limits<int>::max();
  spec.options = sc.options;

  readSweepObject(doc, root, dir, spec);
  const geometry::TriangleMesh& merged = spec.object.geometry->collision.mesh;

  // Palm orientation in the object frame, as a pose without translation.
  Eigen::Matrix3d palm_rotation = Eigen::Matrix3d::Identity();
  if (const json* o = doc.optional(root, "palm_orientation")) {
    if (o->contains("translation_m"))
      doc.fail("/palm_orientation/translation_m",
               "positions come from 'grid' or 'palm_positions_m'");
    palm_rotation = doc.pose(*o, "/palm_orientation").linear();
  }

  const std::vector<Eigen::Vector3d> positions = readPalmPositions(doc, root);
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
  if (const json* h = doc.optional(root, "hold_test")) {
    spec.hold_test = readHoldTest(doc, *h);
    try {
      shakeDirection(*spec.hold_test, palm_rotation.transpose() * spec.hold_test->gravity_object,
                     Eigen::Matrix3d::Identity());
    } catch (const std::invalid_argument&) {
      doc.fail("/hold_test/shake_direction_palm",
               "must not be along gravity (gravity_object_mps2 turned into the palm frame)");
    }
    // The free object needs a mass: a closed mesh.
    sim::ObjectModel probe = spec.object;
    sim::computeMassProperties(probe, 1.0);
    if (!(probe.mass.mass_kg > 0.0))
      doc.fail("/object/mesh", "the hold test needs a closed mesh (it has no volume)");
  }
  return spec;
}

void validateHoldTest(const HoldTestSpec& h) {
  auto bad = [](const char* field, const char* what) {
    throw std::invalid_argument(std::string("hold test: ") + field + " " + what);
  };
  auto finite = [](double v) { return std::isfinite(v); };
  if (!(h.release >= 0.0) || !finite(h.release)) bad("release_s", "must be finite and >= 0");
  if (!(h.lift >= 0.0) || !finite(h.lift)) bad("lift_m", "must be finite and >= 0");
  if (!(h.lift_speed > 0.0) || !finite(h.lift_speed)) bad("lift_speed_mps", "must be > 0");
  if (!(h.lift_acceleration > 0.0) || !finite(h.lift_acceleration))
    bad("lift_acceleration_mps2", "must be > 0");
  if (!(h.shake_amplitude >= 0.0) || !finite(h.shake_amplitude))
    bad("shake_amplitude_m", "must be finite and >= 0");
  if (!(h.shake_frequency_hz > 0.0) || !finite(h.shake_frequency_hz))
    bad("shake_frequency_hz", "must be > 0");
  if (h.shake_cycles < 0 || h.shake_cycles > 10000) bad("shake_cycles", "must be 0 to 10000");
  if (!(h.settle >= 0.0) || !finite(h.settle)) bad("settle_s", "must be finite and >= 0");
  if (!(h.tolerance > 0.0) || !finite(h.tolerance)) bad("tolerance_m", "must be > 0");
  if (!h.gravity_object.allFinite() || !(h.gravity_object.norm() > 0.0))
    bad("gravity_object_mps2", "must be finite and not zero");
  if (!h.shake_direction_palm.allFinite()) bad("shake_direction_palm", "must be finite");
  if (!(h.mass_kg >= 0.0) || !finite(h.mass_kg)) bad("mass_kg", "must be finite and >= 0");
  if (!(h.density > 0.0) || !finite(h.density)) bad("density_kg_m3", "must be > 0");
  if (holdDuration(h) > 1e4) bad("", "lasts more than 10000 s");
}

SweepModels compileSweepModels(const SweepSpec& spec) {
  SweepModels m;
  m.closing = sim::compileModel(spec.hand, {spec.object}, spec.options);
  if (!spec.hold_test) return m;
  const HoldTestSpec& h = *spec.hold_test;
  validateHoldTest(h);
  if (spec.palm_poses.empty()) throw std::invalid_argument("sweep: no poses");
  const Eigen::Matrix3d r = spec.palm_poses.front().linear();
  for (const auto& p : spec.palm_poses)
    if (!p.linear().isApprox(r, 1e-12))
      throw std::invalid_argument(
          "hold test: every pose must have the palm orientation of the first (gravity is set in "
          "the palm frame once per sweep)");
  shakeDirection(h, r.transpose() * h.gravity_object, Eigen::Matrix3d::Identity());
  sim::ObjectModel free = spec.object;
  free.fixed = false;
  free.friction = spec.friction;
  sim::computeMassProperties(free, 1.0);
  if (!(free.mass.volume_m3 > 0.0))
    throw std::invalid_argument("hold test: the object '" + free.name +
                                "' has no volume (open mesh): it cannot be set free");
  free.warnings.clear();
  const double density = h.mass_kg > 0.0 ? h.mass_kg / free.mass.volume_m3 : h.density;
  sim::computeMassProperties(free, density);
  sim::Options options = spec.options;
  // Gravity in the world the sweep runs in: the palm frame, placed by the closing plan.
  options.gravity_world = spec.closing.palm_pose_world.linear() * r.transpose() * h.gravity_object;
  // The ground of a closing scenario is a plane of its world, not of the object's.
  options.ground.enabled = false;
  m.hold = sim::compileModel(spec.hand, {free}, options, m.closing->hand_geometry);
  return m;
}

SweepResult evaluateSweepPose(const SweepSpec& spec, int index, const SweepModels& models) {
  const Eigen::Isometry3d& palm = spec.palm_poses.at(static_cast<std::size_t>(index));
  SweepResult r;
  r.index = index;
  r.palm_position = palm.translation();
  // Everything runs in the palm frame: the object is placed by the palm pose's inverse.
  sim::RunPlan plan = spec.closing;
  plan.object_pose_world = {palm.inverse()};
  plan.object_twist_world.clear();  // the sweep's object starts at rest
  const bool hold = spec.hold_test && models.hold;
  if (hold) {
    // The lift and shake are in the plan from the start (a new plan would reset the state);
    // they begin when the closing ends.
    const HoldTestSpec& h = *spec.hold_test;
    const Eigen::Vector3d g_world = models.hold->options.gravity_world;
    const Eigen::Vector3d up = sim::liftDirection(g_world);
    const Eigen::Vector3d side =
        shakeDirection(h, spec.closing.palm_pose_world.linear().transpose() * g_world,
                       spec.closing.palm_pose_world.linear());
    const double t_lift = spec.closing.duration + h.release;
    const double t_shake = t_lift + liftDuration(h);
    try {
      if (h.lift > 0.0)
        sim::appendPalmLift(plan.palm_motion, up, h.lift, h.lift_speed, h.lift_acceleration,
                            t_lift);
      sim::appendPalmShake(plan.palm_motion, side, h.shake_amplitude, h.shake_frequency_hz,
                           h.shake_cycles, t_shake);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("hold test: the closing scenario's palm motion "
                                              "overlaps the lift: ") +
                                  e.what());
    }
    plan.duration = spec.closing.duration + holdDuration(h);
  }
  sim::Run run(models.closing, std::move(plan));
  r.start_collision = sim::handTouchesObjects(*models.closing, run.state());
  if (r.start_collision) return r;
  const std::int64_t closing_steps =
      static_cast<std::int64_t>(std::llround(spec.closing.duration / models.closing->options.dt));
  while (run.state().step < closing_steps) run.step();

  const sim::SimState& s = run.state();
  r.contacts = static_cast<int>(s.contacts.size());
  GraspQualityOptions q = spec.quality;
  q.torque_reference = s.object_pose_world[0] * spec.object_centre;
  r.quality = evaluateGrasp(graspContactsOn(s.contacts, 0, spec.friction), q);
  if (!hold) return r;

  // The hold test: the same state on the model with the object free.
  const Eigen::Vector3d com = models.hold->objects[0].mass.centre_of_mass;
  auto com_palm = [&](const sim::SimState& st) -> Eigen::Vector3d {
    return st.palm_pose_world.inverse() * (st.object_pose_world[0] * com);
  };
  const Eigen::Vector3d grasped = com_palm(s);
  run.setModel(models.hold);
  const std::int64_t released_steps = static_cast<std::int64_t>(
      std::llround((spec.closing.duration + spec.hold_test->release) / models.hold->options.dt));
  while (run.state().step < released_steps) run.step();
  const Eigen::Vector3d seated = com_palm(run.state());
  run.runToEnd();
  SweepResult::Hold out;
  out.seat = (seated - grasped).norm();
  out.slip = (com_palm(run.state()) - seated).norm();
  out.held = out.slip <= spec.hold_test->tolerance && run.state().object_stopped[0] == 0 &&
             std::isfinite(out.slip);
  r.hold = out;
  return r;
}

std::vector<SweepResult> runSweep(const SweepSpec& spec, const std::vector<int>& indices,
                                  unsigned threads,
                                  const std::function<void(const SweepResult&)>& done) {
  if (!done) return runSweep(spec, indices, threads, SweepProgress{});
  return runSweep(spec, indices, threads,
                  SweepProgress([&](const SweepResult& r, const sim::GridProgress&) { done(r); }));
}

std::vector<SweepResult> runSweep(const SweepSpec& spec, const std::vector<int>& indices,
                                  unsigned threads, const SweepProgress& done) {
  // One set of models for every thread: the link and object trees are built once.
  const SweepModels models = compileSweepModels(spec);
  std::vector<SweepResult> results(indices.size());
  sim::GridOptions grid;
  grid.threads = threads;
  if (done)
    grid.finished = [&](std::size_t k, sim::CellOutcome, const sim::GridProgress& p) {
      done(results[k], p);
    };
  sim::runGrid(
      sim::pendingCells(indices.size()),
      [&](std::size_t k) {
        results[k] = evaluateSweepPose(spec, indices[k], models);
        // A hand that starts inside the object is not closed: the cell is refused.
        return results[k].start_collision ? sim::CellOutcome::Refused : sim::CellOutcome::Ok;
      },
      grid);
  return results;
}

namespace {
// Mean and sample standard deviation (0 for fewer than two values).
void meanAndStd(const std::vector<double>& v, double& mean, double& std) {
  mean = std = 0.0;
  if (v.empty()) return;
  double sum = 0.0;
  for (double e : v) sum += e;
  mean = sum / static_cast<double>(v.size());
  if (v.size() < 2) return;
  double sq = 0.0;
  for (double e : v) sq += (e - mean) * (e - mean);
  std = std::sqrt(sq / static_cast<double>(v.size() - 1));
}
}  // namespace

SweepSummary summarize(const std::vector<SweepResult>& results) {
  SweepSummary s;
  std::vector<double> eps, eps_held, eps_dropped;
  for (const auto& r : results) {
    ++s.configurations;
    if (!r.start_collision) ++s.collision_free;
    if (r.quality.force_closure) {
      ++s.force_closure;
      eps.push_back(r.quality.epsilon);
    }
    if (r.hold) {
      ++s.hold_tested;
      if (r.hold->held) ++s.held;
      if (r.quality.force_closure) {
        ++s.force_closure_tested;
        if (r.hold->held) ++s.held_force_closure;
        (r.hold->held ? eps_held : eps_dropped).push_back(r.quality.epsilon);
      }
    }
  }
  meanAndStd(eps, s.epsilon_mean, s.epsilon_std);
  meanAndStd(eps_held, s.epsilon_held_mean, s.epsilon_held_std);
  meanAndStd(eps_dropped, s.epsilon_dropped_mean, s.epsilon_dropped_std);
  return s;
}

std::string sweepSpecHash(const SweepSpec& spec) {
  std::uint64_t h = hashValue(spec.source_hash, kFnvOffset);
  h = hashValue(spec.palm_poses.size(), h);
  for (const Eigen::Isometry3d& p : spec.palm_poses)
    for (int i = 0; i < 16; ++i) h = hashValue(p.matrix()(i), h);
  h = hashValue(spec.friction, h);
  h = hashValue(spec.quality.cone_edges, h);
  h = hashValue(spec.quality.torque_radius, h);
  h = hashValue(spec.hold_test.has_value(), h);
  if (const auto& t = spec.hold_test) {
    for (double v : {t->release, t->lift, t->lift_speed, t->lift_acceleration, t->shake_amplitude,
                     t->shake_frequency_hz, t->settle, t->tolerance, t->mass_kg, t->density})
      h = hashValue(v, h);
    h = hashValue(t->shake_cycles, h);
    for (int i = 0; i < 3; ++i) {
      h = hashValue(t->gravity_object[i], h);
      h = hashValue(t->shake_direction_palm[i], h);
    }
  }
  std::ostringstream out;
  out << std::hex << std::setw(16) << std::setfill('0') << h;
  return out.str();
}

std::string sweepCsv(const std::vector<SweepResult>& results) {
  std::ostringstream out;
  out << "index,x,y,z,start_collision,contacts,force_closure,epsilon,volume,held,slip_m,seat_m,"
         "spec\n";
  out << std::setprecision(17);
  for (const auto& r : results) {
    out << r.index << ',' << r.palm_position.x() << ',' << r.palm_position.y() << ','
        << r.palm_position.z() << ',' << (r.start_collision ? 1 : 0) << ',' << r.contacts << ','
        << (r.quality.force_closure ? 1 : 0) << ',' << r.quality.epsilon << ',' << r.quality.volume
        << ',';
    if (r.hold)
      out << (r.hold->held ? 1 : 0) << ',' << r.hold->slip << ',' << r.hold->seat;
    else
      out << ",,";
    out << ',' << r.spec_hash << '\n';
  }
  return out.str();
}

namespace {
// A whole CSV field as a number; false when it is empty or has anything else.
bool parseField(const std::string& f, double& out) {
  if (f.empty()) return false;
  char* end = nullptr;
  out = std::strtod(f.c_str(), &end);
  return end == f.c_str() + f.size();
}
}  // namespace

namespace {

// Each row with the line it was read from.
std::vector<std::pair<SweepResult, int>> parseRows(const std::string& text,
                                                   const std::string& file) {
  std::istringstream in(text);
  std::string line;
  std::vector<std::pair<SweepResult, int>> out;
  int number = 0;
  std::size_t columns = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (number == 1) {
      if (line.rfind("index,x,y,z,", 0) != 0)
        throw io::InputError({file, 1, 1, ""}, "not a sweep result file (unexpected header)");
      // Files written before the hold test have 9 columns; later ones 12.
      if (line == "index,x,y,z,start_collision,contacts,force_closure,epsilon,volume")
        columns = 9;
      else if (line ==
               "index,x,y,z,start_collision,contacts,force_closure,epsilon,volume,held,"
               "slip_m,seat_m")
        columns = 12;
      else if (line ==
               "index,x,y,z,start_collision,contacts,force_closure,epsilon,volume,held,"
               "slip_m,seat_m,spec")
        columns = 13;
      else
        throw io::InputError({file, 1, 1, ""}, "unexpected columns in the sweep result header");
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = line.find(',', start);
      f.push_back(line.substr(start, comma - start));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    auto fail = [&](const std::string& what) {
      throw io::InputError({file, number, 1, ""}, "cannot read this result row: " + what);
    };
    if (f.size() != columns)
      fail("expected " + std::to_string(columns) + " fields, found " + std::to_string(f.size()));
    double v[9];
    for (int i = 0; i < 9; ++i)
      if (!parseField(f[static_cast<std::size_t>(i)], v[i]))
        fail("field " + std::to_string(i + 1) + " is not a number");
    SweepResult r;
    if (!(v[0] >= 0.0 && v[0] < 2147483647.0) || std::floor(v[0]) != v[0])
      fail("the index must be a whole number >= 0");
    r.index = static_cast<int>(v[0]);
    if (!(v[5] >= 0.0 && v[5] < 2147483647.0) || std::floor(v[5]) != v[5])
      fail("contacts must be a whole number >= 0");
    r.palm_position = Eigen::Vector3d(v[1], v[2], v[3]);
    r.start_collision = v[4] != 0.0;
    r.contacts = static_cast<int>(v[5]);
    r.quality.force_closure = v[6] != 0.0;
    r.quality.epsilon = v[7];
    r.quality.volume = v[8];
    if (columns >= 12 && !(f[9].empty() && f[10].empty() && f[11].empty())) {
      double held = 0.0, slip = 0.0, seat = 0.0;
      if (!parseField(f[9], held) || !(held == 0.0 || held == 1.0))
        fail("held must be 0, 1 or empty");
      if (!parseField(f[10], slip) || !parseField(f[11], seat))
        fail("slip_m and seat_m must be numbers when held is given");
      r.hold = SweepResult::Hold{held == 1.0, slip, seat};
    }
    if (columns == 13) {
      r.spec_hash = f[12];
      if (!r.spec_hash.empty() && r.spec_hash.size() != 16)
        fail("spec must be 16 hexadecimal digits");
      if (!r.spec_hash.empty() &&
          r.spec_hash.find_first_not_of("0123456789abcdef") != std::string::npos)
        fail("spec must be 16 hexadecimal digits");
    }
    out.emplace_back(std::move(r), number);
  }
  return out;
}

}  // namespace

std::vector<SweepResult> parseSweepCsv(const std::string& text, const std::string& file) {
  std::vector<SweepResult> out;
  for (auto& [r, line] : parseRows(text, file)) out.push_back(std::move(r));
  return out;
}

std::vector<SweepResult> parseResumeCsv(const std::string& text, const std::string& file,
                                        const SweepSpec& spec) {
  const std::string hash = sweepSpecHash(spec);
  std::vector<SweepResult> out;
  std::vector<int> line_of(spec.palm_poses.size(), 0);
  for (auto& [r, line] : parseRows(text, file)) {
    const auto fail = [&, line = line](const std::string& what) {
      throw io::InputError({file, line, 1, ""}, "cannot resume from this row: " + what);
    };
    if (r.spec_hash.empty())
      fail(
          "it has no spec hash (written before results carried one, or not by a sweep); "
          "results can only be resumed by the sweep that wrote them: choose another --out");
    if (r.spec_hash != hash)
      fail("it belongs to another sweep (spec " + r.spec_hash + ", this sweep's is " + hash +
           ": its file, closing scenario, poses, friction or hold test differ); choose another "
           "--out or remove the file");
    if (r.index >= static_cast<int>(spec.palm_poses.size()))
      fail("index " + std::to_string(r.index) + " is not a pose of this sweep (it has " +
           std::to_string(spec.palm_poses.size()) + ")");
    const auto i = static_cast<std::size_t>(r.index);
    if (line_of[i] > 0)
      fail("index " + std::to_string(r.index) + " is also on line " + std::to_string(line_of[i]));
    line_of[i] = line;
    const Eigen::Vector3d expected = spec.palm_poses[i].translation();
    if (!((r.palm_position - expected).norm() <= 1e-12 * (1.0 + expected.norm())))
      fail("its palm position is not that of pose " + std::to_string(r.index));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace handsim::grasp
