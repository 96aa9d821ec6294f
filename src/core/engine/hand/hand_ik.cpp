// SPDX-License-Identifier: GPL-3.0-or-later
// Inverse kinematics of a point of a hand in its actuated coordinates (docs/kinematics.md,
// "Hand IK on trees"): damped least squares with adaptive damping (Levenberg-Marquardt;
// Wampler, IEEE SMC 16(1), 1986; Buss 2004 eq. 11) over q = R a + o, the chain Jacobian
// mapped through the drive ratios (dp/da = J R), coordinates clamped into their ranges after
// every step and held at a bound the descent pushes against (projected Newton, Bertsekas 1982).
#include "handsim/hand/hand_ik.hpp"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

namespace handsim::hand {

namespace {

using kinematics::JointVector;

/// One unknown: an actuator (all its drives, in every finger) or an undriven joint.
struct Coordinate {
  int id = 0;  ///< actuator index, or -1 - joint for an undriven joint of the endpoint finger
  std::vector<JointDrive> drives;
  double lower = 0.0, upper = 0.0;
};

struct Problem {
  const HandModel& hand;
  const IkEndpoint& end;
  Eigen::Vector3d target;
  const std::optional<Eigen::Matrix3d>& rotation;
  double w;
  const std::vector<JointVector>& q_now;
  std::vector<Coordinate> coords;
};

struct Evaluation {
  Eigen::VectorXd error;  ///< target - p (and w * rotation error)
  double norm2 = 0.0;
};

std::vector<JointVector> jointsOf(const Problem& p, const Eigen::VectorXd& c) {
  std::vector<JointVector> q = p.q_now;
  for (std::size_t k = 0; k < p.coords.size(); ++k)
    for (const JointDrive& d : p.coords[k].drives)
      q[static_cast<std::size_t>(d.joint.finger)][d.joint.joint] =
          d.ratio * c[static_cast<Eigen::Index>(k)] + d.offset;
  return q;
}

Eigen::Isometry3d endpointPose(const Problem& p, const kinematics::ChainFrames& frames) {
  const auto& chain = p.hand.fingers[static_cast<std::size_t>(p.end.finger)];
  return chain.base * frames.at(p.end.row + 1) * p.end.in_frame;
}

Evaluation evaluate(const Problem& p, const Eigen::VectorXd& c) {
  const auto q = jointsOf(p, c);
  const auto f = static_cast<std::size_t>(p.end.finger);
  const Eigen::Isometry3d pose =
      endpointPose(p, kinematics::forwardKinematics(p.hand.fingers[f], q[f]));
  Evaluation e;
  e.error.resize(p.rotation ? 6 : 3);
  e.error.head<3>() = p.target - pose.translation();
  if (p.rotation) {
    const Eigen::AngleAxisd aa(*p.rotation * pose.linear().transpose());
    e.error.tail<3>() = p.w * aa.angle() * aa.axis();
  }
  e.norm2 = e.error.squaredNorm();
  return e;
}

/// d(task)/d(coordinates), palm frame.
Eigen::MatrixXd taskJacobian(const Problem& p, const Eigen::VectorXd& c) {
  const auto q = jointsOf(p, c);
  const auto f = static_cast<std::size_t>(p.end.finger);
  const auto& chain = p.hand.fingers[f];
  const auto frames = kinematics::forwardKinematics(chain, q[f]);
  const kinematics::Jacobian j =
      kinematics::geometricJacobian(chain, frames, p.end.row + 1, p.end.in_frame.translation());
  const Eigen::Matrix3d r = chain.base.linear();
  const Eigen::Index rows = p.rotation ? 6 : 3;
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(rows, static_cast<Eigen::Index>(p.coords.size()));
  for (std::size_t k = 0; k < p.coords.size(); ++k)
    for (const JointDrive& d : p.coords[k].drives) {
      if (d.joint.finger != p.end.finger) continue;
      const auto col = static_cast<Eigen::Index>(k);
      out.block<3, 1>(0, col) += d.ratio * (r * j.block<3, 1>(0, d.joint.joint));
      if (p.rotation)
        out.block<3, 1>(3, col) += p.w * d.ratio * (r * j.block<3, 1>(3, d.joint.joint));
    }
  return out;
}

void clampCoordinates(const Problem& p, Eigen::VectorXd& c) {
  for (std::size_t k = 0; k < p.coords.size(); ++k) {
    const auto i = static_cast<Eigen::Index>(k);
    c[i] = std::clamp(c[i], p.coords[k].lower, p.coords[k].upper);
  }
}

struct Solution {
  Eigen::VectorXd c;
  Evaluation e;
  int iterations = 0;
};

Solution descend(const Problem& p, Eigen::VectorXd c, int max_iterations, double tolerance) {
  clampCoordinates(p, c);
  Evaluation cur = evaluate(p, c);
  const auto n = static_cast<Eigen::Index>(p.coords.size());
  double lambda = 1e-3;
  int it = 0;
  for (; it < max_iterations && std::sqrt(cur.norm2) > tolerance; ++it) {
    Eigen::MatrixXd jac = taskJacobian(p, c);
    const Eigen::VectorXd descent = jac.transpose() * cur.error;
    for (Eigen::Index k = 0; k < n; ++k) {
      const Coordinate& co = p.coords[static_cast<std::size_t>(k)];
      if ((c[k] <= co.lower && descent[k] < 0.0) || (c[k] >= co.upper && descent[k] > 0.0))
        jac.col(k).setZero();
    }
    bool improved = false;
    for (int attempt = 0; attempt < 30 && !improved; ++attempt) {
      Eigen::MatrixXd a = jac.transpose() * jac;
      a.diagonal().array() += lambda * lambda;
      Eigen::VectorXd trial = c + a.ldlt().solve(jac.transpose() * cur.error);
      clampCoordinates(p, trial);
      const Evaluation next = evaluate(p, trial);
      if (next.norm2 < cur.norm2) {
        c = trial;
        cur = next;
        lambda = std::max(lambda * 0.3, 1e-12);
        improved = true;
      } else {
        lambda *= 4.0;
      }
    }
    if (!improved) break;
  }
  return {c, cur, it};
}

double score(const Problem& p, const Evaluation& e) {
  return e.error.head<3>().norm() + (p.rotation ? 0.05 * e.error.tail<3>().norm() / p.w : 0.0);
}

/// Shared joints: every copy of a URDF joint that lies on more than one chain.
std::set<std::pair<int, int>> sharedJoints(const HandModel& hand) {
  std::set<std::pair<int, int>> out;
  for (const TreeJoint& tj : hand.tree.joints)
    if (tj.copies.size() > 1)
      for (const JointRef& c : tj.copies) out.insert({c.finger, c.joint});
  return out;
}

std::vector<Coordinate> coordinatesOf(const HandModel& hand, const IkEndpoint& end,
                                      SharedJoints shared) {
  const auto& chain = hand.fingers[static_cast<std::size_t>(end.finger)];
  const auto movesEndpoint = [&](const JointRef& j) {
    return j.finger == end.finger && chain.rowOfJoint(j.joint) <= end.row;
  };
  const auto shared_set = sharedJoints(hand);
  const auto rangeFrom = [&](Coordinate& co) {
    for (const JointDrive& d : co.drives) {
      if (d.ratio == 0.0) continue;
      const auto& c = hand.fingers[static_cast<std::size_t>(d.joint.finger)];
      const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(d.joint.joint))];
      narrowByJointLimits(row.lower, row.upper, d.ratio, d.offset, co.lower, co.upper);
    }
  };
  std::vector<Coordinate> out;
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    const Actuator& act = hand.actuators[a];
    bool moves = false, touches_shared = false;
    for (const JointDrive& d : act.drives) {
      if (d.ratio != 0.0 && movesEndpoint(d.joint)) moves = true;
      if (shared_set.count({d.joint.finger, d.joint.joint})) touches_shared = true;
    }
    if (!moves || (touches_shared && shared == SharedJoints::Locked)) continue;
    Coordinate co;
    co.id = static_cast<int>(a);
    co.drives = act.drives;
    co.lower = act.lower;
    co.upper = act.upper;
    rangeFrom(co);
    if (co.lower > co.upper) continue;  // the limits leave it no room: it stays where it is
    out.push_back(std::move(co));
  }
  for (int j = 0; j < chain.dof(); ++j) {
    const JointRef ref{end.finger, j};
    if (!movesEndpoint(ref) || hand.driverOf(ref).first >= 0) continue;
    if (shared_set.count({end.finger, j}) && shared == SharedJoints::Locked) continue;
    Coordinate co;
    co.id = -1 - j;
    co.drives.push_back({ref, 1.0, 0.0});
    co.lower = -std::numeric_limits<double>::infinity();
    co.upper = std::numeric_limits<double>::infinity();
    rangeFrom(co);
    out.push_back(std::move(co));
  }
  return out;
}

}  // namespace

