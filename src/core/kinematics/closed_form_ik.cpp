// SPDX-License-Identifier: GPL-3.0-or-later
// Closed-form inverse kinematics. BarrettHand finger: seed 000 eq. 5-7 (eq. 6-7 are lost from
// the paper's text and re-derived in docs/kinematics.md). Planar three-link finger: seed 003,
// solved through the wrist point (the seed's worked example is wrong; see docs/kinematics.md).
#include "handsim/kinematics/closed_form_ik.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

namespace handsim::kinematics {

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kLimitTol = 1e-12;

/// Brings an angle into [lower, upper] by whole turns if possible.
bool fitIntoLimits(double& angle, const DhRow& row) {
  if (row.type == JointType::Fixed) return true;
  double a = angle;
  while (a > row.upper + kLimitTol) a -= 2.0 * kPi;
  while (a < row.lower - kLimitTol) a += 2.0 * kPi;
  if (a > row.upper + kLimitTol || a < row.lower - kLimitTol) return false;
  angle = std::clamp(a, row.lower, row.upper);
  return true;
}

/// Two-link planar IK (link lengths l1, l2) for point (x, y): absolute angles (t1, t1 + t2)
/// for both elbows. Returns how many solutions (0 when out of the annulus).
int twoLink(double l1, double l2, double x, double y, double out[2][2]) {
  const double r2 = x * x + y * y;
  const double c2 = (r2 - l1 * l1 - l2 * l2) / (2.0 * l1 * l2);
  if (c2 > 1.0 + 1e-12 || c2 < -1.0 - 1e-12) return 0;
  const double t2 = std::acos(std::clamp(c2, -1.0, 1.0));
  int n = 0;
  for (double s : {1.0, -1.0}) {
    const double e = s * t2;
    out[n][0] = std::atan2(y, x) - std::atan2(l2 * std::sin(e), l1 + l2 * std::cos(e));
    out[n][1] = e;
    ++n;
    if (t2 == 0.0) break;
  }
  return n;
}

/// Distance from a point at radius r to the annulus l1 - l2 <= r <= l1 + l2.
double annulusMiss(double l1, double l2, double r) {
  return std::max({0.0, r - (l1 + l2), std::abs(l1 - l2) - r});
}

void sortByDistance(std::vector<JointVector>& sols, const Eigen::Ref<const Eigen::VectorXd>& ref) {
  std::stable_sort(sols.begin(), sols.end(), [&](const JointVector& a, const JointVector& b) {
    return (a - ref).squaredNorm() < (b - ref).squaredNorm();
  });
}

[[noreturn]] void unreachable(const Chain& chain, const std::string& why, double miss,
                              const JointVector& closest) {
  std::ostringstream msg;
  msg << "target is out of reach of finger '" << chain.name << "': " << why << "; it misses by "
      << miss * 1000.0 << " mm";
  throw UnreachableTarget(msg.str(), miss, closest);
}

}  // namespace

bool isBarrettFinger(const Chain& c) {
  if (c.rows.size() != 3) return false;
  const DhRow &r0 = c.rows[0], &r1 = c.rows[1], &r2 = c.rows[2];
  return r0.type != JointType::Prismatic && r0.d == 0.0 &&
         std::abs(std::abs(r0.alpha) - kPi / 2) < 1e-12 && r1.type == JointType::Revolute &&
         r2.type == JointType::Revolute && r1.alpha == 0.0 && r2.alpha == 0.0 && r1.d == 0.0 &&
         r2.d == 0.0;
}

std::vector<JointVector> barrettFingerIkAll(const Chain& c, const Eigen::Vector3d& p,
                                            const Eigen::Ref<const Eigen::VectorXd>& q_ref) {
  if (!isBarrettFinger(c))
    throw std::invalid_argument("finger '" + c.name + "' does not have the BarrettHand structure");
  checkJointVectorSize(c, q_ref.size(), "q_ref");
  const DhRow &r0 = c.rows[0], &r1 = c.rows[1], &r2 = c.rows[2];
  const bool spread = r0.type == JointType::Revolute;
  // Eq. 5: the finger plane contains z_k0 and the target, so theta1 = atan2(p_y, p_x) (the
  // finger may also reach "backwards", theta1 + pi). A fixed spread keeps its angle.
  std::vector<double> spreads;
  if (spread) {
    const double phi = std::atan2(p.y(), p.x());
    spreads = {phi - r0.theta, phi + kPi - r0.theta};
  } else {
    spreads = {0.0};
  }
  std::vector<JointVector> sols;
  for (double q1 : spreads) {
    if (spread && !fitIntoLimits(q1, r0)) continue;
    // Target in {k1}: the knuckle frame, x along the finger plane's radial direction, z the
    // flexion axis. The out-of-plane part must vanish.
    const Eigen::Isometry3d t01 = dhTransform(r0, q1);
    const Eigen::Vector3d p1 = t01.inverse() * p;
    if (std::abs(p1.z()) > 1e-9) continue;
    // Eq. 6-7: law of cosines for the outer joint, difference of two angles for the inner.
    double abs_angles[2][2];
    const int n = twoLink(r1.a, r2.a, p1.x(), p1.y(), abs_angles);
    for (int s = 0; s < n; ++s) {
      double q2 = abs_angles[s][0] - r1.theta;  // minus Phi2
      double q3 = abs_angles[s][1] - r2.theta;  // minus Phi3
      if (!fitIntoLimits(q2, r1) || !fitIntoLimits(q3, r2)) continue;
      JointVector q(c.dof());
      if (spread) {
        q << q1, q2, q3;
      } else {
        q << q2, q3;
      }
      sols.push_back(q);
    }
  }
  sortByDistance(sols, q_ref);
  return sols;
}

