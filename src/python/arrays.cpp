// SPDX-License-Identifier: GPL-3.0-or-later
#include "arrays.hpp"

#include <stdexcept>

namespace py = pybind11;

namespace handsim::python {

std::string shapeText(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t d = 0; d < a.ndim(); ++d) s += (d ? ", " : "") + std::to_string(a.shape(d));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

py::array_t<double, py::array::c_style> realArray(const py::handle& object, const char* what) {
  const py::array a = py::array::ensure(object);
  if (!a || (a.dtype().kind() != 'f' && a.dtype().kind() != 'i' && a.dtype().kind() != 'u'))
    throw std::invalid_argument(std::string(what) + ": expected a real number or array");
  return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
}

py::array_t<double, py::array::c_style> outputArray(const py::object& out,
                                                    const std::vector<py::ssize_t>& shape) {
  if (out.is_none()) return py::array_t<double, py::array::c_style>(shape);
  std::string wanted = "(";
  for (std::size_t d = 0; d < shape.size(); ++d)
    wanted += (d ? ", " : "") + std::to_string(shape[d]);
  wanted += shape.size() == 1 ? ",)" : ")";
  const std::string expected = "out: expected a writeable C-contiguous float64 numpy array of "
                               "shape " + wanted + ", got ";
  if (!py::isinstance<py::array>(out))
    throw std::invalid_argument(expected + std::string(py::str(py::type::of(out).attr("__name__"))));
  const auto a = py::reinterpret_borrow<py::array>(out);
  if (!a.dtype().is(py::dtype::of<double>()))
    throw std::invalid_argument(expected + "dtype " + std::string(py::str(a.dtype())));
  bool same = a.ndim() == static_cast<py::ssize_t>(shape.size());
  for (std::size_t d = 0; same && d < shape.size(); ++d)
    same = a.shape(static_cast<py::ssize_t>(d)) == shape[d];
  if (!same) throw std::invalid_argument(expected + "shape " + shapeText(a));
  if (!(a.flags() & py::array::c_style))
    throw std::invalid_argument(expected + "an array that is not C-contiguous");
  if (!a.writeable()) throw std::invalid_argument(expected + "a read-only array");
  return py::reinterpret_borrow<py::array_t<double, py::array::c_style>>(out);
}

RowMatrix3d rowsOf3(const py::handle& object, const char* what) {
  const auto a = realArray(object, what);
  if (a.ndim() != 2 || a.shape(1) != 3)
    throw std::invalid_argument(std::string(what) + ": expected shape (N, 3), got " + shapeText(a));
  return Eigen::Map<const RowMatrix3d>(a.data(), a.shape(0), 3);
}

Eigen::Vector3d vector3(const py::handle& object, const char* what) {
  const auto a = realArray(object, what);
  if (a.ndim() != 1 || a.shape(0) != 3)
    throw std::invalid_argument(std::string(what) + ": expected shape (3,), got " + shapeText(a));
  return Eigen::Map<const Eigen::Vector3d>(a.data());
}

Eigen::Isometry3d rigidPose(const py::handle& object, const char* what) {
  const auto a = realArray(object, what);
  if (a.ndim() != 2 || a.shape(0) != 4 || a.shape(1) != 4)
    throw std::invalid_argument(std::string(what) + ": expected a 4x4 array, got " + shapeText(a));
  const Eigen::Matrix4d t =
      Eigen::Map<const Eigen::Matrix<double, 4, 4, Eigen::RowMajor>>(a.data());
  if (!t.allFinite()) throw std::invalid_argument(std::string(what) + " is not finite");
  if (t.row(3) != Eigen::RowVector4d(0.0, 0.0, 0.0, 1.0))
    throw std::invalid_argument(std::string(what) + ": the last row must be 0 0 0 1");
  const Eigen::Matrix3d r = t.topLeftCorner<3, 3>();
  if ((r.transpose() * r - Eigen::Matrix3d::Identity()).norm() > 1e-6 || r.determinant() < 0.0)
    throw std::invalid_argument(std::string(what) + ": the rotation part is not a rotation");
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() = r;
  pose.translation() = t.topRightCorner<3, 1>();
  return pose;
}

int partIndex(const hand::HandModel& hand, const py::handle& which, const char* kind) {
  const bool tendon = std::string(kind) == "tendon";
  const int count = static_cast<int>(tendon ? hand.tendons.size() : hand.actuators.size());
  if (py::isinstance<py::str>(which)) {
    const std::string name = which.cast<std::string>();
    const int i = tendon ? hand.tendonIndex(name) : hand.actuatorIndex(name);
    if (i < 0)
      throw std::invalid_argument("no " + std::string(kind) + " named '" + name + "' in hand '" +
                                  hand.id + "'");
    return i;
  }
  const int i = which.cast<int>();
  if (i < 0 || i >= count)
    throw std::out_of_range(std::string(kind) + " index " + std::to_string(i) + " is not in 0.." +
                            std::to_string(count - 1));
  return i;
}

}  // namespace handsim::python
