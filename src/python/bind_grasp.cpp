// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp quality and sweeps (bind_grasp_quality.cpp, bind_grasp_sweep.cpp).
#include "bindings.hpp"

namespace handsim::python {

void bindGrasp(pybind11::module_& m) {
  bindGraspQuality(m);
  bindSweepSpec(m);
  bindSweepResults(m);
}

}  // namespace handsim::python
