// SPDX-License-Identifier: GPL-3.0-or-later
// Checked conversions of Python values (numpy arrays, names) for the bindings: each bad value is
// a std::invalid_argument (ValueError in Python) naming what it was for and what was expected.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Geometry>
#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"

namespace handsim::python {

using RowMatrix3d = Eigen::Matrix<double, Eigen::Dynamic, 3, Eigen::RowMajor>;

/// "(4, 3)" for an array's shape.
std::string shapeText(const pybind11::array& a);
/// A real array as float64 (C order); a non-numeric one is a ValueError naming `what`.
pybind11::array_t<double, pybind11::array::c_style> realArray(const pybind11::handle& object,
                                                              const char* what);
/// The caller's output array `out=` (issue 22, item 4), checked: a numpy array of float64, C
/// order, writeable, of exactly the shape `shape`; anything else is a ValueError naming what
/// was expected and what came. `out` None gives a fresh array of that shape.
pybind11::array_t<double, pybind11::array::c_style> outputArray(
    const pybind11::object& out, const std::vector<pybind11::ssize_t>& shape);
/// A real (N, 3) array as rows.
RowMatrix3d rowsOf3(const pybind11::handle& object, const char* what);
/// A real (3,) array.
Eigen::Vector3d vector3(const pybind11::handle& object, const char* what);
/// A 4x4 homogeneous rigid transform: finite, last row (0, 0, 0, 1), rotation orthonormal with
/// determinant +1 to 1e-6 (poses composed in float64 keep far better than that).
Eigen::Isometry3d rigidPose(const pybind11::handle& object, const char* what);
/// An actuator (kind "actuator") or tendon (kind "tendon") of `hand` by index or name: a
/// ValueError for an unknown name, an IndexError for an index out of range.
int partIndex(const hand::HandModel& hand, const pybind11::handle& which, const char* kind);

}  // namespace handsim::python
