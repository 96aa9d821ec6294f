// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/palm_motion.hpp"

#include <algorithm>
#include <cmath>

namespace handsim::sim {

namespace {

constexpr double kTwoPi = 6.283185307179586476925286766559;

}  // namespace

double Sinusoid::position(double t) const {
  if (t <= start || t >= end()) return 0.0;
  return amplitude * std::sin(kTwoPi * frequency_hz * (t - start));
}

double Sinusoid::velocity(double t) const {
  if (t < start || t > end()) return 0.0;
  const double w = kTwoPi * frequency_hz;
  return amplitude * w * std::cos(w * (t - start));
}

double Sinusoid::acceleration(double t) const {
  if (t <= start || t >= end()) return 0.0;
  const double w = kTwoPi * frequency_hz;
  return -amplitude * w * w * std::sin(w * (t - start));
}

double AxisMotion::position(double t) const {
  double x = segments.position(t, 0.0);
  for (const Sinusoid& s : sinusoids) x += s.position(t);
  return x;
}

double AxisMotion::velocity(double t) const {
  double v = segments.velocity(t);
  for (const Sinusoid& s : sinusoids) v += s.velocity(t);
  return v;
}

double AxisMotion::acceleration(double t) const {
  double a = segments.acceleration(t);
  for (const Sinusoid& s : sinusoids) a += s.acceleration(t);
  return a;
}

double AxisMotion::end() const {
  double e = segments.end();
  for (const Sinusoid& s : sinusoids) e = std::max(e, s.end());
  return e;
}

int PalmMotion::axisIndex(const std::string& name) {
  for (int a = 0; a < 6; ++a)
    if (name == axisName(a)) return a;
  return -1;
}

const char* PalmMotion::axisName(int axis) {
  static const char* const names[] = {"x", "y", "z", "rx", "ry", "rz"};
  return axis >= 0 && axis < 6 ? names[axis] : "?";
}

bool PalmMotion::empty() const {
  return std::all_of(axes_.begin(), axes_.end(), [](const AxisMotion& m) { return m.empty(); });
}

double PalmMotion::end() const {
  double e = 0.0;
  for (const AxisMotion& m : axes_) e = std::max(e, m.end());
  return e;
}

PalmKinematics PalmMotion::at(const Eigen::Isometry3d& start_world, double t) const {
  PalmKinematics k;
  k.pose_world = start_world;
  if (empty()) return k;
  Eigen::Vector3d d, dv, da;  // translation offset and its rates
  for (int i = 0; i < 3; ++i) {
    d[i] = axes_[static_cast<std::size_t>(i)].position(t);
    dv[i] = axes_[static_cast<std::size_t>(i)].velocity(t);
    da[i] = axes_[static_cast<std::size_t>(i)].acceleration(t);
  }
  const auto& ax = axes_[RX];
  const auto& ay = axes_[RY];
  const auto& az = axes_[RZ];
  const double a = ax.position(t), b = ay.position(t), c = az.position(t);
  const double ad = ax.velocity(t), bd = ay.velocity(t), cd = az.velocity(t);
  const double add = ax.acceleration(t), bdd = ay.acceleration(t), cdd = az.acceleration(t);
  const Eigen::Matrix3d rz = Eigen::AngleAxisd(c, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  const Eigen::Matrix3d ry = Eigen::AngleAxisd(b, Eigen::Vector3d::UnitY()).toRotationMatrix();
  const Eigen::Matrix3d rx = Eigen::AngleAxisd(a, Eigen::Vector3d::UnitX()).toRotationMatrix();
  k.pose_world.linear() = rz * ry * rx * start_world.linear();
  k.pose_world.translation() = start_world.translation() + d;
  k.linear_velocity_world = dv;
  k.linear_acceleration_world = da;
  // R = Rz(c) Ry(b) Rx(a) R0: omega = c' e_z + b' Rz e_y + a' Rz Ry e_x, and its derivative
  // with d(Rz e_y)/dt = c' e_z x Rz e_y and d(Rz Ry e_x)/dt = omega_zy x Rz Ry e_x.
  const Eigen::Vector3d ez = Eigen::Vector3d::UnitZ();
  const Eigen::Vector3d ey = rz * Eigen::Vector3d::UnitY();
  const Eigen::Vector3d ex = rz * ry * Eigen::Vector3d::UnitX();
  const Eigen::Vector3d omega_zy = cd * ez + bd * ey;
  k.angular_velocity_world = omega_zy + ad * ex;
  k.angular_acceleration_world =
      cdd * ez + bdd * ey + bd * (cd * ez).cross(ey) + add * ex + ad * omega_zy.cross(ex);
  return k;
}

}  // namespace handsim::sim
