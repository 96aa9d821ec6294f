// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/planner/energy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "handsim/collision/primitives.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/grasp/grasp_contact.hpp"
#include "handsim/planner/grasp_defaults.hpp"
#include "handsim/sim/step.hpp"
#include "handsim/sim/trapezoidal_profile.hpp"
#include "handsim/tools/grasp_closing.hpp"

namespace handsim::planner {

PlannerModel compilePlannerModel(std::shared_ptr<const hand::HandModel> hand,
                                 const sim::ObjectModel& object, double friction,
                                 std::vector<HandContactPoint> contact_points,
                                 std::uint64_t eigengrasp_seed) {
  if (!hand) throw std::invalid_argument("planner: no hand");
  hand = withGraspDefaults(std::move(hand));
  if (!object.geometry || object.geometry->collision.mesh.triangles.empty())
    throw std::invalid_argument("planner: the object '" + object.name + "' has no triangles");
  if (!(friction >= 0.0) || !std::isfinite(friction))
    throw std::invalid_argument("planner: friction must be finite and >= 0");
  PlannerModel pm;
  pm.eigengrasps = eigengraspBasis(*hand, eigengrasp_seed);
  const sim::ObjectModel closing =
      closingObject(object, friction, sim::ObjectModel::kDefaultDensity);
  pm.object_free = !closing.fixed;
  sim::Options options;
  options.gravity_world.setZero();
  pm.model = sim::compileModel(std::move(hand), {closing}, options);
  const auto& mesh = object.geometry->collision.mesh;
  pm.surface = buildSurfaceTree(mesh);
  const geometry::Aabb box = geometry::boundingBox(mesh);
  pm.centre = 0.5 * (box.min + box.max);
  pm.radius = grasp::torqueRadius(mesh, pm.centre);
  pm.friction = friction;
  // The caller's points, else the hand file's, else generated from the meshes.
  if (contact_points.empty()) contact_points = pm.model->hand().contact_points;
  pm.contact_points =
      contact_points.empty() ? palmarContactPoints(*pm.model) : std::move(contact_points);
  return pm;
}

sim::ObjectModel closingObject(const sim::ObjectModel& object, double friction, double density,
                               double mass_kg) {
  sim::ObjectModel o = object;
  o.friction = friction;
  o.warnings.clear();
  sim::computeMassProperties(o, 1.0);
  const double volume = o.mass.volume_m3;
  o.fixed = !(volume > 0.0);
  if (o.fixed) {
    o.warnings.clear();
    return o;
  }
  sim::computeMassProperties(o, mass_kg > 0.0 ? mass_kg / volume : density);
  return o;
}

namespace {
const Eigen::Vector3d kTableSize(1.0, 1.0, 0.05);  // [m]
}  // namespace

sim::ObjectModel supportTable() {
  auto g = std::make_shared<sim::BodyGeometry>();
  g->collision = sim::makeCollisionBody(collision::makeBox(kTableSize), 18);
  sim::ObjectModel t;
  t.name = "support table";
  t.geometry = g;
  t.fixed = true;
  t.friction = 0.5;
  return t;
}

Eigen::Isometry3d supportTablePose(const SupportPlane& plane) {
  const Eigen::Vector3d n = plane.normal.normalized();
  Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
  pose.linear() =
      Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitZ(), n).toRotationMatrix();
  pose.translation() = plane.point - 0.5 * kTableSize.z() * n;
  return pose;
}

std::shared_ptr<const sim::Model> withSupportTable(const sim::Model& model) {
  std::vector<sim::ObjectModel> objects = model.objects;
  objects.push_back(supportTable());
  return sim::compileModel(model.hand_ptr, std::move(objects), model.options, model.hand_geometry);
}

std::shared_ptr<const sim::Model> withObjectHeld(const sim::Model& model) {
  std::vector<sim::ObjectModel> objects = model.objects;
  if (objects.empty()) throw std::invalid_argument("withObjectHeld: the model has no object");
  objects[0].fixed = true;
  return sim::compileModel(model.hand_ptr, std::move(objects), model.options, model.hand_geometry);
}

