// SPDX-License-Identifier: GPL-3.0-or-later
// The contact query of two bodies, whatever their collision shapes (docs/collision.md).
#include "handsim/sim/body_pair.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/primitive_contact.hpp"
#include "handsim/collision/sphere_contact.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/geometry/tangent_basis.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {
namespace {

// The distinct extreme points of a patch's intersection points `pts` (A's frame) in eight
// directions of the tangent plane of `normal`: the corners of its polygon, so that a box resting
// on a face is carried at its corners and does not rock. Written to the front of `pts`; returns
// their number (1 to 8).
std::size_t patchCorners(std::vector<Eigen::Vector3d>& pts, const Eigen::Vector3d& normal) {
  Eigen::Vector3d t1, t2;
  geometry::tangentBasis(normal, t1, t2);
  constexpr double kHalf = 0.70710678118654752440;
  const Eigen::Vector3d dirs[8] = {t1,  kHalf * (t1 + t2),  t2,  kHalf * (t2 - t1),
                                   -t1, -kHalf * (t1 + t2), -t2, kHalf * (t1 - t2)};
  std::size_t picked[8];
  std::size_t count = 0;
  double extent = 0.0;
  for (const Eigen::Vector3d& p : pts) extent = std::max(extent, (p - pts.front()).norm());
  const double same = 1e-6 * extent + 1e-12;
  for (const Eigen::Vector3d& d : dirs) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < pts.size(); ++i)
      if (d.dot(pts[i]) > d.dot(pts[best])) best = i;
    bool seen = false;
    for (std::size_t k = 0; k < count; ++k)
      seen = seen || (pts[picked[k]] - pts[best]).norm() <= same;
    if (!seen) picked[count++] = best;
  }
  // The picks in ascending index order, so moving them to the front overwrites none unread.
  for (std::size_t k = 1; k < count; ++k)
    for (std::size_t m = k; m > 0 && picked[m - 1] > picked[m]; --m)
      std::swap(picked[m - 1], picked[m]);
  for (std::size_t k = 0; k < count; ++k) pts[k] = pts[picked[k]];
  return count;
}

// The corners (patchCorners) of a patch's intersection points, written to the front of `pts`.
std::size_t patchPoints(const collision::ContactScratch& scratch,
                        const collision::ContactPatch& patch, std::vector<Eigen::Vector3d>& pts) {
  pts.clear();
  for (int i : patch.contacts) {
    const collision::TriangleIntersection& in =
        scratch.pairs[static_cast<std::size_t>(i)].intersection;
    if (in.kind == collision::TriangleContactKind::Coplanar) {
      for (int v = 0; v < in.polygon_size; ++v)
        pts.push_back(in.polygon[static_cast<std::size_t>(v)]);
    } else {
      pts.push_back(in.p0);
      pts.push_back(in.p1);
    }
  }
  if (pts.empty()) pts.push_back(patch.point);
  return patchCorners(pts, patch.normal);
}

// A sphere (body `s`) against body `o` in closed form: sphere, box, cylinder, else any convex
// hull; the normal times `sign` (1: from s into o). False when `o` has none of them.
bool spherePair(const CollisionBody& s, const Eigen::Isometry3d& s_pose, const CollisionBody& o,
                const Eigen::Isometry3d& o_pose, double sign, std::vector<BodyPairContact>& out) {
  collision::SphereContact c;
  bool hit = false;
  if (o.sphere)
    hit = collision::sphereSphereContact(*s.sphere, s_pose, *o.sphere, o_pose, c);
  else if (o.box)
    hit = collision::sphereBoxContact(*s.sphere, s_pose, *o.box, o_pose, c);
  else if (o.cylinder)
    hit = collision::sphereCylinderContact(*s.sphere, s_pose, *o.cylinder, o_pose, c);
  else if (!o.hull.empty())
    hit = collision::sphereHullContact(*s.sphere, s_pose, o.hull, o_pose, c);
  else
    return false;
  if (hit) out.push_back({c.point, sign * c.normal, c.depth});
  return true;
}

