// SPDX-License-Identifier: GPL-3.0-or-later
// The staged step (docs/simulation.md). The worm-geared drives are not back-drivable, so every
// joint follows its actuator through the transmission (q = R a + q0, R from the clutch
// states, seed 000 eq. 1-4 and 10) and the dynamics are written in actuator coordinates:
// (R^T D R + J_rotor) a'' = tau_servo + tau_tendon - R^T (H + C - tau_ext), with D, H, C by
// Lagrange-Euler (seed 000 eq. 8); tendon-pulled joints are their own passive actuators.
// Contacts and actuator ranges are unilateral velocity constraints solved by projected
// Gauss-Seidel (contact/projected_gauss_seidel.hpp).
#include "handsim/sim/step.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/contact/contact_jacobian.hpp"
#include "handsim/contact/projected_gauss_seidel.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/sim/continuous_collision.hpp"
#include "handsim/sim/penalty_contacts.hpp"
#include "handsim/sim/rigid_body.hpp"
#include "handsim/sim/stability.hpp"

namespace handsim::sim {

namespace {

constexpr std::size_t kKeptWarnings = 20;

Eigen::Index idx(std::size_t i) {
  return static_cast<Eigen::Index>(i);
}

// Makes room for `rows` constraint rows over n generalised velocities; the capacity only
// grows, so a run reaches a steady state without allocation.
void reserveRows(StepWorkspace& w, Eigen::Index rows, Eigen::Index n) {
  if (w.rows.rows() >= rows && w.rows.cols() == n) return;
  const Eigen::Index cap = std::max<Eigen::Index>(rows, 2 * w.rows.rows());
  w.rows.resize(cap, n);
  w.row_bias.resize(cap);
  w.minv_rows.resize(n, cap);
  w.delassus.resize(cap, cap);
  w.lambda.resize(cap);
  w.lambda_impact.resize(cap);
  w.row_push.resize(cap);
  w.lambda_position.resize(cap);
  w.row_normal.resize(cap);
  w.row_partner.resize(cap);
  w.row_mu.resize(cap);
  w.tangents.resize(static_cast<std::size_t>(cap));
  w.row_spin.resize(static_cast<std::size_t>(cap));
}

// Number of objects that are free in the model (each a body of the solver unless stopped).
std::size_t freeObjectCount(const Model& model) {
  std::size_t n = 0;
  for (const ObjectModel& o : model.objects) n += o.fixed ? 0 : 1;
  return n;
}

// True when object o moves in this state: free in the model and not stopped by a guard.
bool isMoving(const Model& model, const SimState& s, std::size_t o) {
  return !model.objects[o].fixed && o < s.object_stopped.size() && !s.object_stopped[o];
}

// Stops a free object where it is, with a counted warning (numerical guards).
void stopObject(const Model& model, SimState& s, std::size_t o, const std::string& why) {
  addWarning(s, "object '" + model.objects[o].name + "' " + why + "; it is stopped where it was");
  s.object_stopped[o] = 1;
  s.object_twist_world[o].setZero();
}

// Two unit tangents of a unit normal, deterministic.
void tangentBasis(const Eigen::Vector3d& n, Eigen::Vector3d& t1, Eigen::Vector3d& t2) {
  Eigen::Index k = 0;
  n.cwiseAbs().minCoeff(&k);
  t1 = n.cross(Eigen::Vector3d::Unit(k)).normalized();
  t2 = n.cross(t1);
}

}  // namespace

void addWarning(SimState& s, const std::string& what) {
  ++s.warning_count;
  if (s.warnings.size() < kKeptWarnings)
    s.warnings.push_back("t = " + std::to_string(s.time) + " s: " + what);
}

Eigen::Isometry3d fingerBaseWorld(const Model& model, const SimState& s, int finger) {
  return s.palm_pose_world * model.hand().fingers.at(static_cast<std::size_t>(finger)).base;
}

Eigen::Isometry3d linkPoseWorld(const Model& model, const SimState& s, int finger, int row) {
  const auto f = static_cast<std::size_t>(finger);
  return s.palm_pose_world * (model.hand().fingers.at(f).base * s.link_frames.at(f).at(row + 1));
}

SimState makeState(const Model& model, const std::vector<double>& actuator_positions,
                   const Eigen::Isometry3d& palm_pose_world) {
  const hand::HandModel& hand = model.hand();
  const std::size_t na = hand.actuators.size();
  if (!actuator_positions.empty() && actuator_positions.size() != na)
    throw std::invalid_argument("initial actuator positions: expected " + std::to_string(na) +
                                " values, got " + std::to_string(actuator_positions.size()));
  for (double v : actuator_positions)
    if (!std::isfinite(v)) throw std::invalid_argument("initial actuator position is not finite");
  if (!palm_pose_world.matrix().allFinite()) throw std::invalid_argument("palm pose is not finite");
  SimState s;
  s.palm_pose_world = palm_pose_world;
  s.actuator_position = hand::clampActuators(
      hand, actuator_positions.empty() ? std::vector<double>(na, 0.0) : actuator_positions);
  s.actuator_velocity.assign(na, 0.0);
  s.actuator_acceleration.assign(na, 0.0);
  s.actuator_command = s.actuator_position;
  s.actuator_reference = s.actuator_position;
  s.actuator_reference_velocity.assign(na, 0.0);
  s.actuator_effort.assign(na, 0.0);
  s.actuator_limit_reaction.assign(na, 0.0);
  s.clutches.assign(hand.clutches.size(), {});
  s.inner_load_torque.assign(hand.clutches.size(), 0.0);
  for (const auto& t : hand.tendons) s.tendon_position.push_back(std::clamp(0.0, t.lower, t.upper));
  s.tendon_command = s.tendon_position;
  s.tendon_tension.assign(hand.tendons.size(), 0.0);
  for (const auto& f : hand.fingers) {
    s.q.emplace_back(kinematics::JointVector::Zero(f.dof()));
    s.qd.emplace_back(kinematics::JointVector::Zero(f.dof()));
    s.qdd.emplace_back(kinematics::JointVector::Zero(f.dof()));
    s.tau.emplace_back(kinematics::JointVector::Zero(f.dof()));
  }
  s.link_frames.resize(hand.fingers.size());
  matchObjects(model, s);
  s.contacts.reserve(64);
  s.link_contacts.reserve(64);
  s.warnings.reserve(kKeptWarnings);
  sizeWorkspace(model, s);
  forwardPosition(model, s);
  return s;
}

void sizeWorkspace(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  const std::size_t na = hand.actuators.size();
  StepWorkspace& w = s.work;
  const auto nf = hand.fingers.size();
  hand::effectiveDrives(hand, s.clutches, w.drives);
  w.terms.resize(nf);
  w.external.resize(nf);
  for (std::size_t f = 0; f < nf; ++f)
    w.external[f] = kinematics::JointVector::Zero(hand.fingers[f].dof());
  w.mass = Eigen::MatrixXd::Zero(idx(na), idx(na));
  // Sized (and its status set) by one factorisation, so the first step allocates nothing
  // either; LDLT(size) would leave the status uninitialised.
  w.mass_ldlt.compute(Eigen::MatrixXd::Identity(idx(na), idx(na)));
  for (Eigen::VectorXd* v : {&w.bias, &w.force, &w.lower, &w.upper})
    *v = Eigen::VectorXd::Zero(idx(na));
  // Generalised velocities: the actuators, then 6 per free object (a slot each, kept while a
  // guard has stopped it).
  const std::size_t nb = freeObjectCount(model);
  const Eigen::Index n = idx(na + 6 * nb);
  for (Eigen::VectorXd* v :
       {&w.acceleration, &w.velocity_old, &w.velocity, &w.velocity_impact, &w.velocity_position})
    *v = Eigen::VectorXd::Zero(n);
  w.bodies.assign(nb, {});
  w.body_of_object.assign(model.objects.size(), -1);
  for (std::size_t o = 0, b = 0; o < model.objects.size(); ++o)
    if (!model.objects[o].fixed) w.bodies[b++].object = static_cast<int>(o);
  w.limit_rows.reserve(2 * na);
  std::size_t links = 0;
  for (const auto& chain : hand.fingers) links += chain.rows.size();
  w.link_poses.reserve(links);
  s.object_contacts.reserve(64);
  reserveRows(w, idx(2 * na + 16), n);
}

void matchObjects(const Model& model, SimState& s) {
  const std::size_t old = s.object_pose_world.size();
  s.object_pose_world.resize(model.objects.size());
  s.object_twist_world.resize(model.objects.size(), Twist::Zero());
  s.object_stopped.resize(model.objects.size(), 0);
  for (std::size_t o = old; o < model.objects.size(); ++o) {
    s.object_pose_world[o] = model.objects[o].initial_pose_world;
    if (!model.objects[o].fixed) s.object_twist_world[o] = model.objects[o].initial_twist_world;
  }
  sizePenaltyState(model, s);  // seed004 hook: one memory per body pair
}

void forwardPosition(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  hand::effectiveDrives(hand, s.clutches, s.work.drives);
  const auto& drives = s.work.drives;
  for (std::size_t f = 0; f < drives.size(); ++f) {
    for (std::size_t j = 0; j < drives[f].size(); ++j) {
      const auto& e = drives[f][j];
      const auto a = static_cast<std::size_t>(e.actuator);
      const auto jj = idx(j);
      s.q[f][jj] = e.ratio * s.actuator_position[a] + e.offset;
      s.qd[f][jj] = e.ratio * s.actuator_velocity[a];
    }
    s.link_frames[f] = kinematics::forwardKinematics(hand.fingers[f], s.q[f]);
  }
}

namespace {

// Free objects against the ground plane z <= h: every support point (distinct mesh vertex)
// within reach of the plane during the step is a candidate contact with the plane's normal.
// A point still above the plane gets a speculative row (it may approach until the slop, no
// further), so a falling object stops on the plane without sinking in or bouncing.
void detectGroundContacts(const Model& model, SimState& s) {
  const GroundOptions& ground = model.options.ground;
  const double dt = model.options.dt;
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    if (!isMoving(model, s, o)) continue;
    const ObjectModel& obj = model.objects[o];
    const Eigen::Isometry3d& pose = s.object_pose_world[o];
    const Twist& twist = s.object_twist_world[o];
    const double reach = obj.geometry->collision.radius +
                         (obj.geometry->collision.centre - obj.mass.centre_of_mass).norm();
    const double margin = model.options.contact.slop +
                          2.0 * dt * (twist.head<3>().norm() + twist.tail<3>().norm() * reach +
                                      model.options.gravity_world.norm() * dt);
    // The bounding sphere first.
    if ((pose * obj.geometry->collision.centre).z() - obj.geometry->collision.radius >
        ground.height + margin)
      continue;
    // The candidates; a finely meshed face brings hundreds of them (a 10k-triangle box has 900
    // on its bottom face, 2700 constraint rows the solver could not finish): beyond
    // kGroundPoints only the extreme points of the footprint in eight directions and the
    // deepest one are kept. They span the same support polygon, so the object rests the same.
    std::vector<Eigen::Vector3d>& candidates = s.work.patch_points;
    candidates.clear();
    for (const Eigen::Vector3d& v : obj.support_points) {
      const Eigen::Vector3d p = pose * v;
      if (ground.height - p.z() >= -margin) candidates.push_back(p);
    }
    const auto add = [&](const Eigen::Vector3d& p) {
      Contact c;
      c.object = static_cast<int>(o);
      c.other = kGround;
      c.point_world = p;
      c.normal_world = Eigen::Vector3d::UnitZ();
      c.depth = ground.height - p.z();
      s.object_contacts.push_back(c);
    };
    constexpr std::size_t kGroundPoints = 8;
    if (candidates.size() <= kGroundPoints) {
      for (const Eigen::Vector3d& p : candidates) add(p);
      continue;
    }
    const std::size_t first = s.object_contacts.size();
    const auto kept = [&](const Eigen::Vector3d& p) {
      for (std::size_t i = first; i < s.object_contacts.size(); ++i)
        if (s.object_contacts[i].point_world == p) return true;
      return false;
    };
    for (int k = 0; k < 8; ++k) {
      const double angle = 0.78539816339744830962 * k;
      const Eigen::Vector2d dir(std::cos(angle), std::sin(angle));
      const Eigen::Vector3d* best = &candidates.front();
      for (const Eigen::Vector3d& p : candidates)
        if (dir.dot(p.head<2>()) > dir.dot(best->head<2>())) best = &p;
      if (!kept(*best)) add(*best);
    }
    const Eigen::Vector3d* deepest = &candidates.front();
    for (const Eigen::Vector3d& p : candidates)
      if (p.z() < deepest->z()) deepest = &p;
    if (!kept(*deepest)) add(*deepest);
  }
}

}  // namespace

