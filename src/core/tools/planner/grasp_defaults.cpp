// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp defaults inferred from a hand's kinematics (docs/planner.md, "Hands that name no
// closing actuators").
#include "handsim/planner/grasp_defaults.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace handsim::planner {
namespace {

// Fingertip positions in the palm frame for actuator positions `a`: the last link's centre
// of mass when it has mass, else its frame's origin. (A URDF chain's last frame sits on the
// last joint's axis, which that joint does not move; the link's mass lies out on it.)
std::vector<Eigen::Vector3d> tipsAt(const hand::HandModel& hand, const std::vector<double>& a) {
  const auto q = hand::jointPositions(hand, a);
  std::vector<Eigen::Vector3d> tips;
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const kinematics::Chain& c = hand.fingers[f];
    const auto frames = kinematics::forwardKinematics(c, q[f]);
    Eigen::Vector3d local = Eigen::Vector3d::Zero();
    if (!c.links.empty() && c.links.back().mass > 0.0) local = c.links.back().com;
    tips.push_back(c.base * frames.tip() * local);
  }
  return tips;
}

Eigen::Vector3d centroid(const std::vector<Eigen::Vector3d>& p) {
  Eigen::Vector3d c = Eigen::Vector3d::Zero();
  for (const auto& x : p) c += x;
  return c / static_cast<double>(std::max<std::size_t>(1, p.size()));
}

// Sum of the tips' distances from their centroid [m].
double spread(const std::vector<Eigen::Vector3d>& p) {
  const Eigen::Vector3d c = centroid(p);
  double s = 0.0;
  for (const auto& x : p) s += (x - c).norm();
  return s;
}

// An actuator driving the same joint (by index) of every finger of a hand of three or more
// whose fingers all start at one point: a wrist (a URDF's wrist joints are copied into each
// chain when the palm is not the root, the Shadow hand's WRJ2 and WRJ1 as joints 0 and 1). A
// coupled motor closing three fingers drives one joint of each too, but those start apart.
bool isWrist(const hand::HandModel& hand, const hand::Actuator& act) {
  if (hand.fingers.size() < 3 || act.drives.empty()) return false;
  std::set<int> fingers;
  for (const auto& d : act.drives)
    if (d.joint.joint == act.drives.front().joint.joint) fingers.insert(d.joint.finger);
  if (fingers.size() != hand.fingers.size()) return false;
  const Eigen::Vector3d start = hand.fingers[0].base.translation();
  for (const auto& f : hand.fingers)
    if ((f.base.translation() - start).norm() > 1e-9) return false;
  return true;
}

// The tips' displacements when actuator `a` alone moves from `ref` to `value`.
std::vector<Eigen::Vector3d> displacement(const hand::HandModel& hand, std::vector<double> ref,
                                          std::size_t a, double value,
                                          const std::vector<Eigen::Vector3d>& tips0) {
  ref[a] = value;
  std::vector<Eigen::Vector3d> d = tipsAt(hand, ref);
  for (std::size_t f = 0; f < d.size(); ++f) d[f] -= tips0[f];
  return d;
}

double totalLength(const std::vector<Eigen::Vector3d>& d) {
  double s = 0.0;
  for (const auto& x : d) s += x.norm();
  return s;
}

}  // namespace

bool namesClosing(const hand::HandModel& hand) {
  return !hand.closing_actuators.empty() || !hand.closing_tendons.empty();
}

