// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.Run: one state stepping on a model (docs/simulation.md), its numpy views onto the
// state, its commands and its recording; handsim.Contact. A Run releases the GIL while it steps
// without a Python controller, so runs on several threads go in parallel; they share one
// immutable Model.
#include <pybind11/eigen.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_map>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"
#include "py_run.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {

using RunClass = py::class_<PyRun>;

void bindContact(py::module_& m) {
  py::class_<contact::Contact>(m, "Contact", "A link-object contact of the last step, world frame.")
      .def_readonly("finger", &contact::Contact::finger,
                    "Index of the finger whose link touches (-1: an object contact).")
      .def_readonly("row", &contact::Contact::row, "The link rigid with DH frame {row + 1}.")
      .def_readonly("object", &contact::Contact::object, "Index of the object touched.")
      .def_readonly("body_a", &contact::Contact::body_a,
                    "Id of the pushing body in Model.bodies (the normal points from it into "
                    "body_b).")
      .def_readonly("body_b", &contact::Contact::body_b, "Id of the pushed body in Model.bodies.")
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
}

// Making, stepping and resetting a run; where it is.
void bindRunStepping(RunClass& cls) {
  cls.def(py::init([](std::shared_ptr<Model> model, std::optional<RunPlan> plan) {
            if (!model) throw std::invalid_argument("no model");
            return std::make_unique<PyRun>(model, plan.value_or(RunPlan{}));
          }),
          py::arg("model"), py::arg("plan") = py::none())
      .def_static(
          "from_scenario",
          [](const Scenario& s) {
            return std::make_unique<PyRun>(sim::compileScenario(s), s.plan);
          },
          py::arg("scenario"), "A run of a scenario on its compiled model.")
      .def("reset", guarded([](PyRun& r) { r.resetKeepingBuffers(); }),
           "Back to the plan's initial state; the recording restarts.")
      .def("step",
           guarded([](PyRun& r, std::int64_t n, const std::function<void(PyRun&)>& controller) {
             if (n < 0) throw std::invalid_argument("n must not be negative");
             stepMany(r, n, controller);
           }),
           py::arg("n") = 1, py::arg("controller") = nullptr,
           "Advances n fixed steps (fewer if the plan ends). `controller(run)`, if given, is "
           "called before every step and may set commands (set_actuator_command).")
      .def("run_to_end", guarded([](PyRun& r, const std::function<void(PyRun&)>& controller) {
             if (r.totalSteps() <= 0)
               throw std::invalid_argument("the plan has no end (duration 0)");
             stepMany(r, std::numeric_limits<std::int64_t>::max(), controller);
           }),
           py::arg("controller") = nullptr,
           "Steps until the plan's duration; the GIL is released unless a controller is given.")
      .def_property_readonly("model", guarded([](const PyRun& r) {
                               return std::const_pointer_cast<Model>(r.modelPtr());
                             }),
                             "The compiled model the run steps on.")
      .def_property_readonly("plan", guarded([](const PyRun& r) { return r.plan(); }),
                             "A copy of the run's plan.")
      .def_property_readonly("finished", guarded([](const PyRun& r) { return r.finished(); }),
                             "True when the plan has an end and the run reached it.")
      .def_property_readonly(
          "total_steps", guarded([](const PyRun& r) { return r.totalSteps(); }),
          "Steps of the whole run, round(duration / dt); 0 when the plan has no end.")
      .def_property_readonly("time", guarded([](const PyRun& r) { return r.state().time; }), "[s]")
      .def_property_readonly("steps", guarded([](const PyRun& r) { return r.state().step; }),
                             "Steps taken since the start (or the last reset).");
}

