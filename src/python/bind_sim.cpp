// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.Model, handsim.Scenario, handsim.RunPlan and handsim.Run: the engine's compiled model,
// the scenario format and the one run loop (docs/simulation.md). A Run releases the GIL while it
// steps without a Python controller, so runs on several threads go in parallel; they share one
// immutable Model.
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <limits>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/scenario.hpp"
#include "handsim/sim/step.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {

using sim::Model;
using sim::Run;
using sim::RunPlan;
using sim::Scenario;

std::vector<Eigen::VectorXd> perFinger(const std::vector<kinematics::JointVector>& v) {
  std::vector<Eigen::VectorXd> out;
  for (const auto& x : v) out.emplace_back(x);
  return out;
}

// A Python controller runs between steps with the GIL held; without one the steps run with it
// released.
void stepMany(Run& run, std::int64_t n, const std::function<void(Run&)>& controller) {
  if (controller) {
    for (std::int64_t i = 0; i < n && !run.finished(); ++i) {
      controller(run);
      run.step();
    }
    return;
  }
  py::gil_scoped_release release;
  for (std::int64_t i = 0; i < n && !run.finished(); ++i) run.step();
}

}  // namespace

void bindSim(py::module_& m) {
  py::class_<sim::Options>(m, "Options", "Fixed step, gravity and contact and solver parameters.")
      .def(py::init<>())
      .def_readwrite("dt", &sim::Options::dt, "Fixed step [s].")
      .def_readwrite("gravity_world", &sim::Options::gravity_world,
                     "Gravitational acceleration in the world frame [m/s^2].")
      .def_property(
          "contact_slop", [](const sim::Options& o) { return o.contact.slop; },
          [](sim::Options& o, double v) { o.contact.slop = v; },
          "Penetration a contact settles at [m].")
      .def_property(
          "contact_stiffness", [](const sim::Options& o) { return o.contact.stiffness; },
          [](sim::Options& o, double v) { o.contact.stiffness = v; },
          "Fraction of the penetration beyond the slop pushed back per step [-].")
      .def_property(
          "solver_sweeps", [](const sim::Options& o) { return o.solver.sweeps; },
          [](sim::Options& o, int v) { o.solver.sweeps = v; },
          "Projected Gauss-Seidel sweeps per solve (at most).");

  py::class_<sim::ObjectModel>(m, "Object", "An object of a scene: mesh, tree, mass, material.")
      .def_readonly("name", &sim::ObjectModel::name)
      .def_readonly("source", &sim::ObjectModel::source)
      .def_readonly("scale", &sim::ObjectModel::scale)
      .def_readwrite("friction", &sim::ObjectModel::friction,
                     "Coulomb coefficient hand-object for the grasp analysis [-].")
      .def_readwrite("torsional", &sim::ObjectModel::torsional,
                     "Torsional friction length of this object's contacts [m]; negative: the "
                     "scene's contact option torsional_m.")
      .def_property(
          "pose",
          [](const sim::ObjectModel& o) { return Eigen::Matrix4d(o.initial_pose_world.matrix()); },
          [](sim::ObjectModel& o, const py::object& p) {
            o.initial_pose_world = rigidPose(p, "pose");
          },
          "4x4 pose of the object frame in the world at the start of a run.")
      .def_property_readonly(
          "mass", [](const sim::ObjectModel& o) { return o.mass.mass_kg; },
          "Mass from the closed mesh and the density [kg] (0 for an open mesh).")
      .def_property_readonly(
          "centre_of_mass", [](const sim::ObjectModel& o) { return o.mass.centre_of_mass; },
          "Centre of mass in the object frame [m].")
      .def_property_readonly(
          "inertia", [](const sim::ObjectModel& o) { return o.mass.inertia_com; },
          "Inertia about the centre of mass, object-frame axes [kg m^2].")
      .def_readonly("warnings", &sim::ObjectModel::warnings);
  m.def(
      "load_object",
      [](const std::string& path, double scale, const std::string& name, double density) {
        requireFile(path);
        geometry::MeshLoadOptions o;
        if (!(scale > 0.0) || !std::isfinite(scale))
          throw std::invalid_argument("scale must be positive and finite");
        o.scale = scale;
        return sim::loadObject(path, o, name, 18, density);
      },
      py::arg("path"), py::arg("scale") = 1.0, py::arg("name") = "",
      py::arg("density") = sim::ObjectModel::kDefaultDensity,
      "An object from a mesh file (VRML97 or any Assimp format), coordinates times `scale`, mass "
      "properties at `density` [kg/m^3].");

  py::class_<Model, std::shared_ptr<Model>>(
      m, "Model",
      "The compiled, immutable model: hand, link and object meshes with their k-DOP trees, "
      "options. Any number of runs (on any threads) share one model.")
      .def(py::init([](std::shared_ptr<hand::HandModel> h, std::vector<sim::ObjectModel> objects,
                       std::optional<sim::Options> options) {
             if (!h) throw std::invalid_argument("no hand");
             auto compiled =
                 sim::compileModel(std::make_shared<const hand::HandModel>(*h), std::move(objects),
                                   options.value_or(sim::Options{}));
             return std::const_pointer_cast<Model>(compiled);
           }),
           py::arg("hand"), py::arg("objects") = std::vector<sim::ObjectModel>{},
           py::arg("options") = py::none(),
           "Compiles a model (loads the hand's link meshes once; raises InputError for a bad "
           "one).")
      .def_property_readonly(
          "hand", [](const Model& x) { return std::make_shared<hand::HandModel>(x.hand()); },
          "A copy of the model's hand.")
      .def_property_readonly("objects", [](const Model& x) { return x.objects; })
      .def_property_readonly("options", [](const Model& x) { return x.options; });

  py::class_<RunPlan>(m, "RunPlan",
                      "What a run does: start pose, references, controller, duration.")
      .def(py::init<>())
      .def(py::init<const RunPlan&>(), py::arg("other"), "A copy of another plan.")
      .def(
          "copy", [](const RunPlan& p) { return RunPlan(p); },
          "A copy (Scenario.plan is the scenario's own plan, not a copy).")
      .def_readwrite("duration", &RunPlan::duration, "[s]; 0: no end.")
      .def_readwrite("record_every", &RunPlan::record_every,
                     "Record every N-th step (first and last always).")
      .def_readwrite("kept_rows", &RunPlan::kept_rows,
                     "At most this many recorded rows stay in memory, evenly thinned (the latest "
                     "kept); 0 keeps all. A CSV of every row comes from Run.stream_csv.")
      .def_readwrite("initial", &RunPlan::initial,
                     "Initial actuator positions [actuator units] (empty: 0 clamped).")
      .def_readwrite("initial_tendons", &RunPlan::initial_tendons,
                     "Initial tendon retractions [m] (empty: nearest 0).")
      .def_property(
          "palm_pose", [](const RunPlan& p) { return Eigen::Matrix4d(p.palm_pose_world.matrix()); },
          [](RunPlan& p, const py::object& x) { p.palm_pose_world = rigidPose(x, "palm_pose"); },
          "4x4 pose of the palm frame in the world at the start.")
      .def_property_readonly("has_controller",
                             [](const RunPlan& p) { return p.controller.has_value(); })
      .def(
          "set_trajectory",
          [](RunPlan& p, const Model& model, const py::object& actuator,
             const std::vector<std::tuple<double, double, double, std::optional<double>>>&
                 segments) {
            const hand::HandModel& h = model.hand();
            const int a = partIndex(h, actuator, "actuator");
            const auto& act = h.actuators[static_cast<std::size_t>(a)];
            if (p.trajectories.empty()) p.trajectories.resize(h.actuators.size());
            double from = static_cast<std::size_t>(a) < p.initial.size()
                              ? p.initial[static_cast<std::size_t>(a)]
                              : std::clamp(0.0, act.lower, act.upper);
            double start = 0.0;
            sim::ActuatorTrajectory traj;
            for (const auto& [to, v, acc, s] : segments) {
              if (to < act.lower || to > act.upper)
                throw std::invalid_argument("target " + std::to_string(to) + " is outside " +
                                            act.name + "'s range");
              if (s) {
                if (*s < start)
                  throw std::invalid_argument("a segment starts before the previous one ends");
                start = *s;
              }
              const sim::TrapezoidalProfile prof(from, to, v, acc, start);
              traj.append(prof);
              from = to;
              start = prof.end();
            }
            p.trajectories[static_cast<std::size_t>(a)] = traj;
          },
          py::arg("model"), py::arg("actuator"), py::arg("segments"),
          "Trapezoidal segments for one actuator (index or name): a list of (to, max_velocity, "
          "max_acceleration, start_s or None) in the actuator's unit, each from where the "
          "previous ended (the first from `initial`).")
      .def(
          "set_palm_motion",
          [](RunPlan& p, const std::string& axis,
             const std::vector<std::tuple<double, double, double, std::optional<double>>>& segments,
             const std::vector<std::tuple<double, double, double, double>>& sinusoids) {
            const int a = sim::PalmMotion::axisIndex(axis);
            if (a < 0)
              throw std::invalid_argument("palm axis '" + axis +
                                          "': expected x, y, z (m) or rx, ry, rz (rad)");
            sim::AxisMotion motion;
            double from = 0.0, start = 0.0;
            for (const auto& [to, v, acc, s] : segments) {
              if (s) {
                if (*s < start)
                  throw std::invalid_argument("a segment starts before the previous one ends");
                start = *s;
              }
              const sim::TrapezoidalProfile prof(from, to, v, acc, start);
              motion.segments.append(prof);
              from = to;
              start = prof.end();
            }
            for (const auto& [amplitude, f, s, cycles] : sinusoids)
              motion.sinusoids.push_back({amplitude, f, s, cycles});
            p.palm_motion.axis(a) = motion;
          },
          py::arg("axis"), py::arg("segments") = std::vector<std::tuple<double, double, double, std::optional<double>>>{},
          py::arg("sinusoids") = std::vector<std::tuple<double, double, double, double>>{},
          "The palm's prescribed motion on one axis ('x', 'y', 'z' in m; 'rx', 'ry', 'rz' in rad "
          "about world axes through the palm origin): trapezoidal segments (to, max_velocity, "
          "max_acceleration, start_s or None) from 0, plus sinusoids (amplitude, frequency_hz, "
          "start_s, cycles). Replaces what the axis had.");

  py::class_<Scenario>(m, "Scenario", "An experiment read from a scenario file.")
      .def_readonly("source_file", &Scenario::source_file)
      .def_readonly("description", &Scenario::description)
      .def_property_readonly(
          "hand", [](const Scenario& s) { return std::make_shared<hand::HandModel>(*s.hand); })
      .def_readwrite("objects", &Scenario::objects)
      .def_readwrite("options", &Scenario::options)
      .def_readwrite("plan", &Scenario::plan)
      .def(
          "compile",
          [](const Scenario& s) { return std::const_pointer_cast<Model>(sim::compileScenario(s)); },
          "The scenario's model.")
      .def(
          "save", [](const Scenario& s, const std::string& path) { sim::saveScenario(s, path); },
          py::arg("path"), "Writes the scenario file atomically.");
  m.def(
      "load_scenario",
      [](const std::string& path) {
        requireFile(path);
        return sim::loadScenario(path);
      },
      py::arg("path"),
      "Reads a scenario file (docs/scenario-format.md). Raises InputError (file, line, column, "
      "field), FileNotFoundError.");

  py::class_<contact::Contact>(m, "Contact", "A link-object contact of the last step, world frame.")
      .def_readonly("finger", &contact::Contact::finger)
      .def_readonly("row", &contact::Contact::row, "The link rigid with DH frame {row + 1}.")
      .def_readonly("object", &contact::Contact::object)
      .def_readonly("point", &contact::Contact::point_world, "Contact point [m].")
      .def_readonly("normal", &contact::Contact::normal_world,
                    "Unit normal INTO the object (the link pushes along it).")
      .def_readonly("depth", &contact::Contact::depth, "Penetration estimate [m].")
      .def_readonly("force", &contact::Contact::force, "Normal force on the object [N].")
      .def_readonly("other", &contact::Contact::other,
                    "Object contacts (finger -1): the body pushing `object`: -1 the ground, -2 "
                    "the palm, else another object's index.")
      .def_readonly("other_finger", &contact::Contact::other_finger,
                    "Link-link contacts: the finger of the pushed link (-1: the palm).")
      .def_readonly("other_row", &contact::Contact::other_row,
                    "Link-link contacts: the pushed link's row.")
      .def_readonly("friction", &contact::Contact::friction_world,
                    "Friction force on the object, world frame [N] (free objects).")
      .def_readonly("spin_moment", &contact::Contact::spin_moment,
                    "Torsional friction moment on the object about the contact normal [N m] "
                    "(free objects; contact option torsional_m).")
      .def_property_readonly(
          "force_on_object", [](const contact::Contact& c) { return c.forceOnObjectWorld(); },
          "Total sustained force on the object (normal and friction), world frame [N].");

  py::class_<Run>(m, "Run",
                  "One state running on a model through the staged step (docs/simulation.md): "
                  "references, controller, recorder.")
      .def(py::init([](std::shared_ptr<Model> model, std::optional<RunPlan> plan) {
             if (!model) throw std::invalid_argument("no model");
             return std::make_unique<Run>(model, plan.value_or(RunPlan{}));
           }),
           py::arg("model"), py::arg("plan") = py::none())
      .def_static(
          "from_scenario",
          [](const Scenario& s) { return std::make_unique<Run>(sim::compileScenario(s), s.plan); },
          py::arg("scenario"), "A run of a scenario on its compiled model.")
      .def("reset", &Run::reset, "Back to the plan's initial state; the recording restarts.")
      .def(
          "step",
          [](Run& r, std::int64_t n, const std::function<void(Run&)>& controller) {
            if (n < 0) throw std::invalid_argument("n must not be negative");
            stepMany(r, n, controller);
          },
          py::arg("n") = 1, py::arg("controller") = nullptr,
          "Advances n fixed steps (fewer if the plan ends). `controller(run)`, if given, is "
          "called before every step and may set commands (set_actuator_command).")
      .def(
          "run_to_end",
          [](Run& r, const std::function<void(Run&)>& controller) {
            if (r.totalSteps() <= 0)
              throw std::invalid_argument("the plan has no end (duration 0)");
            stepMany(r, std::numeric_limits<std::int64_t>::max(), controller);
          },
          py::arg("controller") = nullptr,
          "Steps until the plan's duration; the GIL is released unless a controller is given.")
      .def_property_readonly(
          "model", [](const Run& r) { return std::const_pointer_cast<Model>(r.modelPtr()); })
      .def_property_readonly("plan", &Run::plan)
      .def_property_readonly("finished", &Run::finished)
      .def_property_readonly("total_steps", &Run::totalSteps)
      .def_property_readonly(
          "time", [](const Run& r) { return r.state().time; }, "[s]")
      .def_property_readonly("steps", [](const Run& r) { return r.state().step; })
      .def_property_readonly(
          "q", [](const Run& r) { return perFinger(r.state().q); },
          "Joint positions per finger [rad or m].")
      .def_property_readonly(
          "qd", [](const Run& r) { return perFinger(r.state().qd); },
          "Joint velocities per finger.")
      .def_property_readonly(
          "qdd", [](const Run& r) { return perFinger(r.state().qdd); },
          "Joint accelerations of the last step per finger.")
      .def_property_readonly(
          "tau", [](const Run& r) { return perFinger(r.state().tau); },
          "Torques the drive applied in the last step per finger [N m or N].")
      .def_property_readonly(
          "actuator_positions", [](const Run& r) { return r.state().actuator_position; },
          "[actuator units]")
      .def_property_readonly("actuator_velocities",
                             [](const Run& r) { return r.state().actuator_velocity; })
      .def_property_readonly(
          "actuator_efforts", [](const Run& r) { return r.state().actuator_effort; },
          "Servo torque at each primary joint [N m].")
      .def_property_readonly(
          "tendon_tensions", [](const Run& r) { return r.state().tendon_tension; }, "[N]")
      .def_property_readonly("clutches", [](const Run& r) { return r.state().clutches; })
      .def_property_readonly("contacts", [](const Run& r) { return r.state().contacts; })
      .def_property_readonly(
          "object_contacts", [](const Run& r) { return r.state().object_contacts; },
          "Contacts on objects from the ground, the palm and other objects (finger -1).")
      .def_property_readonly(
          "link_contacts", [](const Run& r) { return r.state().link_contacts; },
          "Contacts between links of different fingers and between a link and the palm.")
      .def_property_readonly("warnings", [](const Run& r) { return r.state().warnings; })
      .def_property_readonly("warning_count", [](const Run& r) { return r.state().warning_count; })
      .def(
          "set_actuator_command",
          [](Run& r, const py::object& actuator, double value) {
            const hand::HandModel& h = r.model().hand();
            const int a = partIndex(h, actuator, "actuator");
            if (!std::isfinite(value)) throw std::invalid_argument("command is not finite");
            const auto& act = h.actuators[static_cast<std::size_t>(a)];
            r.state().actuator_command[static_cast<std::size_t>(a)] =
                std::clamp(value, act.lower, act.upper);
          },
          py::arg("actuator"), py::arg("value"),
          "Set point [actuator unit] of an actuator without a trajectory (clamped into range).")
      .def(
          "set_tendon_command",
          [](Run& r, const py::object& tendon, double value) {
            const hand::HandModel& h = r.model().hand();
            const int t = partIndex(h, tendon, "tendon");
            if (!std::isfinite(value)) throw std::invalid_argument("command is not finite");
            r.state().tendon_command[static_cast<std::size_t>(t)] = value;
          },
          py::arg("tendon"), py::arg("value"), "Retraction set point [m] of a tendon.")
      .def_property(
          "palm_pose",
          [](const Run& r) { return Eigen::Matrix4d(r.state().palm_pose_world.matrix()); },
          [](Run& r, const py::object& p) {
            r.state().palm_pose_world = rigidPose(p, "palm_pose");
          },
          "4x4 pose of the palm in the world (setting it moves the palm between steps).")
      .def(
          "object_pose",
          [](const Run& r, int i) {
            return Eigen::Matrix4d(
                r.state().object_pose_world.at(static_cast<std::size_t>(i)).matrix());
          },
          py::arg("index"), "4x4 pose of an object in the world.")
      .def(
          "set_object_pose",
          [](Run& r, int i, const py::object& p) {
            r.state().object_pose_world.at(static_cast<std::size_t>(i)) = rigidPose(p, "pose");
          },
          py::arg("index"), py::arg("pose"), "Moves an object in the world between steps.")
      .def(
          "object_twist",
          [](const Run& r, int i) {
            return Eigen::VectorXd(r.state().object_twist_world.at(static_cast<std::size_t>(i)));
          },
          py::arg("index"),
          "Velocity of the object's centre of mass [m/s] then its angular velocity [rad/s], "
          "world frame (6 values; zero for a fixed object).")
      .def_property_readonly(
          "palm_twist",
          [](const Run& r) { return Eigen::VectorXd(r.state().palm_twist_world); },
          "Velocity of the palm frame's origin [m/s] then its angular velocity [rad/s], world.")
      .def_property_readonly(
          "columns", [](const Run& r) { return r.recorder().columns(); },
          "Names of the recorded signals (docs/simulation.md).")
      .def(
          "units",
          [](const Run& r) {
            py::dict out;
            const auto& c = r.recorder().columns();
            const auto& u = r.recorder().units();
            for (std::size_t i = 0; i < c.size(); ++i) out[py::str(c[i])] = u[i];
            return out;
          },
          "Unit of each recorded signal: dict name -> unit ('rad', 'N m', ...).")
      .def(
          "signals",
          [](const Run& r) {
            const sim::Recorder& rec = r.recorder();
            const std::size_t rows = rec.rowCount(), cols = rec.columns().size();
            py::dict out;
            for (std::size_t c = 0; c < cols; ++c) {
              py::array_t<double> a(static_cast<py::ssize_t>(rows));
              auto v = a.mutable_unchecked<1>();
              for (std::size_t i = 0; i < rows; ++i)
                v(static_cast<py::ssize_t>(i)) = rec.value(i, c);
              out[py::str(rec.columns()[c])] = a;
            }
            return out;
          },
          "Every recorded signal as a numpy array: dict name -> array (one value per kept "
          "row: every row unless a row limit applies, see kept_stride), in SI units (see units()).")
      .def(
          "csv", [](const Run& r) { return r.recorder().toCsv(); },
          "The recording as CSV text (what handsim-cli simulate --csv writes).")
      .def(
          "write_csv", [](const Run& r, const std::string& path) { r.recorder().writeCsv(path); },
          py::arg("path"), "Writes the recording (the kept rows) as CSV, atomically.")
      .def(
          "stream_csv",
          [](Run& r, const std::string& path, std::size_t kept_rows) {
            r.recorder().streamCsv(path, kept_rows);
          },
          py::arg("path"), py::arg("kept_rows") = sim::Recorder::kDefaultKeptRows,
          "Streams every recorded row to a CSV file while the run goes (for runs too long to "
          "keep in memory); at most kept_rows rows stay in memory for signals(), evenly thinned. "
          "The file appears at path, complete, on finish_csv().")
      .def(
          "finish_csv", [](Run& r) { r.recorder().finishCsv(); },
          "Completes a streamed CSV (stream_csv) and moves it into place atomically.")
      .def_property_readonly(
          "recorded_rows", [](const Run& r) { return r.recorder().recordedRows(); },
          "Rows recorded since the last reset, kept in memory or not.")
      .def_property_readonly(
          "kept_stride", [](const Run& r) { return r.recorder().keptStride(); },
          "signals() holds every kept_stride-th recorded row (1 unless a row limit was reached).")
      .def_property_readonly(
          "first_non_finite", [](const Run& r) { return r.recorder().firstNonFinite(); },
          "The first recorded value that was not finite, as 'column at t = ... s', or ''.");
}

}  // namespace handsim::python