GraspDefaults inferGraspDefaults(const hand::HandModel& hand) {
  if (hand.fingers.empty())
    throw std::invalid_argument("grasp defaults: the hand '" + hand.id + "' has no fingers");
  GraspDefaults out;
  const std::size_t na = hand.actuators.size();
  std::vector<double> ref(na);
  for (std::size_t a = 0; a < na; ++a)
    ref[a] = std::clamp(0.0, hand.actuators[a].lower, hand.actuators[a].upper);
  const std::vector<Eigen::Vector3d> tips0 = tipsAt(hand, ref);

  // Each finger's base: where its first joint not driven by a wrist sits (the chain's base
  // when it has no wrist joints), at the reference posture.
  const auto q0 = hand::jointPositions(hand, ref);
  std::vector<Eigen::Vector3d> bases;
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const kinematics::Chain& c = hand.fingers[f];
    const auto frames = kinematics::forwardKinematics(c, q0[f]);
    int row = 0;
    for (int j = 0; j < c.dof(); ++j) {
      const int a = hand.driverOf({static_cast<int>(f), j}).first;
      if (a < 0 || !isWrist(hand, hand.actuators[static_cast<std::size_t>(a)])) {
        row = c.rowOfJoint(j);
        break;
      }
    }
    bases.push_back(c.base * frames.at(row).translation());
  }
  // The fingers' mean direction, base to tip.
  Eigen::Vector3d e = Eigen::Vector3d::Zero(), origin = Eigen::Vector3d::Zero();
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    const Eigen::Vector3d& base = bases[f];
    origin += base;
    if ((tips0[f] - base).norm() > 1e-9) e += (tips0[f] - base).normalized();
  }
  origin /= static_cast<double>(hand.fingers.size());
  e = e.norm() > 1e-9 ? e.normalized() : Eigen::Vector3d(hand.approach_palm.normalized());
  out.finger_direction = e;
  out.approach_origin_palm = origin;

  // Each actuator's displacements towards both ends.
  struct Ends {
    std::vector<Eigen::Vector3d> lower, upper;
    bool wrist = false;
  };
  std::vector<Ends> ends(na);
  Eigen::Vector3d sum = Eigen::Vector3d::Zero();
  double lengths = 0.0;
  for (std::size_t a = 0; a < na; ++a) {
    const hand::Actuator& act = hand.actuators[a];
    ends[a].wrist = isWrist(hand, act);
    ends[a].lower = displacement(hand, ref, a, act.lower, tips0);
    ends[a].upper = displacement(hand, ref, a, act.upper, tips0);
    if (ends[a].wrist) continue;
    // Both ends together: a motion symmetric about the reference (a spread) cancels, a
    // flexion's longer closing side remains.
    // Sideways of the fingers only; `lengths` sums every tip's sideways motion to each end.
    for (const auto* end : {&ends[a].upper, &ends[a].lower})
      for (const auto& d : *end) {
        const Eigen::Vector3d side = d - d.dot(e) * e;
        sum += side;
        lengths += side.norm();
      }
  }
  out.pinch = !(lengths > 0.0) || sum.norm() < 0.2 * lengths;
  out.palm_normal = out.pinch ? e : Eigen::Vector3d(sum.normalized());
  out.approach_palm = out.palm_normal;

  // Which actuators close, and which way.
  const double spread0 = spread(tips0);
  for (std::size_t a = 0; a < na; ++a) {
    if (ends[a].wrist) continue;
    double best = 0.0;
    int dir = 0;
    for (int s : {+1, -1}) {
      const auto& d = s > 0 ? ends[a].upper : ends[a].lower;
      const double length = totalLength(d);
      if (!(length > 1e-6)) continue;  // this end moves no tip
      double towards = 0.0;
      if (out.pinch) {
        std::vector<Eigen::Vector3d> moved = tips0;
        for (std::size_t f = 0; f < moved.size(); ++f) moved[f] += d[f];
        towards = spread0 - spread(moved);
      } else {
        for (const auto& x : d) towards += x.dot(out.palm_normal);
      }
      if (towards >= 0.5 * length && towards > best) {
        best = towards;
        dir = s;
      }
    }
    if (dir != 0) {
      out.closing_actuators.push_back(static_cast<int>(a));
      out.closing_directions.push_back(dir);
    }
  }
  return out;
}

