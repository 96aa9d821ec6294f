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
#include "handsim/hand/hand_loader.hpp"
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

// One Run is used by one thread at a time (issue 24, finding 2: run_to_end() releases the GIL,
// and a step(), reset() or signals() from another thread then tore the state apart). Every
// method of Run marks the run as in use by the calling thread for its duration; a call from
// another thread while it is marked raises RuntimeError instead of touching the state. Calls
// from the same thread nest (a controller called by run_to_end sets commands on its run).
class RunUse {
 public:
  explicit RunUse(const Run& run) : run_(&run) {
    const std::lock_guard<std::mutex> lock(mutex());
    auto [it, fresh] = users().try_emplace(run_, User{std::this_thread::get_id(), 0});
    if (!fresh && it->second.thread != std::this_thread::get_id())
      throw std::runtime_error(
          "this Run is in use by another thread (a Run is not shared between threads while it "
          "steps: give each thread its own Run; they may share one Model)");
    ++it->second.depth;
  }
  ~RunUse() {
    const std::lock_guard<std::mutex> lock(mutex());
    const auto it = users().find(run_);
    if (--it->second.depth == 0) users().erase(it);
  }
  RunUse(const RunUse&) = delete;
  RunUse& operator=(const RunUse&) = delete;

 private:
  struct User {
    std::thread::id thread;
    int depth;
  };
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::unordered_map<const Run*, User>& users() {
    static std::unordered_map<const Run*, User> u;
    return u;
  }
  const Run* run_;
};

// `guarded(f)`: f (a lambda whose first parameter is the Run) called under a RunUse.
template <class F, class R, class Self, class... A>
auto guardedImpl(F f, R (F::*)(Self, A...) const) {
  return [f](Self self, A... a) -> R {
    const RunUse use(self);
    return f(self, std::forward<A>(a)...);
  };
}
template <class F>
auto guarded(F f) {
  return guardedImpl(f, &F::operator());
}

// The Python Run: sim::Run and what the numpy views onto its state need (issue 22, item 5).
// Views (run.q, run.actuator_commands, run.object_poses, ...) point into the state's vectors,
// which keep their buffers for the run's life: the step allocates nothing and reset() here
// copies the fresh state into the old buffers. Writable views are checked before the next
// step against what the last step left (a copy of a few dozen numbers): a change is validated
// (finite, within range, a rigid pose) and takes effect in that step; a bad one raises
// ValueError there, naming the entry, and the step does not run.
class PyRun : public Run {
 public:
  using Run::Run;

