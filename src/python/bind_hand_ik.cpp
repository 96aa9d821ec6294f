// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.Hand's inverse kinematics: per finger (closed form or numerical, one target or a
// batch), the whole hand (ik_hand) and through the transmission (ik_actuators).
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

using hand::HandModel;
using Vector = Eigen::VectorXd;

void bindHandIk(HandClass& h) {
  h.def(
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
          const kinematics::JointVector start = q0.is_none()
                                                    ? kinematics::JointVector::Zero(c.dof())
                                                    : jointVectorOf(jointArray(c, q0, "q0", many));
          if (many) throw std::invalid_argument("q0: one target takes one start (dof,)");
          kinematics::JointVector q;
          {
            py::gil_scoped_release release;
            q = batch::fingertipIk(c, local, start, phi);
          }
          return py::cast(Vector(q));
        }
        const RowMatrix3d targets =
            t.ndim() == 1 ? RowMatrix3d(vector3(t, "target").transpose()) : rowsOf3(t, "target");
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
          batch::fingertipIk(c, targets.data(), n, starts.data(), start_rows, phi, qo, mo, threads);
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
                               std::to_string(first) + ", misses by " + std::to_string(mo[first]) +
                               " m); pass return_miss=True for "
                               "the nearest joint values and the misses",
                           miss, q);
        return std::move(q);
      },
      py::arg("finger"), py::arg("target"), py::arg("q0") = py::none(), py::arg("phi") = py::none(),
      py::kw_only(), py::arg("return_miss") = false, py::arg("point") = "tip",
      py::arg("threads") = 0,
      "Inverse kinematics of a fingertip target in the palm frame [m] (the point "
      "fingertip() gives; point='last_frame' places the last joint frame instead): the "
      "BarrettHand "
      "closed form (seed 000), the planar three-link closed form with tip angle phi [rad] "
      "(seed 003, target in the finger's plane), or damped least squares with joint limits "
      "from q0. Raises UnreachableTarget with the miss distance [m]. Targets of shape (N, 3) "
      "give joint values (N, dof), solved without the GIL on `threads` threads (0: one per "
      "core) from q0 (dof,) or one start per target (N, dof); when any is out of reach "
      "UnreachableTarget carries arrays: miss (N,) [m], 0 where reached, and closest "
      "(N, dof). return_miss=True returns (q, miss) instead of raising.");
}

void bindHandIkThroughParts(HandClass& h) {
  h.def(
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
           throw std::invalid_argument("shared: expected 'locked' or 'free', got '" + shared + "'");
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
          "ik_actuators",
          [](const HandModel& x, int f, const Eigen::Vector3d& target,
             const std::vector<double>& actuators_now,
             std::optional<std::vector<hand::ClutchState>> clutches, std::optional<double> phi,
             const std::string& point) {
            finger(x, f);
            hand::FingertipIkOptions o;
            o.phi = phi;
            o.point = hand::fingerPointFromName(point);
            return hand::fingertipActuators(x, f, finiteVector3(target, "target"),
                                            actuatorVector(x, actuators_now),
                                            clutchStates(x, clutches), o);
          },
          py::arg("finger"), py::arg("target"), py::arg("actuators_now"),
          py::arg("clutches") = py::none(), py::arg("phi") = py::none(), py::kw_only(),
          py::arg("point") = "tip",
          "Actuator positions that put the fingertip at `target` (palm frame [m]) through the "
          "transmission (coupled joints included), from the current actuator positions. "
          "point='tip' (the default) places the fingertip fingertip() gives (the tip link "
          "where the file has one), point='last_frame' the origin of the last joint frame. "
          "Raises UnreachableTarget with the miss distance [m].");
}

}  // namespace handsim::python
