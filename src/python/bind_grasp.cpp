// SPDX-License-Identifier: GPL-3.0-or-later
#include <pybind11/pybind11.h>

#include "bindings.hpp"

namespace py = pybind11;

namespace handsim::python {

void bindGrasp(py::module_&) {}

}  // namespace handsim::python