namespace {

// Contacts of body X (object `object`) pushed by body Y (`other`: kPalm or an object): the
// patches of the k-DOP pipeline between the two meshes, each reduced to the corners of its
// intersection polygon, all with the patch's normal (out of Y into X) and depth (of X's
// vertices below Y's surface, contact_patch.hpp).
void addBodyPairContacts(const CollisionBody& x, const Eigen::Isometry3d& x_pose,
                         const CollisionBody& y, const Eigen::Isometry3d& y_pose, int object,
                         int other, SimState& s) {
  queryBodyPair(x, x_pose, y, y_pose, PatchPoints::Corners, s.work, s.work.pair_contacts);
  for (const BodyPairContact& p : s.work.pair_contacts) {
    Contact c;
    c.object = object;
    c.other = other;
    c.point_world = p.point_world;
    c.normal_world = -p.normal_world;  // out of Y into X
    c.depth = p.depth;
    s.object_contacts.push_back(c);
  }
}

// Contacts between links of different fingers, and between a link and the palm: the lower
// finger's link pushes. Adjacent bodies do not collide: the first link (with a mesh) of each
// finger and the palm it sits on, and the pairs that touch in the rest pose
// (HandGeometry::excluded: the BarrettHand's knuckles and finger 3's base overlap the palm and
// each other by design).
void detectLinkContacts(const Model& model, SimState& s) {
  if (!model.hand().self_collision) return;  // e.g. URDF hands without a sidecar's consent
  const HandGeometry& geometry = *model.hand_geometry;
  const auto nf = geometry.links.size();
  auto collide = [&](const CollisionBody& a, const Eigen::Isometry3d& a_pose,
                     const CollisionBody& b, const Eigen::Isometry3d& b_pose, int f, int r,
                     int of, int orow) {
    queryBodyPair(a, a_pose, b, b_pose, PatchPoints::Corners, s.work, s.work.pair_contacts);
    for (const BodyPairContact& p : s.work.pair_contacts) {
      Contact c;
      c.finger = f;
      c.row = r;
      c.other_finger = of;
      c.other_row = orow;
      c.point_world = p.point_world;
      c.normal_world = p.normal_world;  // into b, as for link-object
      c.depth = p.depth;
      s.link_contacts.push_back(c);
    }
  };
  const CollisionBody& palm = geometry.palm.collision;
  auto firstLink = [&](std::size_t f) {
    for (std::size_t r = 0; r < geometry.links[f].size(); ++r)
      if (!geometry.links[f][r].collision.empty()) return r;
    return geometry.links[f].size();
  };
  // Every link's pose once (flattened finger by finger), then the pairs.
  std::vector<Eigen::Isometry3d>& poses = s.work.link_poses;
  poses.clear();
  for (std::size_t f = 0; f < nf; ++f)
    for (std::size_t r = 0; r < geometry.links[f].size(); ++r)
      poses.push_back(linkPoseWorld(model, s, static_cast<int>(f), static_cast<int>(r)));
  for (std::size_t f = 0, base_f = 0; f < nf; base_f += geometry.links[f].size(), ++f) {
    const std::size_t first = firstLink(f);
    for (std::size_t r = first; r < geometry.links[f].size(); ++r) {
      const CollisionBody& link = geometry.links[f][r].collision;
      if (link.empty()) continue;
      const Eigen::Isometry3d& pose = poses[base_f + r];
      if (r != first && !palm.empty() &&
          !geometry.excluded(static_cast<int>(f), static_cast<int>(r), -1, -1))
        collide(link, pose, palm, s.palm_pose_world, static_cast<int>(f), static_cast<int>(r),
                -1, -1);
      for (std::size_t g = f + 1, base_g = base_f + geometry.links[f].size(); g < nf;
           base_g += geometry.links[g].size(), ++g)
        for (std::size_t q = 0; q < geometry.links[g].size(); ++q) {
          const CollisionBody& other = geometry.links[g][q].collision;
          if (other.empty() || geometry.excluded(static_cast<int>(f), static_cast<int>(r),
                                                 static_cast<int>(g), static_cast<int>(q)))
            continue;
          collide(link, pose, other, poses[base_g + q], static_cast<int>(f), static_cast<int>(r),
                  static_cast<int>(g), static_cast<int>(q));
        }
    }
  }
}

}  // namespace

