// SPDX-License-Identifier: GPL-3.0-or-later
// The free objects (docs/free-objects.md): rigid bodies with six velocities each in the solve,
// after the actuators. Their unconstrained step before the solve, their integration after it,
// and the numerical guards that stop a body whose state is lost.
#include <string>

#include "handsim/sim/rigid_body.hpp"
#include "handsim/sim/stability.hpp"
#include "handsim/sim/step.hpp"
#include "stages.hpp"

namespace handsim::sim::stages {

// Gravity and the torque-free midpoint rotation (seed 004 eq. 1-2), plus any applied wrench.
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
    const Eigen::Vector3d w_mid =
        midpointAngularVelocity(mp.inertia_com, mp.inertia_com * (R.transpose() * omega), dt);
    body.free_angular = R * w_mid;
    // Seed 004 eq. 1: gravity at the centre of mass.
    w.acceleration.segment<3>(slot) = model.options.gravity_world;
    w.acceleration.segment<3>(slot + 3) = (body.free_angular - omega) / dt;
    if (o < s.object_applied_wrench_world.size()) {  // an applied force and torque
      const Twist& f = s.object_applied_wrench_world[o];
      w.acceleration.segment<3>(slot) += f.head<3>() / mp.mass_kg;
      w.acceleration.segment<3>(slot + 3) += body.inverse_inertia_world * f.tail<3>();
    }
    w.body_of_object[o] = static_cast<int>(b);
  }
}

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
    const Eigen::Vector3d momentum =
        body.inertia_world * (s.object_twist_world[o].tail<3>() + omega - body.free_angular);
    const Eigen::Vector3d omega_end = R * mp.inertia_com.inverse() * (R.transpose() * momentum);
    if (!com.allFinite() || !R.allFinite() || !v.allFinite() || !omega_end.allFinite()) {
      stopObject(model, s, o, "got a non-finite state");
    } else if (com.cwiseAbs().maxCoeff() > kWorldHalfExtent) {
      stopObject(
          model, s, o,
          "left the world box (|x|, |y|, |z| <= " + std::to_string(kWorldHalfExtent) + " m)");
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

}  // namespace handsim::sim::stages
