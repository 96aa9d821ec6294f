// SPDX-License-Identifier: GPL-3.0-or-later
// A scene: handsim.Object (load_object), the compiled handsim.Model, handsim.RunPlan and
// handsim.Scenario (load_scenario, save).
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
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"
#include "handsim/sim/trajectory_segments.hpp"
#include "py_run.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {
// Object.pose moved to the plan (issue 20 item 3): the model holds shapes and masses only.
constexpr const char* kPoseMoved =
    "Object.pose is gone: start poses live in the run plan, one 4x4 per object: "
    "RunPlan.object_poses (e.g. scenario.plan.object_poses = [pose]); Run.object_poses holds "
    "where the objects are now";
// Object.linear_velocity and angular_velocity moved to the plan too.
constexpr const char* kVelocityMoved =
    "Object.linear_velocity and Object.angular_velocity are gone: start velocities live in the "
    "run plan, one twist (vx, vy, vz, wx, wy, wz) per object: RunPlan.object_twists (e.g. "
    "scenario.plan.object_twists = [[0.5, 0, 0, 0, 0, 1]]); Run.object_twists holds how the "
    "objects move now";

// RunPlan.object_twists from Python: (n, 6) finite values (an empty list: none).
std::vector<sim::Twist> objectTwists(const py::handle& value) {
  const auto a = realArray(value, "object_twists");
  if (a.size() == 0) return {};
  if (a.ndim() != 2 || a.shape(1) != 6)
    throw std::invalid_argument("object_twists: expected shape (n, 6), got " + shapeText(a));
  std::vector<sim::Twist> twists;
  for (py::ssize_t i = 0; i < a.shape(0); ++i) {
    const sim::Twist t = Eigen::Map<const sim::Twist>(a.data(i, 0));
    if (!t.allFinite())
      throw std::invalid_argument("object_twists[" + std::to_string(i) + "] is not finite");
    twists.push_back(t);
  }
  return twists;
}
}  // namespace

