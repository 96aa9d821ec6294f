// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp sweeps (seed 002 sec. VII-A, Table I): many starting palm poses around one object,
// each closed by the simulator, rated and optionally hold-tested.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handsim/geometry/triangle_mesh.hpp"
#include "handsim/grasp/grasp_quality.hpp"
#include "handsim/grasp/grasp_sweep.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {

using grasp::SweepResult;
using grasp::SweepSpec;

// The poses run_sweep evaluates: `indices` (all by default), then only index % n == i.
std::vector<int> sweepIndices(const SweepSpec& spec, const std::optional<std::vector<int>>& indices,
                              const std::optional<std::pair<int, int>>& shard) {
  const int count = static_cast<int>(spec.palm_poses.size());
  std::vector<int> all;
  if (indices) {
    for (int i : *indices)
      if (i < 0 || i >= count)
        throw std::out_of_range("pose index " + std::to_string(i) + " is not in 0.." +
                                std::to_string(count - 1));
    all = *indices;
  } else {
    for (int i = 0; i < count; ++i) all.push_back(i);
  }
  if (!shard) return all;
  const auto [i, n] = *shard;
  if (n < 1 || i < 0 || i >= n)
    throw std::invalid_argument("shard: expected (i, n) with 0 <= i < n, got (" +
                                std::to_string(i) + ", " + std::to_string(n) + ")");
  std::vector<int> kept;
  for (int index : all)
    if (index % n == i) kept.push_back(index);
  return kept;
}

}  // namespace

