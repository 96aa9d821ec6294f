// SPDX-License-Identifier: GPL-3.0-or-later
// The grasp planner and its validation presets (docs/planner.md; docs/python.md, "Planning
// grasps"): handsim.plan, handsim.validate, the records as handsim.Grasp with numpy arrays,
// read and written as the CLI's JSON Lines.
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/planner/grasp_records.hpp"
#include "handsim/planner/planner.hpp"
#include "handsim/planner/validation.hpp"
#include "handsim/tools/run_grid.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {

using planner::DirectionOutcome;
using planner::GraspRecord;
using planner::ValidationOutcome;
using Vector = Eigen::VectorXd;

unsigned threadCount(int threads) {
  if (threads < 0) throw std::invalid_argument("threads must be >= 0 (0: all cores)");
  return threads == 0 ? std::max(1u, std::thread::hardware_concurrency())
                      : static_cast<unsigned>(threads);
}

// A hand: a handsim.Hand (copied, so Python may change its own while the planner runs without
// the GIL), a built-in id or a hand file.
std::shared_ptr<const hand::HandModel> handArgument(const py::handle& h) {
  if (py::isinstance<py::str>(h)) {
    const std::string id = h.cast<std::string>();
    const auto ids = hand::builtinHandIds();
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) requireFile(id);
    return std::make_shared<const hand::HandModel>(hand::loadHand(id));
  }
  if (!py::isinstance<hand::HandModel>(h))
    throw std::invalid_argument(
        "hand: expected a handsim.Hand, a built-in hand id or a hand "
        "file, got " +
        std::string(py::str(py::type::of(h))));
  return std::make_shared<const hand::HandModel>(h.cast<const hand::HandModel&>());
}

// An object: a handsim.Object (its source and scale are recorded), a shipped object's name
// ("cube") or a mesh file, scaled by `scale`.
sim::ObjectModel objectArgument(const py::handle& o, double scale) {
  if (!(scale > 0.0) || !std::isfinite(scale))
    throw std::invalid_argument("scale must be positive and finite");
  if (py::isinstance<py::str>(o)) {
    const std::string source = o.cast<std::string>();
    std::error_code ec;
    const bool shipped = source.find_first_of("/\\.") == std::string::npos &&
                         std::filesystem::is_regular_file(
                             hand::assetDirectory() + "/objects/" + source + ".wrl", ec);
    if (!shipped) requireFile(source);
    return planner::loadPlanObject(source, scale);
  }
  if (!py::isinstance<sim::ObjectModel>(o))
    throw std::invalid_argument(
        "object: expected a handsim.Object, a shipped object's name "
        "(e.g. 'cube') or a mesh file, got " +
        std::string(py::str(py::type::of(o))));
  if (scale != 1.0)
    throw std::invalid_argument(
        "scale applies to an object given by name or file; a "
        "handsim.Object keeps the scale it was loaded with");
  return o.cast<const sim::ObjectModel&>();
}

// A pair (a, b) of Python values, or a ValueError naming `what` and the expected form.
std::pair<py::object, py::object> pairOf(const py::handle& v, const char* what, const char* form) {
  if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v) || py::len(v) != 2)
    throw std::invalid_argument(std::string(what) + ": expected " + form);
  const auto s = py::reinterpret_borrow<py::sequence>(v);
  return {s[0], s[1]};
}

