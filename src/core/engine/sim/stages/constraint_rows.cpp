// SPDX-License-Identifier: GPL-3.0-or-later
// The rows of the velocity solve (docs/simulation.md): each unilateral constraint is a row J of
// the generalised velocities (the actuators, then six per free body) and a right-hand side b,
// asking J v >= b. A contact's normal row is the velocity of approach of its two bodies along
// the normal; its friction rows the relative sliding along two tangents (one isotropic cone) and,
// for the soft-finger contact, the relative spin about the normal; an actuator limit's row keeps
// the step inside the range. A link's part goes through the drives of its finger (R^T J^T d), a
// free body's is its point velocity; the palm's prescribed motion is on the right-hand side.
#include <algorithm>

#include "handsim/contact/contact_jacobian.hpp"
#include "handsim/contact/patch_friction.hpp"
#include "handsim/geometry/tangent_basis.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/sim/step.hpp"
#include "stages.hpp"

namespace handsim::sim::stages {

namespace {

// Adds to row i the part of free body `body` (slot in the generalised velocities): the
// object's point velocity at `point` along -d, so the row reads (v_other - v_object) . d.
void addBodyPart(Eigen::Ref<Eigen::MatrixXd> rows, Eigen::Index i, const StepWorkspace& w, int body,
                 Eigen::Index na, const Eigen::Vector3d& point, const Eigen::Vector3d& d) {
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
  addLinkPointRow(model, s, finger, row, point_world, d, rows.row(i));
}

// A link's spin about `n_world` through the drives of its finger (the palm's turning apart).
void addLinkSpinPart(const Model& model, const SimState& s, Eigen::Ref<Eigen::MatrixXd> rows,
                     Eigen::Index i, int finger, int row, const Eigen::Vector3d& n_world) {
  const auto f = static_cast<std::size_t>(finger);
  const Eigen::Matrix3d to_base = fingerBaseWorld(model, s, finger).linear().transpose();
  const std::vector<hand::EffectiveDrive>& drives = s.work.drives[f];
  contact::visitLinkAngularJacobianTranspose(
      model.hand().fingers[f], s.link_frames[f], row, to_base * n_world,
      [&drives, &rows, i](int j, double g) {
        const hand::EffectiveDrive& e = drives[static_cast<std::size_t>(j)];
        if (e.ratio != 0.0) rows(i, static_cast<Eigen::Index>(e.actuator)) += e.ratio * g;
      });
}

// The penetration a link contact may still sink to (the slop, a fraction of the way per step),
// so a resting link stays in touch instead of flickering; deeper ones are pushed back by the
// contact stiffness. As a velocity: the right-hand side of the normal row.
double linkContactBias(const ContactOptions& co, double depth, double dt) {
  return (co.stiffness * std::max(0.0, depth - co.slop) -
          co.sink_rate * std::max(0.0, co.slop - depth)) /
         dt;
}

// The friction points of the first `ng` object contacts (StepWorkspace::friction_points): the
// contacts of one flat patch (consecutive, one pair of bodies, one normal: the ground's points
// of an object, a body pair's patch corners) pulled towards the patch's centre.
void objectFrictionPoints(SimState& s, Eigen::Index ng) {
  StepWorkspace& w = s.work;
  const auto n = static_cast<std::size_t>(ng);
  std::size_t first = 0;
  while (first < n) {
    const Contact& c = s.object_contacts[first];
    std::size_t end = first + 1;
    while (end < n && s.object_contacts[end].object == c.object &&
           s.object_contacts[end].other == c.other &&
           s.object_contacts[end].normal_world.dot(c.normal_world) > 1.0 - 1e-9)
      ++end;
    w.patch_points.clear();
    for (std::size_t k = first; k < end; ++k)
      w.patch_points.push_back(s.object_contacts[k].point_world);
    contact::patchFrictionPoints(w.patch_points.data(), end - first, c.normal_world,
                                 w.patch_friction, &w.friction_points[first]);
    first = end;
  }
}

}  // namespace

RowCounts countRows(const Model& model, const SimState& s) {
  const StepWorkspace& w = s.work;
  RowCounts n;
  n.hand = static_cast<Eigen::Index>(s.contacts.size());
  n.object = static_cast<Eigen::Index>(w.object_rows);
  n.link = static_cast<Eigen::Index>(s.link_contacts.size());
  n.limit = static_cast<Eigen::Index>(w.limit_rows.size());
  // Torsional friction (the soft-finger contact): a third friction row per contact, the
  // relative angular velocity about the normal, its impulse an angular impulse about n within
  // +-mu_spin lambda_n (docs/free-objects.md, "Torsional friction").
  const Eigen::Index per_contact = anyTorsional(model) ? 3 : 2;
  n.friction = per_contact * n.object;
  for (const Contact& c : s.contacts)
    if (w.body_of_object[static_cast<std::size_t>(c.object)] >= 0) n.friction += per_contact;
  return n;
}

void assembleRows(const Model& model, SimState& s, const RowCounts& counts) {
  const std::size_t na = model.actuatorCount();
  const double dt = model.options.dt;
  const ContactOptions& co = model.options.contact;
  StepWorkspace& w = s.work;
  const Eigen::Index nc = counts.hand, ng = counts.object, nk = counts.link, nl = counts.limit;
  const Eigen::Index nr = counts.total();
  const bool spin = anyTorsional(model);
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
  Eigen::Index fr = counts.firstFriction();  // next friction row
  // Two tangent rows forming one isotropic cone of coefficient `pair_mu` for contact row i.
  auto tangentRows = [&](Eigen::Index i, const Eigen::Vector3d(&t)[2], double pair_mu) {
    for (int k = 0; k < 2; ++k, ++fr) {
      w.tangents[static_cast<std::size_t>(fr)] = t[k];
      normal_of[fr] = i;
      partner[fr] = k == 0 ? fr + 1 : fr - 1;
      mu[fr] = pair_mu;
      w.row_spin[static_cast<std::size_t>(fr)] = 0;
    }
  };
  // A torsional row for contact row i about its normal n, within +-length lambda_n.
  auto spinRow = [&](Eigen::Index i, const Eigen::Vector3d& n, double length) {
    w.tangents[static_cast<std::size_t>(fr)] = n;
    w.row_spin[static_cast<std::size_t>(fr)] = 1;
    normal_of[fr] = i;
    mu[fr] = length;
    ++fr;
  };
  for (Eigen::Index i = 0; i < nc; ++i) {
    const Contact& c = s.contacts[static_cast<std::size_t>(i)];
    // The row asks that the link point not move further into the object: along the normal
    // out of the object (-normal_world).
    addLinkPart(model, s, rows, i, c.finger, c.row, c.point_world, -c.normal_world);
    bias[i] = linkContactBias(co, c.depth, dt);
    if (palm_moves) bias[i] += c.normal_world.dot(palmPointVelocityWorld(s, c.point_world));
    const int body = w.body_of_object[static_cast<std::size_t>(c.object)];
    if (body < 0) continue;  // a fixed object: frictionless, as in seed 000
    addBodyPart(rows, i, w, body, idx(na), c.point_world, -c.normal_world);
    Eigen::Vector3d t[2];
    geometry::tangentBasis(c.normal_world, t[0], t[1]);
    for (int k = 0; k < 2; ++k) {
      addLinkPart(model, s, rows, fr + k, c.finger, c.row, c.point_world, t[k]);
      addBodyPart(rows, fr + k, w, body, idx(na), c.point_world, t[k]);
      bias[fr + k] = palm_moves ? -t[k].dot(palmPointVelocityWorld(s, c.point_world)) : 0.0;
    }
    tangentRows(i, t, model.objects[static_cast<std::size_t>(c.object)].friction);
    if (spin) {
      // (w_link - w_object) . n: the link's angular velocity about n through its drives (the
      // palm's turning carries it: on the right-hand side), the object's -n . w.
      addLinkSpinPart(model, s, rows, fr, c.finger, c.row, c.normal_world);
      rows.block<1, 3>(fr, idx(na) + 6 * body + 3) = -c.normal_world.transpose();
      bias[fr] = palm_moves ? -c.normal_world.dot(s.palm_twist_world.tail<3>()) : 0.0;
      spinRow(i, c.normal_world, objectTorsional(model, c.object));
    }
  }
  // Object contacts: the pushing side (the ground, the palm, another object) plays the link.
  // The ground and a fixed object do not move; the palm moves as prescribed (its velocity goes
  // to the right-hand side); a moving object is a body of the solver too. Their friction acts
  // at the patch's friction points (a spinning face meets the Coulomb moment of its pressure).
  objectFrictionPoints(s, ng);
  for (Eigen::Index k = 0; k < ng; ++k) {
    const Contact& c = s.object_contacts[static_cast<std::size_t>(k)];
    const Eigen::Index i = nc + k;
    const int body = w.body_of_object[static_cast<std::size_t>(c.object)];
    const int other_body = c.other >= 0 ? w.body_of_object[static_cast<std::size_t>(c.other)] : -1;
    addBodyPart(rows, i, w, body, idx(na), c.point_world, -c.normal_world);
    addBodyPart(rows, i, w, other_body, idx(na), c.point_world, c.normal_world);
    // Above the slop (a gap or a shallow touch) it may approach until the slop and no
    // further (a speculative contact); beyond it, it may not approach: the push back out is
    // the position correction's (correctPositions), never a velocity.
    bias[i] = std::min(0.0, c.depth - co.slop) / dt;
    const bool palm = c.other == kPalm && palm_moves;
    if (palm) bias[i] += c.normal_world.dot(palmPointVelocityWorld(s, c.point_world));
    const double object_mu = model.objects[static_cast<std::size_t>(c.object)].friction;
    double pair_mu = object_mu;  // the palm: the object's coefficient, as for the links
    if (c.other == kGround && model.options.ground.friction >= 0.0)
      pair_mu = model.options.ground.friction;
    else if (c.other >= 0)  // two objects: the smaller coefficient (docs/free-objects.md)
      pair_mu = std::min(object_mu, model.objects[static_cast<std::size_t>(c.other)].friction);
    Eigen::Vector3d t[2];
    geometry::tangentBasis(c.normal_world, t[0], t[1]);
    const Eigen::Vector3d& fp = w.friction_points[static_cast<std::size_t>(k)];
    for (int j = 0; j < 2; ++j) {
      addBodyPart(rows, fr + j, w, body, idx(na), fp, t[j]);
      addBodyPart(rows, fr + j, w, other_body, idx(na), fp, -t[j]);
      bias[fr + j] = palm ? -t[j].dot(palmPointVelocityWorld(s, fp)) : 0.0;
    }
    tangentRows(i, t, pair_mu);
    if (spin) {
      // (w_other - w_object) . n; the ground and a fixed object do not turn, the palm turns
      // as prescribed (right-hand side).
      if (body >= 0) rows.block<1, 3>(fr, idx(na) + 6 * body + 3) = -c.normal_world.transpose();
      if (other_body >= 0)
        rows.block<1, 3>(fr, idx(na) + 6 * other_body + 3) = c.normal_world.transpose();
      bias[fr] = palm ? -c.normal_world.dot(s.palm_twist_world.tail<3>()) : 0.0;
      // The object's length; two objects: the smaller (as for friction).
      spinRow(i, c.normal_world,
              c.other >= 0
                  ? std::min(objectTorsional(model, c.object), objectTorsional(model, c.other))
                  : objectTorsional(model, c.object));
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
    bias[i] = linkContactBias(co, c.depth, dt);
  }
  for (Eigen::Index k = 0; k < nl; ++k) {
    const auto [a, sign] = w.limit_rows[static_cast<std::size_t>(k)];
    const Eigen::Index i = nc + ng + nk + k;
    rows(i, a) = sign;
    // sign * v >= sign * (limit - position) / dt keeps the step inside the range.
    bias[i] = sign *
              ((sign > 0.0 ? w.lower[a] : w.upper[a]) -
               s.actuator_position[static_cast<std::size_t>(a)]) /
              dt;
  }
}

}  // namespace handsim::sim::stages
