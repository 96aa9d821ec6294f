// SPDX-License-Identifier: GPL-3.0-or-later
// Closed-form inverse kinematics. BarrettHand finger: seed 000 eq. 5-7 (eq. 6-7 are lost from
// the paper's text and re-derived in docs/kinematics.md). Planar three-link finger: seed 003,
// solved through the wrist point (the seed's worked example is wrong; see docs/kinematics.md).
#include "handsim/kinematics/closed_form_ik.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

namespace handsim::kinematics {

namespace {

constexpr double kPi = 3.14159265358979323846;
/// Joint values this far outside a limit [rad] are rounding (acos near a stretched or folded
/// elbow magnifies one ulp of the cosine to ~1e-8 rad) and are clamped onto the limit; the
/// clamped solution is kept only if its tip still meets the target (kResidualTol).
constexpr double kLimitTol = 1e-7;
/// Largest tip error [m] (and orientation error [rad]) of a clamped solution.
constexpr double kResidualTol = 1e-9;

/// Brings an angle into [lower, upper] by whole turns if possible (within kLimitTol, clamped).
bool fitIntoLimits(double& angle, const DhRow& row) {
  if (row.type == JointType::Fixed) return true;
  double a = angle;
  while (a > row.upper + kLimitTol) a -= 2.0 * kPi;
  while (a < row.lower - kLimitTol) a += 2.0 * kPi;
  if (a > row.upper + kLimitTol || a < row.lower - kLimitTol) return false;
  angle = std::clamp(a, row.lower, row.upper);
  return true;
}

Eigen::Vector2d dir(double angle) {
  return {std::cos(angle), std::sin(angle)};
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

/// A planar two-link arm (the two joints a and b of one plane) whose joint values are limited
/// to a box and, optionally, to a band lo_sum <= q_a + q_b <= hi_sum (a fixed orientation of a
/// third link). The point is p(q) = l1 e(theta_a + q_a) + l2 e(theta_a + theta_b + q_a + q_b).
struct LimitedTwoLink {
  double l1, l2, theta_a, theta_b;
  double lo_a, hi_a, lo_b, hi_b;
  double lo_sum = -std::numeric_limits<double>::infinity();
  double hi_sum = std::numeric_limits<double>::infinity();
};

struct PlanarNearest {
  double distance = std::numeric_limits<double>::infinity();
  double q_a = 0.0, q_b = 0.0;
};

/// Parameter interval [t0, t1] of the line q = q0 + t d within the feasible polygon; false when
/// the line misses it.
bool clipLine(const LimitedTwoLink& arm, const Eigen::Vector2d& q0, const Eigen::Vector2d& d,
              double& t0, double& t1) {
  t0 = -std::numeric_limits<double>::infinity();
  t1 = std::numeric_limits<double>::infinity();
  const struct {
    Eigen::Vector2d c;
    double lo, hi;
  } rows[3] = {{{1.0, 0.0}, arm.lo_a, arm.hi_a},
               {{0.0, 1.0}, arm.lo_b, arm.hi_b},
               {{1.0, 1.0}, arm.lo_sum, arm.hi_sum}};
  for (const auto& r : rows) {
    const double v = r.c.dot(q0), s = r.c.dot(d);
    if (s == 0.0) {
      if (v < r.lo - 1e-12 || v > r.hi + 1e-12) return false;
      continue;
    }
    double a = (r.lo - v) / s, b = (r.hi - v) / s;
    if (a > b) std::swap(a, b);
    t0 = std::max(t0, a);
    t1 = std::min(t1, b);
  }
  return t0 <= t1 + 1e-12;
}

/// Nearest point to `target` of the point set of a polygon in joint space, exactly: the minimum
/// of |p(q) - target| over a compact set lies in the interior only where p(q) = target or the
/// Jacobian is singular (q_b + theta_b = 0 or pi, an arc), else on an edge. Every edge and
/// singular line (q_a, q_b or q_a + q_b constant) maps to a circular arc, whose nearest point
/// to the target is closed form.
PlanarNearest nearestOnLimitedTwoLink(const LimitedTwoLink& arm, const Eigen::Vector2d& target) {
  PlanarNearest best;
  // Interior: exact hits within the limits.
  double abs_angles[2][2];
  const int n = twoLink(arm.l1, arm.l2, target.x(), target.y(), abs_angles);
  for (int s = 0; s < n; ++s) {
    DhRow ra{0.0, 0.0, 0.0, 0.0, JointType::Revolute, arm.lo_a, arm.hi_a};
    DhRow rb{0.0, 0.0, 0.0, 0.0, JointType::Revolute, arm.lo_b, arm.hi_b};
    double qa = abs_angles[s][0] - arm.theta_a, qb = abs_angles[s][1] - arm.theta_b;
    if (!fitIntoLimits(qa, ra) || !fitIntoLimits(qb, rb)) continue;
    // Strictly within the band: a point just outside it would need the third joint past its
    // limit (the band's edges are searched below).
    const double sum = qa + qb;
    if (sum < arm.lo_sum || sum > arm.hi_sum) continue;
    const double d = (arm.l1 * dir(arm.theta_a + qa) +
                      arm.l2 * dir(arm.theta_a + arm.theta_b + qa + qb) - target)
                         .norm();
    if (d < best.distance) best = {d, qa, qb};
  }
  // Edges and singular lines: (q0, direction) in joint space.
  struct Line {
    Eigen::Vector2d q0, d;
  };
  Line lines[10];
  int count = 0;
  lines[count++] = {{arm.lo_a, 0.0}, {0.0, 1.0}};
  lines[count++] = {{arm.hi_a, 0.0}, {0.0, 1.0}};
  lines[count++] = {{0.0, arm.lo_b}, {1.0, 0.0}};
  lines[count++] = {{0.0, arm.hi_b}, {1.0, 0.0}};
  if (std::isfinite(arm.lo_sum)) lines[count++] = {{arm.lo_sum, 0.0}, {1.0, -1.0}};
  if (std::isfinite(arm.hi_sum)) lines[count++] = {{arm.hi_sum, 0.0}, {1.0, -1.0}};
  for (int m = static_cast<int>(std::ceil((arm.lo_b + arm.theta_b) / kPi - 1e-12));
       count < 10 && m * kPi - arm.theta_b <= arm.hi_b + 1e-12; ++m)
    lines[count++] = {{0.0, m * kPi - arm.theta_b}, {1.0, 0.0}};
  for (int i = 0; i < count; ++i) {
    const Line& line = lines[i];
    double t0, t1;
    if (!clipLine(arm, line.q0, line.d, t0, t1)) continue;
    t1 = std::max(t0, t1);
    // The arc: centre c, radius r, angle beta0 + t.
    Eigen::Vector2d c;
    double r, beta0;
    const double qa0 = line.q0.x(), qb0 = line.q0.y();
    if (line.d.x() == 0.0) {  // q_a fixed: the outer link turns about the middle joint
      c = arm.l1 * dir(arm.theta_a + qa0);
      r = arm.l2;
      beta0 = arm.theta_a + arm.theta_b + qa0 + qb0;
    } else if (line.d.y() == 0.0) {  // q_b fixed: the rigid two-link turns about the base
      const Eigen::Vector2d v = Eigen::Vector2d(arm.l1, 0.0) + arm.l2 * dir(arm.theta_b + qb0);
      c.setZero();
      r = v.norm();
      beta0 = arm.theta_a + qa0 + std::atan2(v.y(), v.x());
    } else {  // q_a + q_b fixed: the outer link translates, the inner one turns
      c = arm.l2 * dir(arm.theta_a + arm.theta_b + qa0 + qb0);
      r = arm.l1;
      beta0 = arm.theta_a + qa0;
    }
    double ts[3] = {t0, t1, t0};
    int nt = 2;
    const Eigen::Vector2d rel = target - c;
    if (rel.norm() > 0.0) {
      const double gamma = std::atan2(rel.y(), rel.x());
      const double t =
          t0 + std::fmod(std::fmod(gamma - beta0 - t0, 2.0 * kPi) + 2.0 * kPi, 2.0 * kPi);
      if (t <= t1) ts[nt++] = t;
    }
    for (int k = 0; k < nt; ++k) {
      const double d = (c + r * dir(beta0 + ts[k]) - target).norm();
      if (d < best.distance) {
        best.distance = d;
        best.q_a = std::clamp(qa0 + ts[k] * line.d.x(), arm.lo_a, arm.hi_a);
        best.q_b = std::clamp(qb0 + ts[k] * line.d.y(), arm.lo_b, arm.hi_b);
      }
    }
  }
  return best;
}

}  // namespace

bool isBarrettFinger(const Chain& c) {
  if (c.rows.size() != 3) return false;
  for (const DhRow& r : c.rows)
    if (r.form != JointFrameForm::Dh) return false;
  const DhRow &r0 = c.rows[0], &r1 = c.rows[1], &r2 = c.rows[2];
  return r0.type != JointType::Prismatic && r0.d == 0.0 &&
         std::abs(std::abs(r0.alpha) - kPi / 2) < 1e-12 && r1.type == JointType::Revolute &&
         r2.type == JointType::Revolute && r1.alpha == 0.0 && r2.alpha == 0.0 && r1.d == 0.0 &&
         r2.d == 0.0;
}

namespace {

/// Nearest reachable tip and its joint values.
struct Nearest {
  double miss;  ///< [m]
  JointVector closest;
};

Nearest nearestBarrett(const Chain& c, const Eigen::Vector3d& p) {
  const DhRow &r0 = c.rows[0], &r1 = c.rows[1], &r2 = c.rows[2];
  const bool spread = r0.type == JointType::Revolute;
  // Nearest reachable tip. For a spread angle q1 the tip lies in the finger plane, so its
  // squared distance is h(q1)^2 + g(q1)^2: h the target's distance from the plane, g the planar
  // distance of its projection to the limited two-link workspace (exact, nearestOnLimited-
  // TwoLink). At the minimum over the joint box, q1 is at a limit or d/dq1 = 0, which (tip at
  // radius R from the spread axis, target at rho) is R rho sin(q1 + theta1 - atan2(py, px)) = 0:
  // the plane through the target (either way), or R = 0 or rho = 0, where every q1 gives the
  // same distance. So those few planes hold the minimum.
  std::vector<double> spreads{0.0};
  if (spread) {
    spreads = {r0.lower, r0.upper};
    const double toward = std::atan2(p.y(), p.x()) - r0.theta;
    for (int k = -3; k <= 3; ++k) {
      const double q1 = toward + k * kPi;
      if (q1 >= r0.lower && q1 <= r0.upper) spreads.push_back(q1);
    }
  }
  const LimitedTwoLink arm{r1.a, r2.a, r1.theta, r2.theta, r1.lower, r1.upper, r2.lower, r2.upper};
  double best2 = std::numeric_limits<double>::infinity();
  JointVector closest(c.dof());
  for (double q1 : spreads) {
    const Eigen::Vector3d p1 = dhTransform(r0, q1).inverse() * p;
    const PlanarNearest in_plane = nearestOnLimitedTwoLink(arm, p1.head<2>());
    const double d2 = p1.z() * p1.z() + in_plane.distance * in_plane.distance;
    if (d2 < best2) {
      best2 = d2;
      if (spread) {
        closest << q1, in_plane.q_a, in_plane.q_b;
      } else {
        closest << in_plane.q_a, in_plane.q_b;
      }
    }
  }
  return {(fingertipPosition(c, closest) - p).norm(), closest};
}

}  // namespace

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
      // A value clamped onto its limit must still put the tip on the target.
      const Eigen::Vector2d tip =
          r1.a * dir(r1.theta + q2) + r2.a * dir(r1.theta + r2.theta + q2 + q3);
      if ((tip - p1.head<2>()).norm() > kResidualTol) continue;
      JointVector q(c.dof());
      if (spread) {
        q << q1, q2, q3;
      } else {
        q << q2, q3;
      }
      sols.push_back(q);
    }
  }
  // A target on the workspace's edge can miss every solution above by rounding (one joint a
  // little past its limit, the other one then off): the exact nearest reachable tip decides.
  if (sols.empty()) {
    const Nearest nearest = nearestBarrett(c, p);
    if (nearest.miss <= kResidualTol) sols.push_back(nearest.closest);
  }
  sortByDistance(sols, q_ref);
  return sols;
}