planner::PlannerConstraints constraintsOf(const py::object& support_plane,
                                          const py::object& approach_cone,
                                          const py::object& palm_region,
                                          const sim::ObjectModel& object) {
  planner::PlannerConstraints c;
  if (!support_plane.is_none()) {
    if (py::isinstance<py::str>(support_plane)) {
      const std::string text = support_plane.cast<std::string>();
      if (text != "bottom")
        throw std::invalid_argument("support_plane: 'bottom' or (point, normal), got '" + text +
                                    "'");
      c.support_plane = planner::parseSupportPlane(text, object.geometry->collision.mesh);
    } else {
      const auto [point, normal] = pairOf(support_plane, "support_plane",
                                          "'bottom' or (point, normal): a point [m] and the "
                                          "normal of the side the hand stays on");
      planner::SupportPlane p;
      p.point = vector3(point, "support_plane point");
      p.normal = vector3(normal, "support_plane normal");
      c.support_plane = p;
    }
  }
  if (!approach_cone.is_none()) {
    const auto [axis, angle] = pairOf(approach_cone, "approach_cone", "(axis, half_angle_rad)");
    planner::ApproachCone cone;
    cone.axis = vector3(axis, "approach_cone axis");
    cone.half_angle = angle.cast<double>();
    c.approach_cone = cone;
  }
  if (!palm_region.is_none()) {
    const auto [lower, upper] = pairOf(palm_region, "palm_region", "(lower, upper) [m]");
    planner::PalmRegion r;
    r.lower = vector3(lower, "palm_region lower");
    r.upper = vector3(upper, "palm_region upper");
    c.palm_region = r;
  }
  for (const auto* v : {c.support_plane ? &c.support_plane->point : nullptr,
                        c.support_plane ? &c.support_plane->normal : nullptr,
                        c.approach_cone ? &c.approach_cone->axis : nullptr,
                        c.palm_region ? &c.palm_region->lower : nullptr,
                        c.palm_region ? &c.palm_region->upper : nullptr})
    if (v && !v->allFinite()) throw std::invalid_argument("constraints must be finite");
  if (c.approach_cone && !std::isfinite(c.approach_cone->half_angle))
    throw std::invalid_argument("approach_cone: the half angle must be finite [rad]");
  return planner::checkedConstraints(c);
}

Eigen::Matrix4d poseMatrix(const Eigen::Isometry3d& p) {
  return p.matrix();
}

py::dict runDict(const planner::RunInfo& r) {
  py::dict d;
  d["seed"] = r.seed;
  d["strategy"] = r.strategy;
  d["energy"] = r.energy;
  d["grasps"] = r.grasps;
  d["candidates"] = r.candidates;
  d["friction"] = r.friction;
  d["distinct_fraction"] = r.distinct_fraction;
  d["distinct_angle_rad"] = r.distinct_angle;
  d["radius_m"] = r.radius;
  d["shard"] = r.shard;
  d["shards"] = r.shards;
  py::dict c;
  if (r.constraints.support_plane)
    c["support_plane"] =
        py::make_tuple(r.constraints.support_plane->point, r.constraints.support_plane->normal);
  if (r.constraints.approach_cone)
    c["approach_cone"] =
        py::make_tuple(r.constraints.approach_cone->axis, r.constraints.approach_cone->half_angle);
  if (r.constraints.palm_region)
    c["palm_region"] =
        py::make_tuple(r.constraints.palm_region->lower, r.constraints.palm_region->upper);
  d["constraints"] = c;
  return d;
}

py::dict contactArrays(const std::vector<contact::Contact>& contacts) {
  const auto n = static_cast<py::ssize_t>(contacts.size());
  py::array_t<int> finger(n), row(n);
  py::array_t<double> force(n);
  RowMatrix3d point(n, 3), normal(n, 3);
  for (py::ssize_t i = 0; i < n; ++i) {
    const auto& c = contacts[static_cast<std::size_t>(i)];
    finger.mutable_at(i) = c.finger;
    row.mutable_at(i) = c.finger < 0 ? -1 : c.row;
    force.mutable_at(i) = c.force;
    point.row(i) = c.point_world.transpose();
    normal.row(i) = c.normal_world.transpose();
  }
  py::dict d;
  d["finger"] = finger;
  d["row"] = row;
  d["point_object_m"] = py::cast(point);
  d["normal_into_object"] = py::cast(normal);
  d["force_N"] = force;
  return d;
}

std::string outcomeRepr(const ValidationOutcome& o) {
  int passed = 0;
  for (const auto& d : o.directions) passed += d.passed ? 1 : 0;
  return "Validation(preset='" + o.preset + "', hold='" + planner::holdName(o.hold) +
         "', passed=" + (o.passed ? "True" : "False") + ", directions " + std::to_string(passed) +
         "/" + std::to_string(o.directions.size()) + ")";
}

