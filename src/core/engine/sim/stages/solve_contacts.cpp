// SPDX-License-Identifier: GPL-3.0-or-later
// The velocity solve of the default contact model (docs/simulation.md): the rows of
// constraint_rows.cpp solved by projected Gauss-Seidel (contact/projected_gauss_seidel.hpp),
// first for the impact (an impulse, not felt by the clutch), then for the step's accelerations;
// actuator limits join as an active set; last, the position correction of the object contacts
// (split impulse), which moves bodies without giving them velocity.
#include <algorithm>
#include <cmath>

#include "handsim/contact/projected_gauss_seidel.hpp"
#include "handsim/sim/step.hpp"
#include "stages.hpp"

namespace handsim::sim {

using stages::idx;

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
  matchContacts(s.contacts, static_cast<std::size_t>(nc), w.previous_contacts, radius, w.warm_taken,
                match);
  matchContacts(s.object_contacts, static_cast<std::size_t>(ng), w.previous_object_contacts, radius,
                w.warm_taken, match + nc);
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

// M^-1 J^T of the first `nr` rows into StepWorkspace::minv_rows: the actuators' factorised
// inertia, and per free body 1/m and its inverse world inertia (the inertia is block-diagonal).
void inverseMassRows(const Model& model, StepWorkspace& w, Eigen::Index nr) {
  const std::size_t na = model.actuatorCount();
  const Eigen::Index n = w.velocity.size();
  const auto rows = w.rows.topRows(nr);
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
}

// The solve's impulses as the state reports them: each contact's sustained and impact normal
// force, friction force and twisting couple (impulse over dt), each stop's reaction at its
// actuator's primary joint.
void writeImpulses(const Model& model, SimState& s, const stages::RowCounts& counts,
                   const Eigen::Ref<const Eigen::VectorXd>& lambda,
                   const Eigen::Ref<const Eigen::VectorXd>& impact) {
  const hand::HandModel& hand = model.hand();
  const double dt = model.options.dt;
  const StepWorkspace& w = s.work;
  const Eigen::Index nc = counts.hand, ng = counts.object, nk = counts.link, nl = counts.limit;
  const Eigen::Index nr = counts.total();
  const auto normal_of = w.row_normal.head(nr);
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
}

// One solve of the contact and limit rows (stages::RowCounts, assembled by
// constraint_rows.cpp): the impact, then the step. Returns true when an impulse acted.
bool solveRows(const Model& model, SimState& s) {
  const double dt = model.options.dt;
  StepWorkspace& w = s.work;
  const Eigen::Index n = w.velocity.size();
  const stages::RowCounts counts = stages::countRows(model, s);
  const Eigen::Index nc = counts.hand, ng = counts.object, nk = counts.link, nl = counts.limit;
  const Eigen::Index nr = counts.total();
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
  stages::reserveRows(w, nr, n);
  stages::assembleRows(model, s, counts);
  const auto rows = w.rows.topRows(nr);
  const auto bias = w.row_bias.head(nr);
  const auto normal_of = w.row_normal.head(nr);
  const auto partner = w.row_partner.head(nr);
  const auto mu = w.row_mu.head(nr);
  inverseMassRows(model, w, nr);
  const auto minv_rows = w.minv_rows.leftCols(nr);
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
  settings.scratch = &w.pgs;
  // Only the sustained impulses start warm: an impact is a transient that last step's does
  // not predict (a resting contact has none), so its solve starts from zero.
  const bool warm = model.options.solver.warm_start;
  if (warm) warmStart(model, w, s, nc, ng, nk, nl, lambda);
  // The impact solve's precision is that of the system's impulses (last step's sustained
  // ones, the warm start), not of its own: a resting contact's impact is rounding-sized.
  const double reference = warm ? lambda.cwiseAbs().maxCoeff() : 0.0;
  auto solve = [&](Eigen::Ref<Eigen::VectorXd> impulses, bool from_last) {
    settings.warm_start = from_last;
    settings.reference_impulse = from_last ? 0.0 : reference;
    if (counts.friction == 0)
      s.solver_sweeps += contact::projectedGaussSeidel(rows, minv_rows, delassus, bias, settings,
                                                       w.velocity, impulses);
    else
      s.solver_sweeps += contact::projectedGaussSeidelFriction(
          rows, minv_rows, delassus, bias, normal_of, partner, mu, settings, w.velocity, impulses);
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
  writeImpulses(model, s, counts, lambda, impact);
  return acted || (lambda.array() != 0.0).any();
}

// The position correction of the object contacts (split impulse: Catto 2006, Erleben 2007;
// Bullet's "split impulse"): pseudo-velocities p that take `object_push` of each penetration
// beyond the slop out over the step, J p >= push / dt on the object contacts' normal rows of the
// last solve (same Delassus block, lambda >= 0, no friction). The free objects move by v + p
// (integrateObjects) and keep v: pushing apart brings no kinetic energy, however wrong a depth

void correctPositions(const Model& model, SimState& s) {
  StepWorkspace& w = s.work;
  w.velocity_position.setZero();
  const ConstraintContactOptions& co = stages::constraintOptions(model);
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
  settings.scratch = &w.pgs;
  s.solver_sweeps += contact::projectedGaussSeidel(
      w.rows.middleRows(nc, ng), w.minv_rows.middleCols(nc, ng), delassus, push, settings,
      w.velocity_position, w.lambda_position.head(ng));
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

}  // namespace handsim::sim