void bindObjects(py::module_& m) {
  py::class_<sim::ObjectModel>(m, "Object", "An object of a scene: mesh, tree, mass, material.")
      .def_readwrite("name", &sim::ObjectModel::name, "Name shown to the user and in signals.")
      .def_readonly("source", &sim::ObjectModel::source, "The mesh file it was read from.")
      .def_readonly("scale", &sim::ObjectModel::scale,
                    "The file's coordinates were multiplied by this [-].")
      .def_readwrite("friction", &sim::ObjectModel::friction,
                     "Coulomb coefficient hand-object for the grasp analysis [-].")
      .def_readwrite("torsional", &sim::ObjectModel::torsional,
                     "Torsional friction length of this object's contacts [m]; negative: the "
                     "scene's contact option torsional_m.")
      .def_property(
          "pose",
          [](const sim::ObjectModel&) -> py::object { throw py::attribute_error(kPoseMoved); },
          [](sim::ObjectModel&, const py::object&) { throw py::attribute_error(kPoseMoved); },
          "Gone: an object's start pose is the run plan's (RunPlan.object_poses); reading or "
          "setting it raises AttributeError saying so.")
      .def_property_readonly(
          "mass", [](const sim::ObjectModel& o) { return o.mass.mass_kg; },
          "Mass from the closed mesh and the density [kg] (0 for an open mesh).")
      .def_property_readonly(
          "centre_of_mass", [](const sim::ObjectModel& o) { return o.mass.centre_of_mass; },
          "Centre of mass in the object frame [m].")
      .def_property_readonly(
          "inertia", [](const sim::ObjectModel& o) { return o.mass.inertia_com; },
          "Inertia about the centre of mass, object-frame axes [kg m^2].")
      .def_readonly("warnings", &sim::ObjectModel::warnings,
                    "What the loader found questionable (an open mesh, a flipped winding).")
      .def_property(
          "free", [](const sim::ObjectModel& o) { return !o.fixed; },
          [](sim::ObjectModel& o, bool free) {
            if (free && !(o.mass.mass_kg > 0.0))
              throw std::invalid_argument("object '" + o.name +
                                          "' has no mass (its mesh is not closed): it cannot be "
                                          "free");
            o.fixed = !free;
          },
          "True: the object moves under gravity and its contacts (it needs a closed mesh); "
          "False: it stays at its pose.")
      .def_property(
          "density", [](const sim::ObjectModel& o) { return o.density; },
          [](sim::ObjectModel& o, double density) {
            if (!(density > 0.0) || !std::isfinite(density))
              throw std::invalid_argument("density must be positive and finite");
            sim::computeMassProperties(o, density);
          },
          "Uniform density [kg/m^3]; setting it recomputes the mass properties.")
      .def_property(
          "mass", [](const sim::ObjectModel& o) { return o.mass.mass_kg; },
          [](sim::ObjectModel& o, double mass) {
            if (!(mass > 0.0 && mass < 1e6))
              throw std::invalid_argument("mass: expected a value in (0, 1e6) kg");
            if (!(o.mass.volume_m3 > 0.0))
              throw std::invalid_argument("object '" + o.name +
                                          "': the mesh is not closed, so it has no volume to "
                                          "give a mass to");
            sim::computeMassProperties(o, mass / o.mass.volume_m3);
          },
          "Mass from the closed mesh and the density [kg] (0 for an open mesh); setting it "
          "sets the density to mass / volume, as the scenario key mass_kg does.")
      .def_property(
          "linear_velocity",
          [](const sim::ObjectModel&) -> py::object { throw py::attribute_error(kVelocityMoved); },
          [](sim::ObjectModel&, const py::object&) { throw py::attribute_error(kVelocityMoved); },
          "Gone: an object's start velocity is the run plan's (RunPlan.object_twists); reading "
          "or setting it raises AttributeError saying so.")
      .def_property(
          "angular_velocity",
          [](const sim::ObjectModel&) -> py::object { throw py::attribute_error(kVelocityMoved); },
          [](sim::ObjectModel&, const py::object&) { throw py::attribute_error(kVelocityMoved); },
          "Gone: an object's start angular velocity is the run plan's (RunPlan.object_twists); "
          "reading or setting it raises AttributeError saying so.");
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
}

void bindModel(py::module_& m) {
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
      .def_property_readonly(
          "objects", [](const Model& x) { return x.objects; },
          "Copies of the model's objects (the model itself cannot change).")
      .def_property_readonly(
          "options", [](const Model& x) { return x.options; }, "A copy of the model's options.")
      .def_property_readonly(
          "bodies",
          [](const Model& x) {
            py::list out;
            for (const sim::Body& b : x.bodies.bodies) {
              py::dict d;
              d["id"] = b.id;
              d["kind"] = sim::bodyKindName(b.kind);
              d["name"] = b.name;
              d["finger"] = b.finger;
              d["row"] = b.row;
              d["object"] = b.object;
              d["fixed"] = b.fixed;
              out.append(d);
            }
            return out;
          },
          "Every body (sim/body_table.hpp): the ground (id 0), the palm (1), the links finger "
          "by finger, the objects; each a dict of id, kind ('ground', 'palm', 'link', "
          "'object'), name (a link's is its joint's, e.g. 'F3.J2'), finger, row, object (-1 "
          "where not one) and fixed. Contact.body_a and body_b index it.");
}