void bindOutcomes(py::module_& m) {
  py::class_<DirectionOutcome>(m, "DirectionOutcome",
                               "A validation preset's outcome along one load direction.")
      .def_readonly("direction", &DirectionOutcome::direction,
                    "The load's direction (3,), object frame (zeros for lift-shake).")
      .def_readonly("displacement_m", &DirectionOutcome::displacement,
                    "Displacement of the object's centre of mass in the palm frame at the end "
                    "[m].")
      .def_readonly("rotation_rad", &DirectionOutcome::rotation,
                    "Rotation of the object relative to the palm at the end [rad]; None when "
                    "not measured (lift-shake).")
      .def_readonly("time_to_slip_s", &DirectionOutcome::time_to_slip,
                    "First time past the preset's limits, from the start of the load [s]; None: "
                    "never.")
      .def_readonly("steady_at_s", &DirectionOutcome::steady_at,
                    "When the direction ended early in a steady hold (ValidationPreset "
                    "steady_window_s): its time from the start of the load [s]; None: it ran "
                    "the preset's whole duration.")
      .def_readonly("contacts", &DirectionOutcome::contacts, "Hand-object contacts at the end.")
      .def_readonly("links", &DirectionOutcome::links,
                    "Distinct hand bodies (links, palm) touching the object at the end.")
      .def_readonly("passed", &DirectionOutcome::passed, "The verdict along this direction.")
      .def("__repr__", [](const DirectionOutcome& d) {
        return "DirectionOutcome(direction=[" + std::to_string(d.direction.x()) + ", " +
               std::to_string(d.direction.y()) + ", " + std::to_string(d.direction.z()) +
               "], displacement_m=" + std::to_string(d.displacement) +
               ", passed=" + (d.passed ? "True" : "False") + ")";
      });

  py::class_<ValidationOutcome>(
      m, "Validation",
      "One validation preset run on one grasp (docs/planner.md, 'Validation'): the verdict, "
      "the closed grasp's quality with the preset's friction and the outcome per direction.")
      .def_readonly("preset", &ValidationOutcome::preset, "The preset's name.")
      .def_property_readonly(
          "hold", [](const ValidationOutcome& o) { return planner::holdName(o.hold); },
          "How the hand held under the load: 'drives' or 'pd'.")
      .def_readonly("passed", &ValidationOutcome::passed, "True when every direction passed.")
      .def_readonly("start_collision", &ValidationOutcome::start_collision,
                    "The hand intersected the object before closing (then nothing ran).")
      .def_readonly("held", &ValidationOutcome::held,
                    "The hand closed on the held object (the floating one escaped), released "
                    "when the load came on.")
      .def_readonly("force_closure", &ValidationOutcome::force_closure,
                    "Force closure of the closed grasp with the preset's friction.")
      .def_readonly("epsilon", &ValidationOutcome::epsilon, "Epsilon quality [-].")
      .def_readonly("volume", &ValidationOutcome::volume, "Volume quality [-].")
      .def_readonly("directions", &ValidationOutcome::directions,
                    "The outcome per direction (list of DirectionOutcome).")
      .def_property_readonly(
          "verdicts",
          [](const ValidationOutcome& o) {
            py::array_t<bool> a(static_cast<py::ssize_t>(o.directions.size()));
            for (std::size_t i = 0; i < o.directions.size(); ++i)
              a.mutable_at(static_cast<py::ssize_t>(i)) = o.directions[i].passed;
            return a;
          },
          "(nd,) bool: the verdict per direction.")
      .def_property_readonly(
          "displacements_m",
          [](const ValidationOutcome& o) {
            Vector v(static_cast<Eigen::Index>(o.directions.size()));
            for (std::size_t i = 0; i < o.directions.size(); ++i)
              v[static_cast<Eigen::Index>(i)] = o.directions[i].displacement;
            return v;
          },
          "(nd,) displacement per direction [m].")
      .def_property_readonly(
          "load_directions",
          [](const ValidationOutcome& o) {
            RowMatrix3d v(static_cast<Eigen::Index>(o.directions.size()), 3);
            for (std::size_t i = 0; i < o.directions.size(); ++i)
              v.row(static_cast<Eigen::Index>(i)) = o.directions[i].direction.transpose();
            return v;
          },
          "(nd, 3) the load's direction per direction, object frame.")
      .def("__repr__", &outcomeRepr);
}

