// SPDX-License-Identifier: GPL-3.0-or-later
// The contact query of two bodies, whatever their collision shapes (docs/collision.md).
#include "handsim/sim/body_pair.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "handsim/collision/contact_patch.hpp"
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

}  // namespace

void queryBodyPair(const CollisionBody& a, const Eigen::Isometry3d& a_pose, const CollisionBody& b,
                   const Eigen::Isometry3d& b_pose, PatchPoints points, StepWorkspace& work,
                   std::vector<BodyPairContact>& out) {
  out.clear();
  if (!bodiesMayTouch(a, a_pose, b, b_pose)) return;
  // Analytic spheres (docs/collision.md): a sphere against a sphere, or against a body with a
  // convex hull, in closed form; one point, the same whichever body comes first.
  if (a.sphere || b.sphere) {
    collision::SphereContact c;
    if (a.sphere && b.sphere) {
      if (collision::sphereSphereContact(*a.sphere, a_pose, *b.sphere, b_pose, c))
        out.push_back({c.point, c.normal, c.depth});
      return;
    }
    if (a.sphere && !b.hull.empty()) {
      if (collision::sphereHullContact(*a.sphere, a_pose, b.hull, b_pose, c))
        out.push_back({c.point, c.normal, c.depth});
      return;
    }
    if (b.sphere && !a.hull.empty()) {
      // The sphere's normal points into A: ours from A into B is its opposite.
      if (collision::sphereHullContact(*b.sphere, b_pose, a.hull, a_pose, c))
        out.push_back({c.point, -c.normal, c.depth});
      return;
    }
    // A sphere against a non-convex mesh: the tessellation through the k-DOP pipeline.
  }
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
