// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.Hand: a hand model with its kinematics (DH forward kinematics, Jacobians, closed-form
// and numerical IK), Lagrange-Euler and Newton-Euler dynamics and the transmission (actuator
// units <-> joint angles, clutch states). Frames: {P} palm, {k0} finger base.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <set>

#include "arrays.hpp"
#include "batch.hpp"
#include "bindings.hpp"
#include "handsim/dynamics/forward_dynamics.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/hand/hand_ik.hpp"
#include "handsim/hand/hand_loader.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/hand/transmission_ik.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/dh_row.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {

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
  kinematics::Chain c = finger(x, f);
  const Eigen::Isometry3d offset = hand::fingerEndpoint(x, f).in_frame;
  if (offset.matrix() != Eigen::Matrix4d::Identity()) {
    c.rows.push_back(
        kinematics::placementRow(offset, Eigen::Vector3d::UnitZ(), kinematics::JointType::Fixed));
    c.joint_names.push_back("tip");
    c.links.emplace_back();
  }
  return c;
}

// The chain ending at `point`: "tip" (the fingertip) or "last_frame" (the last joint frame).
kinematics::Chain pointChain(const HandModel& x, int f, const std::string& point) {
  if (point == "tip") return tipChain(x, f);
  if (point == "last_frame") return finger(x, f);
  throw std::invalid_argument("point: expected 'tip' or 'last_frame', got '" + point + "'");
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

kinematics::JointType typeFromName(const std::string& t) {
  if (t == "revolute") return kinematics::JointType::Revolute;
  if (t == "prismatic") return kinematics::JointType::Prismatic;
  if (t == "fixed") return kinematics::JointType::Fixed;
  throw std::invalid_argument("row type: expected 'revolute', 'prismatic' or 'fixed', got '" + t +
                              "'");
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
  if (rows.size() > static_cast<std::size_t>(kinematics::kMaxChainRows))
    throw std::invalid_argument("rows: at most " + std::to_string(kinematics::kMaxChainRows) +
                                " rows per chain, got " + std::to_string(rows.size()));
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

void bindHand(py::module_& m) {
  py::class_<hand::ClutchState>(m, "ClutchState",
                                "State of one breakaway clutch (seed 000 sec. II.D).")
      .def(py::init<>())
      .def(py::init([](bool broken, double break_position) {
             return hand::ClutchState{broken, break_position};
           }),
           py::arg("broken"), py::arg("break_position") = 0.0)
      .def_readwrite("broken", &hand::ClutchState::broken,
                     "True while the inner joint is disengaged and locked.")
      .def_readwrite("break_position", &hand::ClutchState::break_position,
                     "Actuator position when it broke away [actuator unit].")
      .def("__repr__", [](const hand::ClutchState& c) {
        return "ClutchState(broken=" + std::string(c.broken ? "True" : "False") +
               ", break_position=" + std::to_string(c.break_position) + ")";
      });

  py::class_<HandModel, std::shared_ptr<HandModel>> h(
      m, "Hand",
      "A hand model read from a hand file (docs/hand-format.md): fingers as standard-DH chains, "
      "actuators and their couplings, breakaway clutches, tendons, named poses. Fingers are "
      "indexed 0..len(fingers)-1 or named.");
  h.def_readonly("id", &HandModel::id, "Short id ('barrett'; a URDF's robot name).")
      .def_readonly("name", &HandModel::name, "Display name.")
      .def_readonly("description", &HandModel::description, "Free text from the hand file.")
      .def_readonly("source_file", &HandModel::source_file, "The file the hand was read from.")
      .def_property_readonly(
          "fingers",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& f : x.fingers) out.push_back(f.name);
            return out;
          },
          "Finger names.")
      .def_property_readonly(
          "actuators",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& a : x.actuators) out.push_back(a.name);
            return out;
          },
          "Actuator names.")
      .def_property_readonly(
          "actuator_units",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& a : x.actuators) out.push_back(a.unit);
            return out;
          },
          "Each actuator's unit ('counts', 'rad' or 'm').")
      .def_property_readonly(
          "actuator_ranges",
          [](const HandModel& x) {
            Eigen::MatrixXd r(static_cast<Eigen::Index>(x.actuators.size()), 2);
            for (std::size_t a = 0; a < x.actuators.size(); ++a)
              r.row(static_cast<Eigen::Index>(a)) << x.actuators[a].lower, x.actuators[a].upper;
            return r;
          },
          "(na, 2) array of each actuator's [lower, upper] [actuator unit].")
      .def_property_readonly(
          "tendons",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& t : x.tendons) out.push_back(t.name);
            return out;
          },
          "Tendon names.")
      .def_property_readonly(
          "clutches",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& c : x.clutches)
              out.push_back(x.actuators[static_cast<std::size_t>(c.actuator)].name);
            return out;
          },
          "For each breakaway clutch, the actuator it sits on.")
      .def_property_readonly(
          "poses",
          [](const HandModel& x) {
            std::vector<std::string> out;
            for (const auto& p : x.poses) out.push_back(p.name);
            return out;
          },
          "Named poses of the hand file.")
      .def("finger_index", &HandModel::fingerIndex, py::arg("name"),
           "Index of a finger by name, -1 when there is none.")
      .def("actuator_index", &HandModel::actuatorIndex, py::arg("name"),
           "Index of an actuator by name, -1 when there is none.")
      .def(
          "dof", [](const HandModel& x, int f) { return finger(x, f).dof(); }, py::arg("finger"),
          "Number of movable joints of a finger.")
      .def(
          "joint_names",
          [](const HandModel& x, int f) {
            const auto& c = finger(x, f);
            std::vector<std::string> out;
            for (int j = 0; j < c.dof(); ++j) out.push_back(x.jointName({f, j}));
            return out;
          },
          py::arg("finger"), "Dotted names ('F1.J2') of a finger's movable joints.")
      .def(
          "joint_types",
          [](const HandModel& x, int f) {
            const auto& c = finger(x, f);
            std::vector<std::string> out;
            for (int j = 0; j < c.dof(); ++j)
              out.push_back(typeName(c.rows[static_cast<std::size_t>(c.rowOfJoint(j))].type));
            return out;
          },
          py::arg("finger"), "'revolute' or 'prismatic' for each movable joint.")
      .def(
          "joint_limits",
          [](const HandModel& x, int f) {
            const auto& c = finger(x, f);
            Eigen::MatrixXd r(c.dof(), 2);
            for (int j = 0; j < c.dof(); ++j) {
              const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
              r.row(j) << row.lower, row.upper;
            }
            return r;
          },
          py::arg("finger"), "(dof, 2) array of [lower, upper] joint limits [rad or m].")
      .def(
          "dh_rows",
          [](const HandModel& x, int f) {
            py::list out;
            for (const auto& row : finger(x, f).rows) out.append(rowDict(row));
            return out;
          },
          py::arg("finger"),
          "The finger's joint rows, base to tip (docs/kinematics.md, 'Joint frames'): dicts "
          "with form 'dh' (standard DH, T = Rz(theta + q) Tz(d + q) Tx(a) Rx(alpha), q added "
          "to theta for revolute and to d for prismatic rows) or 'placement' (URDF joints: "
          "T = placement Rot(axis, q) or placement Trans(axis q)); a [m], alpha [rad], d [m], "
          "theta [rad], placement (4x4), axis (unit, joint frame), type and the joint limits. "
          "chain_fk() takes the same dicts.")
      .def(
          "base",
          [](const HandModel& x, int f) { return Eigen::Matrix4d(finger(x, f).base.matrix()); },
          py::arg("finger"), "4x4 transform of the finger base {k0} in the palm frame {P}.")
      .def(
          "pose",
          [](const HandModel& x, const std::string& name) {
            const hand::NamedPose* p = x.pose(name);
            if (!p)
              throw std::invalid_argument("no pose named '" + name + "' in hand '" + x.id + "'");
            std::vector<Vector> out;
            for (const auto& v : p->q)
              out.push_back(
                  Eigen::Map<const Vector>(v.data(), static_cast<Eigen::Index>(v.size())));
            return out;
          },
          py::arg("name"), "Joint values of a named pose, one array per finger [rad or m].");

  // --- kinematics ---------------------------------------------------------------------------
  h.def(
       "fk",
       [](const HandModel& x, int f, const py::object& q, bool in_base, int threads) -> py::object {
         const auto& c = finger(x, f);
         bool many = false;
         const auto a = jointArray(c, q, "q", many);
         if (many) {
           const auto n = static_cast<std::size_t>(a.shape(0));
           py::array_t<double> out({static_cast<py::ssize_t>(n),
                                    static_cast<py::ssize_t>(c.rows.size() + 1), py::ssize_t{4},
                                    py::ssize_t{4}});
           double* o = out.mutable_data();
           {
             py::gil_scoped_release release;
             batch::forwardKinematics(c, a.data(), n, in_base, o, threads);
           }
           return std::move(out);
         }
         const auto frames = kinematics::forwardKinematics(c, jointVectorOf(a));
         std::vector<Eigen::Matrix4d> out;
         for (int i = 0; i < frames.count; ++i)
           out.push_back(in_base ? frames.at(i).matrix() : (c.base * frames.at(i)).matrix());
         return framesArray(out);
       },
       py::arg("finger"), py::arg("q"), py::arg("in_base") = false, py::kw_only(),
       py::arg("threads") = 0,
       "Forward kinematics: every DH frame {k0}..{kn} of the finger as an (n+1, 4, 4) array of "
       "homogeneous transforms, in the palm frame {P} (or the finger base {k0} with "
       "in_base=True); the last is the last joint frame {kn} (the fingertip may lie beyond it "
       "on a URDF tip link: fingertip(), fingertip_offset()). q: joint values [rad or m], "
       "shape (dof,); or "
       "a batch (N, dof), giving (N, n+1, 4, 4), computed without the GIL on `threads` threads "
       "(0: one per core).")
      .def(
          "fingertip",
          [](const HandModel& x, int f, const py::object& q, const std::string& point,
             int threads) -> py::object {
            const kinematics::Chain c = pointChain(x, f, point);
            bool many = false;
            const auto a = jointArray(c, q, "q", many);
            if (many) {
              const auto n = static_cast<std::size_t>(a.shape(0));
              const std::size_t frames = c.rows.size() + 1;
              std::vector<double> all(n * frames * 16);
              py::array_t<double> out({static_cast<py::ssize_t>(n), py::ssize_t{3}});
              double* o = out.mutable_data();
              {
                py::gil_scoped_release release;
                batch::forwardKinematics(c, a.data(), n, false, all.data(), threads);
                for (std::size_t i = 0; i < n; ++i)
                  for (std::size_t r = 0; r < 3; ++r)
                    o[3 * i + r] = all[(i * frames + frames - 1) * 16 + r * 4 + 3];
              }
              return std::move(out);
            }
            return py::cast(
                Eigen::Vector3d(c.base * kinematics::fingertipPosition(c, jointVectorOf(a))));
          },
          py::arg("finger"), py::arg("q"), py::arg("point") = "tip", py::kw_only(),
          py::arg("threads") = 0,
          "Fingertip position in the palm frame [m]: point='tip' (the default) is the finger's "
          "tip link where the file has one fixed beyond the last joint frame (URDF fingertip "
          "links), else the origin of the last joint frame: the point ik(), ik_hand(finger=), "
          "handsim-cli ik --finger and handsim-cli fk's \"tip\" use. point='last_frame' is the "
          "origin of the last joint frame, fk()[-1]. q (N, dof) gives (N, 3).")
      .def(
          "fingertip_offset",
          [](const HandModel& x, int f) {
            finger(x, f);
            return Eigen::Matrix4d(hand::fingerEndpoint(x, f).in_frame.matrix());
          },
          py::arg("finger"),
          "4x4 pose of the fingertip frame in the last joint frame {kn} (identity when the "
          "finger has no tip link beyond it): fingertip = (fk()[-1] @ fingertip_offset)[:3, 3]; "
          "jacobian(f, q, point=fingertip_offset(f)[:3, 3]) is the fingertip's Jacobian.")
      .def(
          "jacobian",
          [](const HandModel& x, int f, const py::object& q, int frame,
             const Eigen::Vector3d& point, bool in_base, int threads) -> py::object {
            const auto& c = finger(x, f);
            if (frame < -1 || frame > static_cast<int>(c.rows.size()))
              throw std::out_of_range("frame " + std::to_string(frame) + " is not in -1.." +
                                      std::to_string(c.rows.size()));
            finiteVector3(point, "point");
            bool many = false;
            const auto a = jointArray(c, q, "q", many);
            if (many) {
              const auto n = static_cast<std::size_t>(a.shape(0));
              py::array_t<double> out(
                  {static_cast<py::ssize_t>(n), py::ssize_t{6}, static_cast<py::ssize_t>(c.dof())});
              double* o = out.mutable_data();
              {
                py::gil_scoped_release release;
                batch::jacobian(c, a.data(), n, frame, point, in_base, o, threads);
              }
              return std::move(out);
            }
            Eigen::MatrixXd j = kinematics::geometricJacobian(c, jointVectorOf(a), frame, point);
            if (!in_base) {
              const Eigen::Matrix3d r = c.base.linear();
              j.topRows(3) = r * j.topRows(3);
              j.bottomRows(3) = r * j.bottomRows(3);
            }
            return py::cast(j);
          },
          py::arg("finger"), py::arg("q"), py::arg("frame") = -1,
          py::arg("point") = Eigen::Vector3d::Zero(), py::arg("in_base") = false, py::kw_only(),
          py::arg("threads") = 0,
          "Geometric Jacobian (6, dof) of the point `point` [m] rigid with DH frame `frame` (-1: "
          "the last joint frame; point=fingertip_offset(f)[:3, 3] for the fingertip): rows 0-2 "
          "linear velocity [m/s], rows 3-5 angular [rad/s] per "
          "unit joint rate, expressed in the palm frame (or {k0} with in_base=True). q of shape "
          "(N, dof) gives (N, 6, dof), computed without the GIL on `threads` threads (0: one per "
          "core).")
      .def(
          "ik",
          [](const HandModel& x, int f, const py::object& target, const py::object& q0,
             std::optional<double> phi, bool return_miss, const std::string& point,
             int threads) -> py::object {
            const kinematics::Chain c = pointChain(x, f, point);
            const auto t = realArray(target, "target");
            if (t.ndim() == 1 && !return_miss) {
              const Eigen::Vector3d local =
                  c.base.inverse() * finiteVector3(vector3(t, "target"), "target");
              bool many = false;
              const kinematics::JointVector start =
                  q0.is_none() ? kinematics::JointVector::Zero(c.dof())
                               : jointVectorOf(jointArray(c, q0, "q0", many));
              if (many) throw std::invalid_argument("q0: one target takes one start (dof,)");
              kinematics::JointVector q;
              {
                py::gil_scoped_release release;
                q = batch::fingertipIk(c, local, start, phi);
              }
              return py::cast(Vector(q));
            }
            const RowMatrix3d targets = t.ndim() == 1
                                            ? RowMatrix3d(vector3(t, "target").transpose())
                                            : rowsOf3(t, "target");
            if (!targets.allFinite()) throw std::invalid_argument("target is not finite");
            const auto n = static_cast<std::size_t>(targets.rows());
            py::array_t<double, py::array::c_style> starts;
            std::size_t start_rows = 1;
            if (q0.is_none()) {
              starts = py::array_t<double, py::array::c_style>(
                  {py::ssize_t{1}, static_cast<py::ssize_t>(c.dof())});
              std::fill_n(starts.mutable_data(), c.dof(), 0.0);
            } else {
              bool many = false;
              starts = jointArray(c, q0, "q0", many);
              if (many) {
                start_rows = static_cast<std::size_t>(starts.shape(0));
                if (start_rows != n)
                  throw std::invalid_argument("q0: " + std::to_string(start_rows) + " starts for " +
                                              std::to_string(n) + " targets");
              }
            }
            py::array_t<double> q({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(c.dof())});
            py::array_t<double> miss(static_cast<py::ssize_t>(n));
            double* qo = q.mutable_data();
            double* mo = miss.mutable_data();
            {
              py::gil_scoped_release release;
              batch::fingertipIk(c, targets.data(), n, starts.data(), start_rows, phi, qo, mo,
                                 threads);
            }
            if (t.ndim() == 1) return py::make_tuple(q[py::int_(0)], mo[0]);
            if (return_miss) return py::make_tuple(q, miss);
            std::size_t missed = 0, first = 0;
            for (std::size_t i = n; i-- > 0;)
              if (mo[i] > 0.0) {
                ++missed;
                first = i;
              }
            if (missed > 0)
              raiseUnreachable(std::to_string(missed) + " of " + std::to_string(n) +
                                   " targets are out of reach (the first, row " +
                                   std::to_string(first) + ", misses by " +
                                   std::to_string(mo[first]) +
                                   " m); pass return_miss=True for "
                                   "the nearest joint values and the misses",
                               miss, q);
            return std::move(q);
          },
          py::arg("finger"), py::arg("target"), py::arg("q0") = py::none(),
          py::arg("phi") = py::none(), py::kw_only(), py::arg("return_miss") = false,
          py::arg("point") = "tip", py::arg("threads") = 0,
          "Inverse kinematics of a fingertip target in the palm frame [m] (the point "
          "fingertip() gives; point='last_frame' places the last joint frame instead): the "
          "BarrettHand "
          "closed form (seed 000), the planar three-link closed form with tip angle phi [rad] "
          "(seed 003, target in the finger's plane), or damped least squares with joint limits "
          "from q0. Raises UnreachableTarget with the miss distance [m]. Targets of shape (N, 3) "
          "give joint values (N, dof), solved without the GIL on `threads` threads (0: one per "
          "core) from q0 (dof,) or one start per target (N, dof); when any is out of reach "
          "UnreachableTarget carries arrays: miss (N,) [m], 0 where reached, and closest "
          "(N, dof). return_miss=True returns (q, miss) instead of raising.")
      .def(
          "ik_hand",
          [](const HandModel& x, const Eigen::Vector3d& target, std::optional<int> f,
             std::optional<std::string> link, std::optional<std::vector<Vector>> q_now,
             const std::string& shared, std::optional<Eigen::Matrix3d> rotation) {
            if (f.has_value() == link.has_value())
              throw std::invalid_argument("give one of finger= or link=");
            hand::HandIkOptions o;
            if (shared == "locked") {
              o.shared = hand::SharedJoints::Locked;
            } else if (shared == "free") {
              o.shared = hand::SharedJoints::Free;
            } else {
              throw std::invalid_argument("shared: expected 'locked' or 'free', got '" + shared +
                                          "'");
            }
            if (rotation) {
              if (!rotation->allFinite() ||
                  (rotation->transpose() * *rotation - Eigen::Matrix3d::Identity()).norm() > 1e-9)
                throw std::invalid_argument("rotation: expected a 3x3 rotation matrix");
              o.target_rotation_palm = *rotation;
            }
            const hand::IkEndpoint end =
                f ? (finger(x, *f), hand::fingerEndpoint(x, *f)) : hand::linkEndpoint(x, *link);
            std::vector<kinematics::JointVector> now;
            if (q_now) {
              now = handJoints(x, *q_now, "q_now");
            } else {
              std::vector<double> a(x.actuators.size());
              for (std::size_t i = 0; i < a.size(); ++i)
                a[i] = std::clamp(0.0, x.actuators[i].lower, x.actuators[i].upper);
              now = hand::jointPositions(x, a);
            }
            std::vector<kinematics::JointVector> q;
            {
              py::gil_scoped_release release;
              q = hand::handInverseKinematics(x, end, finiteVector3(target, "target"), now, o);
            }
            std::vector<Vector> out;
            for (const auto& v : q) out.emplace_back(v);
            return out;
          },
          py::arg("target"), py::arg("finger") = py::none(), py::arg("link") = py::none(),
          py::arg("q_now") = py::none(), py::arg("shared") = "locked",
          py::arg("rotation") = py::none(),
          "Hand-level inverse kinematics (docs/kinematics.md, 'Hand IK on trees'): joint values "
          "of the whole hand, one array per finger, that put a finger's tip (finger=index) or a "
          "link's frame (link=name) at `target` in the palm (URDF: root link) frame [m], and "
          "its orientation at `rotation` (3x3, palm frame) if given. Solved over the actuated "
          "coordinates from q_now (default: the zero pose clamped into the limits): every copy "
          "of a shared URDF joint takes one value, mimic joints follow their masters, limits "
          "hold. shared='locked' keeps the joints shared with other fingers (a wrist) at their "
          "q_now values; 'free' moves them, and the other fingers with them. Raises "
          "UnreachableTarget with the miss [m].")
      .def(
          "link_poses",
          [](const HandModel& x, const py::sequence& q, int threads) {
            if (q.size() != x.fingers.size())
              throw std::invalid_argument("q: the hand has " + std::to_string(x.fingers.size()) +
                                          " fingers, got " + std::to_string(q.size()));
            std::vector<py::array_t<double, py::array::c_style>> arrays;
            int batched = -1;
            for (std::size_t f = 0; f < x.fingers.size(); ++f) {
              bool many = false;
              arrays.push_back(jointArray(x.fingers[f], q[f], "q", many));
              if (batched >= 0 && batched != static_cast<int>(many))
                throw std::invalid_argument("q: every finger one vector, or every finger (N, dof)");
              batched = many;
            }
            py::dict d;
            if (batched != 1) {
              std::vector<kinematics::JointVector> jq;
              for (const auto& a : arrays) jq.push_back(jointVectorOf(a));
              for (const auto& [name, pose] : x.linkPoses(jq))
                d[py::str(name)] = Eigen::Matrix4d(pose.matrix());
              return d;
            }
            const auto n = static_cast<std::size_t>(arrays.front().shape(0));
            std::vector<const double*> qs;
            for (const auto& a : arrays) {
              if (static_cast<std::size_t>(a.shape(0)) != n)
                throw std::invalid_argument("q: every finger needs the same number of rows");
              qs.push_back(a.data());
            }
            const auto slots = batch::linkSlots(x);
            std::vector<py::array_t<double>> out;
            std::vector<double*> outs;
            for (std::size_t l = 0; l < slots.size(); ++l) {
              out.emplace_back(std::vector<py::ssize_t>{static_cast<py::ssize_t>(n), 4, 4});
              outs.push_back(out.back().mutable_data());
            }
            {
              py::gil_scoped_release release;
              batch::linkPoses(x, slots, qs, n, outs, threads);
            }
            for (std::size_t l = 0; l < slots.size(); ++l) d[py::str(slots[l].name)] = out[l];
            return d;
          },
          py::arg("q"), py::kw_only(), py::arg("threads") = 0,
          "Every link's 4x4 pose in the palm (URDF: root link) frame [m], by name: URDF link "
          "names, or 'palm' and '<finger>.link<k>' for hand files. q: one array per finger; "
          "arrays of shape (N, dof) give (N, 4, 4) per link, computed without the GIL on "
          "`threads` threads (0: one per core).")
      .def(
          "joint_values",
          [](const HandModel& x, const std::vector<Vector>& q) {
            const auto jq = handJoints(x, q, "q");
            py::dict d;
            if (!x.tree.empty()) {
              for (const auto& tj : x.tree.joints)
                if (!tj.copies.empty())
                  d[py::str(tj.name)] = jq[static_cast<std::size_t>(tj.copies.front().finger)]
                                          [tj.copies.front().joint];
              return d;
            }
            for (std::size_t f = 0; f < jq.size(); ++f)
              for (int j = 0; j < x.fingers[f].dof(); ++j)
                d[py::str(x.jointName({static_cast<int>(f), j}))] = jq[f][j];
            return d;
          },
          py::arg("q"),
          "Every movable joint's value by name [rad or m]: URDF joint names (a shared joint "
          "once, from its first copy) or 'F1.J2' names of hand files.")
      .def(
          "ik_actuators",
          [](const HandModel& x, int f, const Eigen::Vector3d& target,
             const std::vector<double>& actuators_now,
             std::optional<std::vector<hand::ClutchState>> clutches, std::optional<double> phi) {
            hand::FingertipIkOptions o;
            o.phi = phi;
            return hand::fingertipActuators(x, f, finiteVector3(target, "target"),
                                            actuatorVector(x, actuators_now),
                                            clutchStates(x, clutches), o);
          },
          py::arg("finger"), py::arg("target"), py::arg("actuators_now"),
          py::arg("clutches") = py::none(), py::arg("phi") = py::none(),
          "Actuator positions that put the fingertip at `target` (palm frame [m]) through the "
          "transmission (coupled joints included), from the current actuator positions. Raises "
          "UnreachableTarget with the miss distance [m].");

  // --- dynamics -----------------------------------------------------------------------------
  const char* gravity_doc = "gravity: gravitational acceleration in the palm frame [m/s^2].";
  auto gravityBase = [](const kinematics::Chain& c, const Eigen::Vector3d& g) {
    return Eigen::Vector3d(c.base.linear().transpose() * finiteVector3(g, "gravity"));
  };
  h.def(
       "dynamics",
       [gravityBase](const HandModel& x, int f, const Vector& q, const Vector& qd,
                     const Eigen::Vector3d& g) {
         const auto& c = finger(x, f);
         const auto t =
             dynamics::lagrangeEuler(c, joints(c, q, "q"), joints(c, qd, "qd"), gravityBase(c, g));
         return py::make_tuple(Eigen::MatrixXd(t.D), Vector(t.H), Vector(t.C));
       },
       py::arg("finger"), py::arg("q"), py::arg("qd"),
       py::arg("gravity") = Eigen::Vector3d(0.0, 0.0, -9.81),
       (std::string("Lagrange-Euler terms (D, H, C) of tau = D qdd + H + C for one finger: D "
                    "[kg m^2] (dof, dof), H Coriolis and centrifugal [N m], C gravity [N m]. ") +
        gravity_doc)
           .c_str())
      .def(
          "inverse_dynamics",
          [gravityBase](const HandModel& x, int f, const Vector& q, const Vector& qd,
                        const Vector& qdd, const Eigen::Vector3d& g) {
            const auto& c = finger(x, f);
            return Vector(
                dynamics::inverseDynamicsLagrangeEuler(c, joints(c, q, "q"), joints(c, qd, "qd"),
                                                       joints(c, qdd, "qdd"), gravityBase(c, g)));
          },
          py::arg("finger"), py::arg("q"), py::arg("qd"), py::arg("qdd"),
          py::arg("gravity") = Eigen::Vector3d(0.0, 0.0, -9.81),
          "Joint torques tau = D qdd + H + C [N m or N] by Lagrange-Euler.")
      .def(
          "newton_euler",
          [gravityBase](const HandModel& x, int f, const Vector& q, const Vector& qd,
                        const Vector& qdd, const Eigen::Vector3d& g) {
            const auto& c = finger(x, f);
            return Vector(
                dynamics::inverseDynamicsNewtonEuler(c, joints(c, q, "q"), joints(c, qd, "qd"),
                                                     joints(c, qdd, "qdd"), gravityBase(c, g)));
          },
          py::arg("finger"), py::arg("q"), py::arg("qd"), py::arg("qdd"),
          py::arg("gravity") = Eigen::Vector3d(0.0, 0.0, -9.81),
          "Joint torques [N m or N] by recursive Newton-Euler (an independent formulation).")
      .def(
          "forward_dynamics",
          [gravityBase](const HandModel& x, int f, const Vector& q, const Vector& qd,
                        const Vector& tau, const Eigen::Vector3d& g) {
            const auto& c = finger(x, f);
            return Vector(dynamics::forwardDynamics(c, joints(c, q, "q"), joints(c, qd, "qd"),
                                                    joints(c, tau, "tau"), gravityBase(c, g)));
          },
          py::arg("finger"), py::arg("q"), py::arg("qd"), py::arg("tau"),
          py::arg("gravity") = Eigen::Vector3d(0.0, 0.0, -9.81),
          "Joint accelerations [rad/s^2 or m/s^2] under joint torques tau.");

  // --- transmission -------------------------------------------------------------------------
  h.def(
       "joint_positions",
       [](const HandModel& x, const std::vector<double>& a,
          std::optional<std::vector<hand::ClutchState>> clutches) {
         std::vector<Vector> out;
         for (const auto& q :
              hand::jointPositions(x, actuatorVector(x, a), clutchStates(x, clutches)))
           out.emplace_back(q);
         return out;
       },
       py::arg("actuators"), py::arg("clutches") = py::none(),
       "Joint values per finger [rad or m] from actuator positions [actuator units] through the "
       "transmission (seed 000 eq. 1-4; eq. 10 for broken-away clutches).")
      .def(
          "actuators_for_joints",
          [](const HandModel& x, const std::vector<Vector>& q,
             std::optional<std::vector<double>> now,
             std::optional<std::vector<hand::ClutchState>> clutches) {
            if (q.size() != x.fingers.size())
              throw std::invalid_argument("q: the hand has " + std::to_string(x.fingers.size()) +
                                          " fingers, got " + std::to_string(q.size()));
            std::vector<kinematics::JointVector> jq;
            for (std::size_t f = 0; f < q.size(); ++f)
              jq.push_back(joints(x.fingers[f], q[f], "q"));
            const std::vector<double> start =
                now ? actuatorVector(x, *now) : std::vector<double>(x.actuators.size(), 0.0);
            return hand::actuatorsForJoints(x, jq, start, clutchStates(x, clutches));
          },
          py::arg("q"), py::arg("actuators_now") = py::none(), py::arg("clutches") = py::none(),
          "Actuator positions that best realise joint values (least squares per actuator "
          "through the transmission), clamped into their ranges.")
      .def(
          "clamp_actuators",
          [](const HandModel& x, const std::vector<double>& a) {
            std::vector<std::string> messages;
            auto out = hand::clampActuators(x, actuatorVector(x, a), &messages);
            return py::make_tuple(out, messages);
          },
          py::arg("actuators"),
          "(clamped positions, messages): actuator positions clamped into their ranges, and "
          "what was clamped.");

  m.def(
      "load_hand",
      [](const std::string& id_or_path) {
        const auto ids = hand::builtinHandIds();
        if (std::find(ids.begin(), ids.end(), id_or_path) == ids.end()) requireFile(id_or_path);
        return std::make_shared<HandModel>(hand::loadHand(id_or_path));
      },
      py::arg("id_or_path"),
      "A built-in hand ('barrett', 'anthro20', 'dexterous3', 'kthand') or a hand file. Raises "
      "InputError (file, line, column, field) for a bad file, FileNotFoundError for a missing "
      "one.");
  m.def("builtin_hands", &hand::builtinHandIds, "Ids of the shipped hands.");
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
  m.def("asset_directory", &hand::assetDirectory,
        "The folder of the shipped hands, objects and scenarios.");
}

}  // namespace handsim::python
