// SPDX-License-Identifier: GPL-3.0-or-later
// Continuous collision by motion clamping (include/handsim/sim/continuous_collision.hpp;
// docs/free-objects.md, "Continuous collision"). The step's motion of a free object is the
// straight travel of its centre of mass and the shortest turn (slerp) from its start to its end
// orientation; every point of the body stays within its reach of the centre of mass, so a
// sphere about the middle of the travel holds the whole sweep, and the bodies outside it are
// never tested.
#include "handsim/sim/continuous_collision.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "handsim/collision/contact_scratch.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/sim/step.hpp"
#include "stages/stages.hpp"

namespace handsim::sim {

using stages::isMoving;

namespace {

// Thickness of a body: the smallest edge of its bounding box in its own frame [m].
double thickness(const CollisionBody& body) {
  return 2.0 * body.half_extent.minCoeff();
}

// Largest distance from the centre of mass of a point of the object [m].
double reach(const ObjectModel& object) {
  const CollisionBody& body = object.geometry->collision;
  return (body.centre - object.mass.centre_of_mass).norm() + body.radius;
}

// The object's pose at fraction t of its step's motion (its end pose exactly at t = 1).
Eigen::Isometry3d poseAt(const Model& model, const SimState& s, std::size_t o, double t) {
  const Eigen::Isometry3d& end = s.object_pose_world[o];
  if (t >= 1.0) return end;
  const Eigen::Isometry3d& start = s.work.continuous[o].start;
  if (t <= 0.0) return start;
  const Eigen::Vector3d& com = model.objects[o].mass.centre_of_mass;
  const Eigen::Quaterniond q0(start.linear()), q1(end.linear());
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() = q0.slerp(t, q1).toRotationMatrix();
  pose.translation() = (1.0 - t) * (start * com) + t * (end * com) - pose.linear() * com;
  return pose;
}

// One body an object is tested against: a hand body or a fixed one (`object` -1 or fixed, at
// `pose`), a moving object (along its own motion), or the ground (`body` null).
struct Other {
  const CollisionBody* body = nullptr;
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  int object = -1;  // index of a moving object, else -1
};

// True when the two meshes at their poses share a point.
bool meshesTouch(const CollisionBody& x, const Eigen::Isometry3d& x_pose, const CollisionBody& y,
                 const Eigen::Isometry3d& y_pose, collision::ContactScratch& scratch) {
  if (!bodiesMayTouch(x, x_pose, y, y_pose)) return false;
  return collision::anyContact(x.tree, y.tree, x_pose.inverse() * y_pose, scratch);
}

// True when object o at fraction t of its motion touches `other` (a moving one at the same t).
bool touchesAt(const Model& model, SimState& s, std::size_t o, const Other& other, double t) {
  const Eigen::Isometry3d pose = poseAt(model, s, o, t);
  if (other.body == nullptr) {
    const double height = model.options.ground.height;
    if (const auto& ball = model.objects[o].geometry->collision.sphere)
      return (pose * ball->centre).z() - ball->radius <= height;
    for (const Eigen::Vector3d& v : model.objects[o].support_points)
      if ((pose * v).z() <= height) return true;
    return false;
  }
  const Eigen::Isometry3d other_pose =
      other.object >= 0 ? poseAt(model, s, static_cast<std::size_t>(other.object), t) : other.pose;
  return meshesTouch(model.objects[o].geometry->collision, pose, *other.body, other_pose,
                     s.work.collision);
}

// Object o against `other` (which moves `other_travel` [m] over the step, is `other_thickness`
// thick [m]): the fraction of the step at which o has moved into it by half to all of
// kContinuousTouchTolerance past the first touch (bisected to half of it; a pose that only
// grazes, e.g. two faces coplanar, would give the contact stages no overlap to push on), or 1
// when the step's motion is slow for the pair, the two touch at its start already, or never
// touch during it.
double firstTouch(const Model& model, SimState& s, std::size_t o, const Other& other,
                  double other_travel, double other_thickness) {
  const ContinuousScratch& c = s.work.continuous[o];
  const double travel = c.travel + other_travel;
  // A flat body (no thickness) is passed only by moving the other's thickness: that bounds the
  // spacing then.
  const double own = thickness(model.objects[o].geometry->collision);
  const double thin = std::min(own, other_thickness);
  const double spacing = kContinuousFraction * (thin > 0.0 ? thin : std::max(own, other_thickness));
  if (!(spacing > 0.0) || !(travel > spacing)) return 1.0;
  if (touchesAt(model, s, o, other, 0.0)) return 1.0;
  const double n = std::min(std::ceil(travel / spacing), kContinuousMaxPoses);
  for (double k = 1.0; k <= n; k += 1.0) {
    double hi = k / n;
    if (!touchesAt(model, s, o, other, hi)) continue;
    double lo = (k - 1.0) / n;
    const double half = 0.5 * kContinuousTouchTolerance;
    while ((hi - lo) * travel > half) {
      const double mid = 0.5 * (lo + hi);
      (touchesAt(model, s, o, other, mid) ? hi : lo) = mid;
    }
    return std::min(1.0, hi + half / travel);
  }
  return 1.0;
}

// Ends object o's step at fraction t of its motion. Its velocity is kept, scaled down only when
// the earlier pose would give it energy: the potential energy of gravity it has there above the
// end pose, and the rotational energy of its angular velocity at the earlier orientation.
void endStepAt(const Model& model, SimState& s, std::size_t o, double t) {
  const ObjectModel& object = model.objects[o];
  const Eigen::Isometry3d end = s.object_pose_world[o];
  const Eigen::Isometry3d pose = poseAt(model, s, o, t);
  Twist& twist = s.object_twist_world[o];
  const Eigen::Vector3d v = twist.head<3>(), w = twist.tail<3>();
  const double m = object.mass.mass_kg;
  const Eigen::Matrix3d& inertia = object.mass.inertia_com;
  const Eigen::Vector3d w_end = end.linear().transpose() * w;
  const Eigen::Vector3d w_pose = pose.linear().transpose() * w;
  const double linear = 0.5 * m * v.squaredNorm();
  const double turning_end = 0.5 * w_end.dot(inertia * w_end);
  const double turning_pose = 0.5 * w_pose.dot(inertia * w_pose);
  const double lift = -m * model.options.gravity_world.dot(pose * object.mass.centre_of_mass -
                                                           end * object.mass.centre_of_mass);
  const double budget = linear + turning_end - lift;
  const double kinetic = linear + turning_pose;
  if (kinetic > budget) twist *= budget > 0.0 ? std::sqrt(budget / kinetic) : 0.0;
  s.object_pose_world[o] = pose;
  ++s.continuous_collisions;
}

}  // namespace

void beginContinuousCollision(const Model& model, SimState& s) {
  if (!model.options.contact.continuous) return;
  std::vector<ContinuousScratch>& scratch = s.work.continuous;
  scratch.resize(model.objects.size());
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    scratch[o].moving = isMoving(model, s, o);
    if (scratch[o].moving) scratch[o].start = s.object_pose_world[o];
  }
}