// The state as numpy views and the vector commands.
void bindRunState(RunClass& cls) {
  cls.def_property_readonly(
         "q", guarded([](PyRun& r) { return fingerViews(r, r.state().q); }),
         "Joint positions per finger [rad or m]: read-only numpy views onto the state (they "
         "follow the run; the joints follow the actuators: write actuator_positions).")
      .def_property_readonly(
          "qd", guarded([](PyRun& r) { return fingerViews(r, r.state().qd); }),
          "Joint velocities per finger [rad/s or m/s]: read-only views onto the state.")
      .def_property_readonly(
          "qdd", guarded([](PyRun& r) { return fingerViews(r, r.state().qdd); }),
          "Joint accelerations of the last step per finger: read-only views onto the state.")
      .def_property_readonly(
          "tau", guarded([](PyRun& r) { return fingerViews(r, r.state().tau); }),
          "Torques the drive applied in the last step per finger [N m or N]: read-only views.")
      .def_property_readonly(
          "actuator_positions",
          guarded([](PyRun& r) { return vectorView(r, r.state().actuator_position, true); }),
          "Actuator positions [actuator units]: a writable numpy view onto the state. Values "
          "written take effect at the next step (joints and link frames follow through the "
          "transmission); each must lie within the actuator's range, else that step raises "
          "ValueError.")
      .def_property_readonly(
          "actuator_velocities",
          guarded([](PyRun& r) { return vectorView(r, r.state().actuator_velocity, true); }),
          "Actuator velocities [actuator units/s]: a writable view (finite values; they take "
          "effect at the next step).")
      .def_property_readonly(
          "actuator_commands",
          guarded([](PyRun& r) { return vectorView(r, r.state().actuator_command, true); }),
          "Set points of the actuators without a trajectory [actuator units]: a writable view. "
          "At the next step each written value is checked (finite; an actuator with a "
          "trajectory raises ValueError) and clamped into the actuator's range.")
      .def("set_actuator_commands", guarded([](PyRun& r, const py::object& values) {
             const hand::HandModel& h = r.model().hand();
             const auto a = realArray(values, "commands");
             if (a.ndim() != 1 || static_cast<std::size_t>(a.shape(0)) != h.actuators.size())
               throw std::invalid_argument("commands: expected shape (" +
                                           std::to_string(h.actuators.size()) + ",), got " +
                                           shapeText(a));
             const RunPlan& p = r.plan();
             std::vector<double>& c = r.state().actuator_command;
             for (std::size_t i = 0; i < h.actuators.size(); ++i) {
               const double v = a.data()[i];
               if (!std::isfinite(v))
                 throw std::invalid_argument("commands[" + std::to_string(i) + "] (" +
                                             h.actuators[i].name + ") is not finite");
               if (i < p.trajectories.size() && !p.trajectories[i].empty() && v != c[i])
                 throw std::invalid_argument("commands[" + std::to_string(i) +
                                             "]: " + h.actuators[i].name +
                                             " follows a trajectory; a command would be ignored");
             }
             for (std::size_t i = 0; i < h.actuators.size(); ++i)
               c[i] = std::clamp(a.data()[i], h.actuators[i].lower, h.actuators[i].upper);
           }),
           py::arg("commands"),
           "Set points of every actuator at once [actuator units], clamped into range: an "
           "array of one value per actuator. An actuator that follows a trajectory must keep "
           "its current value (actuator_commands), else ValueError.")
      .def_property_readonly(
          "actuator_efforts",
          guarded([](PyRun& r) { return vectorView(r, r.state().actuator_effort, false); }),
          "Servo torque at each primary joint in the last step [N m]: a read-only view.")
      .def_property_readonly("tendon_tensions", guarded([](PyRun& r) {
                               return vectorView(r, r.state().tendon_tension, false);
                             }),
                             "Tendon tensions of the last step [N]: a read-only view.")
      .def_property_readonly(
          "object_poses", guarded([](PyRun& r) {
            r.viewsGiven();
            auto& v = r.state().object_pose_world;
            static_assert(sizeof(Eigen::Isometry3d) == 16 * sizeof(double),
                          "an Isometry3d is its 4x4 matrix");
            double* data = v.empty() ? nullptr : v.front().matrix().data();
            // Eigen stores the 4x4 matrix column-major: element (r, c) at r + 4 c.
            return stateView(data, {static_cast<py::ssize_t>(v.size()), 4, 4},
                             {sizeof(Eigen::Isometry3d), sizeof(double), 4 * sizeof(double)},
                             py::cast(&r, py::return_value_policy::reference), true);
          }),
          "(no, 4, 4) poses of the objects in the world: a writable view onto the state. A "
          "written pose takes effect at the next step, which raises ValueError unless it is "
          "rigid (finite, a rotation to 1e-6, last row 0 0 0 1).")
      .def_property_readonly(
          "object_twists", guarded([](PyRun& r) {
            r.viewsGiven();
            auto& v = r.state().object_twist_world;
            double* data = v.empty() ? nullptr : v.front().data();
            return stateView(data, {static_cast<py::ssize_t>(v.size()), 6},
                             {sizeof(sim::Twist), sizeof(double)},
                             py::cast(&r, py::return_value_policy::reference), true);
          }),
          "(no, 6) velocity of each object's centre of mass [m/s] then its angular velocity "
          "[rad/s], world frame: a writable view (finite; a fixed object's stays zero, else the "
          "next step raises ValueError).")
      .def_property_readonly(
          "tendon_commands",
          guarded([](PyRun& r) { return vectorView(r, r.state().tendon_command, false); }),
          "Retraction set points of the tendons without a trajectory [m]: a read-only view "
          "(set them with set_tendon_command).");
}

