// SPDX-License-Identifier: GPL-3.0-or-later
// Checked arguments and conversions shared by the bindings of handsim.Hand (hand_args.hpp).
#include "hand_args.hpp"

#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include "arrays.hpp"
#include "handsim/hand/hand_ik.hpp"

namespace py = pybind11;

namespace handsim::python {

using hand::HandModel;
using Vector = Eigen::VectorXd;

const kinematics::Chain& finger(const HandModel& h, int f) {
  if (f < 0 || f >= static_cast<int>(h.fingers.size()))
    throw std::out_of_range("finger index " + std::to_string(f) + " is not in 0.." +
                            std::to_string(static_cast<int>(h.fingers.size()) - 1));
  return h.fingers[static_cast<std::size_t>(f)];
}

kinematics::JointVector joints(const kinematics::Chain& c, const Vector& q, const char* what) {
  if (q.size() != c.dof())
    throw std::invalid_argument(std::string(what) + ": finger '" + c.name + "' has " +
                                std::to_string(c.dof()) + " joints, got " +
                                std::to_string(q.size()) + " values");
  if (!q.allFinite()) throw std::invalid_argument(std::string(what) + " is not finite");
  return q;
}

// Joint values given as one vector (dof,) or a batch (N, dof): the array, checked (finite, dof
// columns). `batch` tells which.
py::array_t<double, py::array::c_style> jointArray(const kinematics::Chain& c, const py::object& q,
                                                   const char* what, bool& batch) {
  auto a = realArray(q, what);
  if (a.ndim() != 1 && a.ndim() != 2)
    throw std::invalid_argument(std::string(what) + ": expected shape (" + std::to_string(c.dof()) +
                                ",) or (N, " + std::to_string(c.dof()) + "), got " + shapeText(a));
  batch = a.ndim() == 2;
  const py::ssize_t cols = a.shape(a.ndim() - 1);
  if (cols != c.dof())
    throw std::invalid_argument(std::string(what) + ": finger '" + c.name + "' has " +
                                std::to_string(c.dof()) + " joints, got " + std::to_string(cols) +
                                " values" + (batch ? " per row" : ""));
  const double* d = a.data();
  for (py::ssize_t i = 0; i < a.size(); ++i)
    if (!std::isfinite(d[i])) throw std::invalid_argument(std::string(what) + " is not finite");
  return a;
}

kinematics::JointVector jointVectorOf(const py::array_t<double, py::array::c_style>& a) {
  return Eigen::Map<const Vector>(a.data(), static_cast<Eigen::Index>(a.size()));
}

// The fingertip (issue 22, item 3): one point for every API, hand::fingerEndpoint's. For a URDF
// finger whose file has a tip link fixed beyond the last joint frame it is that link's origin,
// else the origin of the last joint frame ({kn}, fk()[-1]). The chain returned here ends at it:
// the finger's chain with that link appended as a fixed row (unchanged when there is none), so
// its last frame is the fingertip.
kinematics::Chain tipChain(const HandModel& x, int f) {
  finger(x, f);
  return hand::fingerPointChain(x, f, hand::FingerPoint::Tip);
}

// The chain ending at `point`: "tip" (the fingertip) or "last_frame" (the last joint frame).
kinematics::Chain pointChain(const HandModel& x, int f, const std::string& point) {
  finger(x, f);
  return hand::fingerPointChain(x, f, hand::fingerPointFromName(point));
}

Eigen::Vector3d finiteVector3(const Eigen::Vector3d& v, const char* what) {
  if (!v.allFinite()) throw std::invalid_argument(std::string(what) + " is not finite");
  return v;
}

// Frames as an (n, 4, 4) array.
py::array_t<double> framesArray(const std::vector<Eigen::Matrix4d>& frames) {
  py::array_t<double> out(
      {static_cast<py::ssize_t>(frames.size()), py::ssize_t{4}, py::ssize_t{4}});
  auto a = out.mutable_unchecked<3>();
  for (std::size_t k = 0; k < frames.size(); ++k)
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) a(static_cast<py::ssize_t>(k), r, c) = frames[k](r, c);
  return out;
}

std::vector<hand::ClutchState> clutchStates(
    const HandModel& h, const std::optional<std::vector<hand::ClutchState>>& c) {
  if (!c) return std::vector<hand::ClutchState>(h.clutches.size());
  if (c->size() != h.clutches.size())
    throw std::invalid_argument("clutches: the hand has " + std::to_string(h.clutches.size()) +
                                ", got " + std::to_string(c->size()));
  return *c;
}

std::vector<double> actuatorVector(const HandModel& h, const std::vector<double>& a) {
  if (a.size() != h.actuators.size())
    throw std::invalid_argument("actuator positions: the hand has " +
                                std::to_string(h.actuators.size()) + " actuators, got " +
                                std::to_string(a.size()));
  for (double v : a)
    if (!std::isfinite(v)) throw std::invalid_argument("actuator position is not finite");
  return a;
}

const char* typeName(kinematics::JointType t) {
  switch (t) {
    case kinematics::JointType::Revolute:
      return "revolute";
    case kinematics::JointType::Prismatic:
      return "prismatic";
    case kinematics::JointType::Fixed:
      return "fixed";
  }
  return "?";
}

std::vector<kinematics::JointVector> handJoints(const HandModel& x, const std::vector<Vector>& q,
                                                const char* what) {
  if (q.size() != x.fingers.size())
    throw std::invalid_argument(std::string(what) + ": the hand has " +
                                std::to_string(x.fingers.size()) + " fingers, got " +
                                std::to_string(q.size()));
  std::vector<kinematics::JointVector> out;
  for (std::size_t f = 0; f < q.size(); ++f) out.push_back(joints(x.fingers[f], q[f], what));
  return out;
}

/// A row as the dict Hand.dh_rows gives: both forms, the placement fields for either.
py::dict rowDict(const kinematics::DhRow& row) {
  py::dict d;
  d["form"] = row.form == kinematics::JointFrameForm::Dh ? "dh" : "placement";
  d["a"] = row.a;
  d["alpha"] = row.alpha;
  d["d"] = row.d;
  d["theta"] = row.theta;
  d["type"] = typeName(row.type);
  d["lower"] = row.lower;
  d["upper"] = row.upper;
  d["placement"] = Eigen::Matrix4d(row.placement.matrix());
  d["axis"] = Eigen::Vector3d(row.axis);
  return d;
}

}  // namespace handsim::python