  /// Validates what views changed since the last step and brings the state in line
  /// (forwardPosition after new actuator positions or velocities).
  void beforeStep() {
    if (!views_) return;
    sim::SimState& s = state();
    const hand::HandModel& h = model().hand();
    const RunPlan& p = plan();
    bool moved = false;
    for (std::size_t a = 0; a < h.actuators.size(); ++a) {
      const hand::Actuator& act = h.actuators[a];
      const bool traj = a < p.trajectories.size() && !p.trajectories[a].empty();
      if (s.actuator_command[a] != seen_command_[a]) {
        if (!std::isfinite(s.actuator_command[a]))
          throw std::invalid_argument("actuator_commands[" + std::to_string(a) + "] (" + act.name +
                                      ") is not finite");
        if (traj)
          throw std::invalid_argument("actuator_commands[" + std::to_string(a) + "]: " + act.name +
                                      " follows a trajectory; a command would be "
                                      "ignored");
        s.actuator_command[a] = std::clamp(s.actuator_command[a], act.lower, act.upper);
      }
      if (s.actuator_position[a] != seen_position_[a]) {
        if (!std::isfinite(s.actuator_position[a]) || s.actuator_position[a] < act.lower ||
            s.actuator_position[a] > act.upper)
          throw std::invalid_argument("actuator_positions[" + std::to_string(a) + "] (" + act.name +
                                      ") = " + std::to_string(s.actuator_position[a]) +
                                      " is not within [" + std::to_string(act.lower) + ", " +
                                      std::to_string(act.upper) + "]");
        moved = true;
      }
      if (s.actuator_velocity[a] != seen_velocity_[a]) {
        if (!std::isfinite(s.actuator_velocity[a]))
          throw std::invalid_argument("actuator_velocities[" + std::to_string(a) + "] (" +
                                      act.name + ") is not finite");
        moved = true;
      }
    }
    for (std::size_t o = 0; o < s.object_pose_world.size(); ++o) {
      if (s.object_pose_world[o].matrix() != seen_pose_[o].matrix()) {
        const Eigen::Matrix4d t = s.object_pose_world[o].matrix();
        const Eigen::Matrix3d r = t.topLeftCorner<3, 3>();
        if (!t.allFinite() || t.row(3) != Eigen::RowVector4d(0.0, 0.0, 0.0, 1.0) ||
            (r.transpose() * r - Eigen::Matrix3d::Identity()).norm() > 1e-6 ||
            r.determinant() < 0.0)
          throw std::invalid_argument("object_poses[" + std::to_string(o) + "] (" +
                                      model().objects[o].name +
                                      ") is not a rigid pose (finite, rotation, last row 0 0 0 1)");
      }
      if (s.object_twist_world[o] != seen_twist_[o]) {
        if (!s.object_twist_world[o].allFinite())
          throw std::invalid_argument("object_twists[" + std::to_string(o) + "] (" +
                                      model().objects[o].name + ") is not finite");
        if (model().objects[o].fixed && !s.object_twist_world[o].isZero(0.0))
          throw std::invalid_argument("object_twists[" + std::to_string(o) + "]: " +
                                      model().objects[o].name + " is fixed; it cannot move");
      }
    }
    if (moved) sim::forwardPosition(model(), s);
  }

  /// Remembers what the step left, for the next beforeStep.
  void afterStep() {
    if (!views_) return;
    const sim::SimState& s = state();
    seen_command_ = s.actuator_command;
    seen_position_ = s.actuator_position;
    seen_velocity_ = s.actuator_velocity;
    seen_pose_ = s.object_pose_world;
    seen_twist_ = s.object_twist_world;
  }

  /// From now on views exist: writes through them are checked before every step.
  void viewsGiven() {
    if (views_) return;
    views_ = true;
    afterStep();
  }

  /// Run::reset keeping the buffers the views point into.
  void resetKeepingBuffers() {
    sim::SimState& s = state();
    auto q = std::move(s.q), qd = std::move(s.qd), qdd = std::move(s.qdd), tau = std::move(s.tau);
    auto ap = std::move(s.actuator_position), av = std::move(s.actuator_velocity),
         ac = std::move(s.actuator_command), ae = std::move(s.actuator_effort),
         tt = std::move(s.tendon_tension);
    auto poses = std::move(s.object_pose_world);
    auto twists = std::move(s.object_twist_world);
    reset();
    sim::SimState& fresh = state();
    keep(q, fresh.q);
    keep(qd, fresh.qd);
    keep(qdd, fresh.qdd);
    keep(tau, fresh.tau);
    keep(ap, fresh.actuator_position);
    keep(av, fresh.actuator_velocity);
    keep(ac, fresh.actuator_command);
    keep(ae, fresh.actuator_effort);
    keep(tt, fresh.tendon_tension);
    keep(poses, fresh.object_pose_world);
    keep(twists, fresh.object_twist_world);
    afterStep();
  }

 private:
  template <class V>
  static void keep(V& old, V& fresh) {
    if (old.size() != fresh.size()) return;  // never for the same model
    std::copy(fresh.begin(), fresh.end(), old.begin());
    fresh.swap(old);
  }
  bool views_ = false;
  std::vector<double> seen_command_, seen_position_, seen_velocity_;
  std::vector<Eigen::Isometry3d> seen_pose_;
  std::vector<sim::Twist> seen_twist_;
};

