// SPDX-License-Identifier: GPL-3.0-or-later
// Contact patches: intersection segments chained into connected pieces, each reduced to a point
// contact (seed 000, section IV: normal = area-weighted sum of the patch triangles' normals,
// point = centre of the patch's bounding box), with a depth measured from both meshes.
#pragma once

#include <Eigen/Geometry>
#include <cstddef>
#include <vector>

#include "handsim/collision/tree_collision.hpp"
#include "handsim/geometry/triangle_mesh.hpp"

namespace handsim::collision {

/// How segments are chained.
struct ContactPatchOptions {
  /// Two contacts belong to one patch when one of their end points (or coplanar-overlap polygon
  /// vertices) lies within this distance of one of the other's [m].
  double join_tolerance_m = 1e-7;
};

/// One connected patch of the intersection between a link (mesh A) and an object (mesh B),
/// reduced to a point contact. Everything is expressed in the link's frame (A).
struct ContactPatch {
  /// Centre of the bounding box of the patch's intersection points [m].
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
  /// Unit contact normal, out of the object (B) into the link (A): along the intersection
  /// curve, the outward unit normal of the object's triangle minus the link's, weighted by the
  /// length of each triangle pair's segment (coplanar overlaps, by area, only when the patch
  /// has no crossing pair). The same line whichever mesh is called A (swapping them flips its
  /// sign); zero when the sum cancels.
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();
  /// Penetration estimate [m], symmetric in the two meshes: with the plane through `point`
  /// normal to `normal`, the largest distance below it (into the object) of the link's patch
  /// triangles plus the largest distance above it (into the link) of the object's, each
  /// triangle clipped first to the patch (the rectangle its intersection points span in the
  /// tangent plane), so far vertices of large triangles do not count; 0 when nothing
  /// lies beyond the plane, and when the normal is zero.
  double depth_m = 0.0;
  /// Sum of the areas of the object's triangles in the patch (the normal's weight) [m^2].
  double object_area_m2 = 0.0;
  /// Bounding box of the patch's intersection points [m].
  geometry::Aabb bounds;
  /// Indices into the contacts passed to `buildContactPatches`.
  std::vector<int> contacts;
  /// Distinct link (A) and object (B) triangle indices in the patch, ascending.
  std::vector<int> link_triangles;
  std::vector<int> object_triangles;
};

/// Chains the triangle-pair contacts of `allContacts(link_tree, object_tree, object_in_link)`
/// into patches and reduces each to a point contact. `link` and `object` are the meshes the
/// trees were built from; `object_in_link` maps object coordinates into link coordinates.
/// Patches come out ordered by their smallest contact index. Allocates its result and work
/// buffers; the overload taking a `ContactScratch` does not once warm.
std::vector<ContactPatch> buildContactPatches(const geometry::TriangleMesh& link,
                                              const geometry::TriangleMesh& object,
                                              const Eigen::Isometry3d& object_in_link,
                                              const std::vector<TrianglePairContact>& contacts,
                                              const ContactPatchOptions& options = {});

/// Same patches as the overload above (equal bit for bit, same order), written into
/// `scratch.patches[0, count)` where `count` is the returned number of patches; elements from
/// `count` on are stale and kept only for their capacity. Every work buffer is `scratch`'s
/// (defined in contact_scratch.hpp), reused with its capacity, so a call allocates only when a
/// buffer must grow beyond any earlier call's needs. `contacts` may be `scratch.pairs`. Throws
/// std::invalid_argument when `options.join_tolerance_m` is not positive.
std::size_t buildContactPatches(const geometry::TriangleMesh& link,
                                const geometry::TriangleMesh& object,
                                const Eigen::Isometry3d& object_in_link,
                                const std::vector<TrianglePairContact>& contacts,
                                ContactScratch& scratch, const ContactPatchOptions& options = {});

}  // namespace handsim::collision
