// SPDX-License-Identifier: GPL-3.0-or-later
// Validation presets run in the engine (docs/planner.md, "Validation").
#include "handsim/planner/validation.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "handsim/formats/model_loader.hpp"
#include "handsim/grasp/grasp_contact.hpp"
#include "handsim/grasp/grasp_sweep.hpp"
#include "handsim/planner/grasp_defaults.hpp"
#include "handsim/sim/step.hpp"
#include "handsim/sim/trapezoidal_profile.hpp"
#include "handsim/tools/lift_and_shake.hpp"

namespace handsim::planner {
namespace {

std::vector<Eigen::Vector3d> sixDirections() {
  return {-Eigen::Vector3d::UnitX(), Eigen::Vector3d::UnitX(),  -Eigen::Vector3d::UnitY(),
          Eigen::Vector3d::UnitY(),  -Eigen::Vector3d::UnitZ(), Eigen::Vector3d::UnitZ()};
}

grasp::GraspQuality qualityOf(const Validator& v, const sim::SimState& s) {
  std::vector<grasp::GraspContact> gc;
  for (const auto& c : objectContacts(s)) gc.push_back(grasp::fromSimContact(c, v.preset.friction));
  grasp::GraspQualityOptions q;
  q.torque_radius = v.radius;
  q.torque_reference = s.object_pose_world[0] * v.centre;
  return grasp::evaluateGrasp(gc, q);
}

// Every movable joint of the hand, finger by finger.
std::vector<hand::JointRef> movableJoints(const hand::HandModel& hand) {
  std::vector<hand::JointRef> out;
  for (std::size_t f = 0; f < hand.fingers.size(); ++f)
    for (int j = 0; j < hand.fingers[f].dof(); ++j) out.push_back({static_cast<int>(f), j});
  return out;
}

}  // namespace

const char* holdName(ValidationPreset::Hold h) {
  return h == ValidationPreset::Hold::Pd ? "pd" : "drives";
}
ValidationPreset::Hold parseHold(const std::string& name) {
  if (name == "drives") return ValidationPreset::Hold::Drives;
  if (name == "pd") return ValidationPreset::Hold::Pd;
  throw std::invalid_argument("unknown hold '" + name + "' (drives, pd)");
}

hand::HandModel pdHoldHand(const hand::HandModel& hand, const PdHold& pd) {
  hand::HandModel h = hand;
  h.actuators.clear();
  h.clutches.clear();
  h.tendons.clear();
  h.closing_actuators.clear();
  h.closing_tendons.clear();
  h.eigengrasps.clear();
  h.eigengrasp_origin.clear();
  for (const hand::JointRef& j : movableJoints(hand)) {
    const auto& chain = hand.fingers[static_cast<std::size_t>(j.finger)];
    const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j.joint))];
    const bool prismatic = row.type == kinematics::JointType::Prismatic;
    hand::Actuator a;
    a.name = hand.jointName(j);
    a.unit = prismatic ? "m" : "rad";
    a.lower = row.lower;
    a.upper = row.upper;
    a.drives = {hand::JointDrive{j, 1.0, 0.0}};
    a.servo.kp = prismatic ? pd.kp_prismatic : pd.kp_revolute;
    a.servo.kd = prismatic ? pd.kd_prismatic : pd.kd_revolute;
    a.servo.torque_limit = pd.effort_limit;
    a.servo.rotor_inertia = pd.rotor_inertia;
    h.actuators.push_back(a);
  }
  return h;
}

std::vector<double> closingDirections(const hand::HandModel& hand) {
  std::vector<double> out;
  for (const hand::JointRef& j : movableJoints(hand)) {
    double dir = 0.0;
    const auto [a, d] = hand.driverOf(j);
    if (a >= 0 && std::find(hand.closing_actuators.begin(), hand.closing_actuators.end(), a) !=
                      hand.closing_actuators.end()) {
      const double r =
          hand.actuators[static_cast<std::size_t>(a)].drives[static_cast<std::size_t>(d)].ratio;
      dir = r > 0.0 ? 1.0 : (r < 0.0 ? -1.0 : 0.0);
    }
    for (int t : hand.closing_tendons)
      for (const auto& tj : hand.tendons[static_cast<std::size_t>(t)].joints)
        if (tj.joint == j && tj.pulley_radius != 0.0) dir = tj.pulley_radius > 0.0 ? 1.0 : -1.0;
    out.push_back(dir);
  }
  return out;
}