// A numpy view of `count` doubles at `data` with `shape` and byte `strides`, kept alive by the
// Python Run `owner`; read-only unless `writable`.
py::array stateView(double* data, std::vector<py::ssize_t> shape, std::vector<py::ssize_t> strides,
                    const py::handle& owner, bool writable) {
  py::array a(py::dtype::of<double>(), std::move(shape), std::move(strides), data, owner);
  if (!writable) a.attr("setflags")(py::arg("write") = false);
  return a;
}

py::array vectorView(PyRun& r, std::vector<double>& v, bool writable) {
  r.viewsGiven();
  return stateView(v.data(), {static_cast<py::ssize_t>(v.size())}, {sizeof(double)},
                   py::cast(&r, py::return_value_policy::reference), writable);
}

py::list fingerViews(PyRun& r, std::vector<kinematics::JointVector>& v) {
  r.viewsGiven();
  py::list out;
  const py::object owner = py::cast(&r, py::return_value_policy::reference);
  for (auto& x : v)
    out.append(
        stateView(x.data(), {static_cast<py::ssize_t>(x.size())}, {sizeof(double)}, owner, false));
  return out;
}

// A Python controller runs between steps with the GIL held; without one the steps run with it
// released.
void stepMany(PyRun& run, std::int64_t n, const std::function<void(PyRun&)>& controller) {
  if (controller) {
    for (std::int64_t i = 0; i < n && !run.finished(); ++i) {
      controller(run);
      run.beforeStep();
      run.step();
      run.afterStep();
    }
    return;
  }
  py::gil_scoped_release release;
  for (std::int64_t i = 0; i < n && !run.finished(); ++i) {
    run.beforeStep();
    run.step();
    run.afterStep();
  }
}

}  // namespace

