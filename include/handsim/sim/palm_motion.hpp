// SPDX-License-Identifier: GPL-3.0-or-later
// A prescribed motion of the palm in the world, as an arm's flange would carry it (issue #9,
// docs/free-objects.md "The palm in the world"): trapezoidal moves and sinusoids per axis.
#pragma once

#include <Eigen/Geometry>
#include <array>
#include <string>
#include <vector>

#include "handsim/sim/actuator_trajectory.hpp"

namespace handsim::sim {

/// A sinusoid on one axis: offset A sin(2 pi f (t - start)) for `cycles` whole periods from
/// `start`, zero before and after (so position is continuous; velocity jumps by A 2 pi f at
/// both ends, as a shaker switched on and off).
struct Sinusoid {
  double amplitude = 0.0;     ///< [m] or [rad]
  double frequency_hz = 1.0;  ///< [Hz] (> 0)
  double start = 0.0;         ///< [s]
  double cycles = 1.0;        ///< whole periods (> 0)

  double end() const { return start + cycles / frequency_hz; }
  double position(double t) const;
  double velocity(double t) const;
  double acceleration(double t) const;
};

/// The motion of one axis: trapezoidal segments (from 0) plus any number of sinusoids, summed.
struct AxisMotion {
  ActuatorTrajectory segments;  ///< offset [m or rad], starting from 0
  std::vector<Sinusoid> sinusoids;

  bool empty() const { return segments.empty() && sinusoids.empty(); }
  double position(double t) const;
  double velocity(double t) const;
  double acceleration(double t) const;
  /// Time after which the axis no longer moves [s].
  double end() const;
};

/// The palm's pose, velocity and acceleration at time t, all in the world frame {W}.
struct PalmKinematics {
  Eigen::Isometry3d pose_world = Eigen::Isometry3d::Identity();  ///< {P} -> {W}
  Eigen::Vector3d linear_velocity_world = Eigen::Vector3d::Zero();  ///< of the palm origin [m/s]
  Eigen::Vector3d angular_velocity_world = Eigen::Vector3d::Zero();  ///< [rad/s]
  Eigen::Vector3d linear_acceleration_world = Eigen::Vector3d::Zero();  ///< [m/s^2]
  Eigen::Vector3d angular_acceleration_world = Eigen::Vector3d::Zero();  ///< [rad/s^2]
};

/// Offsets from a start pose along six axes of the world frame: translations x, y, z [m] of
/// the palm origin, and rotations rx, ry, rz [rad] about world axes through the palm origin,
/// applied as R(t) = Rz(rz) Ry(ry) Rx(rx) R_start. With every axis at rest it is the start
/// pose, so a plan without motion keeps its palm where it was.
class PalmMotion {
 public:
  enum Axis { X = 0, Y, Z, RX, RY, RZ };
  /// Axis names as scenario files write them ("x", "y", "z", "rx", "ry", "rz"); -1 if unknown.
  static int axisIndex(const std::string& name);
  static const char* axisName(int axis);

  AxisMotion& axis(int a) { return axes_.at(static_cast<std::size_t>(a)); }
  const AxisMotion& axis(int a) const { return axes_.at(static_cast<std::size_t>(a)); }
  bool empty() const;
  /// Time after which the palm no longer moves [s] (0 without motion).
  double end() const;

  /// Pose, twist and acceleration at time t of a palm that starts at `start_world`.
  PalmKinematics at(const Eigen::Isometry3d& start_world, double t) const;

 private:
  std::array<AxisMotion, 6> axes_;
};

}  // namespace handsim::sim
