// SPDX-License-Identifier: GPL-3.0-or-later
// Core exceptions become Python exceptions with the same located messages as the CLI:
// io::InputError -> handsim.InputError (a ValueError carrying file, line, column, field),
// kinematics::UnreachableTarget -> handsim.UnreachableTarget (a ValueError carrying the miss
// distance [m] and the closest joint values), std::invalid_argument -> ValueError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cerrno>
#include <filesystem>

#include "bindings.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {
PyObject* g_input_error = nullptr;
PyObject* g_unreachable = nullptr;

// An exception instance of `type` with `message`, its attributes set, raised.
void raise(PyObject* type, const std::string& message, const py::dict& attributes) {
  py::object instance = py::reinterpret_borrow<py::object>(type)(message);
  for (const auto& item : attributes) py::setattr(instance, item.first, item.second);
  PyErr_SetObject(type, instance.ptr());
}
}  // namespace

void raiseUnreachable(const std::string& message, const py::object& miss,
                      const py::object& closest) {
  py::dict attributes;
  attributes["miss"] = miss;
  attributes["closest"] = closest;
  raise(g_unreachable, message, attributes);
  throw py::error_already_set();
}

void requireFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    py::object error =
        py::module_::import("builtins").attr("FileNotFoundError")(ENOENT, "No such file", path);
    PyErr_SetObject(PyExc_FileNotFoundError, error.ptr());
    throw py::error_already_set();
  }
}

void bindErrors(py::module_& m) {
  g_input_error = PyErr_NewExceptionWithDoc(
      "handsim.InputError",
      "A bad input file or value, located: attributes file, line, column (1-based, 0 when "
      "unknown) and field (a JSON pointer or field name, may be empty). The message is the "
      "CLI's: 'file:line:column: field: problem'.",
      PyExc_ValueError, nullptr);
  g_unreachable = PyErr_NewExceptionWithDoc(
      "handsim.UnreachableTarget",
      "An inverse-kinematics target the finger cannot reach within its joint limits: "
      "attributes miss (distance from the target to the nearest fingertip position found [m]) "
      "and closest (those joint values, numpy array).",
      PyExc_ValueError, nullptr);
  m.attr("InputError") = py::handle(g_input_error);
  m.attr("UnreachableTarget") = py::handle(g_unreachable);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const io::InputError& e) {
      const io::SourceLocation& where = e.location();
      py::dict attributes;
      attributes["file"] = where.file;
      attributes["line"] = where.line;
      attributes["column"] = where.column;
      attributes["field"] = where.field;
      raise(g_input_error, e.what(), attributes);
    } catch (const kinematics::UnreachableTarget& e) {
      py::dict attributes;
      attributes["miss"] = e.miss();
      const kinematics::JointVector& q = e.closest();
      attributes["closest"] = py::array_t<double>(q.size(), q.data());
      raise(g_unreachable, e.what(), attributes);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::out_of_range& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    }
  });
}

}  // namespace handsim::python
