// SPDX-License-Identifier: GPL-3.0-or-later
// Chains and states shared by the dynamics tests: the BarrettHand finger of docs/design.md section 3
// (seed 000), built here from the paper's numbers, and random chains with physically valid
// inertias.
#pragma once

#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <string>

#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::dynamics::test {

inline constexpr double kPi = 3.14159265358979323846;
inline double deg(double x) {
  return x * kPi / 180.0;
}

/// The six numbers (xx, xy, xz, yy, yz, zz) of docs/design.md section 3 (seed 000, Table III) for links 1..3.
inline const std::array<std::array<double, 6>, 3> kBarrettInertiaNumbers = {{
    {0.0000658, 0.0000572, -0.0000011, 0.0001310, -0.0000013, 0.0001808},
    {0.0000047, -0.0000020, 0.0000030, 0.0001208, -0.0000000, 0.0001218},
    {0.00000298, -0.00000135, -0.00000032, 0.00005836, -0.00000001, 0.00005732},
}};
inline const std::array<double, 3> kBarrettMass = {0.16252678, 0.05795741, 0.03421781};
inline const std::array<Eigen::Vector3d, 3> kBarrettCom = {
    Eigen::Vector3d(-0.01798334, -0.01569925, 0.00086502),
    Eigen::Vector3d(-0.03827982, 0.00107042, -0.00058628),
    Eigen::Vector3d(-0.03629026, 0.00182016, 0.00020041)};

/// Tensor from the six numbers. products = true is handsim's reading (docs/design.md section 4) (off-diagonal numbers
/// are products of inertia, the tensor holds their negatives); false takes them as tensor
/// entries.
inline Eigen::Matrix3d barrettTensor(const std::array<double, 6>& n, bool products) {
  const double s = products ? -1.0 : 1.0;
  Eigen::Matrix3d t;
  t << n[0], s * n[1], s * n[2],  //
      s * n[1], n[3], s * n[4],   //
      s * n[2], s * n[4], n[5];
  return t;
}

/// BarrettHand finger (seed 000 Table I): F1/F2 with the spread joint, or F3 whose first row
/// is fixed (r_3 = 0).
inline kinematics::Chain barrettFinger(bool fixed_spread) {
  kinematics::Chain c;
  c.name = fixed_spread ? "F3" : "F1";
  const double a[3] = {0.050, 0.070, 0.056};
  const double alpha[3] = {deg(90.0), 0.0, 0.0};
  const double theta[3] = {0.0, deg(2.46), deg(50.0)};
  for (int i = 0; i < 3; ++i) {
    kinematics::DhRow r;
    r.a = a[i];
    r.alpha = alpha[i];
    r.theta = theta[i];
    r.lower = -kPi;
    r.upper = kPi;
    if (i == 0 && fixed_spread) r.type = kinematics::JointType::Fixed;
    c.rows.push_back(r);
    c.joint_names.push_back("J" + std::to_string(i + 1));
    kinematics::LinkInertia l;
    l.mass = kBarrettMass[static_cast<std::size_t>(i)];
    l.com = kBarrettCom[static_cast<std::size_t>(i)];
    l.inertia = barrettTensor(kBarrettInertiaNumbers[static_cast<std::size_t>(i)], true);
    c.links.push_back(l);
  }
  return c;
}

/// A random physically valid link: a solid ellipsoid (principal moments satisfy the triangle
/// inequalities by construction) turned by a random rotation and moved to a random centre of
/// mass, its tensor carried to the frame origin by the parallel-axis theorem.
inline kinematics::LinkInertia randomLink(std::mt19937& rng) {
  std::uniform_real_distribution<double> mass(0.01, 0.5), half(0.005, 0.05), pos(-0.05, 0.05);
  kinematics::LinkInertia l;
  l.mass = mass(rng);
  const double a = half(rng), b = half(rng), c = half(rng);
  const Eigen::Vector3d principal(l.mass * (b * b + c * c) / 5.0, l.mass * (a * a + c * c) / 5.0,
                                  l.mass * (a * a + b * b) / 5.0);
  std::normal_distribution<double> gauss;
  const Eigen::Matrix3d rot = Eigen::Quaterniond(gauss(rng), gauss(rng), gauss(rng), gauss(rng))
                                  .normalized()
                                  .toRotationMatrix();
  const Eigen::Matrix3d about_com = rot * principal.asDiagonal() * rot.transpose();
  l.com = Eigen::Vector3d(pos(rng), pos(rng), pos(rng));
  l.inertia = about_com + l.mass * (l.com.squaredNorm() * Eigen::Matrix3d::Identity() -
                                    l.com * l.com.transpose());
  return l;
}

/// Random DH chain of 1..max_rows rows mixing revolute, prismatic and fixed rows (at least one
/// movable).
inline kinematics::Chain randomChain(std::mt19937& rng, int max_rows = 8) {
  std::uniform_int_distribution<int> nrows(1, max_rows), kind(0, 9);
  std::uniform_real_distribution<double> len(-0.1, 0.1), ang(-kPi, kPi);
  kinematics::Chain c;
  c.name = "random";
  const int n = nrows(rng);
  for (int i = 0; i < n; ++i) {
    kinematics::DhRow r;
    r.a = len(rng);
    r.d = len(rng);
    r.alpha = ang(rng);
    r.theta = ang(rng);
    const int k = kind(rng);
    r.type = k < 6 ? kinematics::JointType::Revolute
                   : (k < 8 ? kinematics::JointType::Prismatic : kinematics::JointType::Fixed);
    c.rows.push_back(r);
    c.joint_names.push_back("J" + std::to_string(i + 1));
    c.links.push_back(randomLink(rng));
  }
  if (c.dof() == 0) c.rows[0].type = kinematics::JointType::Revolute;
  return c;
}

/// Uniform random vector in [-scale, scale]^n.
inline Eigen::VectorXd randomVector(std::mt19937& rng, int n, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = u(rng);
  return v;
}

/// Random gravity of magnitude 9.81 m/s^2 in a random direction of {k0}.
inline Eigen::Vector3d randomGravity(std::mt19937& rng) {
  std::normal_distribution<double> gauss;
  return 9.81 * Eigen::Vector3d(gauss(rng), gauss(rng), gauss(rng)).normalized();
}

/// ||a - b|| / ||b||; a reference below 1e-6 (1 micro-N m for torques) counts as 1e-6, so that
/// analytically zero results (e.g. H of a one-joint chain) compare by their rounding noise.
inline double relativeError(const Eigen::Ref<const Eigen::VectorXd>& a,
                            const Eigen::Ref<const Eigen::VectorXd>& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-6);
}

}  // namespace handsim::dynamics::test