JointVector barrettFingerIk(const Chain& c, const Eigen::Vector3d& p,
                            const Eigen::Ref<const Eigen::VectorXd>& q_ref) {
  auto sols = barrettFingerIkAll(c, p, q_ref);
  if (!sols.empty()) return sols.front();
  // Why: out of the finger's plane (fixed spread), beyond the links' reach, or limits.
  const NumericalIkResult best = nearestReachable(c, p, q_ref);
  const Eigen::Vector3d p1 = dhTransform(c.rows[0], c.rows[0].type == JointType::Revolute
                                                        ? std::atan2(p.y(), p.x()) - c.rows[0].theta
                                                        : 0.0)
                                 .inverse() *
                             p;
  const double radial = annulusMiss(c.rows[1].a, c.rows[2].a, std::hypot(p1.x(), p1.y()));
  std::string why = "no joint values within the limits reach it";
  if (c.rows[0].type == JointType::Fixed && std::abs(p1.z()) > 1e-9)
    why = "it lies " + std::to_string(std::abs(p1.z()) * 1000.0) +
          " mm outside the finger's plane (this finger has no spread)";
  else if (radial > 0.0)
    why = "it is beyond the reach of the two phalanxes (A2 + A3 = " +
          std::to_string((c.rows[1].a + c.rows[2].a) * 1000.0) + " mm from the knuckle)";
  unreachable(c, why, best.position_error, best.q);
}

bool isPlanarThreeLinkFinger(const Chain& c) {
  const std::size_t n = c.rows.size();
  if (n < 3) return false;
  for (std::size_t r = n - 3; r < n; ++r)
    if (c.rows[r].type != JointType::Revolute || c.rows[r].alpha != 0.0 || c.rows[r].d != 0.0)
      return false;
  return true;
}

std::vector<JointVector> planarFingerIkAll(const Chain& c, double x, double y, double phi,
                                           const Eigen::Ref<const Eigen::VectorXd>& q_ref) {
  if (!isPlanarThreeLinkFinger(c))
    throw std::invalid_argument("finger '" + c.name + "' does not end in three planar joints");
  checkJointVectorSize(c, q_ref.size(), "q_ref");
  const std::size_t n = c.rows.size();
  const DhRow &r1 = c.rows[n - 3], &r2 = c.rows[n - 2], &r3 = c.rows[n - 1];
  // Wrist point: step back from the tip along the last link (seed 003's phi3).
  const double wx = x - r3.a * std::cos(phi), wy = y - r3.a * std::sin(phi);
  double abs_angles[2][2];
  const int count = twoLink(r1.a, r2.a, wx, wy, abs_angles);
  std::vector<JointVector> sols;
  const int j0 = c.dof() - 3;
  for (int s = 0; s < count; ++s) {
    double q1 = abs_angles[s][0] - r1.theta;
    double q2 = abs_angles[s][1] - r2.theta;
    double q3 = phi - abs_angles[s][0] - abs_angles[s][1] - r3.theta;
    if (!fitIntoLimits(q1, r1) || !fitIntoLimits(q2, r2) || !fitIntoLimits(q3, r3)) continue;
    JointVector q = q_ref;
    q[j0] = q1;
    q[j0 + 1] = q2;
    q[j0 + 2] = q3;
    sols.push_back(q);
  }
  sortByDistance(sols, q_ref);
  return sols;
}

JointVector planarFingerIk(const Chain& c, double x, double y, double phi,
                           const Eigen::Ref<const Eigen::VectorXd>& q_ref) {
  auto sols = planarFingerIkAll(c, x, y, phi, q_ref);
  if (!sols.empty()) return sols.front();
  const std::size_t n = c.rows.size();
  const double wx = x - c.rows[n - 1].a * std::cos(phi), wy = y - c.rows[n - 1].a * std::sin(phi);
  const double radial = annulusMiss(c.rows[n - 3].a, c.rows[n - 2].a, std::hypot(wx, wy));
  // Nearest tip with the requested orientation, moving only the planar joints.
  const auto frames = forwardKinematics(c, q_ref);
  const Eigen::Isometry3d plane = frames.at(static_cast<int>(n) - 3);
  const Eigen::Vector3d target = plane * Eigen::Vector3d(x, y, 0.0);
  const Eigen::Matrix3d rot =
      plane.linear() * Eigen::AngleAxisd(phi, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  NumericalIkOptions opt;
  opt.free_mask = 0;
  for (int j = c.dof() - 3; j < c.dof(); ++j) opt.free_mask |= 1u << j;
  opt.orientation_weight = 1.0;
  const NumericalIkResult best = nearestReachable(c, target, q_ref, opt, rot);
  if (radial > 0.0) {
    unreachable(c,
                "with that tip orientation the wrist point is " + std::to_string(radial * 1000.0) +
                    " mm beyond the reach of the first two links",
                radial, best.q);
  }
  unreachable(c, "no joint values within the limits reach it with that tip orientation",
              std::max(best.position_error, 0.0), best.q);
}

}  // namespace handsim::kinematics