void bindSweepSpec(py::module_& m) {
  py::class_<grasp::HoldTestSpec>(
      m, "HoldTest",
      "The dynamic test after closing (docs/grasp-sweep.md, 'Hold test'): the object is set "
      "free, seats for release_s, is lifted lift_m against gravity, shaken sideways and left to "
      "settle; held when its centre of mass moved at most tolerance_m in the palm frame. "
      "HoldTest() has the documented defaults.")
      .def(py::init<>())
      .def_readwrite("release_s", &grasp::HoldTestSpec::release, "[s] (>= 0)")
      .def_readwrite("lift_m", &grasp::HoldTestSpec::lift, "[m] (>= 0)")
      .def_readwrite("lift_speed_mps", &grasp::HoldTestSpec::lift_speed, "[m/s] (> 0)")
      .def_readwrite("lift_acceleration_mps2", &grasp::HoldTestSpec::lift_acceleration,
                     "[m/s^2] (> 0)")
      .def_readwrite("shake_amplitude_m", &grasp::HoldTestSpec::shake_amplitude,
                     "A of A (sin wt - sin 2wt / 2) [m] (>= 0)")
      .def_readwrite("shake_frequency_hz", &grasp::HoldTestSpec::shake_frequency_hz, "[Hz] (> 0)")
      .def_readwrite("shake_cycles", &grasp::HoldTestSpec::shake_cycles, "whole periods (>= 0)")
      .def_readwrite("settle_s", &grasp::HoldTestSpec::settle, "[s] (>= 0)")
      .def_readwrite("tolerance_m", &grasp::HoldTestSpec::tolerance, "[m] (> 0)")
      .def_readwrite("gravity_object_mps2", &grasp::HoldTestSpec::gravity_object,
                     "(3,) gravity in the object frame [m/s^2]")
      .def_readwrite("shake_direction_palm", &grasp::HoldTestSpec::shake_direction_palm,
                     "(3,) palm frame; zeros: sideways (gravity x palm z)")
      .def_readwrite("mass_kg", &grasp::HoldTestSpec::mass_kg, "[kg]; 0: from density_kg_m3")
      .def_readwrite("density_kg_m3", &grasp::HoldTestSpec::density, "[kg/m^3] (> 0)");

  py::class_<SweepSpec>(
      m, "SweepSpec",
      "A grasp sweep read from a sweep file (docs/grasp-sweep.md): a hand, an object, a "
      "closing scenario and many starting palm poses in the object frame.")
      .def_readonly("source_file", &SweepSpec::source_file, "The file the sweep was read from.")
      .def_property_readonly(
          "pose_count", [](const SweepSpec& s) { return s.palm_poses.size(); },
          "Number of starting poses.")
      .def("__len__", [](const SweepSpec& s) { return s.palm_poses.size(); })
      .def_property_readonly(
          "palm_positions",
          [](const SweepSpec& s) {
            RowMatrix3d out(static_cast<Eigen::Index>(s.palm_poses.size()), 3);
            for (std::size_t i = 0; i < s.palm_poses.size(); ++i)
              out.row(static_cast<Eigen::Index>(i)) = s.palm_poses[i].translation().transpose();
            return out;
          },
          "(n, 3) palm positions in the object frame [m], in pose-index order.")
      .def_property_readonly(
          "palm_rotation",
          [](const SweepSpec& s) {
            return s.palm_poses.empty() ? Eigen::Matrix3d::Identity()
                                        : Eigen::Matrix3d(s.palm_poses.front().linear());
          },
          "(3, 3) orientation of the palm frame in the object frame, the same for every pose.")
      .def_property_readonly(
          "object_centre", [](const SweepSpec& s) { return s.object_centre; },
          "Centre of the object's bounding box in its frame (3,) [m]: the torque reference.")
      .def_property(
          "friction", [](const SweepSpec& s) { return s.friction; },
          [](SweepSpec& s, double f) {
            if (!(f >= 0.0) || !std::isfinite(f))
              throw std::invalid_argument("friction must be finite and >= 0");
            s.friction = f;
          },
          "Coulomb coefficient hand-object [-] used to rate the grasps.")
      .def_property(
          "cone_edges", [](const SweepSpec& s) { return s.quality.cone_edges; },
          [](SweepSpec& s, int e) {
            if (e < 3 || e > 64) throw std::invalid_argument("cone_edges must be 3 to 64");
            s.quality.cone_edges = e;
          },
          "Edges of each linearised friction cone (3 to 64).")
      .def_property(
          "torque_radius", [](const SweepSpec& s) { return s.quality.torque_radius; },
          [](SweepSpec& s, double r) {
            if (!(r > 0.0) || !std::isfinite(r))
              throw std::invalid_argument("torque_radius must be positive and finite [m]");
            s.quality.torque_radius = r;
          },
          "Torques are divided by it [m] (default: the farthest object vertex from "
          "object_centre).")
      .def_property(
          "hold_test", [](const SweepSpec& s) { return s.hold_test; },
          [](SweepSpec& s, const std::optional<grasp::HoldTestSpec>& h) {
            if (h) grasp::validateHoldTest(*h);
            s.hold_test = h;
          },
          "The hold test run after each closing (a copy: assign a changed HoldTest back), or "
          "None. Raises ValueError for a bad one.")
      .def("__repr__", [](const SweepSpec& s) {
        return "SweepSpec('" + s.source_file + "', " + std::to_string(s.palm_poses.size()) +
               " poses)";
      });

  m.def(
      "load_sweep",
      [](const std::string& path) {
        requireFile(path);
        return grasp::loadSweepSpec(path);
      },
      py::arg("path"),
      "Reads a sweep file (docs/grasp-sweep.md). Raises FileNotFoundError for a missing file, "
      "InputError (file, line, column, field) for a bad one.");
}

