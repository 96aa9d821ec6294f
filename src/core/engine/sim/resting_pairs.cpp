// SPDX-License-Identifier: GPL-3.0-or-later
// Resting-pair reuse of contact geometry (sim/resting_pairs.hpp).
#include "handsim/sim/resting_pairs.hpp"

#include "handsim/sim/model.hpp"
#include "handsim/sim/sim_state.hpp"

namespace handsim::sim {

double relativeDisplacementBound(const Eigen::Isometry3d& b_in_a_before,
                                 const Eigen::Isometry3d& b_in_a_now, const CollisionBody& b) {
  const double reach = b.centre.norm() + b.radius;
  return (b_in_a_now.translation() - b_in_a_before.translation()).norm() +
         (b_in_a_now.linear() - b_in_a_before.linear()).norm() * reach;
}

void RestingPairs::beginStep() {
  pairs.swap(previous_pairs);
  contacts.swap(previous_contacts);
  pairs.clear();
  contacts.clear();
}

void queryRestingPair(const CollisionBody& a, const Eigen::Isometry3d& a_pose, int body_a,
                      const CollisionBody& b, const Eigen::Isometry3d& b_pose, int body_b,
                      PatchPoints points, double tolerance, RestingPairs& memory,
                      StepWorkspace& work, std::vector<BodyPairContact>& out) {
  ++work.pair_queries;
  // An analytic sphere against a sphere or a hull is a closed form, as cheap as the reuse
  // itself: always answered exactly.
  const bool closed_form = (a.sphere && (b.sphere || !b.hull.empty())) ||
                           (b.sphere && !a.hull.empty());
  if (!(tolerance > 0.0) || closed_form) {
    queryBodyPair(a, a_pose, b, b_pose, points, work, out);
    return;
  }
  const RestingPair* before = nullptr;
  for (const RestingPair& p : memory.previous_pairs)
    if (p.body_a == body_a && p.body_b == body_b) {
      before = &p;
      break;
    }
  // Most pairs queried are apart and were apart: no relative pose is needed for them.
  if (before) {
    const Eigen::Isometry3d b_in_a = a_pose.inverse() * b_pose;
    if (relativeDisplacementBound(before->b_in_a, b_in_a, b) <= tolerance) {
      // B's motion relative to A since the anchor, in A's frame: a contact's depth changes by
      // B's approach along the normal at its point (exact for a face of A against B's
      // features).
      ++work.resting_reuses;
      const Eigen::Isometry3d motion = b_in_a * before->b_in_a.inverse();
      memory.pairs.push_back({body_a, body_b, before->b_in_a, memory.contacts.size(), before->count});
      out.clear();
      for (std::size_t k = before->first; k < before->first + before->count; ++k) {
        const BodyPairContact& c = memory.previous_contacts[k];
        memory.contacts.push_back(c);
        const double approach = -c.normal_world.dot(motion * c.point_world - c.point_world);
        out.push_back(
            {a_pose * c.point_world, a_pose.linear() * c.normal_world, c.depth + approach});
      }
      return;
    }
  }
  queryBodyPair(a, a_pose, b, b_pose, points, work, out);
  if (out.empty()) return;
  const Eigen::Isometry3d to_a = a_pose.inverse();
  memory.pairs.push_back({body_a, body_b, to_a * b_pose, memory.contacts.size(), out.size()});
  for (const BodyPairContact& c : out)
    memory.contacts.push_back({to_a * c.point_world, to_a.linear() * c.normal_world, c.depth});
}

}  // namespace handsim::sim