void bindRecords(py::module_& m) {
  py::class_<GraspRecord>(
      m, "Grasp",
      "A planned grasp, one record of a grasp file (docs/planner.md, 'Records'): hand, object, "
      "the run it came from, the palm pose and pre-grasp, the closed grasp (posture, joints, "
      "contacts, quality) and the validation outcomes. Object frame, SI units.")
      .def_readonly("hand", &GraspRecord::hand, "Hand id.")
      .def_readonly("hand_source", &GraspRecord::hand_source, "The hand file it was read from.")
      .def_readonly("object", &GraspRecord::object, "Object name.")
      .def_readonly("object_source", &GraspRecord::object_source, "The object's mesh file.")
      .def_readonly("object_scale", &GraspRecord::object_scale, "Scale applied to the mesh [-].")
      .def_readonly("actuators", &GraspRecord::actuators,
                    "Actuator names: the order of pregrasp and posture.")
      .def_property_readonly(
          "run", [](const GraspRecord& r) { return runDict(r.run); },
          "The run it came from (dict: seed, strategy, energy, grasps, candidates, friction, "
          "distinct_fraction, distinct_angle_rad, radius_m, shard, shards, constraints).")
      .def_property_readonly(
          "candidate", [](const GraspRecord& r) { return r.grasp.candidate; },
          "The candidate's index in the run.")
      .def_property_readonly(
          "palm_pose", [](const GraspRecord& r) { return poseMatrix(r.grasp.palm_object); },
          "(4, 4) the palm frame in the object frame [m].")
      .def_property_readonly(
          "amplitudes", [](const GraspRecord& r) { return r.grasp.amplitudes; },
          "(k,) eigengrasp amplitudes of the pre-grasp.")
      .def_property_readonly(
          "pregrasp", [](const GraspRecord& r) { return r.grasp.pregrasp; },
          "(na,) actuator positions before closing [actuator unit].")
      .def_property_readonly(
          "energy", [](const GraspRecord& r) { return r.grasp.energy; },
          "The search energy of the pre-grasp.")
      .def_property_readonly(
          "posture", [](const GraspRecord& r) { return r.grasp.closed.posture; },
          "(na,) actuator positions after closing [actuator unit].")
      .def_property_readonly(
          "joints",
          [](const GraspRecord& r) {
            std::vector<Vector> out;
            for (const auto& q : r.grasp.closed.q)
              out.push_back(
                  Eigen::Map<const Vector>(q.data(), static_cast<Eigen::Index>(q.size())));
            return out;
          },
          "Joint values after closing, one array per finger [rad or m].")
      .def_property_readonly(
          "closing_time_s", [](const GraspRecord& r) { return r.grasp.closed.time; },
          "Simulated closing time [s].")
      .def_property_readonly(
          "stalled", [](const GraspRecord& r) { return r.grasp.closed.stalled; },
          "The closing actuators stalled on the object (not stopped by the time limit).")
      .def_property_readonly(
          "held", [](const GraspRecord& r) { return r.grasp.closed.held; },
          "Closed on the held object: the floating object escaped the first closing.")
      .def_property_readonly(
          "force_closure", [](const GraspRecord& r) { return r.grasp.forceClosure(); },
          "Force closure of the closed grasp with the run's friction.")
      .def_property_readonly(
          "epsilon", [](const GraspRecord& r) { return r.grasp.closed.quality.epsilon; },
          "Epsilon quality of the closed grasp [-].")
      .def_property_readonly(
          "volume", [](const GraspRecord& r) { return r.grasp.closed.quality.volume; },
          "Volume quality of the closed grasp [-].")
      .def_property_readonly(
          "contacts", [](const GraspRecord& r) { return contactArrays(r.grasp.closed.contacts); },
          "The closed grasp's contacts as a dict of arrays: finger (n,) and row (n,) (-1, -1: "
          "the palm), point_object_m (n, 3), normal_into_object (n, 3) (object frame at the end "
          "of the closing), force_N (n,).")
      .def_readonly("validation", &GraspRecord::validation,
                    "Validation outcomes (list of Validation), one per preset and hold run.")
      .def("to_json", &planner::graspRecordLine,
           "The record as one line of a grasp file (no newline), as handsim-cli writes it.")
      .def_static(
          "from_json",
          [](const std::string& line) {
            const auto records = planner::parseGraspRecords(line, "<string>");
            if (records.size() != 1)
              throw std::invalid_argument("from_json: expected one record, got " +
                                          std::to_string(records.size()));
            return records.front();
          },
          py::arg("line"),
          "A record from one line of a grasp file; InputError (line, column, field) when bad.")
      .def("__repr__", [](const GraspRecord& r) {
        return "Grasp(hand='" + r.hand + "', object='" + r.object +
               "', candidate=" + std::to_string(r.grasp.candidate) +
               ", force_closure=" + (r.grasp.forceClosure() ? "True" : "False") +
               ", epsilon=" + std::to_string(r.grasp.closed.quality.epsilon) +
               ", validation=" + std::to_string(r.validation.size()) + ")";
      });

  m.def(
      "load_grasps",
      [](const std::string& path) {
        requireFile(path);
        return planner::loadGraspRecords(path);
      },
      py::arg("path"),
      "Reads a grasp file (JSON Lines, docs/planner.md): a list of Grasp. InputError (file, "
      "line, column, field) for a bad line, FileNotFoundError for a missing file.");
  m.def(
      "save_grasps",
      [](const std::string& path, const std::vector<GraspRecord>& grasps) {
        planner::saveGraspRecords(path, grasps);
      },
      py::arg("path"), py::arg("grasps"),
      "Writes grasps as a grasp file (atomically), byte for byte what handsim-cli writes for "
      "the same records.");
}

