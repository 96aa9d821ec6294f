// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.Options and its parts: contact, solver and ground parameters (the scenario file's
// blocks, docs/scenario-format.md), validated when a Model is compiled.
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

// The chosen model's options for a field of that model; a ValueError (std::invalid_argument)
// naming the model the field belongs to when another model is chosen.
sim::ConstraintContactOptions& constraintFor(sim::ContactOptions& c, const char* field) {
  if (sim::ConstraintContactOptions* o = c.constraint()) return *o;
  throw std::invalid_argument(std::string("contact.") + field +
                              " belongs to the 'default' contact model; this one is 'seed004'");
}
const sim::ConstraintContactOptions& constraintFor(const sim::ContactOptions& c,
                                                   const char* field) {
  return constraintFor(const_cast<sim::ContactOptions&>(c), field);
}
sim::VolumePenaltyOptions& penaltyFor(sim::ContactOptions& c, const char* field) {
  if (sim::VolumePenaltyOptions* o = c.volumePenalty()) return *o;
  throw std::invalid_argument(std::string("contact.") + field +
                              " belongs to the 'seed004' contact model; set contact.model = "
                              "'seed004' first");
}
const sim::VolumePenaltyOptions& penaltyFor(const sim::ContactOptions& c, const char* field) {
  return penaltyFor(const_cast<sim::ContactOptions&>(c), field);
}

// A property of the constraint model's options.
template <class Class>
void constraintField(Class& cls, const char* name, double sim::ConstraintContactOptions::*field,
                     const char* doc) {
  cls.def_property(
      name, [name, field](const sim::ContactOptions& c) { return constraintFor(c, name).*field; },
      [name, field](sim::ContactOptions& c, double v) { constraintFor(c, name).*field = v; }, doc);
}

}  // namespace

void bindContactOptions(py::module_& m) {
  py::class_<sim::ContactOptions> cls(
      m, "ContactOptions",
      "Contact parameters (the scenario file's \"contact\" block, docs/scenario-format.md): "
      "kdop_k, mu and continuous for every model, then the chosen model's own (stiffness, slop, "
      "sink_rate, object_push, torsional, resting_tolerance for 'default'; friction_law, "
      "integration for "
      "'seed004'). Reading or writing another model's field is a ValueError.");
  cls.def(py::init<>())
      .def_readwrite("kdop_k", &sim::ContactOptions::kdop_k,
                     "Directions of the bounding polytopes: 14, 18 or 26.")
      .def_readwrite("mu", &sim::ContactOptions::mu,
                     "Coulomb coefficient of objects that give none [-].")
      .def_readwrite("continuous", &sim::ContactOptions::continuous,
                     "Continuous collision of fast free objects (not in the scenario file: "
                     "Scenario.save refuses a change).");
  constraintField(cls, "stiffness", &sim::ConstraintContactOptions::stiffness,
                  "Fraction of the penetration beyond the slop pushed back per step [-].");
  constraintField(cls, "slop", &sim::ConstraintContactOptions::slop,
                  "Penetration a contact settles at [m].");
  constraintField(cls, "sink_rate", &sim::ConstraintContactOptions::sink_rate,
                  "Fraction of the remaining way to the slop a fresh contact may sink per step "
                  "[-].");
  constraintField(cls, "object_push", &sim::ConstraintContactOptions::object_push,
                  "Fraction of a free object's penetration beyond the slop taken out per step "
                  "(contacts with the ground, the palm, other objects) [-].");
  constraintField(cls, "torsional", &sim::ConstraintContactOptions::torsional,
                  "Torsional friction length of contacts on free objects [m]; 0: none.");
  constraintField(cls, "resting_tolerance", &sim::ConstraintContactOptions::resting_tolerance,
                  "Resting-pair reuse [m]: a touching body pair keeps its last query's contacts "
                  "while no point of one has moved more than this relative to the other; 0: "
                  "every pair queried every step.");
  cls.def_property(
         "model",
         [](const sim::ContactOptions& c) {
           return std::string(c.volumePenalty() ? "seed004" : "default");
         },
         [](sim::ContactOptions& c, const std::string& v) {
           if (v == "default") {
             c.useConstraint();
           } else if (v == "seed004") {
             c.useVolumePenalty();
           } else {
             throw std::invalid_argument("contact model: expected 'default' or 'seed004', got '" +
                                         v + "'");
           }
         },
         "The contact model: 'default' (velocity constraints, Coulomb friction) or 'seed004' "
         "(seed 004's volume penalty model, docs/free-objects.md). Choosing another model "
         "starts from that model's defaults.")
      .def_property(
          "friction_law",
          [](const sim::ContactOptions& c) {
            return std::string(penaltyFor(c, "friction_law").friction == sim::PenaltyFriction::Tanh
                                   ? "tanh"
                                   : "anchor");
          },
          [](sim::ContactOptions& c, const std::string& v) {
            sim::VolumePenaltyOptions& p = penaltyFor(c, "friction_law");
            if (v == "anchor") {
              p.friction = sim::PenaltyFriction::Anchor;
            } else if (v == "tanh") {
              p.friction = sim::PenaltyFriction::Tanh;
            } else {
              throw std::invalid_argument("friction_law: expected 'anchor' or 'tanh', got '" + v +
                                          "'");
            }
          },
          "Friction law of the seed004 model: 'anchor' or 'tanh'.")
      .def_property(
          "integration",
          [](const sim::ContactOptions& c) {
            return std::string(penaltyFor(c, "integration").integration ==
                                       sim::PenaltyIntegration::Explicit
                                   ? "explicit"
                                   : "implicit");
          },
          [](sim::ContactOptions& c, const std::string& v) {
            sim::VolumePenaltyOptions& p = penaltyFor(c, "integration");
            if (v == "implicit") {
              p.integration = sim::PenaltyIntegration::Implicit;
            } else if (v == "explicit") {
              p.integration = sim::PenaltyIntegration::Explicit;
            } else {
              throw std::invalid_argument("integration: expected 'implicit' or 'explicit', got '" +
                                          v + "'");
            }
          },
          "Integration of the seed004 normal force: 'implicit' or 'explicit'.");
}

void bindOptions(py::module_& m) {
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
          "contact_slop",
          [](const sim::Options& o) { return constraintFor(o.contact, "slop").slop; },
          [](sim::Options& o, double v) { constraintFor(o.contact, "slop").slop = v; },
          "Penetration a contact settles at [m] (= contact.slop).")
      .def_property(
          "contact_stiffness",
          [](const sim::Options& o) { return constraintFor(o.contact, "stiffness").stiffness; },
          [](sim::Options& o, double v) { constraintFor(o.contact, "stiffness").stiffness = v; },
          "Fraction of the penetration beyond the slop pushed back per step [-] "
          "(= contact.stiffness).")
      .def_property(
          "solver_sweeps", [](const sim::Options& o) { return o.solver.sweeps; },
          [](sim::Options& o, int v) { o.solver.sweeps = v; },
          "Projected Gauss-Seidel sweeps per solve (at most; = solver.sweeps).");
}

}  // namespace handsim::python