std::vector<std::string> validationPresetNames() {
  return {"six-directions", "tug", "lift", "lift-shake"};
}

ValidationPreset validationPreset(const std::string& name) {
  ValidationPreset p;
  p.name = name;
  if (name == "six-directions") {
    p.load = ValidationPreset::Load::Field;
    p.directions = sixDirections();
    p.duration = 100.0 / 60.0;
    p.friction = 3.0;
    p.density = 500.0;
    p.require_contact = true;
    p.source =
        "DexGraspNet (Wang et al., ICRA 2023): gravity along +-x, +-y, +-z of the object, "
        "100 steps of 1/60 s each, mu 3, 500 kg/m^3; success: contact remains in all six";
  } else if (name == "tug") {
    p.load = ValidationPreset::Load::Field;
    p.directions = sixDirections();
    p.duration = 2.0;
    p.friction = 0.6;
    p.mass_kg = 0.1;
    p.max_displacement = 0.05;
    p.max_rotation = 15.0 * M_PI / 180.0;
    p.source =
        "BODex / DexGraspBench (Chen et al., ICRA 2025): gravity off, a 1 g force on the "
        "0.1 kg object along -x, +x, -y, +y, -z, +z, 2 s each, mu 0.6; success: moved "
        "< 5 cm and < 15 degrees";
  } else if (name == "lift") {
    p.load = ValidationPreset::Load::Lift;
    p.directions = {-Eigen::Vector3d::UnitZ()};
    p.duration = 0.5;
    p.friction = 0.9;
    p.min_links = 3;
    p.max_displacement = 0.10;
    p.max_rotation = 45.0 * M_PI / 180.0;
    p.source =
        "Get a Grip (Lum et al., CoRL 2024): lift 0.2 m, mu 0.9; success: >= 3 hand "
        "links touching, < 10 cm, < 45 degrees";
  } else if (name == "lift-shake") {
    p.load = ValidationPreset::Load::LiftShake;
    p.directions = {-Eigen::Vector3d::UnitZ()};
    p.friction = 0.5;
    p.source =
        "handsim's hold test (docs/grasp-sweep.md): release, lift 0.1 m, shake 4 cycles "
        "of 1 cm at 2 Hz, settle; success: COM within 1 cm in the palm frame";
  } else {
    std::string list;
    for (const auto& n : validationPresetNames()) list += (list.empty() ? "" : ", ") + n;
    throw std::invalid_argument("unknown validation preset '" + name + "' (" + list + ")");
  }
  return p;
}