namespace {

using Segments = std::vector<std::tuple<double, double, double, std::optional<double>>>;
using Sinusoids = std::vector<std::tuple<double, double, double, double>>;

// One axis's (a palm axis's, an arm joint's) offsets: trapezoidal segments chained from 0 and
// sinusoids, as a scenario file gives them.
sim::AxisMotion axisMotionOf(const Segments& segments, const Sinusoids& sinusoids) {
  sim::AxisMotion motion;
  double from = 0.0, start = 0.0;
  for (const auto& [to, v, acc, s] : segments) {
    if (s) {
      if (*s < start) throw std::invalid_argument("a segment starts before the previous one ends");
      start = *s;
    }
    const sim::TrapezoidalProfile prof(from, to, v, acc, start);
    motion.segments.append(prof);
    from = to;
    start = prof.end();
  }
  for (const auto& [amplitude, f, s, cycles] : sinusoids)
    motion.sinusoids.push_back({amplitude, f, s, cycles});
  return motion;
}

// The arm of a hand (handsim.Hand or handsim.Model), refused when it has none.
const hand::ArmModel& armOf(const py::object& hand_or_model) {
  const hand::HandModel* h = nullptr;
  if (py::isinstance<hand::HandModel>(hand_or_model))
    h = &hand_or_model.cast<const hand::HandModel&>();
  else if (py::isinstance<Model>(hand_or_model))
    h = &hand_or_model.cast<const Model&>().hand();
  else
    throw std::invalid_argument("expected a handsim.Hand or handsim.Model, got " +
                                std::string(py::str(py::type::of(hand_or_model).attr("__name__"))));
  if (h->arm.empty())
    throw std::invalid_argument("hand '" + h->id +
                                "' has no arm: load a URDF hand with palm='LINK' (docs/arm.md)");
  return h->arm;
}

// Arm joint `which` (index or URDF joint name) of `arm`: a ValueError listing the joints for an
// unknown name, an IndexError for an index out of range.
int armJoint(const hand::ArmModel& arm, const py::handle& which) {
  const kinematics::Chain& c = arm.chain;
  if (py::isinstance<py::str>(which)) {
    const std::string name = which.cast<std::string>();
    for (int j = 0; j < c.dof(); ++j)
      if (c.joint_names[static_cast<std::size_t>(c.rowOfJoint(j))] == name) return j;
    std::string known;
    for (int j = 0; j < c.dof(); ++j)
      known += (j ? ", " : "") + c.joint_names[static_cast<std::size_t>(c.rowOfJoint(j))];
    throw std::invalid_argument("no arm joint '" + name + "' (the arm's joints: " + known + ")");
  }
  const int j = which.cast<int>();
  if (j < 0 || j >= c.dof())
    throw py::index_error("arm joint " + std::to_string(j) + " is not in 0.." +
                          std::to_string(c.dof() - 1));
  return j;
}

// RunPlan's arm: its start and its joints' motions (docs/arm.md).
void bindRunPlanArm(py::class_<RunPlan>& cls) {
  cls.def_property(
         "arm_initial", [](const RunPlan& p) { return p.arm.initial; },
         [](RunPlan& p, const std::vector<double>& q) { p.arm.initial = q; },
         "Arm joint positions at t = 0 [rad or m], one per arm joint in Hand.arm_joint_names "
         "order (empty: all 0; docs/arm.md). The palm starts at palm_pose; the arm's base is "
         "where that puts it. set_arm sets them by name, checked against the limits.")
      .def_property_readonly(
          "arm_moves", [](const RunPlan& p) { return p.arm.drives(); },
          "Whether an arm joint has a motion (set_arm_motion): the arm then drives the palm, "
          "and the plan may have no palm motion.")
      .def(
          "set_arm",
          [](RunPlan& p, const py::object& hand_or_model, const py::object& initial) {
            const hand::ArmModel& arm = armOf(hand_or_model);
            const kinematics::Chain& c = arm.chain;
            std::vector<double> q(static_cast<std::size_t>(c.dof()));
            for (int j = 0; j < c.dof(); ++j) {
              const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
              q[static_cast<std::size_t>(j)] = std::clamp(0.0, row.lower, row.upper);
            }
            std::vector<std::pair<int, double>> given;
            if (py::isinstance<py::dict>(initial)) {
              for (const auto& [k, v] : initial.cast<py::dict>())
                given.emplace_back(armJoint(arm, k), v.cast<double>());
            } else if (!initial.is_none()) {
              const auto a = realArray(initial, "initial");
              if (a.ndim() != 1 || a.shape(0) != c.dof())
                throw std::invalid_argument("initial: the arm has " + std::to_string(c.dof()) +
                                            " joints, got shape " + shapeText(a));
              for (int j = 0; j < c.dof(); ++j) given.emplace_back(j, a.data()[j]);
            }
            for (const auto& [j, v] : given) {
              const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
              const std::string& name = c.joint_names[static_cast<std::size_t>(c.rowOfJoint(j))];
              if (!std::isfinite(v) || v < row.lower || v > row.upper)
                throw std::invalid_argument("arm joint '" + name + "': " + std::to_string(v) +
                                            " is outside its limits [" + std::to_string(row.lower) +
                                            ", " + std::to_string(row.upper) + "]");
              q[static_cast<std::size_t>(j)] = v;
            }
            p.arm.initial = q;
          },
          py::arg("hand"), py::arg("initial") = py::none(),
          "The arm's start (docs/arm.md) for a hand with an arm (Hand or Model): `initial` "
          "by URDF joint name (dict) or one value per arm joint [rad or m], within the limits; "
          "joints not named start at 0 clamped into their limits. As a scenario file's "
          "\"arm\": {\"initial\": ...}.")
      .def(
          "set_arm_motion",
          [](RunPlan& p, const py::object& hand_or_model, const py::object& joint,
             const Segments& segments, const Sinusoids& sinusoids) {
            const hand::ArmModel& arm = armOf(hand_or_model);
            const int j = armJoint(arm, joint);
            sim::AxisMotion motion = axisMotionOf(segments, sinusoids);
            if (p.arm.motion.size() != static_cast<std::size_t>(arm.dof()))
              p.arm.motion.assign(static_cast<std::size_t>(arm.dof()), sim::AxisMotion());
            p.arm.motion[static_cast<std::size_t>(j)] = std::move(motion);
          },
          py::arg("hand"), py::arg("joint"), py::arg("segments") = Segments{},
          py::arg("sinusoids") = Sinusoids{},
          "An arm joint's motion (joint: index or URDF name) as offsets from its start "
          "[rad or m]: trapezoidal segments (to, max_velocity, max_acceleration, start_s or "
          "None) from 0, plus sinusoids (amplitude, frequency_hz, start_s, cycles), as "
          "set_palm_motion. Replaces what the joint had. When an arm joint moves, the arm "
          "drives the palm (arm_moves) and a palm motion is refused when the run starts.");
}

}  // namespace