void detectContacts(const Model& model, SimState& s) {
  // Last step's contacts, with their impulses, for the warm start of this step's solve.
  StepWorkspace& w = s.work;
  w.previous_contacts.assign(s.contacts.begin(), s.contacts.end());
  w.previous_object_contacts.assign(s.object_contacts.begin(),
                                    s.object_contacts.begin() +
                                        static_cast<std::ptrdiff_t>(std::min(
                                            w.object_rows, s.object_contacts.size())));
  w.previous_link_contacts.assign(s.link_contacts.begin(), s.link_contacts.end());
  w.previous_limit_reaction.assign(s.actuator_limit_reaction.begin(),
                                   s.actuator_limit_reaction.end());
  s.contacts.clear();
  s.object_contacts.clear();
  s.link_contacts.clear();
  s.work.object_rows = 0;
  detectLinkContacts(model, s);
  if (model.objects.empty()) return;
  if (model.options.ground.enabled) detectGroundContacts(model, s);
  const HandGeometry& geometry = *model.hand_geometry;
  // Moving objects against the palm and against the other objects (each pair of moving ones
  // once: the patches are the same whichever is mesh X, contact_patch.hpp; a fixed or stopped
  // one only pushes).
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    if (!isMoving(model, s, o)) continue;
    const CollisionBody& body = model.objects[o].geometry->collision;
    addBodyPairContacts(body, s.object_pose_world[o], geometry.palm.collision,
                        s.palm_pose_world, static_cast<int>(o), kPalm, s);
    for (std::size_t p = 0; p < model.objects.size(); ++p) {
      if (p == o || (isMoving(model, s, p) && p < o)) continue;
      addBodyPairContacts(body, s.object_pose_world[o], model.objects[p].geometry->collision,
                          s.object_pose_world[p], static_cast<int>(o), static_cast<int>(p), s);
    }
  }
  for (std::size_t f = 0; f < geometry.links.size(); ++f) {
    for (std::size_t r = 0; r < geometry.links[f].size(); ++r) {
      const CollisionBody& link = geometry.links[f][r].collision;
      if (link.empty()) continue;
      const Eigen::Isometry3d link_pose =
          linkPoseWorld(model, s, static_cast<int>(f), static_cast<int>(r));
      for (std::size_t o = 0; o < model.objects.size(); ++o) {
        const CollisionBody& obj = model.objects[o].geometry->collision;
        if (obj.empty()) continue;
        queryBodyPair(link, link_pose, obj, s.object_pose_world[o], PatchPoints::Centre, s.work,
                      s.work.pair_contacts);
        for (const BodyPairContact& p : s.work.pair_contacts) {
          Contact c;
          c.finger = static_cast<int>(f);
          c.row = static_cast<int>(r);
          c.object = static_cast<int>(o);
          c.point_world = p.point_world;
          c.normal_world = p.normal_world;  // into the object
          c.depth = p.depth;
          s.contacts.push_back(c);
        }
      }
    }
  }
  // A fixed (or stopped) object and the palm are never queried: neither moves under the
  // contact, so there is nothing to solve (on the LEAP hand closing on a fixed sphere this pair
  // alone took 28.6 % of the step).
  s.work.object_rows = s.object_contacts.size();
}

bool handTouchesObjects(const Model& model, const SimState& s) {
  auto touches = [&](const CollisionBody& body, const Eigen::Isometry3d& pose) {
    if (body.empty()) return false;
    for (std::size_t o = 0; o < model.objects.size(); ++o) {
      const CollisionBody& obj = model.objects[o].geometry->collision;
      if (obj.empty()) continue;
      const Eigen::Isometry3d& object_pose = s.object_pose_world[o];
      if ((pose * body.centre - object_pose * obj.centre).norm() > body.radius + obj.radius)
        continue;
      if (collision::anyContact(body.tree, obj.tree, pose.inverse() * object_pose)) return true;
    }
    return false;
  };
  const HandGeometry& geometry = *model.hand_geometry;
  if (touches(geometry.palm.collision, s.palm_pose_world)) return true;
  for (std::size_t f = 0; f < geometry.links.size(); ++f)
    for (std::size_t r = 0; r < geometry.links[f].size(); ++r)
      if (touches(geometry.links[f][r].collision,
                  linkPoseWorld(model, s, static_cast<int>(f), static_cast<int>(r))))
        return true;
  return false;
}

void computeActuation(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    const auto& act = hand.actuators[a];
    const double rho = act.drives.front().ratio;
    const double err = rho * (s.actuator_reference[a] - s.actuator_position[a]);
    const double derr = rho * (s.actuator_reference_velocity[a] - s.actuator_velocity[a]);
    const double effort = act.servo.kp * err + act.servo.kd * derr;
    s.actuator_effort[a] = std::clamp(effort, -act.servo.torque_limit, act.servo.torque_limit);
  }
  // Tendons (seed 002): the motor sits at its reference; the elastic tendon cannot push,
  // T = k max(0, retraction - sum r_j q_j).
  for (std::size_t t = 0; t < hand.tendons.size(); ++t) {
    const auto& tendon = hand.tendons[t];
    s.tendon_position[t] = std::clamp(s.tendon_position[t], tendon.lower, tendon.upper);
    double excursion = 0.0;
    for (const auto& tj : tendon.joints)
      excursion +=
          tj.pulley_radius * s.q[static_cast<std::size_t>(tj.joint.finger)][tj.joint.joint];
    s.tendon_tension[t] = tendon.stiffness * std::max(0.0, s.tendon_position[t] - excursion);
  }
}

namespace {

// The free objects' part of the dynamics: inertia in the world, the unconstrained velocity
// change of the step (gravity; the torque-free midpoint rotation), body slots of the solver.
void computeObjectDynamics(const Model& model, SimState& s) {
  StepWorkspace& w = s.work;
  const std::size_t na = model.actuatorCount();
  const double dt = model.options.dt;
  for (std::size_t b = 0; b < w.bodies.size(); ++b) {
    FreeBodyScratch& body = w.bodies[b];
    const auto o = static_cast<std::size_t>(body.object);
    const Eigen::Index slot = idx(na + 6 * b);
    w.acceleration.segment<6>(slot).setZero();
    w.body_of_object[o] = -1;
    if (!isMoving(model, s, o)) continue;
    const Eigen::Isometry3d& pose = s.object_pose_world[o];
    const Twist& twist = s.object_twist_world[o];
    if (!pose.matrix().allFinite() || !twist.allFinite()) {
      stopObject(model, s, o, "has a non-finite pose or velocity");
      continue;
    }
    const geometry::MassProperties& mp = model.objects[o].mass;
    const Eigen::Matrix3d R = pose.linear();
    body.com_world = pose * mp.centre_of_mass;
    body.inertia_world = R * mp.inertia_com * R.transpose();
    body.inverse_inertia_world = R * mp.inertia_com.inverse() * R.transpose();
    // Seed 004 eq. 2 without torque: the midpoint angular velocity of the step (rigid_body.hpp).
    const Eigen::Vector3d omega = twist.tail<3>();
    const Eigen::Vector3d w_mid = midpointAngularVelocity(
        mp.inertia_com, mp.inertia_com * (R.transpose() * omega), dt);
    body.free_angular = R * w_mid;
    // Seed 004 eq. 1: gravity at the centre of mass.
    w.acceleration.segment<3>(slot) = model.options.gravity_world;
    w.acceleration.segment<3>(slot + 3) = (body.free_angular - omega) / dt;
    w.body_of_object[o] = static_cast<int>(b);
  }
}

}  // namespace