JointVector barrettFingerIk(const Chain& c, const Eigen::Vector3d& p,
                            const Eigen::Ref<const Eigen::VectorXd>& q_ref) {
  auto sols = barrettFingerIkAll(c, p, q_ref);
  if (!sols.empty()) return sols.front();
  const auto [miss, closest] = nearestBarrett(c, p);
  const DhRow &r0 = c.rows[0], &r1 = c.rows[1], &r2 = c.rows[2];
  const bool spread = r0.type == JointType::Revolute;
  // Why: out of the finger's plane (fixed spread), beyond the links' reach, or limits.
  const Eigen::Vector3d p1 =
      dhTransform(r0, spread ? std::atan2(p.y(), p.x()) - r0.theta : 0.0).inverse() * p;
  const double radial = annulusMiss(r1.a, r2.a, std::hypot(p1.x(), p1.y()));
  std::string why = "no joint values within the limits reach it";
  if (!spread && std::abs(p1.z()) > 1e-9)
    why = "it lies " + std::to_string(std::abs(p1.z()) * 1000.0) +
          " mm outside the finger's plane (this finger has no spread)";
  else if (radial > 0.0)
    why = "it is beyond the reach of the two phalanxes (A2 + A3 = " +
          std::to_string((r1.a + r2.a) * 1000.0) + " mm from the knuckle)";
  unreachable(c, why, miss, closest);
}