// The analytic primitives' closed forms (docs/collision.md): true when the pair has one (its
// contacts then in `out`). A primitive against a non-convex mesh, or a box or cylinder against
// a hull or a cylinder, has none: its tessellation (a box's is exact) goes on.
bool primitivePair(const CollisionBody& a, const Eigen::Isometry3d& a_pose, const CollisionBody& b,
                   const Eigen::Isometry3d& b_pose, std::vector<BodyPairContact>& out) {
  if (a.sphere && spherePair(a, a_pose, b, b_pose, 1.0, out)) return true;
  if (b.sphere && spherePair(b, b_pose, a, a_pose, -1.0, out)) return true;
  if (a.box && b.box) {
    collision::ConvexManifold m;
    if (collision::boxBoxContact(*a.box, a_pose, *b.box, b_pose, m))
      for (int k = 0; k < m.count; ++k)
        out.push_back({m.points[static_cast<std::size_t>(k)], m.normal,
                       m.depths[static_cast<std::size_t>(k)]});
    return true;
  }
  return false;
}

}  // namespace

bool hasClosedForm(const CollisionBody& a, const CollisionBody& b) {
  const auto sphereWith = [](const CollisionBody& o) {
    return o.sphere || o.box || o.cylinder || !o.hull.empty();
  };
  return (a.sphere && sphereWith(b)) || (b.sphere && sphereWith(a)) || (a.box && b.box);
}

void queryBodyPair(const CollisionBody& a, const Eigen::Isometry3d& a_pose, const CollisionBody& b,
                   const Eigen::Isometry3d& b_pose, PatchPoints points, StepWorkspace& work,
                   std::vector<BodyPairContact>& out) {
  out.clear();
  if (!bodiesMayTouch(a, a_pose, b, b_pose)) return;
  if (primitivePair(a, a_pose, b, b_pose, out)) return;
  // Two hulls, or a hull and a convex mesh (its own hull, so the answer is as exact); with
  // `Manifold`, two convex meshes as well.
  const bool hull_pair =
      (points == PatchPoints::Manifold || a.shape == collision::CollisionShape::Hull ||
       b.shape == collision::CollisionShape::Hull) &&
      !a.hull.empty() && !b.hull.empty();
  if (hull_pair) {
    collision::ConvexManifold& m = work.manifold;
    if (!collision::convexContact(a.hull, a_pose, b.hull, b_pose, work.convex, m)) return;
    for (int k = 0; k < m.count; ++k)
      out.push_back(
          {m.points[static_cast<std::size_t>(k)], m.normal, m.depths[static_cast<std::size_t>(k)]});
    return;
  }
  const Eigen::Isometry3d b_in_a = a_pose.inverse() * b_pose;
  collision::ContactScratch& scratch = work.collision;
  collision::allContacts(a.tree, b.tree, b_in_a, work.frontier, scratch, scratch.pairs);
  if (scratch.pairs.empty()) return;
  const std::size_t patches =
      collision::buildContactPatches(a.mesh, b.mesh, b_in_a, scratch.pairs, scratch);
  for (std::size_t k = 0; k < patches; ++k) {
    const collision::ContactPatch& patch = scratch.patches[k];
    if (patch.normal.squaredNorm() == 0.0) continue;
    // The patch normal points out of B into A; ours from A into B.
    const Eigen::Vector3d normal = -(a_pose.linear() * patch.normal);
    if (points == PatchPoints::Centre) {
      out.push_back({a_pose * patch.point, normal, patch.depth_m});
      continue;
    }
    const std::size_t corners = patchPoints(scratch, patch, work.patch_points);
    for (std::size_t i = 0; i < corners; ++i)
      out.push_back({a_pose * work.patch_points[i], normal, patch.depth_m});
  }
}

}  // namespace handsim::sim
