// SPDX-License-Identifier: GPL-3.0-or-later
// handsim._handsim: the compiled part of the Python package `handsim` (docs/python.md).
#include <pybind11/pybind11.h>

#include "bindings.hpp"

PYBIND11_MODULE(_handsim, m) {
  m.doc() =
      "handsim: multi-fingered, under-actuated robotic hands (kinematics, Lagrange-Euler "
      "dynamics, the BarrettHand breakaway clutch, k-DOP contacts, grasp quality). SI units and "
      "radians; numpy arrays in and out.";
  m.attr("__version__") = HANDSIM_VERSION;
  handsim::python::bindErrors(m);
  handsim::python::bindHand(m);
  handsim::python::bindSim(m);
  handsim::python::bindGeometry(m);
  handsim::python::bindGrasp(m);
  handsim::python::bindPlanner(m);
  handsim::python::bindPlot(m);
#ifdef HANDSIM_PYTHON_RENDER
  handsim::python::bindRender(m);
#endif
}