IkEndpoint fingerEndpoint(const HandModel& hand, int finger) {
  if (finger < 0 || finger >= static_cast<int>(hand.fingers.size()))
    throw std::invalid_argument("fingerEndpoint: finger index " + std::to_string(finger) +
                                " out of range (hand has " + std::to_string(hand.fingers.size()) +
                                " fingers)");
  const auto& chain = hand.fingers[static_cast<std::size_t>(finger)];
  IkEndpoint e;
  e.name = "finger '" + chain.name + "'";
  e.finger = finger;
  e.row = static_cast<int>(chain.rows.size()) - 1;
  // URDF: the last link (in file order) rigid with the chain's last frame, e.g. a fingertip
  // link fixed beyond the distal phalanx.
  for (const TreeLink& l : hand.tree.links)
    if (l.finger == finger && l.row == e.row) {
      e.in_frame = l.in_frame;
      e.name = "finger '" + chain.name + "' (link '" + l.name + "')";
    }
  return e;
}

const char* fingerPointName(FingerPoint point) {
  return point == FingerPoint::Tip ? "tip" : "last_frame";
}

FingerPoint fingerPointFromName(const std::string& name, const std::string& what) {
  if (name == "tip") return FingerPoint::Tip;
  if (name == "last_frame") return FingerPoint::LastFrame;
  throw std::invalid_argument(what + ": expected 'tip' or 'last_frame', got '" + name + "'");
}