// What a Python energy receives (handsim.EnergyInput): copies of the configuration, numpy
// arrays, valid after the call.
struct PyEnergyInput {
  Eigen::Matrix4d palm = Eigen::Matrix4d::Identity();
  Vector amplitudes, posture, distances;
  Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor> points, normals, surface_points,
      surface_normals;
};

PyEnergyInput pyEnergyInput(const planner::EnergyInput& in) {
  PyEnergyInput a;
  a.palm = in.palm_object.matrix();
  a.amplitudes = in.amplitudes;
  a.posture = in.posture;
  const Eigen::Index n = static_cast<Eigen::Index>(in.points.size());
  a.distances.resize(n);
  a.points.resize(n, 3);
  a.normals.resize(n, 3);
  a.surface_points.resize(n, 3);
  a.surface_normals.resize(n, 3);
  for (Eigen::Index i = 0; i < n; ++i) {
    const planner::PointDistance& p = in.points[static_cast<std::size_t>(i)];
    a.points.row(i) = p.point.transpose();
    a.normals.row(i) = p.normal.transpose();
    a.surface_points.row(i) = p.surface.point.transpose();
    a.surface_normals.row(i) = p.surface.normal.transpose();
    a.distances[i] = p.surface.distance;
  }
  return a;
}

// A Python callable as the planner's custom energy. The planner's threads call it without the
// GIL: each call takes it (so calls run one at a time), and the function object is shared, not
// copied, so its reference count is touched only under the GIL. An exception it raises stops
// the run and is raised by plan().
planner::CustomEnergy customEnergy(const py::handle& f) {
  const std::shared_ptr<py::object> held(new py::object(py::reinterpret_borrow<py::object>(f)),
                                         [](py::object* o) {
                                           py::gil_scoped_acquire acquire;
                                           delete o;
                                         });
  return [held](const planner::EnergyInput& in) {
    PyEnergyInput args = pyEnergyInput(in);
    py::gil_scoped_acquire acquire;
    const py::object r = (*held)(std::move(args));
    try {
      return r.cast<double>();
    } catch (const py::cast_error&) {
      throw py::type_error("the energy must return a number, not " +
                           py::str(py::type::of(r)).cast<std::string>());
    }
  };
}

