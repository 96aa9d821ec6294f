// SPDX-License-Identifier: GPL-3.0-or-later
// The Python Run's views and stepping (py_run.hpp).
#include "py_run.hpp"

#include <pybind11/functional.h>

namespace py = pybind11;

namespace handsim::python {

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

}  // namespace handsim::python
