// SPDX-License-Identifier: GPL-3.0-or-later
// The collision stage of the default contact model: which body pairs are queried and what
// contacts each gives (docs/collision.md). Free objects against the ground plane, the palm and
// each other; links against objects; links against links of other fingers and the palm. Every
// contact leaves here with its point, normal and depth; forces are the solver's.
#include <algorithm>
#include <cmath>

#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/sim/body_pair.hpp"
#include "handsim/sim/resting_pairs.hpp"
#include "handsim/sim/step.hpp"
#include "stages.hpp"

namespace handsim::sim {

using stages::isMoving;

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
    const double margin = stages::constraintOptions(model).slop +
                          2.0 * dt *
                              (twist.head<3>().norm() + twist.tail<3>().norm() * reach +
                               model.options.gravity_world.norm() * dt);
    // The bounding sphere first.
    if ((pose * obj.geometry->collision.centre).z() - obj.geometry->collision.radius >
        ground.height + margin)
      continue;
    const auto add = [&](const Eigen::Vector3d& p) {
      Contact c;
      c.object = static_cast<int>(o);
      c.other = kGround;
      c.point_world = p;
      c.normal_world = Eigen::Vector3d::UnitZ();
      c.depth = ground.height - p.z();
      s.object_contacts.push_back(c);
    };
    // An analytic sphere rests on its one lowest point, below its centre.
    if (const auto& ball = obj.geometry->collision.sphere) {
      const Eigen::Vector3d lowest = pose * ball->centre - ball->radius * Eigen::Vector3d::UnitZ();
      if (ground.height - lowest.z() >= -margin) add(lowest);
      continue;
    }
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

// Contacts of body X (object `object`) pushed by body Y (`other`: kPalm or an object): two
// convex bodies through the convex narrow phase (its manifold, each point with its depth),
// others by the patches of the k-DOP pipeline between the two meshes, each reduced to the
// corners of its intersection polygon, all with the patch's normal (out of Y into X) and depth
// (of X's vertices below Y's surface, contact_patch.hpp).
void addBodyPairContacts(const Model& model, const CollisionBody& x,
                         const Eigen::Isometry3d& x_pose, const CollisionBody& y,
                         const Eigen::Isometry3d& y_pose, int object, int other, SimState& s) {
  const int y_id = other == kPalm ? BodyTable::kPalmId : model.bodies.object(other);
  queryRestingPair(x, x_pose, model.bodies.object(object), y, y_pose, y_id, PatchPoints::Manifold,
                   stages::constraintOptions(model).resting_tolerance, s.resting_pairs, s.work,
                   s.work.pair_contacts);
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

// The broad phase's first test on centres already in the world frame: true when the two
// bounding spheres are apart (bodiesMayTouch's own first test, computed alike, so a pair it
// passes is the pair bodiesMayTouch passes).
bool spheresApart(const Eigen::Vector3d& a_centre_world, const CollisionBody& a,
                  const Eigen::Vector3d& b_centre_world, const CollisionBody& b) {
  return (a_centre_world - b_centre_world).norm() > a.radius + b.radius;
}

// Every link's world pose and bounding-sphere centre, once per step (flattened finger by
// finger, HandGeometry::link_offset's order), for the link-link and link-object pairs.
void computeLinkBounds(const Model& model, SimState& s) {
  const HandGeometry& geometry = *model.hand_geometry;
  std::vector<Eigen::Isometry3d>& poses = s.work.link_poses;
  std::vector<Eigen::Vector3d>& centres = s.work.link_centres;
  poses.clear();
  centres.clear();
  for (std::size_t f = 0; f < geometry.links.size(); ++f)
    for (std::size_t r = 0; r < geometry.links[f].size(); ++r) {
      poses.push_back(linkPoseWorld(model, s, static_cast<int>(f), static_cast<int>(r)));
      centres.push_back(poses.back() * geometry.links[f][r].collision.centre);
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
  const double tolerance = stages::constraintOptions(model).resting_tolerance;
  auto collide = [&](const CollisionBody& a, const Eigen::Isometry3d& a_pose,
                     const CollisionBody& b, const Eigen::Isometry3d& b_pose, int f, int r, int of,
                     int orow) {
    const int b_id = of < 0 ? BodyTable::kPalmId : model.bodies.link(of, orow);
    queryRestingPair(a, a_pose, model.bodies.link(f, r), b, b_pose, b_id, PatchPoints::Corners,
                     tolerance, s.resting_pairs, s.work, s.work.pair_contacts);
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
  const std::vector<Eigen::Isometry3d>& poses = s.work.link_poses;
  const std::vector<Eigen::Vector3d>& centres = s.work.link_centres;
  const Eigen::Vector3d palm_centre = s.palm_pose_world * palm.centre;
  for (std::size_t f = 0, base_f = 0; f < nf; base_f += geometry.links[f].size(), ++f) {
    const std::size_t first = firstLink(f);
    for (std::size_t r = first; r < geometry.links[f].size(); ++r) {
      const CollisionBody& link = geometry.links[f][r].collision;
      if (link.empty()) continue;
      const Eigen::Isometry3d& pose = poses[base_f + r];
      const Eigen::Vector3d& centre = centres[base_f + r];
      if (r != first && !palm.empty() && !spheresApart(centre, link, palm_centre, palm) &&
          !geometry.excluded(static_cast<int>(f), static_cast<int>(r), -1, -1))
        collide(link, pose, palm, s.palm_pose_world, static_cast<int>(f), static_cast<int>(r), -1,
                -1);
      for (std::size_t g = f + 1, base_g = base_f + geometry.links[f].size(); g < nf;
           base_g += geometry.links[g].size(), ++g)
        for (std::size_t q = 0; q < geometry.links[g].size(); ++q) {
          const CollisionBody& other = geometry.links[g][q].collision;
          if (other.empty() || spheresApart(centre, link, centres[base_g + q], other) ||
              geometry.excluded(static_cast<int>(f), static_cast<int>(r), static_cast<int>(g),
                                static_cast<int>(q)))
            continue;
          collide(link, pose, other, poses[base_g + q], static_cast<int>(f), static_cast<int>(r),
                  static_cast<int>(g), static_cast<int>(q));
        }
    }
  }
}

}  // namespace

namespace {
void detectObjectContacts(const Model& model, SimState& s);
}  // namespace

void detectContacts(const Model& model, SimState& s) {
  // Last step's contacts, with their impulses, for the warm start of this step's solve.
  StepWorkspace& w = s.work;
  w.previous_contacts.assign(s.contacts.begin(), s.contacts.end());
  w.previous_object_contacts.assign(
      s.object_contacts.begin(),
      s.object_contacts.begin() +
          static_cast<std::ptrdiff_t>(std::min(w.object_rows, s.object_contacts.size())));
  w.previous_link_contacts.assign(s.link_contacts.begin(), s.link_contacts.end());
  w.previous_limit_reaction.assign(s.actuator_limit_reaction.begin(),
                                   s.actuator_limit_reaction.end());
  s.contacts.clear();
  s.object_contacts.clear();
  s.link_contacts.clear();
  s.work.object_rows = 0;
  s.resting_pairs.beginStep();
  computeLinkBounds(model, s);
  detectLinkContacts(model, s);
  detectObjectContacts(model, s);
  for (std::vector<Contact>* list : {&s.contacts, &s.object_contacts, &s.link_contacts})
    nameContactBodies(model.bodies, *list);
}

namespace {

// The objects' contacts: with the ground, the palm, each other (object_contacts) and the links
// (contacts).
void detectObjectContacts(const Model& model, SimState& s) {
  if (model.objects.empty()) return;
  if (model.options.ground.enabled) detectGroundContacts(model, s);
  const HandGeometry& geometry = *model.hand_geometry;
  // Moving objects against the palm and against the other objects (each pair of moving ones
  // once: the patches are the same whichever is mesh X, contact_patch.hpp; a fixed or stopped
  // one only pushes).
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    if (!isMoving(model, s, o)) continue;
    const CollisionBody& body = model.objects[o].geometry->collision;
    addBodyPairContacts(model, body, s.object_pose_world[o], geometry.palm.collision,
                        s.palm_pose_world, static_cast<int>(o), kPalm, s);
    for (std::size_t p = 0; p < model.objects.size(); ++p) {
      if (p == o || (isMoving(model, s, p) && p < o)) continue;
      addBodyPairContacts(model, body, s.object_pose_world[o], model.objects[p].geometry->collision,
                          s.object_pose_world[p], static_cast<int>(o), static_cast<int>(p), s);
    }
  }
  // Links against objects; each object's bounding-sphere centre once.
  std::vector<Eigen::Vector3d>& object_centres = s.work.object_centres;
  object_centres.clear();
  const double tolerance = stages::constraintOptions(model).resting_tolerance;
  for (std::size_t o = 0; o < model.objects.size(); ++o)
    object_centres.push_back(s.object_pose_world[o] * model.objects[o].geometry->collision.centre);
  for (std::size_t f = 0, base_f = 0; f < geometry.links.size();
       base_f += geometry.links[f].size(), ++f) {
    for (std::size_t r = 0; r < geometry.links[f].size(); ++r) {
      const CollisionBody& link = geometry.links[f][r].collision;
      if (link.empty()) continue;
      const Eigen::Isometry3d& link_pose = s.work.link_poses[base_f + r];
      const Eigen::Vector3d& link_centre = s.work.link_centres[base_f + r];
      for (std::size_t o = 0; o < model.objects.size(); ++o) {
        const CollisionBody& obj = model.objects[o].geometry->collision;
        if (obj.empty() || spheresApart(link_centre, link, object_centres[o], obj)) continue;
        queryRestingPair(
            link, link_pose, model.bodies.link(static_cast<int>(f), static_cast<int>(r)), obj,
            s.object_pose_world[o], model.bodies.object(static_cast<int>(o)), PatchPoints::Centre,
            tolerance, s.resting_pairs, s.work, s.work.pair_contacts);
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

}  // namespace

bool handTouchesObjects(const Model& model, const SimState& s) {
  auto touches = [&](const CollisionBody& body, const Eigen::Isometry3d& pose) {
    for (std::size_t o = 0; o < model.objects.size(); ++o) {
      const CollisionBody& obj = model.objects[o].geometry->collision;
      const Eigen::Isometry3d& object_pose = s.object_pose_world[o];
      if (!bodiesMayTouch(body, pose, obj, object_pose)) continue;
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

}  // namespace handsim::sim
