// SPDX-License-Identifier: GPL-3.0-or-later
// Stable-step bound of the semi-implicit Euler integration of the servo, tendon and spring
// forces (derivation in include/handsim/sim/stability.hpp and docs/simulation.md).
#include "handsim/sim/stability.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>
#include <limits>

#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/sim/penalty_contacts.hpp"

namespace handsim::sim {

namespace {

// Largest eigenvalue of M^-1 A for symmetric A >= 0 and M > 0 (0 when A vanishes).
double largestRate(const Eigen::MatrixXd& a, const Eigen::MatrixXd& m) {
  if (a.cwiseAbs().maxCoeff() == 0.0) return 0.0;
  const Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::MatrixXd> solver(a, m,
                                                                         Eigen::EigenvaluesOnly);
  if (solver.info() != Eigen::Success) return std::numeric_limits<double>::infinity();
  return std::max(0.0, solver.eigenvalues().maxCoeff());
}

}  // namespace

std::string shortNumber(double value) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

StepLimit stableStep(const Model& model, const SimState& s) {
  StepLimit limit = stableStep(model.hand(), s.q, s.clutches);
  // The volume penalty model: the explicit friction of the penalty contact, and its normal force
  // when integrated explicitly (sim/penalty_contacts.hpp).
  if (model.options.contact.volumePenalty()) {
    const StepLimit penalty = penaltyStableStep(model.options, model.objects);
    if (penalty.dt_max < limit.dt_max) limit = penalty;
  }
  return limit;
}

StepLimit stableStep(const hand::HandModel& hand, const std::vector<kinematics::JointVector>& q,
                     const std::vector<hand::ClutchState>& clutches) {
  const auto na = static_cast<Eigen::Index>(hand.actuators.size());
  const auto drives = hand::effectiveDrives(hand, clutches);
  // The actuator-space inertia as the step builds it (R^T D R + rotor).
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(na, na);
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const auto& chain = hand.fingers[f];
    const auto terms = dynamics::lagrangeEuler(
        chain, q[f], kinematics::JointVector::Zero(chain.dof()), Eigen::Vector3d::Zero());
    hand::addActuatorInertia(drives[f], terms.D, m);
  }
  Eigen::MatrixXd k = Eigen::MatrixXd::Zero(na, na), c = Eigen::MatrixXd::Zero(na, na);
  for (Eigen::Index a = 0; a < na; ++a) {
    const auto& act = hand.actuators[static_cast<std::size_t>(a)];
    const double rho = act.drives.front().ratio;
    m(a, a) += rho * rho * act.servo.rotor_inertia;
    k(a, a) += rho * rho * act.servo.kp;
    c(a, a) += rho * rho * act.servo.kd;
  }
  for (const auto& t : hand.tendons) {
    Eigen::VectorXd g = Eigen::VectorXd::Zero(na);
    for (const auto& tj : t.joints) {
      const auto a = static_cast<Eigen::Index>(hand.driverOf(tj.joint).first);
      g[a] += tj.pulley_radius;
      k(a, a) += tj.spring;
      c(a, a) += tj.damping;
    }
    k += t.stiffness * g * g.transpose();
  }
  StepLimit out;
  out.dt_max = std::numeric_limits<double>::infinity();
  const double lk = largestRate(k, m), lc = largestRate(c, m);
  if (lk > 0.0 || lc > 0.0) {
    // dt^2 lk + 2 dt lc = 4.
    out.dt_max = lk > 0.0 ? (-lc + std::sqrt(lc * lc + 4.0 * lk)) / lk : 2.0 / lc;
  }
  // Name the stiffest single element: the actuator whose own ratio k/m is largest.
  double worst = -1.0;
  for (Eigen::Index a = 0; a < na; ++a) {
    const double r = k(a, a) / m(a, a);
    if (r > worst) {
      worst = r;
      const auto& act = hand.actuators[static_cast<std::size_t>(a)];
      bool tendon = false;
      for (const auto& t : hand.tendons)
        for (const auto& tj : t.joints)
          if (hand.driverOf(tj.joint).first == a) tendon = true;
      out.what = tendon ? "the tendon on " + act.name + " and the inertia it moves"
                        : "the servo of " + act.name + " (kp " + shortNumber(act.servo.kp) +
                              ") and the inertia it moves";
    }
  }
  return out;
}

}  // namespace handsim::sim