std::vector<GraspRecord> plan(const py::object& object, const py::object& hand_arg, int grasps,
                              int candidates, long long seed, int threads,
                              const std::string& strategy, const py::object& energy,
                              double friction, double scale, const py::object& support_plane,
                              const py::object& approach_cone, const py::object& palm_region,
                              int annealing_steps, int descent_steps, const py::object& eigengrasps,
                              const std::optional<std::pair<int, int>>& shard,
                              const std::function<void(long long, int, long long)>& progress) {
  if (seed < 0 || seed > 9007199254740991LL)
    throw std::invalid_argument("seed must be a whole number from 0 to 2^53 - 1");
  planner::PlannerOptions o;
  o.grasps = grasps;
  o.candidates = candidates;
  o.seed = static_cast<std::uint64_t>(seed);
  o.threads = threadCount(threads);
  o.strategy = planner::parseStrategy(strategy);
  if (py::isinstance<py::str>(energy))
    o.energy = planner::parseEnergy(energy.cast<std::string>());
  else if (PyCallable_Check(energy.ptr()))
    o.custom_energy = customEnergy(energy);
  else
    throw py::type_error(
        "energy: 'contact', 'potential' or a callable taking a "
        "handsim.EnergyInput, not " +
        py::str(py::type::of(energy)).cast<std::string>());
  o.annealing_steps = annealing_steps;
  o.descent_steps = descent_steps;
  if (shard) {
    o.shard = shard->first;
    o.shards = shard->second;
  }
  if (!(friction >= 0.0) || friction > 100.0) throw std::invalid_argument("friction: 0 to 100");
  const auto hand = handArgument(hand_arg);
  const sim::ObjectModel obj = objectArgument(object, scale);
  o.constraints = constraintsOf(support_plane, approach_cone, palm_region, obj);
  std::optional<planner::EigengraspBasis> basis;
  if (!eigengrasps.is_none()) {
    const auto [origin, directions] =
        pairOf(eigengrasps, "eigengrasps", "(origin (na,), directions (na, k)) [actuator unit]");
    basis = planner::eigengraspBasisFrom(*hand, origin.cast<Vector>(),
                                         directions.cast<Eigen::MatrixXd>());
  }

  // Progress reaches Python from the calling thread only (it also runs candidates); an
  // exception there (or Ctrl+C) stops the run through the planner's stop flag and is raised
  // here once the workers are done.
  const std::thread::id caller = std::this_thread::get_id();
  std::atomic<bool> stop{false};
  std::exception_ptr failure;
  long long last_done = 0, last_budget = 0, shown_done = -1;
  int last_accepted = 0;
  std::vector<planner::PlannedGrasp> planned;
  std::vector<GraspRecord> records;
  {
    py::gil_scoped_release release;
    planner::PlannerModel pm = planner::compilePlannerModel(hand, obj, friction);
    if (basis) pm.eigengrasps = *basis;
    planner::PlannerHooks hooks;
    hooks.stop = &stop;
    planned = planner::planGrasps(
        pm, o,
        [&](std::int64_t done, int accepted, std::int64_t budget) {
          // Called under the planner's lock: the plain variables are safe.
          last_done = done;
          last_accepted = accepted;
          last_budget = budget;
          if (std::this_thread::get_id() != caller || stop.load()) return;
          py::gil_scoped_acquire acquire;
          try {
            if (progress) progress(done, accepted, budget);
            shown_done = done;
            if (PyErr_CheckSignals() != 0) throw py::error_already_set();
          } catch (...) {
            failure = std::current_exception();
            stop = true;
          }
        },
        hooks);
    records = planner::plannedGraspRecords(*hand, obj, o, pm, planned);
  }
  if (failure) std::rethrow_exception(failure);
  if (progress && shown_done != last_done) progress(last_done, last_accepted, last_budget);
  return records;
}