void bindSweepResults(py::module_& m) {
  py::class_<SweepResult>(m, "SweepResult", "The outcome of one pose of a sweep.")
      .def_readonly("index", &SweepResult::index, "Pose index in the sweep.")
      .def_readonly("palm_position", &SweepResult::palm_position,
                    "Palm position in the object frame (3,) [m].")
      .def_readonly("start_collision", &SweepResult::start_collision,
                    "True when the hand intersects the object before closing (then not run).")
      .def_readonly("contacts", &SweepResult::contacts, "Contacts when closed.")
      .def_readonly("quality", &SweepResult::quality,
                    "Quality of the closed grasp (a default one after a start collision).")
      .def_property_readonly(
          "held",
          [](const SweepResult& r) -> std::optional<bool> {
            return r.hold ? std::optional<bool>(r.hold->held) : std::nullopt;
          },
          "Hold test: True when the object stayed within the tolerance; None when not run.")
      .def_property_readonly(
          "slip_m",
          [](const SweepResult& r) -> std::optional<double> {
            return r.hold ? std::optional<double>(r.hold->slip) : std::nullopt;
          },
          "Hold test: displacement of the object's centre of mass in the palm frame from the "
          "end of the release to the end [m]; None when not run.")
      .def_property_readonly(
          "seat_m",
          [](const SweepResult& r) -> std::optional<double> {
            return r.hold ? std::optional<double>(r.hold->seat) : std::nullopt;
          },
          "Hold test: how far the freed object moved during the release [m]; None when not run.")
      .def("__repr__", [](const SweepResult& r) {
        std::string hold;
        if (r.hold)
          hold = std::string(", held=") + (r.hold->held ? "True" : "False") +
                 ", slip_m=" + std::to_string(r.hold->slip);
        return "SweepResult(index=" + std::to_string(r.index) +
               ", start_collision=" + (r.start_collision ? "True" : "False") +
               ", contacts=" + std::to_string(r.contacts) + ", " + graspQualityRepr(r.quality) +
               hold + ")";
      });

  m.def(
      "run_sweep",
      [](const SweepSpec& spec, const std::optional<std::vector<int>>& indices, int threads,
         const std::optional<std::pair<int, int>>& shard) {
        if (threads < 0) throw std::invalid_argument("threads must be >= 0 (0: all cores)");
        const std::vector<int> todo = sweepIndices(spec, indices, shard);
        // A copy, so that Python threads may change `spec` while this one runs without the GIL.
        const SweepSpec copy = spec;
        const std::thread::id caller = std::this_thread::get_id();
        py::gil_scoped_release release;
        // Ctrl+C stops a long sweep: the calling thread evaluates poses too, and checks for
        // signals after each of its own (Python runs handlers only on its main thread).
        std::vector<SweepResult> results = grasp::runSweep(
            copy, todo, static_cast<unsigned>(threads), [caller](const SweepResult&) {
              if (std::this_thread::get_id() != caller) return;
              py::gil_scoped_acquire acquire;
              if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            });
        // Each row names its sweep, as the CLI's rows do (the CSV's spec column).
        const std::string hash = grasp::sweepSpecHash(copy);
        for (SweepResult& r : results) r.spec_hash = hash;
        return results;
      },
      py::arg("spec"), py::arg("indices") = py::none(), py::arg("threads") = 0,
      py::arg("shard") = py::none(),
      "Evaluates poses of a sweep: `indices` (default all), keeping only index % n == i when "
      "shard=(i, n) is given, on `threads` threads (0: all cores), without the GIL. Results come "
      "back in the order of the indices and do not depend on the thread count. Raises IndexError "
      "for an index out of range; KeyboardInterrupt stops it.");
  m.def(
      "summarize",
      [](const std::vector<SweepResult>& results) {
        const grasp::SweepSummary s = grasp::summarize(results);
        py::dict d;
        d["configurations"] = s.configurations;
        d["collision_free"] = s.collision_free;
        d["force_closure"] = s.force_closure;
        d["epsilon_mean"] = s.epsilon_mean;
        d["epsilon_std"] = s.epsilon_std;
        d["hold_tested"] = s.hold_tested;
        d["held"] = s.held;
        d["force_closure_tested"] = s.force_closure_tested;
        d["held_force_closure"] = s.held_force_closure;
        d["epsilon_held_mean"] = s.epsilon_held_mean;
        d["epsilon_held_std"] = s.epsilon_held_std;
        d["epsilon_dropped_mean"] = s.epsilon_dropped_mean;
        d["epsilon_dropped_std"] = s.epsilon_dropped_std;
        return d;
      },
      py::arg("results"),
      "Seed 002's Table I over sweep results, as a dict: configurations, collision_free, "
      "force_closure (counts), epsilon_mean and epsilon_std (sample standard deviation) over "
      "the force-closure grasps (0 when there are none, std 0 with fewer than two); and of the "
      "hold test: hold_tested, held, force_closure_tested, held_force_closure (counts), "
      "epsilon_held_mean/std and epsilon_dropped_mean/std over the force-closure grasps that "
      "held or did not.");
  m.def("sweep_csv", &grasp::sweepCsv, py::arg("results"),
        "The results as the CLI's CSV (header index,x,y,z,start_collision,contacts,"
        "force_closure,epsilon,volume,held,slip_m,seat_m,spec; held, slip_m and seat_m empty "
        "without a hold result, spec the hash of the sweep the rows belong to; 17 significant "
        "digits), rows in the given order.");
}

}  // namespace handsim::python
