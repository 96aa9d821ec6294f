// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.Hand's dynamics: Lagrange-Euler terms, inverse dynamics (Lagrange-Euler and
// Newton-Euler) and forward dynamics of one finger, gravity given in the palm frame.
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

void bindHandDynamics(HandClass& h) {
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
}

}  // namespace handsim::python
