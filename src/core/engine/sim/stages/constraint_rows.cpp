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
double linkContactBias(const ConstraintContactOptions& co, double depth, double dt) {
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

namespace {

// Writes the rows of one velocity solve (assembleRows), kind by kind, into the workspace: the
// rows J, their right-hand sides, and for each friction row its normal row, its partner and its
// coefficient. `fr` is the next friction row.
class RowAssembler {
 public:
  RowAssembler(const Model& model, SimState& s, const RowCounts& counts)
      : model_(model),
        s_(s),
        w_(s.work),
        co_(stages::constraintOptions(model)),
        dt_(model.options.dt),
        na_(idx(model.actuatorCount())),
        spin_(anyTorsional(model)),
        palm_moves_(!s.palm_twist_world.isZero(0.0)),
        fr_(counts.firstFriction()) {}

  // Contact row i of a link on an object (SimState::contacts).
  void handContact(Eigen::Index i, const Contact& c) {
    auto& rows = w_.rows;
    auto& bias = w_.row_bias;
    // The row asks that the link point not move further into the object: along the normal
    // out of the object (-normal_world).
    addLinkPart(model_, s_, rows, i, c.finger, c.row, c.point_world, -c.normal_world);
    bias[i] = linkContactBias(co_, c.depth, dt_);
    if (palm_moves_) bias[i] += c.normal_world.dot(palmPointVelocityWorld(s_, c.point_world));
    const int body = w_.body_of_object[static_cast<std::size_t>(c.object)];
    if (body < 0) return;  // a fixed object: frictionless, as in seed 000
    addBodyPart(rows, i, w_, body, na_, c.point_world, -c.normal_world);
    Eigen::Vector3d t[2];
    geometry::tangentBasis(c.normal_world, t[0], t[1]);
    for (int k = 0; k < 2; ++k) {
      addLinkPart(model_, s_, rows, fr_ + k, c.finger, c.row, c.point_world, t[k]);
      addBodyPart(rows, fr_ + k, w_, body, na_, c.point_world, t[k]);
      bias[fr_ + k] = palm_moves_ ? -t[k].dot(palmPointVelocityWorld(s_, c.point_world)) : 0.0;
    }
    tangentRows(i, t, model_.objects[static_cast<std::size_t>(c.object)].friction);
    if (spin_) {
      // (w_link - w_object) . n: the link's angular velocity about n through its drives (the
      // palm's turning carries it: on the right-hand side), the object's -n . w.
      addLinkSpinPart(model_, s_, rows, fr_, c.finger, c.row, c.normal_world);
      rows.block<1, 3>(fr_, na_ + 6 * body + 3) = -c.normal_world.transpose();
      bias[fr_] = palm_moves_ ? -c.normal_world.dot(s_.palm_twist_world.tail<3>()) : 0.0;
      spinRow(i, c.normal_world, objectTorsional(model_, c.object));
    }
  }

  // Contact row i of object contact k (SimState::object_contacts): the pushing side (the
  // ground, the palm, another object) plays the link. The ground and a fixed object do not
  // move; the palm moves as prescribed (its velocity goes to the right-hand side); a moving
  // object is a body of the solver too. Their friction acts at the patch's friction points (a
  // spinning face meets the Coulomb moment of its pressure).
  void objectContact(Eigen::Index i, std::size_t k) {
    auto& rows = w_.rows;
    auto& bias = w_.row_bias;
    const Contact& c = s_.object_contacts[k];
    const int body = w_.body_of_object[static_cast<std::size_t>(c.object)];
    const int other_body = c.other >= 0 ? w_.body_of_object[static_cast<std::size_t>(c.other)] : -1;
    addBodyPart(rows, i, w_, body, na_, c.point_world, -c.normal_world);
    addBodyPart(rows, i, w_, other_body, na_, c.point_world, c.normal_world);
    // Above the slop (a gap or a shallow touch) it may approach until the slop and no
    // further (a speculative contact); beyond it, it may not approach: the push back out is
    // the position correction's (correctPositions), never a velocity.
    bias[i] = std::min(0.0, c.depth - co_.slop) / dt_;
    const bool palm = c.other == kPalm && palm_moves_;
    if (palm) bias[i] += c.normal_world.dot(palmPointVelocityWorld(s_, c.point_world));
    Eigen::Vector3d t[2];
    geometry::tangentBasis(c.normal_world, t[0], t[1]);
    const Eigen::Vector3d& fp = w_.friction_points[k];
    for (int j = 0; j < 2; ++j) {
      addBodyPart(rows, fr_ + j, w_, body, na_, fp, t[j]);
      addBodyPart(rows, fr_ + j, w_, other_body, na_, fp, -t[j]);
      bias[fr_ + j] = palm ? -t[j].dot(palmPointVelocityWorld(s_, fp)) : 0.0;
    }
    tangentRows(i, t, pairFriction(c));
    if (spin_) {
      // (w_other - w_object) . n; the ground and a fixed object do not turn, the palm turns
      // as prescribed (right-hand side).
      if (body >= 0) rows.block<1, 3>(fr_, na_ + 6 * body + 3) = -c.normal_world.transpose();
      if (other_body >= 0)
        rows.block<1, 3>(fr_, na_ + 6 * other_body + 3) = c.normal_world.transpose();
      bias[fr_] = palm ? -c.normal_world.dot(s_.palm_twist_world.tail<3>()) : 0.0;
      // The object's length; two objects: the smaller (as for friction).
      spinRow(i, c.normal_world,
              c.other >= 0
                  ? std::min(objectTorsional(model_, c.object), objectTorsional(model_, c.other))
                  : objectTorsional(model_, c.object));
    }
  }

  // Contact row i of a link-link contact: the relative velocity of the two links (the palm's
  // motion carries both and cancels), frictionless like the contacts on fixed objects.
  void linkContact(Eigen::Index i, const Contact& c) {
    addLinkPart(model_, s_, w_.rows, i, c.finger, c.row, c.point_world, -c.normal_world);
    if (c.other_finger >= 0)
      addLinkPart(model_, s_, w_.rows, i, c.other_finger, c.other_row, c.point_world,
                  c.normal_world);
    w_.row_bias[i] = linkContactBias(co_, c.depth, dt_);
  }

  // Row i of actuator limit k: sign * v >= sign * (limit - position) / dt keeps the step inside
  // the range.
  void limit(Eigen::Index i, std::size_t k) {
    const auto [a, sign] = w_.limit_rows[k];
    w_.rows(i, a) = sign;
    w_.row_bias[i] = sign *
                     ((sign > 0.0 ? w_.lower[a] : w_.upper[a]) -
                      s_.actuator_position[static_cast<std::size_t>(a)]) /
                     dt_;
  }

 private:
  // The Coulomb coefficient of an object contact: the object's against the palm (as for the
  // links), the ground's when it gives one, the smaller of two objects' (docs/free-objects.md).
  double pairFriction(const Contact& c) const {
    const double object_mu = model_.objects[static_cast<std::size_t>(c.object)].friction;
    if (c.other == kGround && model_.options.ground.friction >= 0.0)
      return model_.options.ground.friction;
    if (c.other >= 0)
      return std::min(object_mu, model_.objects[static_cast<std::size_t>(c.other)].friction);
    return object_mu;
  }

  // Two tangent rows forming one isotropic cone of coefficient `pair_mu` for contact row i.
  void tangentRows(Eigen::Index i, const Eigen::Vector3d (&t)[2], double pair_mu) {
    for (int k = 0; k < 2; ++k, ++fr_) {
      w_.tangents[static_cast<std::size_t>(fr_)] = t[k];
      w_.row_normal[fr_] = i;
      w_.row_partner[fr_] = k == 0 ? fr_ + 1 : fr_ - 1;
      w_.row_mu[fr_] = pair_mu;
      w_.row_spin[static_cast<std::size_t>(fr_)] = 0;
    }
  }

  // A torsional row for contact row i about its normal n, within +-length lambda_n.
  void spinRow(Eigen::Index i, const Eigen::Vector3d& n, double length) {
    w_.tangents[static_cast<std::size_t>(fr_)] = n;
    w_.row_spin[static_cast<std::size_t>(fr_)] = 1;
    w_.row_normal[fr_] = i;
    w_.row_mu[fr_] = length;
    ++fr_;
  }

  const Model& model_;
  SimState& s_;
  StepWorkspace& w_;
  const ConstraintContactOptions& co_;
  const double dt_;
  const Eigen::Index na_;
  const bool spin_, palm_moves_;
  Eigen::Index fr_;
};

}  // namespace

void assembleRows(const Model& model, SimState& s, const RowCounts& counts) {
  StepWorkspace& w = s.work;
  const Eigen::Index nc = counts.hand, ng = counts.object, nk = counts.link, nl = counts.limit;
  const Eigen::Index nr = counts.total();
  w.rows.topRows(nr).setZero();
  w.row_normal.head(nr).setConstant(-1);
  w.row_partner.head(nr).setConstant(-1);
  w.row_mu.head(nr).setZero();
  RowAssembler rows(model, s, counts);
  for (Eigen::Index i = 0; i < nc; ++i)
    rows.handContact(i, s.contacts[static_cast<std::size_t>(i)]);
  objectFrictionPoints(s, ng);
  for (Eigen::Index k = 0; k < ng; ++k) rows.objectContact(nc + k, static_cast<std::size_t>(k));
  for (Eigen::Index k = 0; k < nk; ++k)
    rows.linkContact(nc + ng + k, s.link_contacts[static_cast<std::size_t>(k)]);
  for (Eigen::Index k = 0; k < nl; ++k) rows.limit(nc + ng + nk + k, static_cast<std::size_t>(k));
}

}  // namespace handsim::sim::stages