void computeDynamics(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  const std::size_t na = hand.actuators.size();
  const std::size_t nf = hand.fingers.size();
  StepWorkspace& w = s.work;
  hand::effectiveDrives(hand, s.clutches, w.drives);
  const auto& drives = w.drives;

  // Per finger, reflected to actuator space: M = R^T D R + J, b = R^T (H + C - ext).
  w.mass.setZero();
  w.bias.setZero();
  for (std::size_t f = 0; f < nf; ++f) {
    const auto& chain = hand.fingers[f];
    const Eigen::Isometry3d base = fingerBaseWorld(model, s, static_cast<int>(f));
    // A palm carried with acceleration: in the finger base's frame gravity becomes g - a_base,
    // a_base = a_palm + alpha x r + omega x (omega x r) for the base at r from the palm origin
    // (the base's rotation rate itself is not fed to the joint dynamics; docs/free-objects.md).
    const Eigen::Vector3d r = base.translation() - s.palm_pose_world.translation();
    const Eigen::Vector3d omega = s.palm_twist_world.tail<3>();
    const Eigen::Vector3d a_base = s.palm_acceleration_world.head<3>() +
                                   s.palm_acceleration_world.tail<3>().cross(r) +
                                   omega.cross(omega.cross(r));
    const Eigen::Vector3d g_base =
        base.linear().transpose() * (model.options.gravity_world - a_base);
    w.terms[f] = dynamics::lagrangeEuler(chain, s.link_frames[f], s.qd[f], g_base);
    w.external[f].setZero();
    if (!s.loads.empty()) {
      const Eigen::Isometry3d to_base = base.inverse();
      for (const LinkLoad& l : s.loads)
        if (l.finger == static_cast<int>(f))
          w.external[f] += contact::linkPointJacobianTranspose(chain, s.link_frames[f], l.row,
                                                               to_base * l.point_world,
                                                               to_base.linear() * l.force_world);
    }
    const int n = static_cast<int>(drives[f].size());
    const auto& terms = w.terms[f];
    for (int i = 0; i < n; ++i) {
      const auto& ei = drives[f][static_cast<std::size_t>(i)];
      if (ei.ratio == 0.0) continue;
      const auto ai = static_cast<Eigen::Index>(ei.actuator);
      w.bias[ai] += ei.ratio * (terms.H[i] + terms.C[i] - w.external[f][i]);
      for (int k = 0; k < n; ++k) {
        const auto& ek = drives[f][static_cast<std::size_t>(k)];
        if (ek.ratio == 0.0) continue;
        w.mass(ai, static_cast<Eigen::Index>(ek.actuator)) += ei.ratio * terms.D(i, k) * ek.ratio;
      }
    }
  }

  // Servo (PD at the primary joint, see ServoGains) and rotor inertia.
  for (std::size_t a = 0; a < na; ++a) {
    const auto& act = hand.actuators[a];
    const double rho = act.drives.front().ratio;
    w.force[idx(a)] = rho * s.actuator_effort[a] - w.bias[idx(a)];
    w.mass(idx(a), idx(a)) += rho * rho * act.servo.rotor_inertia;
  }
  // Each pulled joint feels r_j T against its return spring and damping; pulled joints are
  // their own passive actuators (ratio 1).
  for (std::size_t t = 0; t < hand.tendons.size(); ++t) {
    const auto& tendon = hand.tendons[t];
    const double tension = s.tendon_tension[t];
    for (const auto& tj : tendon.joints) {
      const auto f = static_cast<std::size_t>(tj.joint.finger);
      const double q = s.q[f][tj.joint.joint], qd = s.qd[f][tj.joint.joint];
      const auto a = static_cast<Eigen::Index>(hand.driverOf(tj.joint).first);
      w.force[a] += tj.pulley_radius * tension - tj.spring * (q - tj.rest) - tj.damping * qd;
    }
  }
  w.mass_ldlt.compute(w.mass);
  w.acceleration.head(idx(na)) = w.mass_ldlt.solve(w.force);
  if (!w.acceleration.head(idx(na)).allFinite()) {
    addWarning(s,
               "actuator-space inertia is singular or the state is not finite; accelerations set "
               "to 0");
    w.acceleration.head(idx(na)).setZero();
  }
  computeObjectDynamics(model, s);

  // Each actuator's range, narrowed by the limits of the joints it moves.
  for (std::size_t a = 0; a < na; ++a) {
    w.lower[idx(a)] = hand.actuators[a].lower;
    w.upper[idx(a)] = hand.actuators[a].upper;
  }
  for (std::size_t f = 0; f < nf; ++f) {
    const auto& chain = hand.fingers[f];
    // Movable rows in order are the joints 0, 1, ...
    int j = -1;
    for (const kinematics::DhRow& row : chain.rows) {
      if (row.type == kinematics::JointType::Fixed) continue;
      const auto& e = drives[f][static_cast<std::size_t>(++j)];
      if (e.ratio == 0.0) continue;
      double l = (row.lower - e.offset) / e.ratio, h = (row.upper - e.offset) / e.ratio;
      if (l > h) std::swap(l, h);
      const auto a = static_cast<Eigen::Index>(e.actuator);
      w.lower[a] = std::max(w.lower[a], l);
      w.upper[a] = std::min(w.upper[a], h);
    }
  }
}