void setConfiguration(const PlannerModel& pm, const Eigen::Isometry3d& palm_object,
                      const Eigen::VectorXd& posture, sim::SimState& state) {
  state.palm_pose_world = palm_object;
  for (std::size_t a = 0; a < state.actuator_position.size(); ++a) {
    state.actuator_position[a] = posture[static_cast<Eigen::Index>(a)];
    state.actuator_velocity[a] = 0.0;
  }
  sim::forwardPosition(*pm.model, state);
}

std::vector<PointDistance> contactDistances(const PlannerModel& pm, const sim::SimState& state) {
  std::vector<PointDistance> out;
  out.reserve(pm.contact_points.size());
  for (const HandContactPoint& c : pm.contact_points) {
    const Eigen::Isometry3d body = c.finger < 0
                                       ? state.palm_pose_world
                                       : sim::linkPoseWorld(*pm.model, state, c.finger, c.row);
    PointDistance d;
    d.point = body * c.point_body;
    d.normal = body.linear() * c.normal_body;
    d.surface = closestSurfacePoint(pm.surface, d.point);
    out.push_back(d);
  }
  return out;
}

double contactEnergy(const std::vector<PointDistance>& points) {
  if (points.empty()) return 0.0;
  double e = 0.0;
  for (const PointDistance& p : points)
    e += std::abs(p.surface.distance) / kContactLength +
         0.5 * (1.0 + p.normal.dot(p.surface.normal));
  return e / static_cast<double>(points.size());
}

std::vector<grasp::GraspContact> virtualContacts(const std::vector<PointDistance>& points,
                                                 double threshold, double friction) {
  std::vector<grasp::GraspContact> out;
  const double facing = std::cos(M_PI / 4.0);
  for (const PointDistance& p : points)
    if (std::abs(p.surface.distance) <= threshold && -p.normal.dot(p.surface.normal) >= facing)
      out.push_back({p.surface.point, -p.surface.normal, friction});
  return out;
}

double potentialQualityEnergy(const PlannerModel& pm, const std::vector<PointDistance>& points) {
  const double e = contactEnergy(points);
  const auto contacts = virtualContacts(points, 0.005, pm.friction);
  if (contacts.size() < 2) return e;
  grasp::GraspQualityOptions q;
  q.cone_edges = pm.cone_edges;
  q.torque_radius = pm.radius;
  q.torque_reference = pm.centre;
  const grasp::GraspQuality g = grasp::evaluateGrasp(contacts, q);
  return g.force_closure ? e - (1.0 + g.epsilon) : e;
}

sim::RunPlan closingPlan(const sim::Model& model, const Eigen::Isometry3d& palm_object,
                         const Eigen::VectorXd& pregrasp, const ClosingOptions& options,
                         double extra_duration, const std::optional<SupportPlane>& table) {
  const hand::HandModel& hand = model.hand();
  sim::RunPlan plan;
  plan.palm_pose_world = palm_object;
  plan.object_pose_world = {Eigen::Isometry3d::Identity()};
  if (table) plan.object_pose_world.push_back(supportTablePose(*table));
  if (model.objects.size() != plan.object_pose_world.size())
    throw std::invalid_argument("closingPlan: the model has " +
                                std::to_string(model.objects.size()) + " objects, expected " +
                                std::to_string(plan.object_pose_world.size()) +
                                (table ? " (the object and its support table)" : " (the object)"));
  plan.initial.assign(pregrasp.data(), pregrasp.data() + pregrasp.size());
  // 1.25 times the range in close_time, full speed after an eighth of it.
  sim::ClosingReferences closing = sim::closingReferences(
      hand, plan.initial, {1.25, options.close_time, options.close_time / 8.0});
  plan.trajectories = std::move(closing.actuators);
  plan.tendon_trajectories = std::move(closing.tendons);
  plan.duration = options.close_time + options.settle_time + extra_duration;
  plan.record_every = 1 << 30;
  return plan;
}

