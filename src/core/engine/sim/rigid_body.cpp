// SPDX-License-Identifier: GPL-3.0-or-later
// The midpoint rule with the Cayley map for a free rigid body (docs/free-objects.md). Why it
// keeps L: with A = -dt [w_mid]x, L_end - L = A (L + L_end) / 2 is (1 - A/2) L_end = (1 + A/2) L,
// so L_end = cay(A) L; the body turns by cay(dt [w_mid]x), so the world momentum
// R_end L_end = R cay(dt[w]x) cay(-dt[w]x) L = R L stays. The energy L . I^-1 L / 2 is a
// quadratic invariant of Euler's equations, which the implicit midpoint rule preserves.
#include "handsim/sim/rigid_body.hpp"

#include <Eigen/LU>
#include <cmath>

namespace handsim::sim {

namespace {

Eigen::Matrix3d skew(const Eigen::Vector3d& v) {
  Eigen::Matrix3d m;
  m << 0.0, -v.z(), v.y(), v.z(), 0.0, -v.x(), -v.y(), v.x(), 0.0;
  return m;
}

}  // namespace

Eigen::Vector3d midpointAngularVelocity(const Eigen::Matrix3d& inertia_body,
                                        const Eigen::Vector3d& momentum_body, double dt) {
  const Eigen::Matrix3d& I = inertia_body;
  Eigen::Vector3d w = I.ldlt().solve(momentum_body);
  const double h = 0.5 * dt;
  for (int it = 0; it < 20; ++it) {
    const Eigen::Vector3d Iw = I * w;
    const Eigen::Vector3d f = Iw + h * w.cross(Iw) - momentum_body;
    const Eigen::Matrix3d jac = I + h * (skew(w) * I - skew(Iw));
    const Eigen::Vector3d dw = jac.partialPivLu().solve(f);
    w -= dw;
    if (!(dw.norm() > 1e-15 * w.norm())) break;
  }
  return w;
}

Eigen::Quaterniond cayleyRotation(const Eigen::Vector3d& v) {
  Eigen::Quaterniond q(1.0, 0.5 * v.x(), 0.5 * v.y(), 0.5 * v.z());
  q.normalize();
  return q;
}

double kineticEnergy(double mass, const Eigen::Matrix3d& inertia_world,
                     const Eigen::Vector3d& velocity, const Eigen::Vector3d& angular_velocity) {
  return 0.5 * mass * velocity.squaredNorm() +
         0.5 * angular_velocity.dot(inertia_world * angular_velocity);
}

}  // namespace handsim::sim