void bindRunPlan(py::module_& m) {
  py::class_<RunPlan> cls(m, "RunPlan",
                          "What a run does: start pose, references, controller, duration.");
  cls.def(py::init<>())
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
      .def_property(
          "object_poses",
          [](const RunPlan& p) {
            py::array_t<double> out({static_cast<py::ssize_t>(p.object_pose_world.size()),
                                     py::ssize_t{4}, py::ssize_t{4}});
            auto o = out.mutable_unchecked<3>();
            for (std::size_t i = 0; i < p.object_pose_world.size(); ++i)
              for (int r = 0; r < 4; ++r)
                for (int c = 0; c < 4; ++c)
                  o(static_cast<py::ssize_t>(i), r, c) = p.object_pose_world[i].matrix()(r, c);
            return out;
          },
          [](RunPlan& p, const py::object& poses) {
            std::vector<Eigen::Isometry3d> list;
            for (const py::handle item : poses) {
              const std::string what = "object_poses[" + std::to_string(list.size()) + "]";
              list.push_back(rigidPose(item, what.c_str()));
            }
            p.object_pose_world = std::move(list);
          },
          "(no, 4, 4) start poses of the objects in the world, one per model object (empty: "
          "every object at the origin): the only place a start pose lives. A copy: assign a "
          "changed array or a list of 4x4 poses back. Run.reset() returns the objects here.")
      .def_property(
          "object_twists",
          [](const RunPlan& p) {
            py::array_t<double> out(
                {static_cast<py::ssize_t>(p.object_twist_world.size()), py::ssize_t{6}});
            auto o = out.mutable_unchecked<2>();
            for (std::size_t i = 0; i < p.object_twist_world.size(); ++i)
              for (int k = 0; k < 6; ++k)
                o(static_cast<py::ssize_t>(i), k) = p.object_twist_world[i][k];
            return out;
          },
          [](RunPlan& p, const py::object& twists) { p.object_twist_world = objectTwists(twists); },
          "(no, 6) start twists of the objects, one per model object (empty: all at rest): the "
          "velocity of the centre of mass [m/s] then the angular velocity [rad/s], world frame; "
          "the only place a start velocity lives (a fixed object stays at rest whatever its "
          "row says). A copy: assign a changed array or a list of 6-vectors back. Run.reset() "
          "starts the objects moving so again.")
      .def_property_readonly(
          "has_controller", [](const RunPlan& p) { return p.controller.has_value(); },
          "Whether the plan runs seed 002's grasp controller (set in a scenario file).")
      .def(
          "set_trajectory",
          [](RunPlan& p, const Model& model, const py::object& actuator,
             const std::vector<std::tuple<double, double, double, std::optional<double>>>&
                 segments) {
            const hand::HandModel& h = model.hand();
            const int a = partIndex(h, actuator, "actuator");
            const auto& act = h.actuators[static_cast<std::size_t>(a)];
            // The moves are chained by the core's plan builder, as the GUI's trajectory table
            // and the planner do (sim/trajectory_segments.hpp); here only what Python got
            // wrong is refused.
            std::vector<sim::TrajectorySegment> moves;
            for (const auto& [to, v, acc, s] : segments) {
              if (to < act.lower || to > act.upper)
                throw std::invalid_argument("target " + std::to_string(to) + " is outside " +
                                            act.name + "'s range");
              moves.push_back({a, to, v, acc, s.value_or(0.0)});
            }
            const std::vector<sim::ActuatorTrajectory> built =
                sim::actuatorTrajectories(h, p.initial, moves);
            const auto& traj = built[static_cast<std::size_t>(a)];
            // A given start the builder had to delay lies before the previous move's end.
            for (std::size_t k = 0; k < segments.size(); ++k)
              if (const auto& s = std::get<3>(segments[k]); s && traj.segments()[k].start() != *s)
                throw std::invalid_argument("a segment starts before the previous one ends");
            if (p.trajectories.empty()) p.trajectories.resize(h.actuators.size());
            p.trajectories[static_cast<std::size_t>(a)] = traj;
          },
          py::arg("model"), py::arg("actuator"), py::arg("segments"),
          "Trapezoidal segments for one actuator (index or name): a list of (to, max_velocity, "
          "max_acceleration, start_s or None) in the actuator's unit, each from where the "
          "previous ended (the first from `initial`, clamped into the actuator's range), at "
          "start_s or when the previous ends (None).")
      .def(
          "set_palm_motion",
          [](RunPlan& p, const std::string& axis, const Segments& segments,
             const Sinusoids& sinusoids) {
            const int a = sim::PalmMotion::axisIndex(axis);
            if (a < 0)
              throw std::invalid_argument("palm axis '" + axis +
                                          "': expected x, y, z (m) or rx, ry, rz (rad)");
            const sim::AxisMotion motion = axisMotionOf(segments, sinusoids);
            p.palm_motion.axis(a) = motion;
          },
          py::arg("axis"),
          py::arg("segments") =
              std::vector<std::tuple<double, double, double, std::optional<double>>>{},
          py::arg("sinusoids") = std::vector<std::tuple<double, double, double, double>>{},
          "The palm's prescribed motion on one axis ('x', 'y', 'z' in m; 'rx', 'ry', 'rz' in rad "
          "about world axes through the palm origin): trapezoidal segments (to, max_velocity, "
          "max_acceleration, start_s or None) from 0, plus sinusoids (amplitude, frequency_hz, "
          "start_s, cycles). Replaces what the axis had.");
  bindRunPlanArm(cls);
}

