// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.Hand's transmission: actuator units <-> joint values, clutch states, joint values
// by name.
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

void bindHandTransmission(HandClass& h) {
  h.def(
       "joint_values",
       [](const HandModel& x, const std::vector<Vector>& q) {
         const auto jq = handJoints(x, q, "q");
         py::dict d;
         if (!x.tree.empty()) {
           for (const auto& tj : x.tree.joints)
             if (!tj.copies.empty())
               d[py::str(tj.name)] =
                   jq[static_cast<std::size_t>(tj.copies.front().finger)][tj.copies.front().joint];
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
}

}  // namespace handsim::python