std::vector<ValidationOutcome> validate(std::vector<GraspRecord*> grasps, const std::string& name,
                                        const std::string& hold, bool full_duration, int threads,
                                        const py::object& hand_arg, const py::object& object_arg,
                                        const std::function<void(long long, long long)>& progress) {
  planner::ValidationPreset preset = planner::validationPreset(name);
  preset.hold = planner::parseHold(hold);
  if (full_duration) preset.steady_window = 0.0;
  if (preset.hold != planner::ValidationPreset::Hold::Drives &&
      preset.load == planner::ValidationPreset::Load::LiftShake)
    throw std::invalid_argument("hold='pd': lift-shake holds with the hand's drives only");
  const unsigned n = threadCount(threads);
  for (std::size_t i = 0; i < grasps.size(); ++i)
    if (!grasps[i]) throw std::invalid_argument("grasps[" + std::to_string(i) + "] is None");

  // One validator per (hand, object), compiled once, as handsim-cli validate does; a hand or
  // object given here replaces the records' own.
  const std::shared_ptr<const hand::HandModel> given_hand =
      hand_arg.is_none() ? nullptr : handArgument(hand_arg);
  std::optional<sim::ObjectModel> given_object;
  if (!object_arg.is_none()) given_object = objectArgument(object_arg, 1.0);
  std::map<std::string, std::shared_ptr<const hand::HandModel>> hands;
  std::map<std::string, sim::ObjectModel> objects;
  std::map<std::string, std::unique_ptr<planner::Validator>> validators;
  std::vector<const planner::Validator*> of(grasps.size());
  std::vector<Eigen::Isometry3d> palms(grasps.size());
  std::vector<Vector> pregrasps(grasps.size());
  for (std::size_t i = 0; i < grasps.size(); ++i) {
    const GraspRecord& r = *grasps[i];
    palms[i] = r.grasp.palm_object;
    pregrasps[i] = r.grasp.pregrasp;
    std::string hand_key = "<given>";
    if (!given_hand) {
      hand_key = r.hand_source.empty() ? r.hand : r.hand_source;
      if (!hands.count(hand_key)) hands[hand_key] = handArgument(py::str(hand_key));
    }
    const auto& h = given_hand ? given_hand : hands[hand_key];
    if (h->actuators.size() != r.actuators.size() ||
        static_cast<std::size_t>(r.grasp.pregrasp.size()) != r.actuators.size())
      throw std::invalid_argument("grasps[" + std::to_string(i) + "]: the hand '" + h->id +
                                  "' has " + std::to_string(h->actuators.size()) +
                                  " actuators, the record " + std::to_string(r.actuators.size()));
    std::string object_key = "<given>";
    if (!given_object) {
      object_key = r.object_source + "|" + std::to_string(r.object_scale);
      if (!objects.count(object_key))
        objects[object_key] = objectArgument(py::str(r.object_source), r.object_scale);
    }
    const auto& plane = r.run.constraints.support_plane;
    const std::string key = hand_key + "|" + object_key + "|" + planner::supportPlaneKey(plane);
    if (!validators.count(key))
      validators[key] = std::make_unique<planner::Validator>(
          planner::makeValidator(h, given_object ? *given_object : objects[object_key], preset,
                                 {}, plane));
    of[i] = validators[key].get();
  }

  std::vector<ValidationOutcome> outcomes(grasps.size());
  {
    py::gil_scoped_release release;
    const std::thread::id caller = std::this_thread::get_id();
    sim::GridOptions grid;
    grid.threads = n;
    grid.finished = [&](std::size_t, sim::CellOutcome, const sim::GridProgress& p) {
      if (std::this_thread::get_id() != caller) return;
      py::gil_scoped_acquire acquire;
      if (progress) progress(static_cast<long long>(p.done), static_cast<long long>(p.total));
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    };
    sim::runGrid(
        sim::pendingCells(grasps.size()),
        [&](std::size_t i) {
          outcomes[i] = planner::validateGrasp(*of[i], palms[i], pregrasps[i]);
          return sim::CellOutcome::Ok;
        },
        grid);
  }
  // Each grasp keeps one outcome per preset and hold: this one replaces an earlier one.
  for (std::size_t i = 0; i < grasps.size(); ++i) {
    auto& list = grasps[i]->validation;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [&](const ValidationOutcome& v) {
                                return v.preset == preset.name && v.hold == preset.hold;
                              }),
               list.end());
    list.push_back(outcomes[i]);
  }
  return outcomes;
}

}  // namespace

