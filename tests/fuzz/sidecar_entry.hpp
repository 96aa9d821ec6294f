// SPDX-License-Identifier: GPL-3.0-or-later
// The URDF sidecar's fuzz entry, shared by sidecar_fuzzer and tests/fuzz_regression: the input
// is the sidecar's text (hand::UrdfOptions::sidecar_text) for a fixed two-finger URDF with a
// mimic joint, so couplings, tendons, clutches, poses, grasp and collision blocks can all name
// real joints. Any input must either give a HandModel or throw handsim::io::InputError; every
// other exception (left to propagate), crash, sanitizer report or hang is a finding.
#pragma once

#include <string>
#include <string_view>

#include "handsim/formats/urdf_reader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::fuzz {

/// The hand every sidecar input is read for: finger "link2" (proximal, distal mimicking it)
/// and finger "t_link2" (t_proximal, t_distal) on the base.
inline const char* kSidecarUrdf = R"(<?xml version="1.0"?>
<robot name="fuzz">
  <link name="base"/>
  <joint name="proximal" type="revolute"><parent link="base"/><child link="link1"/>
    <axis xyz="0 0 1"/><limit lower="0" upper="2.4" effort="2" velocity="2"/></joint>
  <link name="link1"><inertial><origin xyz="0.025 0 0"/><mass value="0.05"/>
    <inertia ixx="2e-6" ixy="0" ixz="0" iyy="1.2e-5" iyz="0" izz="1.2e-5"/></inertial></link>
  <joint name="distal" type="revolute"><parent link="link1"/><child link="link2"/>
    <origin xyz="0.05 0 0"/><axis xyz="0 0 1"/><limit lower="0" upper="0.8" effort="1" velocity="2"/>
    <mimic joint="proximal" multiplier="0.3333333333333333"/></joint>
  <link name="link2"><inertial><origin xyz="0.02 0 0"/><mass value="0.03"/>
    <inertia ixx="1e-6" ixy="0" ixz="0" iyy="5e-6" iyz="0" izz="5e-6"/></inertial></link>
  <joint name="t_proximal" type="revolute"><parent link="base"/><child link="t_link1"/>
    <origin xyz="0 0.03 0"/><axis xyz="0 0 1"/><limit lower="0" upper="1.5" effort="1" velocity="2"/></joint>
  <link name="t_link1"><inertial><origin xyz="0.02 0 0"/><mass value="0.03"/>
    <inertia ixx="1e-6" ixy="0" ixz="0" iyy="5e-6" iyz="0" izz="5e-6"/></inertial></link>
  <joint name="t_distal" type="revolute"><parent link="t_link1"/><child link="t_link2"/>
    <origin xyz="0.04 0 0"/><axis xyz="0 0 1"/><limit lower="0" upper="1.5" effort="1" velocity="2"/></joint>
  <link name="t_link2"><inertial><origin xyz="0.015 0 0"/><mass value="0.02"/>
    <inertia ixx="5e-7" ixy="0" ixz="0" iyy="2e-6" iyz="0" izz="2e-6"/></inertial></link>
</robot>
)";

/// Returns true when the input loaded, false when it was rejected with the documented error.
inline bool runSidecarInput(std::string_view input) {
  try {
    hand::UrdfOptions options;
    options.load_geometry = false;
    options.sidecar_text = std::string(input);
    const auto hand = hand::parseUrdfHand(kSidecarUrdf, "/nonexistent/fuzz.urdf", options);
    (void)hand;
    return true;
  } catch (const io::InputError&) {
    return false;
  }
}

}  // namespace handsim::fuzz
