// SPDX-License-Identifier: GPL-3.0-or-later
// The parts of the Python module (docs/python.md), each adding its classes and functions to the
// module handsim._handsim. Units are SI and radians, as in the core; numpy arrays in and out.
#pragma once

#include <pybind11/pybind11.h>

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

/// Raises FileNotFoundError (errno ENOENT, with the file name) unless `path` names an existing
/// file; loaders call it first so a missing file is not reported as a malformed one.
void requireFile(const std::string& path);

/// Raises handsim.UnreachableTarget with `message` and the attributes miss and closest (the
/// batch IK passes arrays: one miss per target, the nearest joint values per target).
[[noreturn]] void raiseUnreachable(const std::string& message, const pybind11::object& miss,
                                   const pybind11::object& closest);

}  // namespace handsim::python