kinematics::Chain fingerPointChain(const HandModel& hand, int finger, FingerPoint point) {
  const IkEndpoint e = fingerEndpoint(hand, finger);
  kinematics::Chain c = hand.fingers[static_cast<std::size_t>(finger)];
  if (point == FingerPoint::Tip && e.in_frame.matrix() != Eigen::Matrix4d::Identity()) {
    c.rows.push_back(kinematics::placementRow(e.in_frame, Eigen::Vector3d::UnitZ(),
                                              kinematics::JointType::Fixed));
    c.joint_names.push_back("tip");
    c.links.emplace_back();
  }
  return c;
}

Eigen::Vector3d fingerPointPosition(const HandModel& hand, int finger,
                                    const Eigen::Ref<const Eigen::VectorXd>& q, FingerPoint point) {
  const IkEndpoint e = fingerEndpoint(hand, finger);
  const kinematics::Chain& c = hand.fingers[static_cast<std::size_t>(finger)];
  const Eigen::Isometry3d last = kinematics::forwardKinematics(c, q).tip();
  if (point == FingerPoint::LastFrame) return c.base * last.translation();
  return c.base * (last * e.in_frame.translation());
}

IkEndpoint linkEndpoint(const HandModel& hand, const std::string& link_name) {
  IkEndpoint e;
  e.name = "link '" + link_name + "'";
  if (!hand.tree.empty()) {
    const int l = hand.tree.linkIndex(link_name);
    if (l < 0)
      throw std::invalid_argument("hand '" + hand.id + "' has no link '" + link_name + "'");
    const TreeLink& tl = hand.tree.links[static_cast<std::size_t>(l)];
    if (tl.finger < 0)
      throw std::invalid_argument("link '" + link_name +
                                  "' is rigid with the root link: no joint moves it");
    e.finger = tl.finger;
    e.row = tl.row;
    e.in_frame = tl.in_frame;
    return e;
  }
  const std::size_t dot = link_name.rfind(".link");
  const int f = dot == std::string::npos ? -1 : hand.fingerIndex(link_name.substr(0, dot));
  int k = 0;
  if (f >= 0) {
    const std::string digits = link_name.substr(dot + 5);
    if (!digits.empty() && digits.size() < 4 &&
        std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      k = std::stoi(digits);
  }
  if (f < 0 || k < 1 || k > static_cast<int>(hand.fingers[static_cast<std::size_t>(f)].rows.size()))
    throw std::invalid_argument("hand '" + hand.id + "' has no link '" + link_name +
                                "' (hand-file links are named <finger>.link<k>)");
  e.finger = f;
  e.row = k - 1;
  return e;
}

HandIkResult solveHandIk(const HandModel& hand, const IkEndpoint& endpoint,
                         const Eigen::Vector3d& target_palm, const std::vector<JointVector>& q_now,
                         const HandIkOptions& options) {
  if (endpoint.finger < 0 || endpoint.finger >= static_cast<int>(hand.fingers.size()) ||
      endpoint.row < 0 ||
      endpoint.row >=
          static_cast<int>(hand.fingers[static_cast<std::size_t>(endpoint.finger)].rows.size()))
    throw std::invalid_argument("solveHandIk: " + endpoint.name + " is not on the hand");
  if (!target_palm.allFinite()) throw std::invalid_argument("solveHandIk: target is not finite");
  if (q_now.size() != hand.fingers.size())
    throw std::invalid_argument("solveHandIk: expected joint values for " +
                                std::to_string(hand.fingers.size()) + " fingers, got " +
                                std::to_string(q_now.size()));
  for (std::size_t f = 0; f < hand.fingers.size(); ++f)
    kinematics::checkJointVectorSize(hand.fingers[f], q_now[f].size(), "q_now");
  Problem p{hand,
            endpoint,
            target_palm,
            options.target_rotation_palm,
            options.orientation_weight,
            q_now,
            coordinatesOf(hand, endpoint, options.shared)};
  const auto n = static_cast<Eigen::Index>(p.coords.size());
  // Start: each coordinate's least-squares fit to the current joints.
  Eigen::VectorXd c0(n);
  for (Eigen::Index k = 0; k < n; ++k) {
    double num = 0.0, den = 0.0;
    for (const JointDrive& d : p.coords[static_cast<std::size_t>(k)].drives) {
      num += d.ratio * (q_now[static_cast<std::size_t>(d.joint.finger)][d.joint.joint] - d.offset);
      den += d.ratio * d.ratio;
    }
    c0[k] = den > 0.0 ? num / den : 0.0;
  }
  clampCoordinates(p, c0);
  const int iters = options.max_iterations;
  const double tol = options.tolerance;
  Solution best = descend(p, c0, iters, tol);
  // Multi-start over the coordinates' ranges, as kinematics::nearestReachable does.
  const int per = 4;
  const int dims = static_cast<int>(std::min<Eigen::Index>(n, 4));
  int total = 1;
  for (int d = 0; d < dims; ++d) total *= per;
  const auto finite = [&](Eigen::Index k) {
    const Coordinate& co = p.coords[static_cast<std::size_t>(k)];
    return std::isfinite(co.lower) && std::isfinite(co.upper);
  };
  for (int s = 0; s < total && score(p, best.e) > tol; ++s) {
    Eigen::VectorXd start = c0;
    int code = s;
    for (Eigen::Index k = 0; k < n; ++k) {
      const int level = k < dims ? code % per : s % per;
      if (k < dims) code /= per;
      const Coordinate& co = p.coords[static_cast<std::size_t>(k)];
      if (finite(k)) start[k] = co.lower + (co.upper - co.lower) * (level + 0.5) / per;
    }
    Solution r = descend(p, start, iters, tol);
    if (score(p, r.e) < score(p, best.e)) best = std::move(r);
  }
  if (score(p, best.e) > tol * 10.0 && n > 0) {
    // Not reached: the nearest point may lie in a basin none of those starts fell into.
    // Sample a finer grid (bounds included) and polish the best few samples.
    constexpr long long kMaxSamples = 6561;
    const auto power = [&](int base) {
      long long v = 1;
      for (Eigen::Index k = 0; k < n && v <= kMaxSamples; ++k) v *= base;
      return v;
    };
    int fine = 2;
    while (fine < 41 && power(fine + 1) <= kMaxSamples) ++fine;
    const long long samples = power(fine);
    std::vector<std::pair<double, Eigen::VectorXd>> seeds;
    for (long long s = 0; s < samples && samples <= kMaxSamples; ++s) {
      Eigen::VectorXd c = c0;
      long long code = s;
      for (Eigen::Index k = 0; k < n; ++k) {
        const Coordinate& co = p.coords[static_cast<std::size_t>(k)];
        if (finite(k))
          c[k] = co.lower + (co.upper - co.lower) * static_cast<double>(code % fine) / (fine - 1.0);
        code /= fine;
      }
      seeds.emplace_back(evaluate(p, c).norm2, c);
    }
    constexpr std::ptrdiff_t kPolished = 12;
    const auto end = seeds.begin() + std::min<std::ptrdiff_t>(kPolished, seeds.size());
    std::partial_sort(seeds.begin(), end, seeds.end(),
                      [](const auto& a, const auto& b) { return a.first < b.first; });
    for (auto it = seeds.begin(); it != end; ++it) {
      Solution r = descend(p, it->second, iters, tol);
      if (score(p, r.e) < score(p, best.e)) best = std::move(r);
    }
  }
  HandIkResult out;
  out.q = jointsOf(p, best.c);
  out.position_error = best.e.error.head<3>().norm();
  out.orientation_error = p.rotation ? best.e.error.tail<3>().norm() / p.w : 0.0;
  for (const Coordinate& co : p.coords) out.coordinates.push_back(co.id);
  out.converged = std::sqrt(best.e.norm2) <= tol * 10.0;
  return out;
}

std::vector<JointVector> handInverseKinematics(const HandModel& hand, const IkEndpoint& endpoint,
                                               const Eigen::Vector3d& target_palm,
                                               const std::vector<JointVector>& q_now,
                                               const HandIkOptions& options) {
  const HandIkResult r = solveHandIk(hand, endpoint, target_palm, q_now, options);
  const bool orientation_missed =
      options.target_rotation_palm.has_value() && r.orientation_error > 1e-6;
  if (r.position_error > options.accept || orientation_missed) {
    std::ostringstream msg;
    msg << "target is out of reach of " << endpoint.name << " within the joint limits ("
        << (options.shared == SharedJoints::Locked ? "shared joints locked" : "shared joints free")
        << "): the nearest position found misses it by " << r.position_error * 1000.0 << " mm";
    if (orientation_missed) msg << " and the orientation by " << r.orientation_error << " rad";
    throw kinematics::UnreachableTarget(msg.str(), r.position_error,
                                        r.q[static_cast<std::size_t>(endpoint.finger)]);
  }
  return r.q;
}

}  // namespace handsim::hand
