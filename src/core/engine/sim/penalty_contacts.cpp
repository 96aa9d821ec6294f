// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's penalty contact stage (include/handsim/sim/penalty_contacts.hpp; the laws are the
// pure functions of contact/penalty_contact.hpp, the geometry collision::computeOverlap).
//
// The normal force of a pair, eq. 6 on the end-of-step depth d1 = d0 + dt r (r: the depth's
// rate at the end of the step, exact from the flux of the bodies' velocities through the
// overlap's boundary, linear in their twists) and on eq. 4's rate after its exact update with
// the input going from d0 to d1 (affine in d1: rate1 = alpha + gamma d1), is affine in r:
// F = F0 + K r, F0 = kappa ((g1 + g2 gamma) d0 + g2 alpha), K = kappa (g1 + g2 gamma) dt. The
// rate answers the force through the bodies' inertia, r = r* + dt W F (W < 0), so
// F = (F0 + K r*) / (1 - dt K W): a linearly implicit (backward Euler) step of the stiff spring
// and damper, stable at any dt (docs/free-objects.md, "Integrator for the stiff contact").
#include "handsim/sim/penalty_contacts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "handsim/contact/contact_jacobian.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/sim/step.hpp"
#include "stages/stages.hpp"

namespace handsim::sim {

using stages::idx;

namespace {

// The volume penalty model's options; their defaults for options of another model (only
// penaltyStableStep is asked then).
const VolumePenaltyOptions& penaltyOptions(const Options& options) {
  static const VolumePenaltyOptions kDefaults;
  const VolumePenaltyOptions* v = options.contact.volumePenalty();
  return v ? *v : kDefaults;
}

// One side of a pair during the step.
struct Side {
  const CollisionBody* body = nullptr;
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  bool closed = true;
  int free_body = -1;  // solver body of a moving object, else -1
  int object = -1;     // object index, else -1
  int finger = -1, row = -1;
  bool palm = false;
};

Side sideOfObject(const Model& model, const SimState& s, const PenaltyGeometry& g, int o) {
  Side side;
  const auto oi = static_cast<std::size_t>(o);
  side.body = &model.objects[oi].geometry->collision;
  side.pose = s.object_pose_world[oi];
  side.closed = g.object_closed[oi] != 0;
  side.free_body = s.work.body_of_object[oi];
  side.object = o;
  return side;
}

Side sideA(const Model& model, const SimState& s, const PenaltyGeometry& g, const PenaltyPair& p) {
  Side side;
  switch (p.kind) {
    case PenaltyPair::Kind::Link:
      side.body = &model.hand_geometry
                       ->links[static_cast<std::size_t>(p.finger)][static_cast<std::size_t>(p.row)]
                       .collision;
      side.pose = linkPoseWorld(model, s, p.finger, p.row);
      side.closed =
          g.link_closed[static_cast<std::size_t>(p.finger)][static_cast<std::size_t>(p.row)] != 0;
      side.finger = p.finger;
      side.row = p.row;
      break;
    case PenaltyPair::Kind::Palm:
      side.body = &model.hand_geometry->palm.collision;
      side.pose = s.palm_pose_world;
      side.closed = g.palm_closed;
      side.palm = true;
      break;
    case PenaltyPair::Kind::Object:
      return sideOfObject(model, s, g, p.a_object);
    case PenaltyPair::Kind::Ground:
      side.body = &g.ground;
      break;
  }
  return side;
}

// Velocity of the point p of a side [m/s]: `predicted`, that of a free object at the end of the
// step with every wrench applied up to now, else at the start of the step (the velocity it moved
// with during the last step); links and the palm at the start of the step (explicit), the ground
// and fixed objects at rest.
Eigen::Vector3d pointVelocity(const Model& model, const SimState& s, const Side& side,
                              const Eigen::Vector3d& p, bool predicted = true) {
  const StepWorkspace& w = s.work;
  const double dt = model.options.dt;
  const Eigen::Vector3d palm_v = palmPointVelocityWorld(s, p);
  if (side.free_body >= 0) {
    const auto b = static_cast<std::size_t>(side.free_body);
    const Eigen::Index slot = idx(model.actuatorCount() + 6 * b);
    const Twist t = s.object_twist_world[static_cast<std::size_t>(side.object)] +
                    (predicted ? dt : 0.0) * w.acceleration.segment<6>(slot);
    return t.head<3>() + t.tail<3>().cross(p - w.bodies[b].com_world);
  }
  if (side.palm) return palm_v;
  if (side.finger >= 0) {
    const auto f = static_cast<std::size_t>(side.finger);
    const Eigen::Isometry3d base = fingerBaseWorld(model, s, side.finger);
    const Eigen::Vector3d p_base = base.inverse() * p;
    const Eigen::Vector3d v_base = contact::linkPointVelocity(
        model.hand().fingers[f], s.link_frames[f], side.row, p_base, s.qd[f]);
    return palm_v + base.linear() * v_base;
  }
  return Eigen::Vector3d::Zero();
}

// Adds the force f at p to a moving free object's accelerations (eq. 1 and eq. 7 with eq. 2).
void addWrench(const Model& model, SimState& s, int free_body, int object, const Eigen::Vector3d& p,
               const Eigen::Vector3d& f) {
  if (free_body < 0) return;
  StepWorkspace& w = s.work;
  const auto b = static_cast<std::size_t>(free_body);
  const Eigen::Index slot = idx(model.actuatorCount() + 6 * b);
  const FreeBodyScratch& body = w.bodies[b];
  w.acceleration.segment<3>(slot) +=
      f / model.objects[static_cast<std::size_t>(object)].mass.mass_kg;
  w.acceleration.segment<3>(slot + 3) += body.inverse_inertia_world * (p - body.com_world).cross(f);
}

// The actuator-space generalised force R^T J_v(p)^T d of a unit force `d_world` at `p_world` on
// the link of finger `finger`, row `row`; by duality also the velocity along d of the link's
// point p per unit of actuator velocity (the palm's motion apart). `out` is sized by the caller.
void linkActuatorRow(const Model& model, const SimState& s, int finger, int row,
                     const Eigen::Vector3d& p_world, const Eigen::Vector3d& d_world,
                     Eigen::VectorXd& out) {
  out.setZero();
  stages::addLinkPointRow(model, s, finger, row, p_world, d_world, out);
}

// Adds the force f at p on a link (body A of a Link pair) to the actuator forces and, through
// the factorised actuator-space inertia, to the actuator accelerations of the step, so that the
// pairs after it see the finger's answer (the Gauss-Seidel pass of the file comment).
void addLinkLoad(const Model& model, SimState& s, int finger, int row, const Eigen::Vector3d& p,
                 const Eigen::Vector3d& f) {
  const double magnitude = f.norm();
  if (!(magnitude > 0.0)) return;
  StepWorkspace& w = s.work;
  PenaltyWorkspace& pw = w.penalty;
  linkActuatorRow(model, s, finger, row, p, f / magnitude, pw.row_flux);
  pw.row_flux *= magnitude;
  const auto na = idx(model.actuatorCount());
  w.force += pw.row_flux;
  pw.answer = w.mass_ldlt.solve(pw.row_flux);
  w.acceleration.head(na) += pw.answer;
}

// A pure couple T on a link: forces -/+ |T| / (2 h) v at c -/+ h u (u, v, T / |T| a right-handed
// frame); exact for any h, since a rigid link's point Jacobian is affine in the point.
void addLinkCouple(const Model& model, SimState& s, int finger, int row, const Eigen::Vector3d& c,
                   const Eigen::Vector3d& torque) {
  const double t = torque.norm();
  if (!(t > 0.0)) return;
  const Eigen::Vector3d axis = torque / t;
  const Eigen::Vector3d u = axis.unitOrthogonal(), v = axis.cross(u);
  const double h = 0.01;
  addLinkLoad(model, s, finger, row, c + h * u, (t / (2.0 * h)) * v);
  addLinkLoad(model, s, finger, row, c - h * u, -(t / (2.0 * h)) * v);
}

// Adds the couple T to a moving free object's angular acceleration (eq. 2).
void addTorque(const Model& model, SimState& s, int free_body, const Eigen::Vector3d& torque) {
  if (free_body < 0) return;
  const auto b = static_cast<std::size_t>(free_body);
  const Eigen::Index slot = idx(model.actuatorCount() + 6 * b);
  s.work.acceleration.segment<3>(slot + 3) += s.work.bodies[b].inverse_inertia_world * torque;
}

// The anchor friction of a contact patch: the tangential anchor spring of
// contact::anchorFriction together with a torsional one about the normal, on one limit surface.
// The patch is taken as a disc of radius r pressed uniformly: sliding, it gives Coulomb's mu f_n;
// spinning about its centre, mu f_n e with e = 2 r / 3; a mix of both, the ellipse
// |f_t|^2 + (tau / e)^2 <= (mu f_n)^2 (the limit surface of a soft contact). The torsional spring
// k_t e^2 and damper c_t e^2 make the spring space (z, e theta) isotropic, so the return onto the
// ellipse along the trial converges to the maximum-dissipation slip of a spinning, sliding patch
// (a spinning patch then pushes no net force, as a distributed friction would not).
struct PatchFriction {
  Eigen::Vector3d force = Eigen::Vector3d::Zero();  // on B [N]
  double torque = 0.0;                              // on B about n [N m]
};

PatchFriction patchAnchorFriction(const contact::AnchorFrictionParams& p,
                                  contact::AnchorState& anchor, double& twist,
                                  const Eigen::Vector3d& n, const Eigen::Vector3d& slip,
                                  double spin, double normal_force, double e, double dt) {
  PatchFriction out;
  const double k = p.stiffness_n_per_m;
  if (!(normal_force > 0.0) || !(k > 0.0)) {
    anchor = {};
    twist = 0.0;
    return out;
  }
  const Eigen::Vector3d vt = slip - slip.dot(n) * n;
  Eigen::Vector3d z = anchor.active
                          ? Eigen::Vector3d(anchor.extension - anchor.extension.dot(n) * n)
                          : Eigen::Vector3d::Zero();
  double theta = anchor.active ? twist : 0.0;
  z += vt * dt;
  theta += spin * dt;
  const double limit = p.mu * normal_force;
  const double k_r = k * e * e, c_r = p.damping_ns_per_m * e * e;
  const double spring = k * std::sqrt(z.squaredNorm() + e * e * theta * theta);
  if (spring > limit) {
    // Slip: the anchor slides so that the springs stay on the limit surface.
    const double scale = limit / spring;
    z *= scale;
    theta *= scale;
    out.force = -k * z;
    out.torque = -k_r * theta;
  } else {
    // Stick: springs plus as much of the dampers as the limit surface allows.
    const Eigen::Vector3d fs = -k * z, fd = -p.damping_ns_per_m * vt;
    const double ts = -k_r * theta, td = -c_r * spin;
    const double ie2 = e > 0.0 ? 1.0 / (e * e) : 0.0;
    const double a = fd.squaredNorm() + td * td * ie2, bh = fs.dot(fd) + ts * td * ie2,
                 c = fs.squaredNorm() + ts * ts * ie2 - limit * limit;
    double beta = 1.0;
    if (a + 2.0 * bh + c > 0.0 && a > 0.0)
      beta = std::clamp((-bh + std::sqrt(std::max(0.0, bh * bh - a * c))) / a, 0.0, 1.0);
    out.force = fs + beta * fd;
    out.torque = ts + beta * td;
  }
  anchor.extension = z;
  anchor.active = true;
  twist = theta;
  return out;
}

void releasePair(PenaltyPairState& st) {
  st.touching = false;
  st.anchor = {};
  st.twist = 0.0;
  st.reference_area = 0.0;
}

// Coulomb coefficient of a pair: the object's; the ground's own when it gives one; the smaller
// of two objects'.
double pairMu(const Model& model, const PenaltyPair& p) {
  const double mu_b = model.objects[static_cast<std::size_t>(p.object)].friction;
  switch (p.kind) {
    case PenaltyPair::Kind::Ground:
      return model.options.ground.friction >= 0.0 ? model.options.ground.friction : mu_b;
    case PenaltyPair::Kind::Object:
      return std::min(mu_b, model.objects[static_cast<std::size_t>(p.a_object)].friction);
    default:
      return mu_b;
  }
}

}  // namespace

std::shared_ptr<const PenaltyGeometry> buildPenaltyGeometry(const Model& model) {
  auto g = std::make_shared<PenaltyGeometry>();
  const HandGeometry& hg = *model.hand_geometry;
  auto closed = [](const CollisionBody& b) {
    return b.empty() || collision::checkMeshClosure(b.mesh).closed;
  };
  g->palm_closed = closed(hg.palm.collision);
  g->link_closed.resize(hg.links.size());
  for (std::size_t f = 0; f < hg.links.size(); ++f)
    for (const BodyGeometry& link : hg.links[f])
      g->link_closed[f].push_back(closed(link.collision) ? 1 : 0);
  for (const ObjectModel& o : model.objects)
    g->object_closed.push_back(closed(o.geometry->collision) ? 1 : 0);
  if (model.options.ground.enabled) {
    geometry::TriangleMesh box = geometry::makeBox(
        Eigen::Vector3d(2.0 * kGroundBoxHalfWidth, 2.0 * kGroundBoxHalfWidth, kGroundBoxDepth));
    for (Eigen::Vector3d& v : box.vertices)
      v.z() += model.options.ground.height - 0.5 * kGroundBoxDepth;
    box.updateNormals();
    g->ground = makeCollisionBody(std::move(box), model.options.contact.kdop_k);
  }
  // Fixed order: per object B, the ground, the palm, the links, then the objects before it.
  for (std::size_t o = 0; o < model.objects.size(); ++o) {
    const ObjectModel& obj = model.objects[o];
    if (obj.geometry->collision.empty()) continue;
    const int oi = static_cast<int>(o);
    if (!obj.fixed && model.options.ground.enabled)
      g->pairs.push_back({PenaltyPair::Kind::Ground, -1, -1, -1, oi});
    if (!obj.fixed && !hg.palm.collision.empty())
      g->pairs.push_back({PenaltyPair::Kind::Palm, -1, -1, -1, oi});
    for (std::size_t f = 0; f < hg.links.size(); ++f)
      for (std::size_t r = 0; r < hg.links[f].size(); ++r)
        if (!hg.links[f][r].collision.empty())
          g->pairs.push_back(
              {PenaltyPair::Kind::Link, static_cast<int>(f), static_cast<int>(r), -1, oi});
    for (std::size_t a = 0; a < o; ++a)
      if ((!obj.fixed || !model.objects[a].fixed) && !model.objects[a].geometry->collision.empty())
        g->pairs.push_back({PenaltyPair::Kind::Object, -1, -1, static_cast<int>(a), oi});
  }
  return g;
}

void sizePenaltyState(const Model& model, SimState& s) {
  const std::size_t n = model.penalty ? model.penalty->pairs.size() : 0;
  if (s.penalty_pairs.size() != n) s.penalty_pairs.assign(n, {});
}

namespace {

// The normal force of one touching pair with eq. 5-6 linearly implicit in the depth rate
// (file comment): the rate of the equivalent depth exactly from the overlap's pieces and each
// side's answer to the force. Advances the pair's filter.
double implicitPenaltyMagnitude(const Model& model, SimState& s, const Side& a, const Side& b,
                                const collision::OverlapResult& ov, const Eigen::Vector3d& n,
                                double d0, double moving_mass, double inverse_mass,
                                PenaltyPairState& st) {
  PenaltyWorkspace& pw = s.work.penalty;
  const contact::PenaltyContactParams& pp = penaltyOptions(model.options).penalty;
  const double dt = model.options.dt;
  const auto na = idx(model.actuatorCount());
  const Eigen::Vector3d& c = ov.centroid_world;
  // The rate of the equivalent depth, exactly from the geometry: the overlap's volume changes
  // by the flux of each body's velocity through its own part of the overlap's boundary,
  // dv/dt = sum_A a_i n_i . v_A(x_i) + sum_B a_i n_i . v_B(x_i) (rigid velocity fields are
  // affine, so a flat piece's flux is its area times the value at its centroid), and
  // d' = v' / A_ref (exact while A_ref holds). It is affine in the twists: N . v + M . w.
  const double scale = 1.0 / st.reference_area;
  double rate_star = 0.0, w_rate = 0.0;
  auto flux = [&](const Side& side, const std::vector<collision::OverlapPiece>& pieces,
                  double sign_of_force) {
    Eigen::Vector3d N = Eigen::Vector3d::Zero(), M = Eigen::Vector3d::Zero();
    const Eigen::Vector3d origin =
        side.free_body >= 0 ? s.work.bodies[static_cast<std::size_t>(side.free_body)].com_world : c;
    for (const collision::OverlapPiece& piece : pieces) {
      N += piece.area * piece.normal_world;
      M += piece.area * (piece.centre_world - origin).cross(piece.normal_world);
    }
    if (side.free_body >= 0) {
      const auto fb = static_cast<std::size_t>(side.free_body);
      const Eigen::Index slot = idx(model.actuatorCount() + 6 * fb);
      const Twist tw = s.object_twist_world[static_cast<std::size_t>(side.object)] +
                       s.work.acceleration.segment<6>(slot) * dt;
      rate_star += scale * (N.dot(tw.head<3>()) + M.dot(tw.tail<3>()));
      // Its answer to a unit force along sign * s_n at c.
      const FreeBodyScratch& body = s.work.bodies[fb];
      const double m = model.objects[static_cast<std::size_t>(side.object)].mass.mass_kg;
      w_rate += sign_of_force * scale *
                (N.dot(n) / m + M.dot(body.inverse_inertia_world * (c - body.com_world).cross(n)));
    } else if (side.finger >= 0) {
      // A link: its velocity at c at the end of the step with the finger accelerations of the
      // pairs before (the link's own turning left out), and its answer to a unit force along
      // sign * s_n at c through the actuator-space inertia. Without this answer the link's
      // side of the stiff damper was explicit: a servo-driven jaw (0.3 kg reflected) with
      // g2 dt / m = 17 per pad bounced off the object every step.
      const Eigen::Vector3d palm_v = palmPointVelocityWorld(s, c);
      const double nn = N.norm();
      if (nn > 0.0) {
        linkActuatorRow(model, s, side.finger, side.row, c, N / nn, pw.row_flux);
        pw.row_flux *= nn;
      } else {
        pw.row_flux.setZero();
      }
      double rate = N.dot(palm_v);
      for (Eigen::Index i = 0; i < na; ++i)
        rate += pw.row_flux[i] *
                (s.actuator_velocity[static_cast<std::size_t>(i)] + dt * s.work.acceleration[i]);
      rate_star += scale * rate;
      linkActuatorRow(model, s, side.finger, side.row, c, n, pw.row_normal);
      pw.answer = s.work.mass_ldlt.solve(pw.row_normal);
      w_rate += sign_of_force * scale * pw.row_flux.dot(pw.answer);
    } else {
      // The palm or the ground: its velocity at c (the palm's turning left out).
      rate_star += scale * N.dot(pointVelocity(model, s, side, c));
    }
  };
  flux(a, ov.pieces_a, -1.0);
  flux(b, ov.pieces_b, 1.0);
  w_rate = std::min(w_rate, 0.0);  // a push never deepens the overlap it pushes apart
  // Eq. 5-6, linearly implicit in the depth rate (file comment).
  const double kappa = contact::firstContactGain(pp, st.first, moving_mass, s.time + dt);
  // Eq. 4 at least as fast as the damper's own rate; the depth's answer to the force is
  // -w_rate per N (links and turning included), at least the free objects' 1 / m.
  const double omega = contact::filterNaturalFrequency(pp, kappa, std::max(inverse_mass, -w_rate));
  st.filter.input = d0;  // the measured depth replaces last step's prediction
  contact::LowPassState f0 = st.filter, f1 = st.filter;
  contact::advanceLowPass(f0, 0.0, dt, pp.filter_damping_ratio, omega);
  contact::advanceLowPass(f1, 1.0, dt, pp.filter_damping_ratio, omega);
  const double alpha = f0.rate, gamma = f1.rate - f0.rate;
  const double g1 = pp.stiffness_n_per_m, g2 = pp.damping_ns_per_m;
  const double f_0 = kappa * ((g1 + g2 * gamma) * d0 + g2 * alpha);
  const double k_d = kappa * (g1 + g2 * gamma) * dt;
  const double implicit_force = (f_0 + k_d * rate_star) / (1.0 - dt * k_d * w_rate);
  const double d1 = d0 + dt * (rate_star + dt * w_rate * std::max(0.0, implicit_force));
  contact::advanceLowPass(st.filter, d1, dt, pp.filter_damping_ratio, omega);
  return contact::penaltyForceMagnitude(pp, kappa, d1, st.filter.rate);
}

// The pair's friction force and twisting couple on B (explicit: from the velocities at the
// start of the step), by seed 004's eq. 8 or the anchor with its torsional part.
void penaltyFriction(const Model& model, SimState& s, const PenaltyPair& pair, const Side& a,
                     const Side& b, const collision::OverlapResult& ov, const Eigen::Vector3d& n,
                     double magnitude, PenaltyPairState& st, Eigen::Vector3d& friction,
                     Eigen::Vector3d& torque) {
  const VolumePenaltyOptions& co = penaltyOptions(model.options);
  const contact::PenaltyContactParams& pp = co.penalty;
  const double dt = model.options.dt;
  const Eigen::Vector3d& c = ov.centroid_world;
  const Eigen::Vector3d slip =
      pointVelocity(model, s, b, c, false) - pointVelocity(model, s, a, c, false);
  const double mu = pairMu(model, pair);
  torque.setZero();
  if (co.friction == PenaltyFriction::Tanh) {
    contact::PenaltyContactParams p = pp;
    p.mu = mu;
    friction = contact::tanhFriction(p, magnitude, slip - slip.dot(n) * n);
  } else {
    // The anchor with its torsional part (not in seed 004, whose pair is one force at one
    // point: a two-finger pinch would turn freely about the line through its two contacts).
    // The patch is a disc of the overlap's mean area (docs/free-objects.md); the relative
    // spin about n from the relative velocity field (affine: any h gives it exactly).
    const double radius = std::sqrt(0.5 * (ov.area_a + ov.area_b) / 3.141592653589793);
    const Eigen::Vector3d u = n.unitOrthogonal(), v = n.cross(u);
    const double h = 1e-3;
    auto relative = [&](const Eigen::Vector3d& p) -> Eigen::Vector3d {
      return pointVelocity(model, s, b, p, false) - pointVelocity(model, s, a, p, false);
    };
    const double spin = (relative(c + h * u) - relative(c - h * u)).dot(v) / (2.0 * h);
    contact::AnchorFrictionParams p = co.anchor;
    p.mu = mu;
    const PatchFriction pf = patchAnchorFriction(p, st.anchor, st.twist, n, slip, spin, magnitude,
                                                 2.0 * radius / 3.0, dt);
    friction = pf.force;
    if (std::isfinite(pf.torque)) torque = pf.torque * n;
  }
}

// Publishes a pair's contact where the default model's lists keep theirs (links, or objects
// with the palm, another object or the ground).
void publishPenaltyContact(const PenaltyPair& pair, const Eigen::Vector3d& c,
                           const Eigen::Vector3d& n, double d0, double magnitude,
                           const Eigen::Vector3d& friction, const Eigen::Vector3d& torque,
                           PenaltyWorkspace& pw) {
  Contact ct;
  ct.object = pair.object;
  ct.point_world = c;
  ct.normal_world = n;
  ct.depth = d0;
  ct.force = magnitude;
  ct.friction_world = friction;
  // The twisting couple on B about n: published so the joint torques, the clutches' loads and
  // the recorded columns see it as they see the default model's torsional rows.
  ct.spin_moment = torque.dot(n);
  switch (pair.kind) {
    case PenaltyPair::Kind::Link:
      ct.finger = pair.finger;
      ct.row = pair.row;
      pw.link_contacts.push_back(ct);
      break;
    case PenaltyPair::Kind::Palm:
      ct.other = kPalmContact;
      pw.object_contacts.push_back(ct);
      break;
    case PenaltyPair::Kind::Object:
      ct.other = pair.a_object;
      pw.object_contacts.push_back(ct);
      break;
    case PenaltyPair::Kind::Ground:
      ct.other = -1;
      pw.object_contacts.push_back(ct);
      break;
  }
}

}  // namespace

namespace {

// The overlap of one pair into PenaltyWorkspace::result, after the broad phase; false (the
// pair released) when the bodies are apart, do not overlap, or the overlap is not finite (a
// counted warning).
bool measurePenaltyOverlap(const Model& model, SimState& s, const PenaltyPair& pair, const Side& a,
                           const Side& b, PenaltyPairState& st) {
  PenaltyWorkspace& pw = s.work.penalty;
  const VolumePenaltyOptions& co = penaltyOptions(model.options);
  // Broad phase: bounding spheres (the ground: the object's lowest possible point).
  const Eigen::Vector3d cb = b.pose * b.body->centre;
  if (pair.kind == PenaltyPair::Kind::Ground) {
    if (cb.z() - b.body->radius > model.options.ground.height) {
      releasePair(st);
      return false;
    }
  } else if ((a.pose * a.body->centre - cb).norm() > a.body->radius + b.body->radius) {
    releasePair(st);
    return false;
  }
  if ((!a.closed || !b.closed) && !st.open_warned) {
    st.open_warned = true;
    addWarning(s, "seed004 contact of object '" +
                      model.objects[static_cast<std::size_t>(pair.object)].name +
                      "' with an open mesh: the overlap uses the winding-number inside test "
                      "(approximate; docs/collision.md section 8)");
  }
  collision::OverlapOptions oo;
  oo.a_closed = a.closed;
  oo.b_closed = b.closed;
  // The pieces give the implicit step's exact depth rate.
  oo.keep_pieces = co.integration == PenaltyIntegration::Implicit;
  collision::computeOverlap(a.body->tree, a.pose, b.body->tree, b.pose, pw.overlap, pw.result, oo);
  const collision::OverlapResult& ov = pw.result;
  if (!(ov.volume > 0.0) || ov.direction_world.squaredNorm() == 0.0) {
    releasePair(st);
    return false;
  }
  if (!std::isfinite(ov.volume) || !ov.centroid_world.allFinite() ||
      !ov.direction_world.allFinite()) {
    addWarning(s, "seed004 contact of object '" +
                      model.objects[static_cast<std::size_t>(pair.object)].name +
                      "': the overlap is not finite; no force this step");
    releasePair(st);
    return false;
  }
  return true;
}

// One pair of the stage (PenaltyGeometry::pairs[k]): its overlap, eq. 4-6's normal force and
// the friction, added to the bodies it acts on and published as a contact.
void computePenaltyPair(const Model& model, SimState& s, std::size_t k) {
  const PenaltyGeometry& g = *model.penalty;
  PenaltyWorkspace& pw = s.work.penalty;
  const VolumePenaltyOptions& co = penaltyOptions(model.options);
  const contact::PenaltyContactParams& pp = co.penalty;
  const double dt = model.options.dt;
  const double t = s.time;
  const PenaltyPair& pair = g.pairs[k];
  PenaltyPairState& st = s.penalty_pairs[k];
  const Side b = sideOfObject(model, s, g, pair.object);
  const Side a = sideA(model, s, g, pair);
  // Something must feel the force: a moving object or a finger link.
  if (b.free_body < 0 && a.free_body < 0 && a.finger < 0) {
    releasePair(st);
    return;
  }
  if (a.body->empty() || b.body->empty()) return;
  if (!measurePenaltyOverlap(model, s, pair, a, b, st)) return;
  const collision::OverlapResult& ov = pw.result;
  const Eigen::Vector3d n = ov.direction_world.normalized();  // s_n, from A into B
  const Eigen::Vector3d& c = ov.centroid_world;
  const bool fresh = !st.touching;
  st.reference_area = contact::referenceArea(st.reference_area, ov.area_a, ov.area_b);
  const double d0 = contact::equivalentDepth(ov.volume, st.reference_area);
  if (fresh) {
    // A new contact: eq. 4 starts at rest on the depth, eq. 5's impact at the approach speed
    // the bodies came in with (at the start of the step, before this step's gravity: a body
    // put down at rest has no impact, whatever dt).
    const double u =
        (pointVelocity(model, s, b, c, false) - pointVelocity(model, s, a, c, false)).dot(n);
    st.touching = true;
    st.filter = contact::startLowPass(d0);
    st.first.time_s = t;
    st.first.approach_mps = std::max(0.0, -u);
    st.anchor = {};
    st.twist = 0.0;
  }
  // Eq. 5's M: the masses the contact stops (the ground, the palm, fixed objects and links
  // have none here; a link's inertia is in the actuators), and their inverse for eq. 4's floor.
  double moving_mass = 0.0, inverse_mass = 0.0;
  for (const Side* side : {&a, &b})
    if (side->free_body >= 0) {
      const double m = model.objects[static_cast<std::size_t>(side->object)].mass.mass_kg;
      moving_mass += m;
      inverse_mass += 1.0 / m;
    }
  double magnitude = 0.0;
  if (co.integration == PenaltyIntegration::Explicit) {
    // Eq. 4-6 from the state at the start of the step, held constant over it: eq. 4's filter
    // catches up with the depth measured now (its input linear from last step's), eq. 5's
    // gain at t, eq. 6 on d0 and the filtered rate. A new contact's filter starts at rest.
    const double kappa = contact::firstContactGain(pp, st.first, moving_mass, t);
    if (!fresh)
      contact::advanceLowPass(st.filter, d0, dt, pp.filter_damping_ratio,
                              contact::filterNaturalFrequency(pp, kappa, inverse_mass));
    magnitude = contact::penaltyForceMagnitude(pp, kappa, d0, st.filter.rate);
  } else {
    magnitude = implicitPenaltyMagnitude(model, s, a, b, ov, n, d0, moving_mass, inverse_mass, st);
  }
  const Eigen::Vector3d normal_force = contact::penaltyForceOnB(magnitude, n);
  if (!normal_force.allFinite()) {
    addWarning(s, "seed004 contact of object '" +
                      model.objects[static_cast<std::size_t>(pair.object)].name +
                      "': the force is not finite; no force this step");
    releasePair(st);
    return;
  }
  addWrench(model, s, b.free_body, b.object, c, normal_force);
  addWrench(model, s, a.free_body, a.object, c, -normal_force);
  if (a.finger >= 0) addLinkLoad(model, s, a.finger, a.row, c, -normal_force);
  // Friction, explicit: on B's velocity relative to A at c at the start of the step. That is
  // the velocity the bodies moved with during the last step, so the anchor's extension is
  // their true relative displacement (a predicted velocity that the friction itself then
  // changes would make the anchor drift).
  Eigen::Vector3d friction, torque;
  penaltyFriction(model, s, pair, a, b, ov, n, magnitude, st, friction, torque);
  if (!friction.allFinite()) friction.setZero();
  addWrench(model, s, b.free_body, b.object, c, friction);
  addWrench(model, s, a.free_body, a.object, c, -friction);
  if (a.finger >= 0) addLinkLoad(model, s, a.finger, a.row, c, -friction);
  addTorque(model, s, b.free_body, torque);
  addTorque(model, s, a.free_body, -torque);
  if (a.finger >= 0) addLinkCouple(model, s, a.finger, a.row, c, -torque);
  if (magnitude == 0.0 && friction.squaredNorm() == 0.0) return;
  pw.loads.push_back({static_cast<int>(k), c, normal_force + friction, torque});
  publishPenaltyContact(pair, c, n, d0, magnitude, friction, torque, pw);
}

}  // namespace

void computePenaltyContacts(const Model& model, SimState& s) {
  s.contacts.clear();
  s.object_contacts.clear();
  PenaltyWorkspace& pw = s.work.penalty;
  pw.loads.clear();
  pw.link_contacts.clear();
  pw.object_contacts.clear();
  if (!model.penalty) return;
  const PenaltyGeometry& g = *model.penalty;
  sizePenaltyState(model, s);
  const auto na = idx(model.actuatorCount());
  for (Eigen::VectorXd* v : {&pw.row_normal, &pw.row_flux, &pw.answer})
    if (v->size() != na) v->resize(na);
  for (std::size_t k = 0; k < g.pairs.size(); ++k) computePenaltyPair(model, s, k);
  // The links' loads are in the actuator forces and accelerations already (addLinkLoad).
  const auto na_end = idx(model.actuatorCount());
  if (!s.work.acceleration.head(na_end).allFinite()) {
    addWarning(s, "seed004 contact: the finger accelerations are not finite; set to 0");
    s.work.acceleration.head(na_end).setZero();
  }
}

void applyPenaltyContacts(const Model& model, SimState& s) {
  s.contacts.clear();
  s.object_contacts.clear();
  if (!model.penalty) return;
  const PenaltyGeometry& g = *model.penalty;
  for (const PenaltyLoad& l : s.work.penalty.loads) {
    const PenaltyPair& pair = g.pairs[static_cast<std::size_t>(l.pair)];
    const Side b = sideOfObject(model, s, g, pair.object);
    const Side a = sideA(model, s, g, pair);
    addWrench(model, s, b.free_body, b.object, l.point_world, l.force_on_b_world);
    addWrench(model, s, a.free_body, a.object, l.point_world, -l.force_on_b_world);
    addTorque(model, s, b.free_body, l.torque_on_b_world);
    addTorque(model, s, a.free_body, -l.torque_on_b_world);
    if (a.finger >= 0) {
      addLinkLoad(model, s, a.finger, a.row, l.point_world, -l.force_on_b_world);
      addLinkCouple(model, s, a.finger, a.row, l.point_world, -l.torque_on_b_world);
    }
  }
}

void publishPenaltyContacts(SimState& s) {
  s.contacts.assign(s.work.penalty.link_contacts.begin(), s.work.penalty.link_contacts.end());
  s.object_contacts.assign(s.work.penalty.object_contacts.begin(),
                           s.work.penalty.object_contacts.end());
}

StepLimit penaltyStableStep(const Options& options, const std::vector<ObjectModel>& objects) {
  StepLimit out;
  out.dt_max = std::numeric_limits<double>::infinity();
  const VolumePenaltyOptions& co = penaltyOptions(options);
  for (const ObjectModel& o : objects) {
    if (o.fixed || !(o.mass.mass_kg > 0.0)) continue;
    const double m = o.mass.mass_kg;
    double bound = 0.0;
    std::string what;
    if (co.friction == PenaltyFriction::Anchor) {
      // dt^2 k/m + 2 dt c/m = 4 (stability.hpp's Jury bound for one mode).
      const double lk = co.anchor.stiffness_n_per_m / m, lc = co.anchor.damping_ns_per_m / m;
      bound = (-lc + std::sqrt(lc * lc + 4.0 * lk)) / lk;
      what = "the anchor friction spring (k_t " + shortNumber(co.anchor.stiffness_n_per_m) +
             " N/m, c_t " + shortNumber(co.anchor.damping_ns_per_m) + " N s/m) on object '" +
             o.name + "' (" + shortNumber(m) + " kg)";
    } else {
      const double mu = o.friction;
      const double slope = co.penalty.viscous_ns_per_m +
                           mu * co.penalty.tanh_slope_s_per_m * m * options.gravity_world.norm();
      if (!(slope > 0.0)) continue;
      bound = 2.0 * m / slope;
      what = "eq. 8's friction slope (" + shortNumber(slope) +
             " N s/m under its weight) on "
             "object '" +
             o.name + "' (" + shortNumber(m) + " kg)";
    }
    if (bound < out.dt_max) {
      out.dt_max = bound;
      out.what = what;
    }
    if (co.integration == PenaltyIntegration::Explicit) {
      // Eq. 6 held constant over the step, the body's symplectic Euler step: one mode of
      // m x'' = -g1 x - g2 x' against a fixed body, stable for dt^2 g1/m + 2 dt g2/m < 4
      // (stability.hpp's Jury bound). The steady contact's gains (eq. 5's kappa = 1); the
      // first-contact gain raises both by up to 1 + gi / sqrt(pi) for a few d_v, which this
      // bound leaves out (docs/free-objects.md, "Explicit integration").
      const double lk = co.penalty.stiffness_n_per_m / m, lc = co.penalty.damping_ns_per_m / m;
      const double normal = (-lc + std::sqrt(lc * lc + 4.0 * lk)) / lk;
      if (normal < out.dt_max) {
        out.dt_max = normal;
        out.what = "the explicit eq. 6 (g1 " + shortNumber(co.penalty.stiffness_n_per_m) +
                   " N/m, g2 " + shortNumber(co.penalty.damping_ns_per_m) + " N s/m) on object '" +
                   o.name + "' (" + shortNumber(m) + " kg)";
      }
    }
  }
  return out;
}

}  // namespace handsim::sim
