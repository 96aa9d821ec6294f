// SPDX-License-Identifier: GPL-3.0-or-later
// The parts of the Python module (docs/python.md), each adding its classes and functions to the
// module handsim._handsim. Units are SI and radians, as in the core; numpy arrays in and out.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "handsim/grasp/grasp_quality.hpp"

namespace handsim::python {

/// handsim.InputError (ValueError with file, line, column, field), handsim.UnreachableTarget
/// (ValueError with miss and closest) and the translation of every core exception.
void bindErrors(pybind11::module_& m);
/// Hands: loading, fingers, joints, actuators, kinematics, dynamics, transmission.
void bindHand(pybind11::module_& m);
/// Model, scenarios, runs, recorded signals.
void bindSim(pybind11::module_& m);
/// Meshes and collision.
void bindGeometry(pybind11::module_& m);
/// Grasp quality and sweeps.
void bindGrasp(pybind11::module_& m);
/// The grasp planner, validation presets and grasp records (bind_planner.cpp).
void bindPlanner(pybind11::module_& m);
/// Figures of a run's recorded signals through the shared plot library (bind_plot.cpp).
void bindPlot(pybind11::module_& m);
/// Pictures of a run's scene (bind_render.cpp; only when built with handsim_render).
void bindRender(pybind11::module_& m);

// The parts of the parts, registered by the four above in this order (a type is registered
// before the signatures that name it).
void bindContactOptions(pybind11::module_& m);  // bind_options.cpp
void bindOptions(pybind11::module_& m);         // bind_options.cpp
void bindObjects(pybind11::module_& m);         // bind_scene.cpp
void bindModel(pybind11::module_& m);           // bind_scene.cpp
void bindRunPlan(pybind11::module_& m);         // bind_scene.cpp
void bindScenario(pybind11::module_& m);        // bind_scene.cpp
void bindRun(pybind11::module_& m);             // bind_run.cpp
void bindGraspQuality(pybind11::module_& m);    // bind_grasp_quality.cpp
void bindSweepSpec(pybind11::module_& m);       // bind_grasp_sweep.cpp
void bindSweepResults(pybind11::module_& m);    // bind_grasp_sweep.cpp

/// "GraspQuality(force_closure=..., epsilon=..., ...)" (bind_grasp_quality.cpp).
std::string graspQualityRepr(const grasp::GraspQuality& q);

/// Raises FileNotFoundError (errno ENOENT, with the file name) unless `path` names an existing
/// file; loaders call it first so a missing file is not reported as a malformed one.
void requireFile(const std::string& path);

/// Raises handsim.UnreachableTarget with `message` and the attributes miss and closest (the
/// batch IK passes arrays: one miss per target, the nearest joint values per target).
[[noreturn]] void raiseUnreachable(const std::string& message, const pybind11::object& miss,
                                   const pybind11::object& closest);

}  // namespace handsim::python