Validator makeValidator(std::shared_ptr<const hand::HandModel> hand, const sim::ObjectModel& object,
                        const ValidationPreset& preset, const ClosingOptions& closing,
                        const std::optional<SupportPlane>& support_plane) {
  if (!hand) throw std::invalid_argument("validation: no hand");
  hand = withGraspDefaults(std::move(hand));
  if (!(preset.friction >= 0.0) || !(preset.duration >= 0.0) || !(preset.acceleration >= 0.0))
    throw std::invalid_argument("validation preset '" + preset.name + "': bad numbers");
  for (const auto& d : preset.directions)
    if (!(d.norm() > 0.0)) throw std::invalid_argument("validation: a direction is zero");
  Validator v;
  v.preset = preset;
  v.closing = closing;
  v.hand = hand;
  v.object = object;
  const auto& mesh = object.geometry->collision.mesh;
  const geometry::Aabb box = geometry::boundingBox(mesh);
  if (box.empty()) throw std::invalid_argument("validation: the object has no triangles");
  v.centre = 0.5 * (box.min + box.max);
  v.radius = grasp::torqueRadius(mesh, v.centre);
  sim::Options options;
  options.gravity_world.setZero();
  if (preset.load == ValidationPreset::Load::LiftShake) {
    if (preset.hold != ValidationPreset::Hold::Drives)
      throw std::invalid_argument(
          "validation: lift-shake holds with the hand's drives only (the sweeps' hold test)");
    v.closing_model =
        sim::compileModel(hand, {closingObject(object, preset.friction, 1.0)}, options);
    return v;
  }
  // The hand closes on the object floating at the preset's mass (as the planner closes it),
  // then the load comes on.
  const sim::ObjectModel free =
      closingObject(object, preset.friction, preset.density, preset.mass_kg);
  if (free.fixed)
    throw std::invalid_argument("validation: the object '" + object.name +
                                "' has no volume (open mesh): it cannot be set free");
  std::vector<sim::ObjectModel> closing_objects{free};
  if (support_plane) {
    v.support_plane = checkedConstraints({support_plane, std::nullopt, std::nullopt}).support_plane;
    closing_objects.push_back(supportTable());
  }
  const bool keep_table = preset.load == ValidationPreset::Load::Lift;
  std::vector<sim::ObjectModel> loaded_objects =
      keep_table ? closing_objects : std::vector<sim::ObjectModel>{free};
  v.closing_model = sim::compileModel(hand, closing_objects, options);
  const auto pd_hand = preset.hold == ValidationPreset::Hold::Pd
                           ? std::make_shared<const hand::HandModel>(pdHoldHand(*hand, preset.pd))
                           : nullptr;
  for (const auto& d : preset.directions) {
    sim::Options o = options;
    o.gravity_world = preset.acceleration * d.normalized();
    v.loaded.push_back(sim::compileModel(hand, loaded_objects, o, v.closing_model->hand_geometry));
    if (pd_hand)
      v.pd_loaded.push_back(
          sim::compileModel(pd_hand, loaded_objects, o, v.closing_model->hand_geometry));
  }
  return v;
}

namespace {

ValidationOutcome liftShake(const Validator& v, const Eigen::Isometry3d& palm,
                            const Eigen::VectorXd& pregrasp) {
  // handsim's own hold test, exactly as the sweeps run it: one pose of a sweep.
  grasp::SweepSpec spec;
  spec.hand = v.hand;
  spec.object = v.object;
  spec.palm_poses = {palm};
  spec.closing = closingPlan(*v.closing_model, Eigen::Isometry3d::Identity(), pregrasp, v.closing);
  spec.closing.palm_pose_world = Eigen::Isometry3d::Identity();
  spec.options = v.closing_model->options;
  spec.friction = v.preset.friction;
  spec.quality.torque_radius = v.radius;
  spec.object_centre = v.centre;
  spec.hold_test = grasp::HoldTestSpec{};
  const grasp::SweepModels models = grasp::compileSweepModels(spec);
  const grasp::SweepResult r = grasp::evaluateSweepPose(spec, 0, models);
  ValidationOutcome out;
  out.preset = v.preset.name;
  out.start_collision = r.start_collision;
  out.force_closure = r.quality.force_closure;
  out.epsilon = r.quality.epsilon;
  out.volume = r.quality.volume;
  if (r.hold) {
    DirectionOutcome d;
    d.direction = spec.hold_test->gravity_object.normalized();
    d.displacement = r.hold->slip;
    d.contacts = r.contacts;
    d.passed = r.hold->held;
    out.directions.push_back(d);
    out.passed = d.passed;
  }
  return out;
}

double angleBetween(const Eigen::Isometry3d& a, const Eigen::Isometry3d& b) {
  return Eigen::AngleAxisd(Eigen::Matrix3d(a.linear().transpose() * b.linear())).angle();
}

// Watches a loaded run for a steady hold (ValidationPreset::steady_window): the object at rest
// relative to the palm, touching the hand, the joints still, for a whole window that starts
// once the load is fully on.
class SteadyWatch {
 public:
  SteadyWatch(const ValidationPreset& p, double load_on, double end)
      : p_(p), load_on_(load_on), end_(end) {}