bool runClosing(sim::Run& run, const ClosingOptions& options) {
  const sim::Model& model = run.model();
  const hand::HandModel& hand = model.hand();
  const double dt = model.options.dt;
  const auto end =
      static_cast<std::int64_t>(std::llround((options.close_time + options.settle_time) / dt));
  int still = 0;
  while (run.state().step < end) {
    run.step();
    const sim::SimState& s = run.state();
    bool touching = !s.contacts.empty();
    bool slow = true;
    for (int a : hand.closing_actuators) {
      const auto& act = hand.actuators[static_cast<std::size_t>(a)];
      const double speed = (act.upper - act.lower) / options.close_time;
      if (std::abs(s.actuator_velocity[static_cast<std::size_t>(a)]) >
          options.stall_fraction * speed)
        slow = false;
    }
    for (int t : hand.closing_tendons)
      for (const auto& tj : hand.tendons[static_cast<std::size_t>(t)].joints) {
        const double qd = s.qd[static_cast<std::size_t>(tj.joint.finger)][tj.joint.joint];
        if (std::abs(qd) > options.stall_fraction * 1.0 / options.close_time) slow = false;
      }
    still = (touching && slow && s.time > 0.05) ? still + 1 : 0;
    if (still >= options.stall_steps) return true;
  }
  return false;
}

std::vector<contact::Contact> objectContacts(const sim::SimState& s) {
  std::vector<contact::Contact> out;
  for (const auto& c : s.contacts)
    if (c.object == 0) out.push_back(c);
  for (const auto& c : s.object_contacts)
    if (c.object == 0 && c.other == contact::kPalm) out.push_back(c);
  return out;
}

Closing closeOnObject(sim::Run& run, const ClosingOptions& options) {
  Closing c;
  c.stalled = runClosing(run, options);
  if (run.model().objects[0].fixed || !objectContacts(run.state()).empty()) {
    c.state = run.state();
    return c;
  }
  sim::Run again(withObjectHeld(run.model()), run.plan());
  c.stalled = runClosing(again, options);
  c.held = true;
  c.state = again.state();
  return c;
}

ClosedGrasp closeHand(const PlannerModel& pm, const Eigen::Isometry3d& palm_object,
                      const Eigen::VectorXd& pregrasp, const ClosingOptions& options,
                      const std::shared_ptr<const sim::Model>& model,
                      const std::optional<SupportPlane>& table) {
  ClosedGrasp g;
  const std::shared_ptr<const sim::Model>& m = model ? model : pm.model;
  sim::Run run(m, closingPlan(*m, palm_object, pregrasp, options, 0.0, table));
  g.start_collision = sim::handTouchesObjects(*m, run.state());
  if (g.start_collision) {
    g.posture = pregrasp;
    g.q = run.state().q;
    return g;
  }
  const Closing closing = closeOnObject(run, options);
  g.stalled = closing.stalled;
  g.held = closing.held;
  const sim::SimState& s = closing.state;
  g.time = s.time;
  g.posture = Eigen::Map<const Eigen::VectorXd>(
      s.actuator_position.data(), static_cast<Eigen::Index>(s.actuator_position.size()));
  g.q = s.q;
  g.object_pose = s.object_pose_world[0];
  const Eigen::Isometry3d to_object = g.object_pose.inverse();
  for (contact::Contact c : objectContacts(s)) {
    c.point_world = to_object * c.point_world;
    c.normal_world = to_object.linear() * c.normal_world;
    c.friction_world = to_object.linear() * c.friction_world;
    g.contacts.push_back(c);
  }
  std::vector<grasp::GraspContact> gc;
  for (const auto& c : g.contacts) gc.push_back(grasp::fromSimContact(c, pm.friction));
  grasp::GraspQualityOptions q;
  q.cone_edges = pm.cone_edges;
  q.torque_radius = pm.radius;
  q.torque_reference = pm.centre;
  g.quality = grasp::evaluateGrasp(gc, q);
  return g;
}

}  // namespace handsim::planner