// Contacts, warnings, single commands, palm and object poses.
void bindRunScene(RunClass& cls) {
  cls.def_property_readonly(
         "clutches", guarded([](const PyRun& r) { return r.state().clutches; }),
         "State of each breakaway clutch (ClutchState: broken, break position), copies.")
      .def_property_readonly(
          "contacts", guarded([](const PyRun& r) { return r.state().contacts; }),
          "Link-object contacts of the last step (Contact, world frame), copies.")
      .def_property_readonly(
          "object_contacts", guarded([](const PyRun& r) { return r.state().object_contacts; }),
          "Contacts on objects from the ground, the palm and other objects (finger -1).")
      .def_property_readonly(
          "link_contacts", guarded([](const PyRun& r) { return r.state().link_contacts; }),
          "Contacts between links of different fingers and between a link and the palm.")
      .def_property_readonly("warnings", guarded([](const PyRun& r) { return r.state().warnings; }),
                             "Numerical trouble met so far, as messages (the first of each kind).")
      .def_property_readonly("warning_count",
                             guarded([](const PyRun& r) { return r.state().warning_count; }),
                             "How many warnings the run counted (every occurrence).")
      .def("set_actuator_command", guarded([](PyRun& r, const py::object& actuator, double value) {
             const hand::HandModel& h = r.model().hand();
             const int a = partIndex(h, actuator, "actuator");
             if (!std::isfinite(value)) throw std::invalid_argument("command is not finite");
             const auto& act = h.actuators[static_cast<std::size_t>(a)];
             const auto& traj = r.plan().trajectories;
             if (static_cast<std::size_t>(a) < traj.size() &&
                 !traj[static_cast<std::size_t>(a)].empty())
               throw std::invalid_argument(act.name +
                                           " follows a trajectory; a command would be "
                                           "ignored (commands drive actuators without one)");
             r.state().actuator_command[static_cast<std::size_t>(a)] =
                 std::clamp(value, act.lower, act.upper);
           }),
           py::arg("actuator"), py::arg("value"),
           "Set point [actuator unit] of an actuator without a trajectory (clamped into range).")
      .def("set_tendon_command", guarded([](PyRun& r, const py::object& tendon, double value) {
             const hand::HandModel& h = r.model().hand();
             const int t = partIndex(h, tendon, "tendon");
             if (!std::isfinite(value)) throw std::invalid_argument("command is not finite");
             r.state().tendon_command[static_cast<std::size_t>(t)] = value;
           }),
           py::arg("tendon"), py::arg("value"), "Retraction set point [m] of a tendon.")
      .def_property("palm_pose", guarded([](const PyRun& r) {
                      return Eigen::Matrix4d(r.state().palm_pose_world.matrix());
                    }),
                    guarded([](PyRun& r, const py::object& p) {
                      r.state().palm_pose_world = rigidPose(p, "palm_pose");
                    }),
                    "4x4 pose of the palm in the world (setting it moves the palm between steps).")
      .def("object_pose", guarded([](const PyRun& r, int i) {
             return Eigen::Matrix4d(
                 r.state().object_pose_world.at(static_cast<std::size_t>(i)).matrix());
           }),
           py::arg("index"), "4x4 pose of an object in the world.")
      .def("set_object_pose", guarded([](PyRun& r, int i, const py::object& p) {
             r.state().object_pose_world.at(static_cast<std::size_t>(i)) = rigidPose(p, "pose");
           }),
           py::arg("index"), py::arg("pose"), "Moves an object in the world between steps.")
      .def("object_twist", guarded([](const PyRun& r, int i) {
             return Eigen::VectorXd(r.state().object_twist_world.at(static_cast<std::size_t>(i)));
           }),
           py::arg("index"),
           "Velocity of the object's centre of mass [m/s] then its angular velocity [rad/s], "
           "world frame (6 values; zero for a fixed object).")
      .def_property_readonly(
          "palm_twist",
          guarded([](const PyRun& r) { return Eigen::VectorXd(r.state().palm_twist_world); }),
          "Velocity of the palm frame's origin [m/s] then its angular velocity [rad/s], world.");
}