  // True when the window is complete at `s` and the creep it allows keeps the verdict.
  bool held(const sim::SimState& s, const Eigen::Isometry3d& object_palm,
            const Eigen::Vector3d& com, bool touching, double displacement, double rotation) {
    if (!(p_.steady_window > 0.0)) return false;
    const bool moved = !open_ ||
                       (object_palm * com - window_pose_ * com).norm() > p_.steady_displacement ||
                       angleBetween(window_pose_, object_palm) > p_.steady_rotation;
    if (s.time < load_on_ || !touching || moved || jointsMoving(s)) {
      open_ = true;
      window_pose_ = object_palm;
      window_start_ = s.time;
      return false;
    }
    if (s.time - window_start_ < p_.steady_window - 1e-9) return false;
    // The creep still to come, bounded as a uniform acceleration from rest that moved the
    // object by what it moved over the window: that movement times (1 + rest / window)^2.
    const double grow = std::pow(1.0 + std::max(0.0, end_ - s.time) / p_.steady_window, 2.0);
    const double creep = (object_palm * com - window_pose_ * com).norm() * grow;
    const double turn = angleBetween(window_pose_, object_palm) * grow;
    if (displacement + creep > p_.max_displacement || rotation + turn > p_.max_rotation)
      return false;
    return !p_.require_contact || creep <= 1e-3;
  }

 private:
  bool jointsMoving(const sim::SimState& s) const {
    for (const auto& qd : s.qd)
      for (Eigen::Index j = 0; j < qd.size(); ++j)
        if (std::abs(qd[j]) > p_.steady_joint_speed) return true;
    return false;
  }

  const ValidationPreset& p_;
  double load_on_, end_;
  bool open_ = false;
  Eigen::Isometry3d window_pose_ = Eigen::Isometry3d::Identity();
  double window_start_ = 0.0;
};

}  // namespace