namespace {

// True when the actuator is on its lower (sign +1) or upper (-1) limit, to rounding.
bool onLimit(double position, double limit) {
  return std::abs(position - limit) <= 1e-12 * (1.0 + std::abs(limit));
}

bool hasLimitRow(const StepWorkspace& w, Eigen::Index a, double sign) {
  for (const auto& [b, s] : w.limit_rows)
    if (b == a && s == sign) return true;
  return false;
}

// Adds to row i the part of free body `body` (slot in the generalised velocities): the
// object's point velocity at `point` along -d, so the row reads (v_other - v_object) . d.
void addBodyPart(Eigen::Ref<Eigen::MatrixXd> rows, Eigen::Index i, const StepWorkspace& w,
                 int body, Eigen::Index na, const Eigen::Vector3d& point,
                 const Eigen::Vector3d& d) {
  if (body < 0) return;
  const Eigen::Index slot = na + 6 * body;
  const Eigen::Vector3d r = point - w.bodies[static_cast<std::size_t>(body)].com_world;
  rows.block<1, 3>(i, slot) = -d.transpose();
  rows.block<1, 3>(i, slot + 3) = -r.cross(d).transpose();
}

// Adds to row i a link's part: its point velocity at `point_world` along `d`, through the
// drives of its finger (the palm's own motion is not in it).
void addLinkPart(const Model& model, const SimState& s, Eigen::Ref<Eigen::MatrixXd> rows,
                 Eigen::Index i, int finger, int row, const Eigen::Vector3d& point_world,
                 const Eigen::Vector3d& d) {
  const auto f = static_cast<std::size_t>(finger);
  const Eigen::Isometry3d to_base = fingerBaseWorld(model, s, finger).inverse();
  const kinematics::JointVector g = contact::linkPointJacobianTranspose(
      model.hand().fingers[f], s.link_frames[f], row, to_base * point_world,
      to_base.linear() * d);
  const auto& drives = s.work.drives[f];
  for (std::size_t j = 0; j < drives.size(); ++j)
    rows(i, static_cast<Eigen::Index>(drives[j].actuator)) += g[idx(j)] * drives[j].ratio;
}

// True when a and b are contacts between the same two bodies (the same link, object, other).
bool sameBodies(const Contact& a, const Contact& b) {
  return a.finger == b.finger && a.row == b.row && a.object == b.object && a.other == b.other &&
         a.other_finger == b.other_finger && a.other_row == b.other_row;
}

// For each of the first `count` contacts of `now`, the index in `before` of last step's contact
// between the same bodies whose point is nearest and within `radius`, each used at most once
// (in the order of `now`: deterministic), else -1; written to match[0..count).
void matchContacts(const std::vector<Contact>& now, std::size_t count,
                   const std::vector<Contact>& before, double radius,
                   std::vector<std::uint8_t>& taken, int* match) {
  taken.assign(before.size(), 0);
  const double r2 = radius * radius;
  for (std::size_t i = 0; i < count; ++i) {
    int best = -1;
    double best_d2 = r2;
    for (std::size_t j = 0; j < before.size(); ++j) {
      if (taken[j] || !sameBodies(now[i], before[j])) continue;
      const double d2 = (now[i].point_world - before[j].point_world).squaredNorm();
      if (d2 <= best_d2) {
        if (d2 == best_d2 && best >= 0) continue;  // ties: the first
        best = static_cast<int>(j);
        best_d2 = d2;
      }
    }
    match[i] = best;
    if (best >= 0) taken[static_cast<std::size_t>(best)] = 1;
  }
}

// The warm start of the step solve: each row's impulse of last step, from the
// matched contact's forces and the limit reactions; 0 where nothing matches.
void warmStart(const Model& model, StepWorkspace& w, const SimState& s, Eigen::Index nc,
               Eigen::Index ng, Eigen::Index nk, Eigen::Index nl,
               Eigen::Ref<Eigen::VectorXd> lambda) {
  const double dt = model.options.dt;
  const double radius = model.options.solver.warm_start_radius;
  lambda.setZero();
  w.warm_match.resize(static_cast<std::size_t>(nc + ng + nk));
  int* match = w.warm_match.data();
  matchContacts(s.contacts, static_cast<std::size_t>(nc), w.previous_contacts, radius,
                w.warm_taken, match);
  matchContacts(s.object_contacts, static_cast<std::size_t>(ng), w.previous_object_contacts,
                radius, w.warm_taken, match + nc);
  matchContacts(s.link_contacts, static_cast<std::size_t>(nk), w.previous_link_contacts, radius,
                w.warm_taken, match + nc + ng);
  auto previous = [&](Eigen::Index row) -> const Contact* {
    const int m = match[row];
    if (m < 0) return nullptr;
    const auto j = static_cast<std::size_t>(m);
    if (row < nc) return &w.previous_contacts[j];
    if (row < nc + ng) return &w.previous_object_contacts[j];
    return &w.previous_link_contacts[j];
  };
  for (Eigen::Index i = 0; i < nc + ng + nk; ++i)
    if (const Contact* p = previous(i)) lambda[i] = p->force * dt;
  // A stop's reaction (its impact included) goes to its step row.
  for (Eigen::Index k = 0; k < nl; ++k) {
    const auto [a, sign] = w.limit_rows[static_cast<std::size_t>(k)];
    if (static_cast<std::size_t>(a) >= w.previous_limit_reaction.size()) continue;
    const double rho = model.hand().actuators[static_cast<std::size_t>(a)].drives.front().ratio;
    lambda[nc + ng + nk + k] =
        std::max(0.0, sign * w.previous_limit_reaction[static_cast<std::size_t>(a)] * dt * rho);
  }
  // Friction: last step's friction force on the object (-sum t lambda_t / dt) on this step's
  // tangents; a torsional row: last step's moment (-lambda_s / dt).
  for (Eigen::Index i = nc + ng + nk + nl; i < lambda.size(); ++i)
    if (const Contact* p = previous(w.row_normal[i]))
      lambda[i] = w.row_spin[static_cast<std::size_t>(i)]
                      ? -p->spin_moment * dt
                      : -w.tangents[static_cast<std::size_t>(i)].dot(p->friction_world) * dt;
}

// One solve of the contact and limit rows of the workspace (impact, then the step). Returns
// true when an impulse acted. Rows: the hand contacts (nc), the object contacts that are
// constraints (ng), the link-link contacts (nk), the limits (nl), then per contact on a free
// object two friction rows and, when some object's torsional length is > 0 (anyTorsional), a
// torsional one.
bool solveRows(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  const std::size_t na = hand.actuators.size();
  const double dt = model.options.dt;
  const ContactOptions& co = model.options.contact;
  StepWorkspace& w = s.work;
  const auto& drives = w.drives;
  const Eigen::Index n = w.velocity.size();
  const auto nc = static_cast<Eigen::Index>(s.contacts.size());
  const auto ng = static_cast<Eigen::Index>(w.object_rows);
  const auto nk = static_cast<Eigen::Index>(s.link_contacts.size());
  const auto nl = static_cast<Eigen::Index>(w.limit_rows.size());
  // Torsional friction (the soft-finger contact): a third friction row per contact, the
  // relative angular velocity about the normal, its impulse an angular impulse about n within
  // +-mu_spin lambda_n (docs/free-objects.md, "Torsional friction").
  const bool spin = anyTorsional(model);
  const Eigen::Index per_contact = spin ? 3 : 2;
  Eigen::Index nfr = per_contact * ng;
  for (const Contact& c : s.contacts)
    if (w.body_of_object[static_cast<std::size_t>(c.object)] >= 0) nfr += per_contact;
  const Eigen::Index nr = nc + ng + nk + nl + nfr;
  for (std::vector<Contact>* list : {&s.contacts, &s.object_contacts, &s.link_contacts})
    for (Contact& c : *list) {
      c.force = c.impact_force = 0.0;
      c.friction_world.setZero();
      c.impact_friction_world.setZero();
      c.spin_moment = c.impact_spin_moment = 0.0;
    }
  std::fill(s.actuator_limit_reaction.begin(), s.actuator_limit_reaction.end(), 0.0);
  w.velocity = w.velocity_old + w.acceleration * dt;
  w.velocity_impact = w.velocity_old;
  if (nr == 0) return false;
  reserveRows(w, nr, n);
  auto rows = w.rows.topRows(nr);
  auto bias = w.row_bias.head(nr);
  auto normal_of = w.row_normal.head(nr);
  auto partner = w.row_partner.head(nr);
  auto mu = w.row_mu.head(nr);
  rows.setZero();
  normal_of.setConstant(-1);
  partner.setConstant(-1);
  mu.setZero();
  const bool palm_moves = !s.palm_twist_world.isZero(0.0);
  // The palm's motion carries the links: their point velocity gains v_P + w_P x (p - o_P).
  auto palmVelocity = [&](const Eigen::Vector3d& p) -> Eigen::Vector3d {
    return s.palm_twist_world.head<3>() +
           s.palm_twist_world.tail<3>().cross(p - s.palm_pose_world.translation());
  };
  Eigen::Index fr = nc + ng + nk + nl;  // next friction row
  for (Eigen::Index i = 0; i < nc; ++i) {
    const Contact& c = s.contacts[static_cast<std::size_t>(i)];
    const auto f = static_cast<std::size_t>(c.finger);
    const auto& chain = hand.fingers[f];
    // The row asks that the link point not move further into the object: along the normal
    // out of the object (-normal_world), in the finger base.
    const Eigen::Isometry3d to_base = fingerBaseWorld(model, s, c.finger).inverse();
    const Eigen::Vector3d point_base = to_base * c.point_world;
    const kinematics::JointVector g = contact::linkPointJacobianTranspose(
        chain, s.link_frames[f], c.row, point_base, -(to_base.linear() * c.normal_world));
    for (std::size_t j = 0; j < drives[f].size(); ++j) {
      const auto& e = drives[f][j];
      rows(i, static_cast<Eigen::Index>(e.actuator)) += g[idx(j)] * e.ratio;
    }
    // A fresh contact may still sink to the slop (a fraction of the way per step), so a
    // resting link stays in touch instead of flickering in and out of contact; deeper ones
    // are pushed back by the contact stiffness.
    bias[i] = (co.stiffness * std::max(0.0, c.depth - co.slop) -
               co.sink_rate * std::max(0.0, co.slop - c.depth)) /
              dt;
    if (palm_moves) bias[i] += c.normal_world.dot(palmVelocity(c.point_world));
    const int body = w.body_of_object[static_cast<std::size_t>(c.object)];
    if (body < 0) continue;  // a fixed object: frictionless, as in seed 000
    addBodyPart(rows, i, w, body, idx(na), c.point_world, -c.normal_world);
    Eigen::Vector3d t[2];
    tangentBasis(c.normal_world, t[0], t[1]);
    for (int k = 0; k < 2; ++k, ++fr) {
      w.tangents[static_cast<std::size_t>(fr)] = t[k];
      const kinematics::JointVector gt = contact::linkPointJacobianTranspose(
          chain, s.link_frames[f], c.row, point_base, to_base.linear() * t[k]);
      for (std::size_t j = 0; j < drives[f].size(); ++j) {
        const auto& e = drives[f][j];
        rows(fr, static_cast<Eigen::Index>(e.actuator)) += gt[idx(j)] * e.ratio;
      }
      addBodyPart(rows, fr, w, body, idx(na), c.point_world, t[k]);
      bias[fr] = palm_moves ? -t[k].dot(palmVelocity(c.point_world)) : 0.0;
      normal_of[fr] = i;
      partner[fr] = k == 0 ? fr + 1 : fr - 1;  // one isotropic cone
      mu[fr] = model.objects[static_cast<std::size_t>(c.object)].friction;
      w.row_spin[static_cast<std::size_t>(fr)] = 0;
    }
    if (spin) {
      // (w_link - w_object) . n: the link's angular velocity about n through its drives (the
      // palm's turning carries it: on the right-hand side), the object's -n . w.
      const kinematics::JointVector ga = contact::linkAngularJacobianTranspose(
          chain, s.link_frames[f], c.row, to_base.linear() * c.normal_world);
      for (std::size_t j = 0; j < drives[f].size(); ++j) {
        const auto& e = drives[f][j];
        rows(fr, static_cast<Eigen::Index>(e.actuator)) += ga[idx(j)] * e.ratio;
      }
      rows.block<1, 3>(fr, idx(na) + 6 * body + 3) = -c.normal_world.transpose();
      bias[fr] = palm_moves ? -c.normal_world.dot(s.palm_twist_world.tail<3>()) : 0.0;
      w.tangents[static_cast<std::size_t>(fr)] = c.normal_world;
      w.row_spin[static_cast<std::size_t>(fr)] = 1;
      normal_of[fr] = i;
      mu[fr] = objectTorsional(model, c.object);
      ++fr;
    }
  }
  // Object contacts: the pushing side (the ground, the palm, another object) plays the link.
  // The ground and a fixed object do not move; the palm moves as prescribed (its velocity goes
  // to the right-hand side); a moving object is a body of the solver too.
  for (Eigen::Index k = 0; k < ng; ++k) {
    const Contact& c = s.object_contacts[static_cast<std::size_t>(k)];
    const Eigen::Index i = nc + k;
    const int body = w.body_of_object[static_cast<std::size_t>(c.object)];
    const int other_body =
        c.other >= 0 ? w.body_of_object[static_cast<std::size_t>(c.other)] : -1;
    addBodyPart(rows, i, w, body, idx(na), c.point_world, -c.normal_world);
    addBodyPart(rows, i, w, other_body, idx(na), c.point_world, c.normal_world);
    // Above the slop (a gap or a shallow touch) it may approach until the slop and no
    // further (a speculative contact); beyond it, it may not approach: the push back out is
    // the position correction's (correctPositions), never a velocity.
    bias[i] = std::min(0.0, c.depth - co.slop) / dt;
    const bool palm = c.other == kPalm && palm_moves;
    if (palm) bias[i] += c.normal_world.dot(palmVelocity(c.point_world));
    const double object_mu = model.objects[static_cast<std::size_t>(c.object)].friction;
    double pair_mu = object_mu;  // the palm: the object's coefficient, as for the links
    if (c.other == kGround && model.options.ground.friction >= 0.0)
      pair_mu = model.options.ground.friction;
    else if (c.other >= 0)  // two objects: the smaller coefficient (docs/free-objects.md)
      pair_mu = std::min(object_mu, model.objects[static_cast<std::size_t>(c.other)].friction);
    Eigen::Vector3d t[2];
    tangentBasis(c.normal_world, t[0], t[1]);
    for (int j = 0; j < 2; ++j, ++fr) {
      w.tangents[static_cast<std::size_t>(fr)] = t[j];
      addBodyPart(rows, fr, w, body, idx(na), c.point_world, t[j]);
      addBodyPart(rows, fr, w, other_body, idx(na), c.point_world, -t[j]);
      bias[fr] = palm ? -t[j].dot(palmVelocity(c.point_world)) : 0.0;
      normal_of[fr] = i;
      partner[fr] = j == 0 ? fr + 1 : fr - 1;  // one isotropic cone
      mu[fr] = pair_mu;
      w.row_spin[static_cast<std::size_t>(fr)] = 0;
    }
    if (spin) {
      // (w_other - w_object) . n; the ground and a fixed object do not turn, the palm turns
      // as prescribed (right-hand side).
      if (body >= 0) rows.block<1, 3>(fr, idx(na) + 6 * body + 3) = -c.normal_world.transpose();
      if (other_body >= 0)
        rows.block<1, 3>(fr, idx(na) + 6 * other_body + 3) = c.normal_world.transpose();
      bias[fr] = palm ? -c.normal_world.dot(s.palm_twist_world.tail<3>()) : 0.0;
      w.tangents[static_cast<std::size_t>(fr)] = c.normal_world;
      w.row_spin[static_cast<std::size_t>(fr)] = 1;
      normal_of[fr] = i;
      // The object's length; two objects: the smaller (as for friction).
      mu[fr] = c.other >= 0 ? std::min(objectTorsional(model, c.object),
                                       objectTorsional(model, c.other))
                            : objectTorsional(model, c.object);
      ++fr;
    }
  }
  // Link-link contacts: the relative velocity of the two links (the palm's motion carries both
  // and cancels), frictionless like the contacts on fixed objects.
  for (Eigen::Index k = 0; k < nk; ++k) {
    const Contact& c = s.link_contacts[static_cast<std::size_t>(k)];
    const Eigen::Index i = nc + ng + k;
    addLinkPart(model, s, rows, i, c.finger, c.row, c.point_world, -c.normal_world);
    if (c.other_finger >= 0)
      addLinkPart(model, s, rows, i, c.other_finger, c.other_row, c.point_world, c.normal_world);
    bias[i] = (co.stiffness * std::max(0.0, c.depth - co.slop) -
               co.sink_rate * std::max(0.0, co.slop - c.depth)) /
              dt;
  }
  for (Eigen::Index k = 0; k < nl; ++k) {
    const auto [a, sign] = w.limit_rows[static_cast<std::size_t>(k)];
    const Eigen::Index i = nc + ng + nk + k;
    rows(i, a) = sign;
    // sign * v >= sign * (limit - position) / dt keeps the step inside the range.
    bias[i] = sign * ((sign > 0.0 ? w.lower[a] : w.upper[a]) -
                      s.actuator_position[static_cast<std::size_t>(a)]) /
              dt;
  }
  auto minv_rows = w.minv_rows.leftCols(nr);
  if (n == idx(na)) {
    minv_rows = w.mass_ldlt.solve(rows.transpose());
  } else {
    // Block-diagonal inertia: the actuators' factorised inertia, m 1 and I_world per body.
    minv_rows.topRows(idx(na)) = w.mass_ldlt.solve(rows.leftCols(idx(na)).transpose());
    for (std::size_t b = 0; b < w.bodies.size(); ++b) {
      const Eigen::Index slot = idx(na + 6 * b);
      const FreeBodyScratch& body = w.bodies[b];
      if (w.body_of_object[static_cast<std::size_t>(body.object)] < 0) {
        minv_rows.middleRows(slot, 6).setZero();
        continue;
      }
      const double inv_m = 1.0 / model.objects[static_cast<std::size_t>(body.object)].mass.mass_kg;
      minv_rows.middleRows(slot, 3) = rows.middleCols(slot, 3).transpose() * inv_m;
      minv_rows.middleRows(slot + 3, 3).noalias() =
          body.inverse_inertia_world * rows.middleCols(slot + 3, 3).transpose();
    }
  }
  auto delassus = w.delassus.topLeftCorner(nr, nr);
  delassus.noalias() = rows * minv_rows;
  const double floor =
      model.options.solver.row_floor * (1.0 + delassus.diagonal().cwiseAbs().maxCoeff());
  auto lambda = w.lambda.head(nr);
  auto impact = w.lambda_impact.head(nr);
  contact::PgsSettings settings;
  settings.sweeps = model.options.solver.sweeps;
  settings.tolerance = model.options.solver.tolerance;
  settings.row_floor = floor;
  // Only the sustained impulses start warm: an impact is a transient that last step's does
  // not predict (a resting contact has none), so its solve starts from zero.
  const bool warm = model.options.solver.warm_start;
  if (warm) warmStart(model, w, s, nc, ng, nk, nl, lambda);
  auto solve = [&](Eigen::Ref<Eigen::VectorXd> impulses, bool from_last) {
    settings.warm_start = from_last;
    if (nfr == 0)
      contact::projectedGaussSeidel(rows, minv_rows, delassus, bias, settings, w.velocity,
                                    impulses);
    else
      contact::projectedGaussSeidelFriction(rows, minv_rows, delassus, bias, normal_of, partner, mu,
                                            settings, w.velocity, impulses);
  };
  // First the impact: the velocity brought into contacts and stops is removed (an impulse,
  // not a force the clutch feels). Then the step's accelerations are constrained; that
  // impulse over dt is the sustained normal force. A warm start that ends at zero impulses
  // leaves the velocity exactly as it was (not as it was plus the rounding of the way there).
  w.velocity = w.velocity_old;
  solve(impact, false);
  if ((impact.array() == 0.0).all()) w.velocity = w.velocity_old;
  bool acted = w.velocity != w.velocity_old;
  w.velocity_impact = w.velocity;
  w.velocity += w.acceleration * dt;
  solve(lambda, warm);
  if ((lambda.array() == 0.0).all()) w.velocity = w.velocity_impact + w.acceleration * dt;
  for (Eigen::Index i = 0; i < nc; ++i) {
    Contact& c = s.contacts[static_cast<std::size_t>(i)];
    c.force = lambda[i] / dt;
    c.impact_force = impact[i] / dt;
  }
  for (Eigen::Index k = 0; k < ng; ++k) {
    Contact& c = s.object_contacts[static_cast<std::size_t>(k)];
    c.force = lambda[nc + k] / dt;
    c.impact_force = impact[nc + k] / dt;
  }
  for (Eigen::Index k = 0; k < nk; ++k) {
    Contact& c = s.link_contacts[static_cast<std::size_t>(k)];
    c.force = lambda[nc + ng + k] / dt;
    c.impact_force = impact[nc + ng + k] / dt;
  }
  // A tangent row's impulse acts along +t on the link (the pushing side) and along -t on the
  // object.
  for (Eigen::Index i = nc + ng + nk + nl; i < nr; ++i) {
    const Eigen::Index normal = normal_of[i];
    Contact& c = normal < nc ? s.contacts[static_cast<std::size_t>(normal)]
                             : s.object_contacts[static_cast<std::size_t>(normal - nc)];
    if (w.row_spin[static_cast<std::size_t>(i)]) {
      // +lambda n on the link, -lambda n on the object.
      c.spin_moment -= lambda[i] / dt;
      c.impact_spin_moment -= impact[i] / dt;
      continue;
    }
    const Eigen::Vector3d& t = w.tangents[static_cast<std::size_t>(i)];
    c.friction_world -= t * (lambda[i] / dt);
    c.impact_friction_world -= t * (impact[i] / dt);
  }
  // A stop's impulses act on its actuator; reported at the primary joint.
  for (Eigen::Index k = 0; k < nl; ++k) {
    const auto [a, sign] = w.limit_rows[static_cast<std::size_t>(k)];
    const Eigen::Index i = nc + ng + nk + k;
    const double rho = hand.actuators[static_cast<std::size_t>(a)].drives.front().ratio;
    s.actuator_limit_reaction[static_cast<std::size_t>(a)] +=
        sign * (impact[i] + lambda[i]) / dt / rho;
  }
  return acted || (lambda.array() != 0.0).any();
}

// The position correction of the object contacts (split impulse: Catto 2006, Erleben 2007;
// Bullet's "split impulse"): pseudo-velocities p that take `object_push` of each penetration
// beyond the slop out over the step, J p >= push / dt on the object contacts' normal rows of the
// last solve (same Delassus block, lambda >= 0, no friction). The free objects move by v + p
// (integrateObjects) and keep v: pushing apart brings no kinetic energy, however wrong a depth
// estimate is, where a velocity bias would leave the push in the bodies as speed.
void correctPositions(const Model& model, SimState& s) {
  StepWorkspace& w = s.work;
  w.velocity_position.setZero();
  const ContactOptions& co = model.options.contact;
  const auto nc = static_cast<Eigen::Index>(s.contacts.size());
  const auto ng = static_cast<Eigen::Index>(w.object_rows);
  if (ng == 0 || co.object_push == 0.0) return;
  auto push = w.row_push.head(ng);
  bool any = false;
  for (Eigen::Index k = 0; k < ng; ++k) {
    const double beyond = s.object_contacts[static_cast<std::size_t>(k)].depth - co.slop;
    push[k] = co.object_push * std::max(0.0, beyond) / model.options.dt;
    any = any || push[k] > 0.0;
  }
  if (!any) return;
  contact::PgsSettings settings;
  settings.sweeps = model.options.solver.sweeps;
  settings.tolerance = model.options.solver.tolerance;
  const auto delassus = w.delassus.block(nc, nc, ng, ng);
  settings.row_floor =
      model.options.solver.row_floor * (1.0 + delassus.diagonal().cwiseAbs().maxCoeff());
  contact::projectedGaussSeidel(w.rows.middleRows(nc, ng), w.minv_rows.middleCols(nc, ng), delassus,
                                push, settings, w.velocity_position, w.lambda_position.head(ng));
}

}  // namespace