// The recorded signals and CSV.
void bindRunRecording(RunClass& cls) {
  cls.def_property_readonly("columns",
                            guarded([](const PyRun& r) { return r.recorder().columns(); }),
                            "Names of the recorded signals (docs/simulation.md).")
      .def("units", guarded([](const PyRun& r) {
             py::dict out;
             const auto& c = r.recorder().columns();
             const auto& u = r.recorder().units();
             for (std::size_t i = 0; i < c.size(); ++i) out[py::str(c[i])] = u[i];
             return out;
           }),
           "Unit of each recorded signal: dict name -> unit ('rad', 'N m', ...).")
      .def(
          "signals", guarded([](const PyRun& r) {
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
          }),
          "Every recorded signal as a numpy array: dict name -> array (one value per kept "
          "row: every row unless a row limit applies, see kept_stride), in SI units (see units()).")
      .def("csv", guarded([](const PyRun& r) { return r.recorder().toCsv(); }),
           "The recording as CSV text (what handsim-cli simulate --csv writes).")
      .def("write_csv",
           guarded([](const PyRun& r, const std::string& path) { r.recorder().writeCsv(path); }),
           py::arg("path"), "Writes the recording (the kept rows) as CSV, atomically.")
      .def("stream_csv", guarded([](PyRun& r, const std::string& path, std::size_t kept_rows) {
             r.recorder().streamCsv(path, kept_rows);
           }),
           py::arg("path"), py::arg("kept_rows") = sim::Recorder::kDefaultKeptRows,
           "Streams every recorded row to a CSV file while the run goes (for runs too long to "
           "keep in memory); at most kept_rows rows stay in memory for signals(), evenly thinned. "
           "The file appears at path, complete, on finish_csv().")
      .def("finish_csv", guarded([](PyRun& r) { r.recorder().finishCsv(); }),
           "Completes a streamed CSV (stream_csv) and moves it into place atomically.")
      .def_property_readonly("recorded_rows",
                             guarded([](const PyRun& r) { return r.recorder().recordedRows(); }),
                             "Rows recorded since the last reset, kept in memory or not.")
      .def_property_readonly(
          "kept_stride", guarded([](const PyRun& r) { return r.recorder().keptStride(); }),
          "signals() holds every kept_stride-th recorded row (1 unless a row limit was reached).")
      .def_property_readonly(
          "first_non_finite", guarded([](const PyRun& r) { return r.recorder().firstNonFinite(); }),
          "The first recorded value that was not finite, as 'column at t = ... s', or ''.");
}

sim::ActuatorMode modeOf(const std::string& mode) {
  if (mode == "position") return sim::ActuatorMode::Position;
  if (mode == "torque") return sim::ActuatorMode::Torque;
  throw std::invalid_argument("actuator mode: expected 'position' or 'torque', got '" + mode + "'");
}

