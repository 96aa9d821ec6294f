// SPDX-License-Identifier: GPL-3.0-or-later
// The contact query of two bodies (docs/collision.md, "Collision shapes"): whatever each body
// collides as, the contact points between them. The contact stage's three pair kinds (link and
// object, link and link or palm, object and palm or object) all ask it.
#pragma once

#include <Eigen/Geometry>
#include <vector>

namespace handsim::sim {

struct CollisionBody;  // sim/model.hpp
struct StepWorkspace;  // sim/sim_state.hpp

/// One contact point between bodies A and B, world frame.
struct BodyPairContact {
  Eigen::Vector3d point_world = Eigen::Vector3d::Zero();   ///< [m]
  Eigen::Vector3d normal_world = Eigen::Vector3d::Zero();  ///< unit, from A into B
  double depth = 0.0;                                      ///< penetration [m], >= 0
};

/// What an exact-mesh patch gives: its centre (one point per patch) or the corners of its
/// intersection polygon (up to 8, each with the patch's depth). Two hulls always give their
/// manifold (up to collision::kMaxManifoldPoints, each with its own depth). `Manifold`: two
/// convex bodies (a convex mesh's hull is exactly its shape) give the convex narrow phase's
/// manifold even when neither asks to collide as a hull, other pairs their patches' corners:
/// the pairs of objects among themselves and with the palm, where the manifold is the same
/// surface as the meshes' at a fraction of the cost (docs/collision.md).
enum class PatchPoints { Centre, Corners, Manifold };

/// The contacts of bodies `a` and `b` at their poses (body -> world), written to `out` (cleared
/// first): two hulls through the convex narrow phase (collision/convex_contact.hpp); otherwise
/// the k-DOP pipeline on the two meshes (a hull body's mesh is its hull's triangulation), one
/// contact per patch or per patch corner (`points`), in the patches' order. Empty bodies and
/// pairs whose bounding spheres or boxes are apart give nothing. Uses the workspace's
/// narrow-phase scratch and frontier cache; allocates nothing once warm.
void queryBodyPair(const CollisionBody& a, const Eigen::Isometry3d& a_pose, const CollisionBody& b,
                   const Eigen::Isometry3d& b_pose, PatchPoints points, StepWorkspace& work,
                   std::vector<BodyPairContact>& out);

}  // namespace handsim::sim
