// SPDX-License-Identifier: GPL-3.0-or-later
// Inverse kinematics through the transmission: joint values -> actuator positions by linear
// least squares over the linear map q = r a + o (seed 000 eq. 1-4, eq. 10 for a broken-away
// clutch), and fingertip targets -> actuator positions by damped least squares in actuator
// space (Levenberg-Marquardt: Wampler, IEEE SMC 16(1), 1986; Buss 2004, eq. 11) with the
// Jacobian of the tip with respect to the actuators, J_a = J_v R (R: the effective ratios).
#include "handsim/hand/transmission_ik.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>

#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

namespace handsim::hand {

namespace {

/// The joint-space numerical solver's acceptance [m]; the actuator-space refinement tightens
/// the result afterwards.
constexpr double kJointSpaceAccept = 1e-5;
/// The refinement stops once the tip is this close to the target [m].
constexpr double kRefineTolerance = 1e-10;
constexpr int kRefineIterations = 200;
constexpr double kInitialDamping = 1e-3;  ///< Levenberg-Marquardt lambda [m]
/// Past this damping the steps are negligible: the tip sits at a local minimum of the miss.
constexpr double kMaxDamping = 1e6;

void checkSizes(const HandModel& hand, const std::vector<double>& actuators_now,
                const std::vector<ClutchState>& clutches) {
  if (actuators_now.size() != hand.actuators.size())
    throw std::invalid_argument("actuator positions: expected " +
                                std::to_string(hand.actuators.size()) + " values, got " +
                                std::to_string(actuators_now.size()));
  if (!clutches.empty() && clutches.size() != hand.clutches.size())
    throw std::invalid_argument("clutch states: expected " + std::to_string(hand.clutches.size()) +
                                ", got " + std::to_string(clutches.size()));
}

/// Joint-space solution for the finger, from the joint values q0 (step 1 of
/// fingertipActuators); throws kinematics::UnreachableTarget.
kinematics::JointVector jointSpaceIk(const kinematics::Chain& chain, const Eigen::Vector3d& local,
                                     const kinematics::JointVector& q0,
                                     const std::optional<double>& phi) {
  if (phi && kinematics::isPlanarThreeLinkFinger(chain)) {
    // The planar solver works in the frame of the first planar joint, which the joints
    // before it (kept as they are) place.
    const auto frames = kinematics::forwardKinematics(chain, q0);
    const Eigen::Vector3d in_plane =
        frames.at(static_cast<int>(chain.rows.size()) - 3).inverse() * local;
    const double off = std::abs(in_plane.z());
    if (off > kPlanarTargetTolerance) {
      std::ostringstream msg;
      msg << "the target is " << off * 1000.0 << " mm off the plane of finger '" << chain.name
          << "'";
      throw kinematics::UnreachableTarget(msg.str(), off, q0);
    }
    return kinematics::planarFingerIk(chain, in_plane.x(), in_plane.y(), *phi, q0);
  }
  if (kinematics::isBarrettFinger(chain)) return kinematics::barrettFingerIk(chain, local, q0);
  return kinematics::inverseKinematicsNumerical(chain, local, q0, kJointSpaceAccept);
}

}  // namespace

std::vector<double> actuatorsForJoints(const HandModel& hand,
                                       const std::vector<kinematics::JointVector>& q,
                                       const std::vector<double>& actuators_now,
                                       const std::vector<ClutchState>& clutches) {
  checkSizes(hand, actuators_now, clutches);
  if (q.size() != hand.fingers.size())
    throw std::invalid_argument("joint values: expected " + std::to_string(hand.fingers.size()) +
                                " fingers, got " + std::to_string(q.size()));
  for (std::size_t f = 0; f < q.size(); ++f)
    kinematics::checkJointVectorSize(hand.fingers[f], q[f].size(),
                                     ("joint values of finger " + hand.fingers[f].name).c_str());
  const auto drives = effectiveDrives(hand, clutches);
  // Normal equation of min_a sum_j (r_j a + o_j - q_j)^2 for each actuator.
  std::vector<double> num(hand.actuators.size(), 0.0);
  std::vector<double> den(hand.actuators.size(), 0.0);
  for (std::size_t f = 0; f < drives.size(); ++f)
    for (std::size_t j = 0; j < drives[f].size(); ++j) {
      const EffectiveDrive& d = drives[f][j];
      if (d.actuator < 0 || d.ratio == 0.0) continue;
      const auto a = static_cast<std::size_t>(d.actuator);
      num[a] += d.ratio * (q[f](static_cast<Eigen::Index>(j)) - d.offset);
      den[a] += d.ratio * d.ratio;
    }
  std::vector<double> out = actuators_now;
  for (std::size_t a = 0; a < out.size(); ++a)
    if (den[a] > 0.0) out[a] = num[a] / den[a];
  return clampActuators(hand, out);
}

std::vector<double> fingertipActuators(const HandModel& hand, int finger,
                                       const Eigen::Vector3d& target_palm,
                                       const std::vector<double>& actuators_now,
                                       const std::vector<ClutchState>& clutches,
                                       const FingertipIkOptions& options) {
  if (finger < 0 || finger >= static_cast<int>(hand.fingers.size()))
    throw std::invalid_argument("no finger " + std::to_string(finger) + " (the hand has " +
                                std::to_string(hand.fingers.size()) + ")");
  if (!target_palm.allFinite()) throw std::invalid_argument("the target is not a finite point");
  checkSizes(hand, actuators_now, clutches);
  const auto f = static_cast<std::size_t>(finger);
  // The finger's chain ending at the point placed (its joints and rows are the finger's, with
  // a fixed row for a tip link appended), so FK, the IK and the Jacobian below are of that point.
  const kinematics::Chain chain = fingerPointChain(hand, finger, options.point);
  const Eigen::Vector3d local = chain.base.inverse() * target_palm;

  std::vector<kinematics::JointVector> q = jointPositions(hand, actuators_now, clutches);
  q[f] = jointSpaceIk(chain, local, q[f], options.phi);

  // Through the transmission: start from the least-squares actuators of the joint-space
  // solution; only the actuators that drive this finger change.
  const auto drives = effectiveDrives(hand, clutches);
  std::vector<int> mine;
  for (const EffectiveDrive& d : drives[f])
    if (d.actuator >= 0 && d.ratio != 0.0 &&
        std::find(mine.begin(), mine.end(), d.actuator) == mine.end())
      mine.push_back(d.actuator);
  const std::vector<double> fitted = actuatorsForJoints(hand, q, actuators_now, clutches);
  std::vector<double> a = actuators_now;
  for (int k : mine) a[static_cast<std::size_t>(k)] = fitted[static_cast<std::size_t>(k)];

  // The finger's joints at actuators `act`: q_j = r_j a + o_j.
  const auto finger_q = [&](const std::vector<double>& act) {
    kinematics::JointVector v(chain.dof());
    for (std::size_t j = 0; j < drives[f].size(); ++j) {
      const EffectiveDrive& d = drives[f][j];
      v(static_cast<Eigen::Index>(j)) =
          d.offset + (d.actuator >= 0 ? d.ratio * act[static_cast<std::size_t>(d.actuator)] : 0.0);
    }
    return v;
  };
  kinematics::JointVector qf = finger_q(a);
  Eigen::Vector3d err = local - kinematics::fingertipPosition(chain, qf);
  const auto n = static_cast<Eigen::Index>(mine.size());
  double lambda = kInitialDamping;
  for (int it = 0;
       it < kRefineIterations && err.norm() > kRefineTolerance && n > 0 && lambda < kMaxDamping;
       ++it) {
    // Analytic Jacobian of the tip with respect to the finger's actuators: J_a = J_v R.
    const kinematics::Jacobian Jq = kinematics::geometricJacobian(chain, qf);
    Eigen::MatrixXd J = Eigen::MatrixXd::Zero(3, n);
    for (std::size_t j = 0; j < drives[f].size(); ++j) {
      const EffectiveDrive& d = drives[f][j];
      if (d.actuator < 0 || d.ratio == 0.0) continue;
      const auto k = std::find(mine.begin(), mine.end(), d.actuator) - mine.begin();
      J.col(k) += d.ratio * Jq.block<3, 1>(0, static_cast<Eigen::Index>(j));
    }
    // Damped least squares: step = J^T (J J^T + lambda^2 I)^-1 err (Buss 2004, eq. 11).
    const Eigen::Matrix3d JJt = J * J.transpose() + lambda * lambda * Eigen::Matrix3d::Identity();
    const Eigen::VectorXd step = J.transpose() * JJt.ldlt().solve(err);
    std::vector<double> b = a;
    for (Eigen::Index k = 0; k < n; ++k)
      b[static_cast<std::size_t>(mine[static_cast<std::size_t>(k)])] += step(k);
    b = clampActuators(hand, b);
    const kinematics::JointVector qb = finger_q(b);
    const Eigen::Vector3d eb = local - kinematics::fingertipPosition(chain, qb);
    if (eb.norm() < err.norm()) {
      a = b;
      qf = qb;
      err = eb;
      lambda *= 0.5;
    } else {
      lambda *= 4.0;
    }
  }
  if (err.norm() > options.accept) {
    std::ostringstream msg;
    msg << "target is out of reach of finger '" << chain.name
        << "' through its transmission: the coupled joints leave the fingertip "
        << err.norm() * 1000.0 << " mm from the target";
    throw kinematics::UnreachableTarget(msg.str(), err.norm(), qf);
  }
  return a;
}

}  // namespace handsim::hand