void applyContinuousCollision(const Model& model, SimState& s) {
  if (!model.options.contact.continuous) return;
  std::vector<ContinuousScratch>& scratch = s.work.continuous;
  // Each moving object's motion and swept sphere; the cheap exit when no object moves by a
  // fraction of the thinnest body of the scene (two moving ones approach by their sum).
  double fastest = 0.0;
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    ContinuousScratch& c = scratch[o];
    c.moving = c.moving && isMoving(model, s, o);  // a numerical guard may have stopped it
    c.end = 1.0;
    c.travel = 0.0;
    if (!c.moving) continue;
    const Eigen::Isometry3d& end = s.object_pose_world[o];
    const Eigen::Vector3d& com = model.objects[o].mass.centre_of_mass;
    const Eigen::Vector3d c0 = c.start * com, c1 = end * com;
    // The slerp's turn, at most pi [rad].
    const double turn = Eigen::AngleAxisd(Eigen::Quaterniond(end.linear()) *
                                          Eigen::Quaterniond(c.start.linear()).conjugate())
                            .angle();
    const double r = reach(model.objects[o]);
    c.travel = (c1 - c0).norm() + turn * r;
    c.sphere_centre = 0.5 * (c0 + c1);
    c.sphere_radius = 0.5 * (c1 - c0).norm() + r;
    fastest = std::max(fastest, c.travel);
  }
  if (fastest == 0.0) return;
  const HandGeometry& hand = *model.hand_geometry;
  // The thinnest body with a thickness (a flat one's pairs are spaced by the other's).
  double thinnest = std::numeric_limits<double>::infinity();
  const auto thinner = [&](const CollisionBody& body) {
    if (!body.empty() && thickness(body) > 0.0) thinnest = std::min(thinnest, thickness(body));
  };
  for (const ObjectModel& object : model.objects) thinner(object.geometry->collision);
  thinner(hand.palm.collision);
  for (const auto& finger : hand.links)
    for (const BodyGeometry& link : finger) thinner(link.collision);
  if (!(2.0 * fastest > kContinuousFraction * thinnest)) return;

  const bool ground =
      model.options.ground.enabled && model.options.contact.volumePenalty() != nullptr;
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    ContinuousScratch& c = scratch[o];
    if (!c.moving || model.objects[o].geometry->collision.empty()) continue;
    // A hand body or a fixed (or stopped) object the swept sphere reaches.
    const auto against = [&](const CollisionBody& body, const Eigen::Isometry3d& pose) {
      if (body.empty()) return;
      if ((pose * body.centre - c.sphere_centre).norm() > body.radius + c.sphere_radius) return;
      Other other;
      other.body = &body;
      other.pose = pose;
      c.end = std::min(c.end, firstTouch(model, s, o, other, 0.0, thickness(body)));
    };
    against(hand.palm.collision, s.palm_pose_world);
    for (std::size_t f = 0; f < hand.links.size(); ++f)
      for (std::size_t r = 0; r < hand.links[f].size(); ++r)
        if (!hand.links[f][r].collision.empty())
          against(hand.links[f][r].collision,
                  linkPoseWorld(model, s, static_cast<int>(f), static_cast<int>(r)));
    for (std::size_t p = 0; p < model.objects.size(); ++p) {
      if (p == o) continue;
      const CollisionBody& body = model.objects[p].geometry->collision;
      if (!scratch[p].moving) {
        against(body, s.object_pose_world[p]);
        continue;
      }
      // Two moving objects, once (the lower index), along both motions; both end at the touch.
      if (p < o || body.empty()) continue;
      const ContinuousScratch& q = scratch[p];
      if ((q.sphere_centre - c.sphere_centre).norm() > q.sphere_radius + c.sphere_radius) continue;
      Other other;
      other.body = &body;
      other.object = static_cast<int>(p);
      const double t = firstTouch(model, s, o, other, q.travel, thickness(body));
      c.end = std::min(c.end, t);
      scratch[p].end = std::min(scratch[p].end, t);
    }
    // The volume penalty model's ground is a body of the penalty stage, met like the others (the
    // default model's ground contacts are speculative: they see it coming).
    if (ground && c.sphere_centre.z() - c.sphere_radius <= model.options.ground.height)
      c.end = std::min(
          c.end, firstTouch(model, s, o, Other{}, 0.0, std::numeric_limits<double>::infinity()));
  }
  for (std::size_t o = 0; o < model.objects.size(); ++o)
    if (scratch[o].moving && scratch[o].end < 1.0) endStepAt(model, s, o, scratch[o].end);
}

}  // namespace handsim::sim