void solveContacts(const Model& model, SimState& s) {
  const std::size_t na = model.actuatorCount();
  const double dt = model.options.dt;
  StepWorkspace& w = s.work;
  for (std::size_t a = 0; a < na; ++a) w.velocity_old[idx(a)] = s.actuator_velocity[a];
  for (std::size_t b = 0; b < w.bodies.size(); ++b) {
    const auto o = static_cast<std::size_t>(w.bodies[b].object);
    w.velocity_old.segment<6>(idx(na + 6 * b)) =
        w.body_of_object[o] >= 0 ? s.object_twist_world[o] : Twist::Zero();
  }
  // Limit rows: every actuator the unconstrained step would take out of its range, and every
  // one resting on a limit (a joint at rest on its stop stays there unless it moves away).
  w.velocity = w.velocity_old + w.acceleration * dt;
  w.limit_rows.clear();
  bool beyond = !s.contacts.empty() || w.object_rows > 0 || !s.link_contacts.empty();
  for (std::size_t a = 0; a < na; ++a) {
    const double p = s.actuator_position[a], predicted = p + w.velocity[idx(a)] * dt;
    beyond = beyond || predicted > w.upper[idx(a)] || predicted < w.lower[idx(a)];
    if (predicted > w.upper[idx(a)] || onLimit(p, w.upper[idx(a)]))
      w.limit_rows.emplace_back(idx(a), -1.0);
    if (predicted < w.lower[idx(a)] || onLimit(p, w.lower[idx(a)]))
      w.limit_rows.emplace_back(idx(a), 1.0);
  }
  // `beyond`: rows the unconstrained step itself runs into; then the accelerations are those of
  // the constrained velocities, as they have always been reported.
  bool acted = solveRows(model, s) || beyond;
  // Active set: the impulses of coupled rows (one finger's joints share their inertia) can
  // push another actuator out of its range; it gets its row and the step is solved again.
  for (std::size_t round = 0; round < na; ++round) {
    bool added = false;
    for (std::size_t a = 0; a < na; ++a) {
      const double predicted = s.actuator_position[a] + w.velocity[idx(a)] * dt;
      const double tol = 1e-12 * (1.0 + w.upper[idx(a)] - w.lower[idx(a)]);
      if (predicted > w.upper[idx(a)] + tol && !hasLimitRow(w, idx(a), -1.0)) {
        w.limit_rows.emplace_back(idx(a), -1.0);
        added = true;
      }
      if (predicted < w.lower[idx(a)] - tol && !hasLimitRow(w, idx(a), 1.0)) {
        w.limit_rows.emplace_back(idx(a), 1.0);
        added = true;
      }
    }
    if (!added) break;
    acted = solveRows(model, s) || acted;
  }
  // Unconstrained, the accelerations stay the dynamics' own (to the last bit).
  if (acted) w.acceleration = (w.velocity - w.velocity_old) / dt;
  correctPositions(model, s);
}