ValidationOutcome validateGrasp(const Validator& v, const Eigen::Isometry3d& palm_object,
                                const Eigen::VectorXd& pregrasp) {
  if (v.preset.load == ValidationPreset::Load::LiftShake)
    return liftShake(v, palm_object, pregrasp);
  const ValidationPreset& p = v.preset;
  ValidationOutcome out;
  out.preset = p.name;
  const double lift_time =
      p.load == ValidationPreset::Load::Lift
          ? sim::TrapezoidalProfile(0.0, p.lift_height, p.lift_speed, p.lift_acceleration)
                .duration()
          : 0.0;
  const double test_time = p.duration + lift_time;
  sim::RunPlan plan =
      closingPlan(*v.closing_model, palm_object, pregrasp, v.closing, 0.0, v.support_plane);
  sim::Run run(v.closing_model, plan);
  out.start_collision = sim::handTouchesObjects(*v.closing_model, run.state());
  if (out.start_collision) return out;
  const Closing closing = closeOnObject(run, v.closing);
  const sim::SimState& closed = closing.state;
  out.held = closing.held;
  const grasp::GraspQuality q = qualityOf(v, closed);
  out.force_closure = q.force_closure;
  out.epsilon = q.epsilon;
  out.volume = q.volume;
  out.passed = true;
  const double dt = v.closing_model->options.dt;
  const bool pd = p.hold == ValidationPreset::Hold::Pd;
  out.hold = p.hold;
  for (std::size_t k = 0; k < p.directions.size(); ++k) {
    // Drives: the closing run goes on with the load on (time continues). PD: a run of its own
    // on the PD hand from the closed state (time from 0).
    sim::RunPlan loaded = plan;
    loaded.duration = closed.time + test_time;
    double t0 = closed.time;
    if (pd) {
      loaded = sim::RunPlan{};
      loaded.palm_pose_world = palm_object;
      // The closing's start poses (the object at the origin, then the table, when it stays).
      loaded.object_pose_world = plan.object_pose_world;
      loaded.object_pose_world.resize(v.pd_loaded[k]->objects.size());
      loaded.duration = test_time;
      loaded.record_every = 1 << 30;
      t0 = 0.0;
    }
    if (p.load == ValidationPreset::Load::Lift)
      sim::appendPalmLift(loaded.palm_motion, Eigen::Vector3d::UnitZ(), p.lift_height, p.lift_speed,
                          p.lift_acceleration, t0);
    sim::Run test(pd ? v.pd_loaded[k] : v.closing_model, loaded);
    if (pd) {
      // The closed joints become the PD actuators' positions and velocities; the targets are
      // squeezed past them in each joint's closing direction.
      sim::SimState& s = test.state();
      const hand::HandModel& ph = v.pd_loaded[k]->hand();
      const std::vector<double> dir = closingDirections(*v.hand);
      std::size_t a = 0;
      for (std::size_t f = 0; f < closed.q.size(); ++f)
        for (Eigen::Index j = 0; j < closed.q[f].size(); ++j, ++a) {
          const bool prismatic = ph.actuators[a].unit == "m";
          s.actuator_position[a] = closed.q[f][j];
          s.actuator_velocity[a] = closed.qd[f][j];
          s.actuator_command[a] = closed.q[f][j] + dir[a] * (prismatic ? p.pd.squeeze_prismatic
                                                                       : p.pd.squeeze_revolute);
        }
      // Object 0 as it closed (the table, when it stays, is fixed where it was).
      s.object_pose_world[0] = closed.object_pose_world[0];
      s.object_twist_world[0] = closed.object_twist_world[0];
      s.object_stopped[0] = closed.object_stopped[0];
      sim::forwardPosition(*v.pd_loaded[k], s);
    } else {
      test.state() = closed;
      test.setModel(v.loaded[k]);
    }
    const Eigen::Vector3d com = v.loaded[k]->objects[0].mass.centre_of_mass;
    auto relative = [&](const sim::SimState& s) -> Eigen::Isometry3d {
      return s.palm_pose_world.inverse() * s.object_pose_world[0];
    };
    const Eigen::Isometry3d start = relative(test.state());
    DirectionOutcome d;
    d.direction = p.directions[k].normalized();
    const auto end = static_cast<std::int64_t>(std::llround(loaded.duration / dt));
    SteadyWatch steady(p, t0 + lift_time, t0 + test_time);
    while (test.state().step < end) {
      test.step();
      const sim::SimState& s = test.state();
      const Eigen::Isometry3d now = relative(s);
      const double disp = (now * com - start * com).norm();
      const double rot = angleBetween(start, now);
      const bool touching = !objectContacts(s).empty();
      const bool lost = p.require_contact && !touching;
      if (!d.time_to_slip && (disp > p.max_displacement || rot > p.max_rotation || lost))
        d.time_to_slip = s.time - t0;
      d.displacement = disp;
      d.rotation = rot;
      if (!d.time_to_slip && steady.held(s, now, com, touching, disp, rot)) {
        d.steady_at = s.time - t0;
        break;
      }
    }
    const sim::SimState& s = test.state();
    const auto contacts = objectContacts(s);
    d.contacts = static_cast<int>(contacts.size());
    std::set<std::pair<int, int>> bodies;
    for (const auto& c : contacts) bodies.insert({c.finger, c.finger < 0 ? -1 : c.row});
    d.links = static_cast<int>(bodies.size());
    d.passed = s.object_stopped[0] == 0 && std::isfinite(d.displacement) &&
               d.displacement <= p.max_displacement && d.rotation.value_or(0.0) <= p.max_rotation &&
               d.links >= p.min_links && (!p.require_contact || d.contacts > 0);
    out.passed = out.passed && d.passed;
    out.directions.push_back(d);
  }
  return out;
}

}  // namespace handsim::planner