bool isPlanarThreeLinkFinger(const Chain& c) {
  const std::size_t n = c.rows.size();
  if (n < 3) return false;
  for (std::size_t r = n - 3; r < n; ++r)
    if (c.rows[r].form != JointFrameForm::Dh || c.rows[r].type != JointType::Revolute ||
        c.rows[r].alpha != 0.0 || c.rows[r].d != 0.0)
      return false;
  return true;
}

namespace {

/// The planar rows' joint-space polygon for tip angle phi: q3 = phi + 2 pi k - (theta1 +
/// theta2 + theta3) - q1 - q2 must lie within its limits, a band on q1 + q2 for each whole
/// turn k. Returns the value of phi + 2 pi k - (theta1 + theta2 + theta3) for every k whose
/// band meets the box of q1, q2.
std::vector<double> orientationTurns(const DhRow& r1, const DhRow& r2, const DhRow& r3,
                                     double phi) {
  const double base = phi - r1.theta - r2.theta - r3.theta;
  const double lo = r1.lower + r2.lower + r3.lower - kLimitTol;
  const double hi = r1.upper + r2.upper + r3.upper + kLimitTol;
  std::vector<double> out;
  for (int k = static_cast<int>(std::ceil((lo - base) / (2.0 * kPi))); base + 2.0 * kPi * k <= hi;
       ++k)
    out.push_back(base + 2.0 * kPi * k);
  return out;
}

/// Nearest reachable tip with tip angle phi; miss = +infinity when the limits do not allow phi.
Nearest nearestPlanar(const Chain& c, double x, double y, double phi,
                      const Eigen::Ref<const Eigen::VectorXd>& q_ref) {
  const std::size_t n = c.rows.size();
  const DhRow &r1 = c.rows[n - 3], &r2 = c.rows[n - 2], &r3 = c.rows[n - 1];
  const Eigen::Vector2d wrist = Eigen::Vector2d(x, y) - r3.a * dir(phi);
  // With phi fixed the tip is the wrist point shifted by l3 e(phi), and the wrist point ranges
  // over the limited two-link workspace of q1, q2 within the box and the band that keeps q3 in
  // its limits: its nearest point to the target's wrist point is exact.
  const int j0 = c.dof() - 3;
  PlanarNearest best;
  double best_turn = 0.0;
  for (double turn : orientationTurns(r1, r2, r3, phi)) {
    const LimitedTwoLink arm{r1.a,     r2.a,     r1.theta, r2.theta,        r1.lower,
                             r1.upper, r2.lower, r2.upper, turn - r3.upper, turn - r3.lower};
    const PlanarNearest candidate = nearestOnLimitedTwoLink(arm, wrist);
    if (candidate.distance < best.distance) {
      best = candidate;
      best_turn = turn;
    }
  }
  JointVector closest = q_ref;
  if (!std::isfinite(best.distance)) return {best.distance, closest};
  closest[j0] = best.q_a;
  closest[j0 + 1] = best.q_b;
  closest[j0 + 2] = std::clamp(best_turn - best.q_a - best.q_b, r3.lower, r3.upper);
  const double a1 = r1.theta + closest[j0], a2 = a1 + r2.theta + closest[j0 + 1];
  const double a3 = a2 + r3.theta + closest[j0 + 2];
  return {(r1.a * dir(a1) + r2.a * dir(a2) + r3.a * dir(a3) - Eigen::Vector2d(x, y)).norm(),
          closest};
}

}  // namespace

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
    if (!fitIntoLimits(q1, r1) || !fitIntoLimits(q2, r2)) continue;
    // The last joint from the clamped first two, so the tip angle stays phi exactly.
    double q3 = phi - (r1.theta + q1) - (r2.theta + q2) - r3.theta;
    if (!fitIntoLimits(q3, r3)) continue;
    const double a1 = r1.theta + q1, a2 = a1 + r2.theta + q2, a3 = a2 + r3.theta + q3;
    const Eigen::Vector2d tip = r1.a * dir(a1) + r2.a * dir(a2) + r3.a * dir(a3);
    if ((tip - Eigen::Vector2d(x, y)).norm() > kResidualTol ||
        std::abs(std::remainder(a3 - phi, 2.0 * kPi)) > kResidualTol)
      continue;
    JointVector q = q_ref;
    q[j0] = q1;
    q[j0 + 1] = q2;
    q[j0 + 2] = q3;
    sols.push_back(q);
  }
  // As for the BarrettHand finger: rounding at a joint limit is settled by the nearest tip.
  if (sols.empty()) {
    const Nearest nearest = nearestPlanar(c, x, y, phi, q_ref);
    if (nearest.miss <= kResidualTol) sols.push_back(nearest.closest);
  }
  sortByDistance(sols, q_ref);
  return sols;
}

JointVector planarFingerIk(const Chain& c, double x, double y, double phi,
                           const Eigen::Ref<const Eigen::VectorXd>& q_ref) {
  auto sols = planarFingerIkAll(c, x, y, phi, q_ref);
  if (!sols.empty()) return sols.front();
  const auto [miss, closest] = nearestPlanar(c, x, y, phi, q_ref);
  const std::size_t n = c.rows.size();
  const DhRow &r1 = c.rows[n - 3], &r2 = c.rows[n - 2], &r3 = c.rows[n - 1];
  if (!std::isfinite(miss)) {
    unreachable(c,
                "the joint limits do not allow the tip angle " + std::to_string(phi) +
                    " rad (the sum of the three joint angles and their offsets)",
                miss, closest);
  }
  const double radial =
      annulusMiss(r1.a, r2.a, std::hypot(x - r3.a * std::cos(phi), y - r3.a * std::sin(phi)));
  if (radial > 0.0) {
    unreachable(c,
                "with that tip orientation the wrist point is " + std::to_string(radial * 1000.0) +
                    " mm beyond the reach of the first two links",
                miss, closest);
  }
  unreachable(c, "no joint values within the limits reach it with that tip orientation", miss,
              closest);
}

}  // namespace handsim::kinematics