bool updateClutches(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  bool changed = false;
  for (std::size_t c = 0; c < hand.clutches.size(); ++c) {
    const auto& cm = hand.clutches[c];
    const auto fi = static_cast<std::size_t>(cm.inner.finger);
    const int inner_row = hand.fingers[fi].rowOfJoint(cm.inner.joint);
    const Eigen::Isometry3d to_base = fingerBaseWorld(model, s, cm.inner.finger).inverse();
    const kinematics::ChainFrames& frames = s.link_frames[fi];
    // Seed 000 eq. 9 with the external loads and this step's contact forces on the inner link.
    double load = 0.0;
    for (const LinkLoad& l : s.loads)
      if (l.finger == cm.inner.finger && l.row == inner_row)
        load += hand::innerLoadTorque(hand, cm, frames, to_base * l.point_world,
                                      to_base.linear() * l.force_world);
    for (const Contact& ct : s.contacts)
      if (ct.finger == cm.inner.finger && ct.row == inner_row && ct.force > 0.0)
        load += hand::innerLoadTorque(
            hand, cm, frames, to_base * ct.point_world, to_base.linear() * ct.forceOnLinkWorld(),
            to_base.linear() * (-ct.spin_moment * ct.normal_world));
    // Another finger (or the palm) pressing on the inner link loads the clutch the same way.
    for (const Contact& ct : s.link_contacts) {
      if (!(ct.force > 0.0)) continue;
      if (ct.finger == cm.inner.finger && ct.row == inner_row)
        load += hand::innerLoadTorque(hand, cm, frames, to_base * ct.point_world,
                                      to_base.linear() * ct.forceOnLinkWorld());
      if (ct.other_finger == cm.inner.finger && ct.other_row == inner_row)
        load += hand::innerLoadTorque(hand, cm, frames, to_base * ct.point_world,
                                      to_base.linear() * ct.forceOnObjectWorld());
    }
    s.inner_load_torque[c] = load;
    const auto a = static_cast<std::size_t>(cm.actuator);
    // A finger stopped by an object does not move, but its motor still drives it closed: judge
    // the direction by the velocity, or by the servo's push when the finger stands still.
    const double rho = hand.actuators[a].drives.front().ratio;
    const double drive = std::abs(s.actuator_velocity[a]) > model.options.solver.standstill_speed
                             ? s.actuator_velocity[a]
                             : rho * s.actuator_effort[a];
    const auto ev =
        hand::updateClutch(hand, cm, s.clutches[c], s.actuator_position[a], drive, load);
    if (ev == hand::ClutchEvent::BrokeAway) {
      addWarning(s, "clutch of " + hand.actuators[a].name + " broke away at " +
                        std::to_string(s.actuator_position[a]) + " " + hand.actuators[a].unit);
      changed = true;
    } else if (ev == hand::ClutchEvent::Reengaged) {
      changed = true;
    }
  }
  return changed;
}

