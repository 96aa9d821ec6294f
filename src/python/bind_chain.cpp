// SPDX-License-Identifier: GPL-3.0-or-later
// Chains built from row dicts (the form Hand.dh_rows gives): handsim.chain_fk and
// handsim.placement_row.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <set>

#include "arrays.hpp"
#include "batch.hpp"
#include "bindings.hpp"
#include "hand_args.hpp"
#include "handsim/dynamics/forward_dynamics.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/hand/hand_ik.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/hand/transmission_ik.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/dh_row.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {

using Vector = Eigen::VectorXd;

kinematics::JointType typeFromName(const std::string& t) {
  if (t == "revolute") return kinematics::JointType::Revolute;
  if (t == "prismatic") return kinematics::JointType::Prismatic;
  if (t == "fixed") return kinematics::JointType::Fixed;
  throw std::invalid_argument("row type: expected 'revolute', 'prismatic' or 'fixed', got '" + t +
                              "'");
}

double number(const py::dict& d, const char* key, double fallback, std::size_t i) {
  if (!d.contains(key)) return fallback;
  const double v = py::cast<double>(d[key]);
  if (!std::isfinite(v))
    throw std::invalid_argument("rows[" + std::to_string(i) + "]['" + key + "'] is not finite");
  return v;
}

/// A row from a dict (the form Hand.dh_rows gives): form 'dh' (a, alpha, d, theta) or
/// 'placement' (placement 4x4, axis), type and limits.
kinematics::DhRow rowFromDict(const py::dict& d, std::size_t i) {
  const std::string where = "rows[" + std::to_string(i) + "]";
  for (const auto& item : d) {
    const std::string k = py::cast<std::string>(item.first);
    static const std::set<std::string> known = {"form", "a",     "alpha", "d",         "theta",
                                                "type", "lower", "upper", "placement", "axis"};
    if (!known.count(k)) throw std::invalid_argument(where + ": unknown key '" + k + "'");
  }
  const std::string form = d.contains("form") ? py::cast<std::string>(d["form"]) : "dh";
  const kinematics::JointType type =
      typeFromName(d.contains("type") ? py::cast<std::string>(d["type"]) : "revolute");
  const double lower = number(d, "lower", 0.0, i), upper = number(d, "upper", 0.0, i);
  if (lower > upper) throw std::invalid_argument(where + ": lower > upper");
  if (form == "placement") {
    Eigen::Isometry3d placement = Eigen::Isometry3d::Identity();
    if (d.contains("placement")) {
      const Eigen::Matrix4d t = py::cast<Eigen::Matrix4d>(d["placement"]);
      const Eigen::Matrix3d r = t.topLeftCorner<3, 3>();
      if (!t.allFinite() || (r.transpose() * r - Eigen::Matrix3d::Identity()).norm() > 1e-9 ||
          r.determinant() < 0.0 || (t.row(3) - Eigen::RowVector4d(0, 0, 0, 1)).norm() > 0.0)
        throw std::invalid_argument(where +
                                    "['placement']: expected a finite 4x4 rigid "
                                    "transform (rotation orthonormal, last row 0 0 0 1)");
      placement.matrix() = t;
    }
    const Eigen::Vector3d axis =
        d.contains("axis") ? py::cast<Eigen::Vector3d>(d["axis"]) : Eigen::Vector3d::UnitZ();
    try {
      return kinematics::placementRow(placement, axis, type, lower, upper);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + ": " + e.what());
    }
  }
  if (form != "dh")
    throw std::invalid_argument(where + "['form']: expected 'dh' or 'placement', got '" + form +
                                "'");
  kinematics::DhRow row;
  row.a = number(d, "a", 0.0, i);
  row.alpha = number(d, "alpha", 0.0, i);
  row.d = number(d, "d", 0.0, i);
  row.theta = number(d, "theta", 0.0, i);
  row.type = type;
  row.lower = lower;
  row.upper = upper;
  return row;
}

kinematics::Chain chainFromRows(const std::vector<py::dict>& rows,
                                const std::optional<Eigen::Matrix4d>& base) {
  kinematics::Chain c;
  c.name = "chain";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    c.rows.push_back(rowFromDict(rows[i], i));
    c.joint_names.push_back("J" + std::to_string(i + 1));
    c.links.emplace_back();
  }
  if (base) {
    if (!base->allFinite()) throw std::invalid_argument("base is not finite");
    c.base.matrix() = *base;
  }
  return c;
}

}  // namespace

void bindChains(py::module_& m) {
  m.def(
      "chain_fk",
      [](const std::vector<py::dict>& rows, const Vector& q, std::optional<Eigen::Matrix4d> base) {
        const kinematics::Chain c = chainFromRows(rows, base);
        const auto frames = kinematics::forwardKinematics(c, joints(c, q, "q"));
        std::vector<Eigen::Matrix4d> out;
        for (int i = 0; i < frames.count; ++i) out.push_back((c.base * frames.at(i)).matrix());
        return framesArray(out);
      },
      py::arg("rows"), py::arg("q"), py::arg("base") = py::none(),
      "Forward kinematics of a chain built from row dicts (the form Hand.dh_rows gives: "
      "form 'dh' with a, alpha, d, theta, or form 'placement' with placement (4x4) and axis; "
      "type 'revolute', 'prismatic' or 'fixed'; lower, upper): every frame {k0}..{kn} as an "
      "(n+1, 4, 4) array in the frame `base` (4x4, default identity) is given in. q: one "
      "value per movable row [rad or m].");
  m.def(
      "placement_row",
      [](const Eigen::Matrix4d& placement, const Eigen::Vector3d& axis, const std::string& type,
         double lower, double upper) {
        py::dict d;
        d["form"] = "placement";
        d["placement"] = placement;
        d["axis"] = axis;
        d["type"] = type;
        d["lower"] = lower;
        d["upper"] = upper;
        return rowDict(rowFromDict(d, 0));
      },
      py::arg("placement"), py::arg("axis"), py::arg("type") = "revolute", py::arg("lower") = 0.0,
      py::arg("upper") = 0.0,
      "A general-placement row dict (URDF joint): `placement` the 4x4 transform from the "
      "previous frame to the joint frame, `axis` the joint axis in the joint frame (normalised "
      "here; zero raises ValueError).");
}

}  // namespace handsim::python
