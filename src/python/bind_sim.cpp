// SPDX-License-Identifier: GPL-3.0-or-later
// The engine in Python: options, scenes and runs (bind_options.cpp, bind_scene.cpp,
// bind_run.cpp), registered in the order their types appear in one another's signatures.
#include "bindings.hpp"

namespace handsim::python {

void bindSim(pybind11::module_& m) {
  bindContactOptions(m);
  bindOptions(m);
  bindObjects(m);
  bindModel(m);
  bindRunPlan(m);
  bindScenario(m);
  bindRun(m);
}

}  // namespace handsim::python