// Puts actuator `a` in `mode`; an actuator with a trajectory stays in position mode (its
// trajectory would be ignored).
void setMode(PyRun& r, std::size_t a, sim::ActuatorMode mode) {
  const hand::HandModel& h = r.model().hand();
  const auto& traj = r.plan().trajectories;
  if (mode == sim::ActuatorMode::Torque && a < traj.size() && !traj[a].empty())
    throw std::invalid_argument(h.actuators[a].name +
                                " follows a trajectory; torque mode would ignore it");
  r.state().actuator_mode[a] = mode;
}

// Torque mode (issue 22, item 5): modes per actuator and the torques, one or all at once.
void bindRunTorques(RunClass& cls) {
  cls.def_property(
         "actuator_modes", guarded([](const PyRun& r) {
           std::vector<std::string> out;
           for (const sim::ActuatorMode m : r.state().actuator_mode)
             out.emplace_back(m == sim::ActuatorMode::Torque ? "torque" : "position");
           return out;
         }),
         guarded([](PyRun& r, const py::object& modes) {
           const std::size_t na = r.model().hand().actuators.size();
           std::vector<sim::ActuatorMode> m;
           if (py::isinstance<py::str>(modes)) {
             m.assign(na, modeOf(py::cast<std::string>(modes)));
           } else {
             for (const auto& x : modes) m.push_back(modeOf(py::cast<std::string>(x)));
             if (m.size() != na)
               throw std::invalid_argument("actuator_modes: the hand has " + std::to_string(na) +
                                           " actuators, got " + std::to_string(m.size()) +
                                           " modes");
           }
           const std::vector<sim::ActuatorMode> before = r.state().actuator_mode;
           try {
             for (std::size_t a = 0; a < na; ++a) setMode(r, a, m[a]);
           } catch (...) {
             r.state().actuator_mode = before;
             throw;
           }
         }),
         "How each actuator is driven: 'position' (its servo tracks the trajectory or the "
         "command; the default) or 'torque' (actuator_torques applied at its primary joint, "
         "clamped to the servo's torque limit, servo off). Set one string for all or one per "
         "actuator; an actuator with a trajectory cannot be put in torque mode (ValueError). "
         "reset() puts every actuator back in position mode.")
      .def("set_actuator_mode",
           guarded([](PyRun& r, const py::object& actuator, const std::string& mode) {
             const int a = partIndex(r.model().hand(), actuator, "actuator");
             setMode(r, static_cast<std::size_t>(a), modeOf(mode));
           }),
           py::arg("actuator"), py::arg("mode"),
           "Puts one actuator (index or name) in 'position' or 'torque' mode.")
      .def_property_readonly(
          "actuator_torques",
          guarded([](PyRun& r) { return vectorView(r, r.state().actuator_torque, true); }),
          "Torques at the primary joints of actuators in torque mode [N m, or N for a "
          "prismatic joint]: a writable view (finite values, else the next step raises "
          "ValueError), clamped to each servo's torque_limit when applied.")
      .def("set_actuator_torques", guarded([](PyRun& r, const py::object& values) {
             const hand::HandModel& h = r.model().hand();
             const auto a = realArray(values, "torques");
             if (a.ndim() != 1 || static_cast<std::size_t>(a.shape(0)) != h.actuators.size())
               throw std::invalid_argument("torques: expected shape (" +
                                           std::to_string(h.actuators.size()) + ",), got " +
                                           shapeText(a));
             for (std::size_t i = 0; i < h.actuators.size(); ++i)
               if (!std::isfinite(a.data()[i]))
                 throw std::invalid_argument("torques[" + std::to_string(i) + "] (" +
                                             h.actuators[i].name + ") is not finite");
             std::copy(a.data(), a.data() + h.actuators.size(), r.state().actuator_torque.begin());
           }),
           py::arg("torques"),
           "Torques of every actuator at once [N m or N]: an array of one value per actuator "
           "(used by the actuators in torque mode; see actuator_modes).");
}

}  // namespace

void bindRun(py::module_& m) {
  bindContact(m);
  RunClass cls(m, "Run",
               "One state running on a model through the staged step (docs/simulation.md): "
               "references, controller, recorder.");
  bindRunStepping(cls);
  bindRunState(cls);
  bindRunTorques(cls);
  bindRunScene(cls);
  bindRunRecording(cls);
}

}  // namespace handsim::python