void bindScenario(py::module_& m) {
  py::class_<Scenario>(m, "Scenario",
                       "An experiment: hand, objects, options and plan, read from a scenario "
                       "file or built here and saved as one.")
      .def(py::init([](std::shared_ptr<hand::HandModel> h, std::vector<sim::ObjectModel> objects,
                       std::optional<sim::Options> options, std::optional<RunPlan> plan,
                       const std::string& description) {
             if (!h) throw std::invalid_argument("no hand");
             Scenario s;
             s.description = description;
             const auto ids = hand::builtinHandIds();
             std::error_code ec;
             const bool builtin =
                 std::find(ids.begin(), ids.end(), h->id) != ids.end() &&
                 std::filesystem::equivalent(
                     h->source_file,
                     std::filesystem::path(hand::assetDirectory()) / "hands" / (h->id + ".json"),
                     ec);
             s.hand_ref = builtin ? h->id : h->source_file;
             // A hand loaded with palm='LINK' keeps its palm link in the file ("arm":
             // {"palm_link": ...}), so that the CLI reads the same arm back.
             if (!h->arm.empty()) s.palm_link = h->arm.palm_link;
             s.hand = std::make_shared<const hand::HandModel>(*h);
             s.objects = std::move(objects);
             s.options = options.value_or(sim::Options{});
             s.plan = plan.value_or(RunPlan{});
             return s;
           }),
           py::arg("hand"), py::arg("objects") = std::vector<sim::ObjectModel>{},
           py::arg("options") = py::none(), py::arg("plan") = py::none(),
           py::arg("description") = "",
           "A scenario built in Python: a hand (load_hand), objects (load_object, then free, "
           "mass, friction, torsional), options (ground, contact, solver) and a plan (duration, "
           "initial, set_trajectory, palm_pose, object_poses, object_twists, set_palm_motion). "
           "save() "
           "writes the file handsim-cli simulate runs to the same CSV.")
      .def_readonly("source_file", &Scenario::source_file,
                    "The file it was read from ('' when built in Python).")
      .def_readwrite("description", &Scenario::description, "Free text.")
      .def_property_readonly(
          "hand", [](const Scenario& s) { return std::make_shared<hand::HandModel>(*s.hand); },
          "A copy of the scenario's hand.")
      .def_readwrite("objects", &Scenario::objects,
                     "The objects (a copy: assign a changed list back); where they start and "
                     "how fast are plan.object_poses and plan.object_twists.")
      .def_readwrite("options", &Scenario::options, "Step, gravity, ground, contact, solver.")
      .def_readwrite("plan", &Scenario::plan,
                     "The run plan (the scenario's own: changes stay in the scenario).")
      .def(
          "compile",
          [](const Scenario& s) { return std::const_pointer_cast<Model>(sim::compileScenario(s)); },
          "The scenario's model.")
      .def(
          "save",
          [](const Scenario& s, const std::string& path) {
            const sim::Options d;
            const sim::Options& o = s.options;
            if (o.contact.continuous != d.contact.continuous ||
                o.solver.row_floor != d.solver.row_floor ||
                o.solver.standstill_speed != d.solver.standstill_speed)
              throw std::invalid_argument(
                  "the scenario file has no key for contact.continuous, solver.row_floor or "
                  "solver.standstill_speed: a saved file would run with the defaults");
            sim::validateOptions(o);
            sim::saveScenario(s, path);
          },
          py::arg("path"),
          "Writes the scenario file atomically (paths relative to its folder where they can "
          "be); handsim-cli simulate runs it to the CSV a Run of this scenario records.");
  m.def(
      "load_scenario",
      [](const std::string& path) {
        requireFile(path);
        return sim::loadScenario(path);
      },
      py::arg("path"),
      "Reads a scenario file (docs/scenario-format.md). Raises InputError (file, line, column, "
      "field), FileNotFoundError.");
}

}  // namespace handsim::python
