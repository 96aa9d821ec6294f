// SPDX-License-Identifier: GPL-3.0-or-later
// Checked arguments and conversions shared by the files binding handsim.Hand (bind_hand*.cpp,
// bind_chain.cpp): each bad value is a std::invalid_argument or std::out_of_range naming what it
// was for. Frames: {P} palm, {k0} finger base.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/dh_row.hpp"

namespace handsim::python {

/// The Python class handsim.Hand, to which each bind_hand*.cpp adds its methods.
using HandClass = pybind11::class_<hand::HandModel, std::shared_ptr<hand::HandModel>>;

/// Finger `f` of the hand (IndexError when out of range).
const kinematics::Chain& finger(const hand::HandModel& h, int f);
/// `q` checked against the chain: one finite value per joint.
kinematics::JointVector joints(const kinematics::Chain& c, const Eigen::VectorXd& q,
                               const char* what);
/// Joint values given as one vector (dof,) or a batch (N, dof): the array, checked (finite, dof
/// columns). `batch` tells which.
pybind11::array_t<double, pybind11::array::c_style> jointArray(const kinematics::Chain& c,
                                                               const pybind11::object& q,
                                                               const char* what, bool& batch);
/// A (dof,) array as a joint vector.
kinematics::JointVector jointVectorOf(const pybind11::array_t<double, pybind11::array::c_style>& a);
/// The finger's chain ending at its fingertip (issue 22, item 3; hand::fingerEndpoint).
kinematics::Chain tipChain(const hand::HandModel& x, int f);
/// The chain ending at `point`: "tip" (the fingertip) or "last_frame" (the last joint frame).
kinematics::Chain pointChain(const hand::HandModel& x, int f, const std::string& point);
/// `v`, unless it is not finite.
Eigen::Vector3d finiteVector3(const Eigen::Vector3d& v, const char* what);
/// Frames as an (n, 4, 4) array.
pybind11::array_t<double> framesArray(const std::vector<Eigen::Matrix4d>& frames);
/// The clutch states given (one per clutch) or all engaged.
std::vector<hand::ClutchState> clutchStates(const hand::HandModel& h,
                                            const std::optional<std::vector<hand::ClutchState>>& c);
/// Actuator positions checked: one finite value per actuator.
std::vector<double> actuatorVector(const hand::HandModel& h, const std::vector<double>& a);
/// "revolute", "prismatic" or "fixed".
const char* typeName(kinematics::JointType t);
/// Joint values of every finger, checked.
std::vector<kinematics::JointVector> handJoints(const hand::HandModel& x,
                                                const std::vector<Eigen::VectorXd>& q,
                                                const char* what);
/// A row as the dict Hand.dh_rows gives: both forms, the placement fields for either.
pybind11::dict rowDict(const kinematics::DhRow& row);

/// Methods of handsim.Hand, one family per file.
void bindHandForwardKinematics(HandClass& h);  // bind_hand_kinematics.cpp
void bindHandJacobians(HandClass& h);          // bind_hand_kinematics.cpp
void bindHandIk(HandClass& h);                 // bind_hand_ik.cpp
void bindHandIkThroughParts(HandClass& h);     // bind_hand_ik.cpp
void bindHandTransmission(HandClass& h);       // bind_hand_transmission.cpp
void bindHandDynamics(HandClass& h);           // bind_hand_dynamics.cpp
/// handsim.chain_fk and handsim.placement_row (bind_chain.cpp).
void bindChains(pybind11::module_& m);

}  // namespace handsim::python