hand::HandModel withGraspDefaults(const hand::HandModel& hand) {
  if (namesClosing(hand)) return hand;
  const GraspDefaults d = inferGraspDefaults(hand);
  hand::HandModel h = hand;
  h.closing_actuators = d.closing_actuators;
  h.approach_palm = d.approach_palm;
  h.approach_origin_palm = d.approach_origin_palm;
  for (std::size_t i = 0; i < d.closing_actuators.size(); ++i) {
    if (d.closing_directions[i] > 0) continue;
    // Mirrored: position -a, so that its upper end closes.
    const int a = d.closing_actuators[i];
    hand::Actuator& act = h.actuators[static_cast<std::size_t>(a)];
    const double lower = act.lower;
    act.lower = -act.upper;
    act.upper = -lower;
    for (auto& drive : act.drives) drive.ratio = -drive.ratio;
    for (auto& c : h.clutches)
      if (c.actuator == a) c.closing_direction = -c.closing_direction;
    if (static_cast<std::size_t>(a) < h.eigengrasp_origin.size())
      h.eigengrasp_origin[static_cast<std::size_t>(a)] *= -1.0;
    for (auto& g : h.eigengrasps)
      if (static_cast<std::size_t>(a) < g.direction.size())
        g.direction[static_cast<std::size_t>(a)] *= -1.0;
  }
  return h;
}

std::shared_ptr<const hand::HandModel> withGraspDefaults(
    std::shared_ptr<const hand::HandModel> hand) {
  if (!hand || namesClosing(*hand)) return hand;
  return std::make_shared<const hand::HandModel>(withGraspDefaults(*hand));
}

GraspSummary graspSummary(const hand::HandModel& hand) {
  GraspSummary out;
  if (namesClosing(hand)) {
    out.source = GraspSummary::Source::File;
    out.closing_actuators = hand.closing_actuators;
    out.closing_directions.assign(hand.closing_actuators.size(), 1);
    out.closing_tendons = hand.closing_tendons;
    out.approach_palm = hand.approach_palm;
    out.approach_origin_palm = hand.approach_origin_palm;
  } else if (!hand.fingers.empty()) {
    out.source = GraspSummary::Source::Inferred;
    out.inferred = inferGraspDefaults(hand);
    out.closing_actuators = out.inferred.closing_actuators;
    out.closing_directions = out.inferred.closing_directions;
    out.approach_palm = out.inferred.approach_palm;
    out.approach_origin_palm = out.inferred.approach_origin_palm;
  }
  for (std::size_t a = 0; a < hand.actuators.size(); ++a)
    if (std::find(out.closing_actuators.begin(), out.closing_actuators.end(),
                  static_cast<int>(a)) == out.closing_actuators.end())
      out.not_closing.push_back(static_cast<int>(a));
  return out;
}

std::vector<double> handActuatorPositions(const hand::HandModel& hand,
                                          const Eigen::VectorXd& planned) {
  if (planned.size() != static_cast<Eigen::Index>(hand.actuators.size()))
    throw std::invalid_argument("planned grasp: expected " + std::to_string(hand.actuators.size()) +
                                " actuator positions, got " + std::to_string(planned.size()));
  std::vector<double> out(planned.data(), planned.data() + planned.size());
  if (namesClosing(hand) || hand.fingers.empty()) return out;
  const GraspDefaults d = inferGraspDefaults(hand);
  for (std::size_t i = 0; i < d.closing_actuators.size(); ++i)
    if (d.closing_directions[i] < 0) {
      double& v = out[static_cast<std::size_t>(d.closing_actuators[i])];
      v = -v;
    }
  return out;
}

const char* sourceName(GraspSummary::Source source) {
  switch (source) {
    case GraspSummary::Source::File:
      return "file";
    case GraspSummary::Source::Inferred:
      return "inferred";
    default:
      return "none";
  }
}

}  // namespace handsim::planner