void computeJointTorques(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  StepWorkspace& w = s.work;
  const double dt = model.options.dt;
  const auto na = idx(hand.actuators.size());
  const bool impact = w.velocity_impact.head(na) != w.velocity_old.head(na);
  // The sustained contact forces count as external forces on their links. The torque is what the
  // drive applies over the step: an impact (an impulse of the contact and the stops, recorded in
  // columns of its own) is left out, with the velocity jump it made.
  for (const Contact& c : s.contacts) {
    if (c.force <= 0.0) continue;
    const auto f = static_cast<std::size_t>(c.finger);
    const Eigen::Isometry3d to_base = fingerBaseWorld(model, s, c.finger).inverse();
    w.external[f] += contact::linkPointJacobianTranspose(hand.fingers[f], s.link_frames[f], c.row,
                                                         to_base * c.point_world,
                                                         to_base.linear() * c.forceOnLinkWorld());
    // The torsional moment the object applies to the link (-spin_moment n).
    if (c.spin_moment != 0.0)
      w.external[f] += contact::linkAngularJacobianTranspose(
          hand.fingers[f], s.link_frames[f], c.row,
          to_base.linear() * (-c.spin_moment * c.normal_world));
  }
  // Link-link contacts load both links (the palm takes its share through the prescribed motion).
  for (const Contact& c : s.link_contacts) {
    if (c.force <= 0.0) continue;
    auto load = [&](int finger, int row, const Eigen::Vector3d& force_world) {
      const auto f = static_cast<std::size_t>(finger);
      const Eigen::Isometry3d to_base = fingerBaseWorld(model, s, finger).inverse();
      w.external[f] += contact::linkPointJacobianTranspose(
          hand.fingers[f], s.link_frames[f], row, to_base * c.point_world,
          to_base.linear() * force_world);
    };
    load(c.finger, c.row, c.forceOnLinkWorld());
    if (c.other_finger >= 0) load(c.other_finger, c.other_row, c.forceOnObjectWorld());
  }
  for (std::size_t f = 0; f < hand.fingers.size(); ++f) {
    kinematics::JointVector qdd_drive(static_cast<Eigen::Index>(w.drives[f].size()));
    for (std::size_t j = 0; j < w.drives[f].size(); ++j) {
      const auto& e = w.drives[f][j];
      const auto a = static_cast<Eigen::Index>(e.actuator);
      s.qdd[f][idx(j)] = e.ratio * w.acceleration[a];
      qdd_drive[idx(j)] = impact ? e.ratio * ((w.velocity[a] - w.velocity_impact[a]) / dt)
                                 : s.qdd[f][idx(j)];
    }
    const auto& terms = w.terms[f];
    s.tau[f] = terms.D * qdd_drive + terms.H + terms.C - w.external[f];
  }
}

namespace {

// Free objects: semi-implicit Euler on the centre of mass (its velocity at the end of the step
// moves it); the orientation turns by the Cayley rotation of the step's angular velocity, and
// the world angular momentum is the start's plus the contact impulses' (exact without them:
// rigid_body.hpp). Then the numerical guards.
void integrateObjects(const Model& model, SimState& s) {
  const StepWorkspace& w = s.work;
  const std::size_t na = model.actuatorCount();
  const double dt = model.options.dt;
  for (std::size_t b = 0; b < w.bodies.size(); ++b) {
    const FreeBodyScratch& body = w.bodies[b];
    const auto o = static_cast<std::size_t>(body.object);
    if (w.body_of_object[o] < 0) continue;
    const Eigen::Index slot = idx(na + 6 * b);
    const Eigen::Vector3d v = w.velocity.segment<3>(slot);
    const Eigen::Vector3d omega = w.velocity.segment<3>(slot + 3);
    const geometry::MassProperties& mp = model.objects[o].mass;
    Eigen::Isometry3d& pose = s.object_pose_world[o];
    // The position correction's pseudo-velocities move the body but are not kept.
    const Eigen::Vector3d com = body.com_world + (v + w.velocity_position.segment<3>(slot)) * dt;
    Eigen::Quaterniond q = cayleyRotation((omega + w.velocity_position.segment<3>(slot + 3)) * dt) *
                           Eigen::Quaterniond(pose.linear());
    q.normalize();
    const Eigen::Matrix3d R = q.toRotationMatrix();
    const Eigen::Vector3d momentum = body.inertia_world * (s.object_twist_world[o].tail<3>() +
                                                           omega - body.free_angular);
    const Eigen::Vector3d omega_end =
        R * mp.inertia_com.inverse() * (R.transpose() * momentum);
    if (!com.allFinite() || !R.allFinite() || !v.allFinite() || !omega_end.allFinite()) {
      stopObject(model, s, o, "got a non-finite state");
    } else if (com.cwiseAbs().maxCoeff() > kWorldHalfExtent) {
      stopObject(model, s, o,
                 "left the world box (|x|, |y|, |z| <= " + std::to_string(kWorldHalfExtent) +
                     " m)");
    } else if (v.norm() > kRunawayObjectSpeed || omega_end.norm() > kRunawayObjectSpin) {
      stopObject(model, s, o,
                 "runs away at " + std::to_string(v.norm()) + " m/s, " +
                     std::to_string(omega_end.norm()) + " rad/s (bounds " +
                     std::to_string(kRunawayObjectSpeed) + " m/s, " +
                     std::to_string(kRunawayObjectSpin) + " rad/s)");
    } else {
      pose.linear() = R;
      pose.translation() = com - R * mp.centre_of_mass;
      s.object_twist_world[o] << v, omega_end;
    }
  }
}

}  // namespace

void integrate(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  const double dt = model.options.dt;
  StepWorkspace& w = s.work;
  // Semi-implicit Euler; the clamp only removes rounding beyond the limits.
  for (std::size_t a = 0; a < hand.actuators.size(); ++a) {
    const auto ai = idx(a);
    double vel = w.velocity[ai];
    double p = std::clamp(s.actuator_position[a] + vel * dt, w.lower[ai], w.upper[ai]);
    if (!std::isfinite(p) || !std::isfinite(vel)) {
      addWarning(s, hand.actuators[a].name + ": state became non-finite; held in place");
      p = s.actuator_position[a];
      vel = 0.0;
      w.acceleration[ai] = 0.0;
    }
    s.actuator_position[a] = p;
    s.actuator_velocity[a] = vel;
    s.actuator_acceleration[a] = w.acceleration[ai];
  }
  integrateObjects(model, s);
  s.time += dt;
  ++s.step;
}

void step(const Model& model, SimState& s) {
  // A copied state comes without its scratch (StepWorkspace is not copied).
  if (s.work.drives.size() != model.fingerCount() ||
      s.work.mass.rows() != idx(model.actuatorCount()) ||
      s.work.bodies.size() != freeObjectCount(model) ||
      s.work.body_of_object.size() != model.objects.size())
    sizeWorkspace(model, s);
  if (s.object_stopped.size() != model.objects.size()) matchObjects(model, s);
  // seed004 hooks (sim/penalty_contacts.hpp): the penalty stage replaces the contact rows; the
  // solver then sees only the actuator limits.
  const bool seed004 = model.options.contact.model == ContactModel::Seed004;
  if (!seed004) detectContacts(model, s);
  computeActuation(model, s);
  computeDynamics(model, s);
  if (seed004) computePenaltyContacts(model, s);
  solveContacts(model, s);
  if (seed004) publishPenaltyContacts(s);
  if (updateClutches(model, s)) {
    // The transmission changed (eq. 10): the joints follow the actuators anew, and the
    // dynamics and the contact forces are solved again for it.
    forwardPosition(model, s);
    computeDynamics(model, s);
    if (seed004) applyPenaltyContacts(model, s);
    solveContacts(model, s);
    if (seed004) publishPenaltyContacts(s);
  }
  computeJointTorques(model, s);
  beginContinuousCollision(model, s);
  integrate(model, s);
  applyContinuousCollision(model, s);
  forwardPosition(model, s);
  checkRunaway(model, s);
}

void checkRunaway(const Model& model, SimState& s) {
  const hand::HandModel& hand = model.hand();
  for (std::size_t f = 0; f < s.qd.size(); ++f)
    for (Eigen::Index j = 0; j < s.qd[f].size(); ++j)
      if (!(std::abs(s.qd[f][j]) <= kRunawayJointSpeed))
        addWarning(s, "runaway: " + hand.jointName({static_cast<int>(f), static_cast<int>(j)}) +
                          " moves at " + std::to_string(s.qd[f][j]) + " (bound " +
                          std::to_string(kRunawayJointSpeed) + ")");
  for (const std::vector<Contact>* list : {&s.contacts, &s.link_contacts})
    for (const Contact& c : *list)
      if (!(c.force <= kRunawayContactForce))
        addWarning(s, "runaway: a contact on " +
                          hand.fingers[static_cast<std::size_t>(c.finger)].name + " pushes with " +
                          std::to_string(c.force) + " N (bound " +
                          std::to_string(kRunawayContactForce) + " N)");
}

}  // namespace handsim::sim