void bindSim(py::module_& m) {
  py::class_<sim::ContactOptions>(
      m, "ContactOptions",
      "Contact parameters (the scenario file's \"contact\" block, docs/scenario-format.md).")
      .def(py::init<>())
      .def_readwrite("stiffness", &sim::ContactOptions::stiffness,
                     "Fraction of the penetration beyond the slop pushed back per step [-].")
      .def_readwrite("slop", &sim::ContactOptions::slop, "Penetration a contact settles at [m].")
      .def_readwrite("sink_rate", &sim::ContactOptions::sink_rate,
                     "Fraction of the remaining way to the slop a fresh contact may sink per "
                     "step [-].")
      .def_readwrite("kdop_k", &sim::ContactOptions::kdop_k,
                     "Directions of the bounding polytopes: 14, 18 or 26.")
      .def_readwrite("mu", &sim::ContactOptions::mu,
                     "Coulomb coefficient of objects that give none [-].")
      .def_readwrite("object_push", &sim::ContactOptions::object_push,
                     "Fraction of a free object's penetration beyond the slop taken out per step "
                     "(contacts with the ground, the palm, other objects) [-].")
      .def_readwrite("torsional", &sim::ContactOptions::torsional,
                     "Torsional friction length of contacts on free objects [m]; 0: none.")
      .def_readwrite("continuous", &sim::ContactOptions::continuous,
                     "Continuous collision of fast free objects (not in the scenario file: "
                     "Scenario.save refuses a change).")
      .def_property(
          "model",
          [](const sim::ContactOptions& c) {
            return std::string(c.model == sim::ContactModel::Seed004 ? "seed004" : "default");
          },
          [](sim::ContactOptions& c, const std::string& v) {
            if (v == "default") {
              c.model = sim::ContactModel::Default;
            } else if (v == "seed004") {
              c.model = sim::ContactModel::Seed004;
            } else {
              throw std::invalid_argument("contact model: expected 'default' or 'seed004', got '" +
                                          v + "'");
            }
          },
          "The contact model: 'default' (velocity constraints, Coulomb friction) or 'seed004' "
          "(the penalty model, docs/free-objects.md).")
      .def_property(
          "friction_law",
          [](const sim::ContactOptions& c) {
            return std::string(c.friction == sim::PenaltyFriction::Tanh ? "tanh" : "anchor");
          },
          [](sim::ContactOptions& c, const std::string& v) {
            if (v == "anchor") {
              c.friction = sim::PenaltyFriction::Anchor;
            } else if (v == "tanh") {
              c.friction = sim::PenaltyFriction::Tanh;
            } else {
              throw std::invalid_argument("friction_law: expected 'anchor' or 'tanh', got '" + v +
                                          "'");
            }
          },
          "Friction law of the seed004 model: 'anchor' or 'tanh'.")
      .def_property(
          "integration",
          [](const sim::ContactOptions& c) {
            return std::string(c.integration == sim::PenaltyIntegration::Explicit ? "explicit"
                                                                                  : "implicit");
          },
          [](sim::ContactOptions& c, const std::string& v) {
            if (v == "implicit") {
              c.integration = sim::PenaltyIntegration::Implicit;
            } else if (v == "explicit") {
              c.integration = sim::PenaltyIntegration::Explicit;
            } else {
              throw std::invalid_argument("integration: expected 'implicit' or 'explicit', got '" +
                                          v + "'");
            }
          },
          "Integration of the seed004 normal force: 'implicit' or 'explicit'.");

  py::class_<sim::SolverOptions>(
      m, "SolverOptions", "Constraint solver parameters (the scenario file's \"solver\" block).")
      .def(py::init<>())
      .def_readwrite("sweeps", &sim::SolverOptions::sweeps,
                     "Projected Gauss-Seidel sweeps per solve (at most).")
      .def_readwrite("tolerance", &sim::SolverOptions::tolerance,
                     "A solve stops after a sweep whose largest impulse change is at most this "
                     "fraction of the largest impulse [-].")
      .def_readwrite("warm_start", &sim::SolverOptions::warm_start,
                     "Start each solve from the last step's impulses of the same contacts.")
      .def_readwrite("warm_start_radius", &sim::SolverOptions::warm_start_radius,
                     "Largest distance between contact points that count as the same [m].")
      .def_readwrite("row_floor", &sim::SolverOptions::row_floor,
                     "Rows with a smaller effective inverse mass (relative) are skipped [-] (not "
                     "in the scenario file: Scenario.save refuses a change).")
      .def_readwrite("standstill_speed", &sim::SolverOptions::standstill_speed,
                     "Speed below which an actuator counts as standing still for the clutch "
                     "[actuator unit/s] (not in the scenario file: Scenario.save refuses a "
                     "change).");

  py::class_<sim::GroundOptions>(m, "GroundOptions",
                                 "The ground plane (the scenario file's \"ground\" block).")
      .def(py::init<>())
      .def_readwrite("enabled", &sim::GroundOptions::enabled, "Whether there is a ground.")
      .def_readwrite("height", &sim::GroundOptions::height, "Height of the plane, world z [m].")
      .def_readwrite("friction", &sim::GroundOptions::friction,
                     "Coulomb coefficient with the ground [-]; negative: each object's own.");

  py::class_<sim::Options>(m, "Options",
                           "Fixed step, gravity, ground and the contact and solver parameters "
                           "(validated when a Model is compiled).")
      .def(py::init<>())
      .def_readwrite("dt", &sim::Options::dt, "Fixed step [s].")
      .def_readwrite("gravity_world", &sim::Options::gravity_world,
                     "Gravitational acceleration in the world frame [m/s^2].")
      .def_readwrite("contact", &sim::Options::contact,
                     "Contact parameters (ContactOptions; options.contact.mu = 0.8 changes them "
                     "in place).")
      .def_readwrite("solver", &sim::Options::solver, "Solver parameters (SolverOptions).")
      .def_readwrite("ground", &sim::Options::ground, "The ground plane (GroundOptions).")
      .def_property(
          "contact_slop", [](const sim::Options& o) { return o.contact.slop; },
          [](sim::Options& o, double v) { o.contact.slop = v; },
          "Penetration a contact settles at [m] (= contact.slop).")
      .def_property(
          "contact_stiffness", [](const sim::Options& o) { return o.contact.stiffness; },
          [](sim::Options& o, double v) { o.contact.stiffness = v; },
          "Fraction of the penetration beyond the slop pushed back per step [-] "
          "(= contact.stiffness).")
      .def_property(
          "solver_sweeps", [](const sim::Options& o) { return o.solver.sweeps; },
          [](sim::Options& o, int v) { o.solver.sweeps = v; },
          "Projected Gauss-Seidel sweeps per solve (at most; = solver.sweeps).");

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
          [](const sim::ObjectModel& o) {
            return Eigen::Vector3d(o.initial_twist_world.head<3>());
          },
          [](sim::ObjectModel& o, const py::object& v) {
            const Eigen::Vector3d x = vector3(v, "linear_velocity");
            if (!x.allFinite()) throw std::invalid_argument("linear_velocity is not finite");
            o.initial_twist_world.head<3>() = x;
          },
          "Velocity of the centre of mass at the start of a run, world frame [m/s] (free "
          "objects).")
      .def_property(
          "angular_velocity",
          [](const sim::ObjectModel& o) {
            return Eigen::Vector3d(o.initial_twist_world.tail<3>());
          },
          [](sim::ObjectModel& o, const py::object& v) {
            const Eigen::Vector3d x = vector3(v, "angular_velocity");
            if (!x.allFinite()) throw std::invalid_argument("angular_velocity is not finite");
            o.initial_twist_world.tail<3>() = x;
          },
          "Angular velocity at the start of a run, world frame [rad/s] (free objects).");
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
      .def_property_readonly(
          "objects", [](const Model& x) { return x.objects; },
          "Copies of the model's objects (the model itself cannot change).")
      .def_property_readonly(
          "options", [](const Model& x) { return x.options; }, "A copy of the model's options.");

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
          py::arg("axis"),
          py::arg("segments") =
              std::vector<std::tuple<double, double, double, std::optional<double>>>{},
          py::arg("sinusoids") = std::vector<std::tuple<double, double, double, double>>{},
          "The palm's prescribed motion on one axis ('x', 'y', 'z' in m; 'rx', 'ry', 'rz' in rad "
          "about world axes through the palm origin): trapezoidal segments (to, max_velocity, "
          "max_acceleration, start_s or None) from 0, plus sinusoids (amplitude, frequency_hz, "
          "start_s, cycles). Replaces what the axis had.");

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
           "mass, velocities, friction, torsional, pose), options (ground, contact, solver) and "
           "a plan (duration, initial, set_trajectory, palm_pose, set_palm_motion). save() "
           "writes the file handsim-cli simulate runs to the same CSV.")
      .def_readonly("source_file", &Scenario::source_file,
                    "The file it was read from ('' when built in Python).")
      .def_readwrite("description", &Scenario::description, "Free text.")
      .def_property_readonly(
          "hand", [](const Scenario& s) { return std::make_shared<hand::HandModel>(*s.hand); },
          "A copy of the scenario's hand.")
      .def_readwrite("objects", &Scenario::objects,
                     "The objects with their initial poses (a copy: assign a changed list back).")
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

  py::class_<contact::Contact>(m, "Contact", "A link-object contact of the last step, world frame.")
      .def_readonly("finger", &contact::Contact::finger,
                    "Index of the finger whose link touches (-1: an object contact).")
      .def_readonly("row", &contact::Contact::row, "The link rigid with DH frame {row + 1}.")
      .def_readonly("object", &contact::Contact::object, "Index of the object touched.")
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

  py::class_<PyRun>(m, "Run",
                    "One state running on a model through the staged step (docs/simulation.md): "
                    "references, controller, recorder.")
      .def(py::init([](std::shared_ptr<Model> model, std::optional<RunPlan> plan) {
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
                             "Steps taken since the start (or the last reset).")
      .def_property_readonly(
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
          "(set them with set_tendon_command).")
      .def_property_readonly(
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
      .def(
          "object_pose", guarded([](const PyRun& r, int i) {
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
          "Velocity of the palm frame's origin [m/s] then its angular velocity [rad/s], world.")
      .def_property_readonly("columns",
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

}  // namespace handsim::python