void bindPlanner(py::module_& m) {
  bindOutcomes(m);
  bindRecords(m);
  py::class_<PyEnergyInput>(
      m, "EnergyInput",
      "What a custom energy of handsim.plan receives for each legal configuration of the search "
      "(the hand neither intersects the object nor breaks a constraint): copies, object frame, "
      "SI units (docs/planner.md, 'Custom energies').")
      .def_readonly("palm", &PyEnergyInput::palm, "(4, 4) the palm's pose in the object frame.")
      .def_readonly("amplitudes", &PyEnergyInput::amplitudes, "(k,) eigengrasp amplitudes.")
      .def_readonly("posture", &PyEnergyInput::posture, "(na,) actuator positions [unit].")
      .def_readonly("points", &PyEnergyInput::points,
                    "(n, 3) the hand's preset contact points [m].")
      .def_readonly("normals", &PyEnergyInput::normals, "(n, 3) their outward unit normals.")
      .def_readonly("surface_points", &PyEnergyInput::surface_points,
                    "(n, 3) the object's surface point nearest to each [m].")
      .def_readonly("surface_normals", &PyEnergyInput::surface_normals,
                    "(n, 3) the surface's outward unit normal there.")
      .def_readonly("distances", &PyEnergyInput::distances,
                    "(n,) signed distance of each point to the surface [m], negative inside.");
  m.def("plan", &plan, py::arg("object"), py::arg("hand"), py::kw_only(), py::arg("grasps") = 20,
        py::arg("candidates") = 0, py::arg("seed") = 1, py::arg("threads") = 1,
        py::arg("strategy") = "surface-normals", py::arg("energy") = "contact",
        py::arg("friction") = 0.5, py::arg("scale") = 1.0, py::arg("support_plane") = py::none(),
        py::arg("approach_cone") = py::none(), py::arg("palm_region") = py::none(),
        py::arg("annealing_steps") = 2000, py::arg("descent_steps") = 60,
        py::arg("eigengrasps") = py::none(), py::arg("shard") = py::none(),
        py::arg("progress") = py::none(),
        "Plans grasps of `object` (a handsim.Object, a shipped object's name such as 'cube', or "
        "a mesh file, times `scale`) with `hand` (a handsim.Hand, a built-in id or a hand file), "
        "as handsim-cli plan does (docs/planner.md): a list of Grasp, in candidate order, the "
        "same grasps as the CLI's for the same seed and options on any thread count. grasps: "
        "stop after this many distinct force-closure grasps (0: no limit); candidates: the "
        "budget (0: 100 per grasp); threads (0: all cores); strategy 'surface-normals' or "
        "'annealing'; energy 'contact', 'potential' or a callable f(handsim.EnergyInput) -> "
        "float, lower is better (called with the GIL, one call at a time; it must be "
        "deterministic for runs to repeat; records name it 'custom'); friction: Coulomb "
        "coefficient of the "
        "quality measures. Constraints, object frame: support_plane 'bottom' or (point [m], "
        "normal), approach_cone (axis, half_angle_rad), palm_region (lower, upper) [m]. "
        "eigengrasps: (origin (na,), directions (na, k)) [actuator unit] instead of the hand's. "
        "shard=(i, n): only candidates with index % n == i, every force-closure one kept. "
        "progress(done, accepted, budget) is called from this thread as candidates finish; an "
        "exception there (or Ctrl+C) stops the run. The GIL is released while planning.");
  m.def("validate", &validate, py::arg("grasps"), py::arg("preset") = "six-directions",
        py::kw_only(), py::arg("hold") = "drives", py::arg("full_duration") = false,
        py::arg("threads") = 1, py::arg("hand") = py::none(), py::arg("object") = py::none(),
        py::arg("progress") = py::none(),
        "Runs a validation preset ('six-directions', 'tug', 'lift', 'lift-shake'; "
        "docs/planner.md) on each Grasp of the list, as handsim-cli validate does: the hand "
        "closes with its own drives from the recorded pre-grasp, the object is set free and "
        "loaded. hold: 'drives' (the hand's own) or 'pd' (a PD servo per joint, as the peers "
        "hold; not for lift-shake). A direction ends once the grasp holds steadily "
        "(docs/planner.md, 'Steady holds'); full_duration=True runs each whole. The hand and "
        "object are the records' own unless given "
        "(a Hand or id, an Object or name). Returns one Validation per grasp and stores it in "
        "the grasp's validation list (replacing an earlier one of the same preset and hold). "
        "progress(done, total) is called from this thread; threads 0: all cores. The GIL is "
        "released while the presets run.");
  m.def(
      "eigengrasps",
      [](const py::object& hand, long long seed) {
        if (seed < 0) throw std::invalid_argument("seed must be >= 0");
        const auto h = handArgument(hand);
        const planner::EigengraspBasis b =
            planner::eigengraspBasis(*h, static_cast<std::uint64_t>(seed));
        py::dict d;
        d["origin"] = b.origin;
        d["directions"] = b.directions;
        d["lower"] = b.lower;
        d["upper"] = b.upper;
        d["names"] = b.names;
        d["computed"] = b.computed;
        return d;
      },
      py::arg("hand"), py::arg("seed") = 1,
      "The eigengrasp basis the planner searches for `hand` (docs/planner.md, 'Eigengrasps'): "
      "a dict of origin (na,) and directions (na, k) [actuator unit], the amplitude bounds "
      "lower and upper (k,), names, and computed (True: principal components of sampled "
      "closing postures with `seed`, the hand file has none). plan(eigengrasps=(origin, "
      "directions)) searches another basis.");
  m.def("validation_presets", &planner::validationPresetNames, "The validation presets' names.");
}

}  // namespace handsim::python
