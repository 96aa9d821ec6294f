// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/formats/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "collision_field.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/mesh_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/io/atomic_file.hpp"
#include "handsim/sim/object_names.hpp"
#include "handsim/sim/penalty_contacts.hpp"
#include "handsim/sim/rigid_body.hpp"
#include "handsim/sim/stability.hpp"
#include "json_document.hpp"

namespace handsim::sim {

namespace {

using io::JsonDocument;
using json = nlohmann::json;
constexpr double kDeg = 3.14159265358979323846 / 180.0;

double positive(const JsonDocument& doc, const json& obj, const std::string& ptr, const char* key) {
  const std::string p = JsonDocument::child(ptr, key);
  const double v = doc.rational(doc.require(obj, ptr, key), p);
  if (!(v > 0.0)) doc.fail(p, "must be positive");
  return v;
}

namespace {

// One axis's (or arm joint's) "segments" and "sinusoids"; `linear`: metres, else radians.
AxisMotion readAxisMotion(const JsonDocument& doc, const json& value, const std::string& ap,
                          bool linear) {
  AxisMotion m;
  const int axis = linear ? 0 : 3;
  doc.object(value, ap);
  doc.allowOnly(value, ap, {"segments", "sinusoids"});
  if (const json* segs = doc.optional(value, "segments")) {
    const std::string sp = JsonDocument::child(ap, "segments");
    doc.array(*segs, sp);
    double from = 0.0, start = 0.0;
    for (std::size_t k = 0; k < segs->size(); ++k) {
      const std::string kp = JsonDocument::child(sp, k);
      const json& seg = doc.object((*segs)[k], kp);
      doc.allowOnly(seg, kp, {"to", "max_velocity", "max_acceleration", "start_s"});
      const double to = doc.rational(doc.require(seg, kp, "to"), JsonDocument::child(kp, "to"));
      if (std::abs(to) > (axis < 3 ? 100.0 : 100.0 * 3.141592653589793))
        doc.fail(JsonDocument::child(kp, "to"),
                 axis < 3 ? "more than 100 m from the start" : "more than 50 turns");
      const double v = positive(doc, seg, kp, "max_velocity");
      const double a = positive(doc, seg, kp, "max_acceleration");
      if (const json* s0 = doc.optional(seg, "start_s")) {
        const double t0 = doc.rational(*s0, JsonDocument::child(kp, "start_s"));
        if (t0 < start - 1e-12)
          doc.fail(JsonDocument::child(kp, "start_s"),
                   "segment starts before the previous one ends");
        start = t0;
      }
      const TrapezoidalProfile prof(from, to, v, a, start);
      m.segments.append(prof);
      from = to;
      start = prof.end();
    }
  }
  if (const json* sins = doc.optional(value, "sinusoids")) {
    const std::string sp = JsonDocument::child(ap, "sinusoids");
    doc.array(*sins, sp);
    for (std::size_t k = 0; k < sins->size(); ++k) {
      const std::string kp = JsonDocument::child(sp, k);
      const json& sj = doc.object((*sins)[k], kp);
      doc.allowOnly(sj, kp, {"amplitude", "frequency_hz", "start_s", "cycles"});
      Sinusoid sin;
      sin.amplitude =
          doc.rational(doc.require(sj, kp, "amplitude"), JsonDocument::child(kp, "amplitude"));
      if (std::abs(sin.amplitude) > (axis < 3 ? 10.0 : 3.141592653589793))
        doc.fail(JsonDocument::child(kp, "amplitude"),
                 axis < 3 ? "more than 10 m" : "more than pi rad");
      sin.frequency_hz = positive(doc, sj, kp, "frequency_hz");
      if (sin.frequency_hz > 1e4) doc.fail(JsonDocument::child(kp, "frequency_hz"), "above 10 kHz");
      if (doc.optional(sj, "cycles")) sin.cycles = positive(doc, sj, kp, "cycles");
      if (const json* s0 = doc.optional(sj, "start_s")) {
        sin.start = doc.rational(*s0, JsonDocument::child(kp, "start_s"));
        if (sin.start < 0.0) doc.fail(JsonDocument::child(kp, "start_s"), "must not be negative");
      }
      m.sinusoids.push_back(sin);
    }
  }
  return m;
}

// "palm": {"pose": {...}, "motion": {"<axis>": {"segments": [...], "sinusoids": [...]}}}
void readPalm(const JsonDocument& doc, const json& palm, RunPlan& plan) {
  doc.object(palm, "/palm");
  doc.allowOnly(palm, "/palm", {"pose", "motion"});
  if (const json* pose = doc.optional(palm, "pose")) {
    if (doc.optional(doc.root(), "palm_pose"))
      doc.fail("/palm/pose", "give the palm's pose once: here or in 'palm_pose'");
    plan.palm_pose_world = doc.pose(*pose, "/palm/pose");
  }
  const json* motion = doc.optional(palm, "motion");
  if (!motion) return;
  doc.object(*motion, "/palm/motion");
  for (auto it = motion->begin(); it != motion->end(); ++it) {
    const std::string ap = JsonDocument::child("/palm/motion", it.key());
    const int axis = PalmMotion::axisIndex(it.key());
    if (axis < 0) doc.fail(ap, "unknown axis; expected x, y, z (m) or rx, ry, rz (rad)");
    plan.palm_motion.axis(axis) = readAxisMotion(doc, it.value(), ap, axis < 3);
  }
}

// "arm": the arm the hand is on (docs/arm.md): a URDF to mount the hand on, the arm's base in
// the world, its initial joint positions and joint motions.
void readArm(const JsonDocument& doc, const json& arm_json, Scenario& sc, hand::HandModel& hand) {
  const std::string ap = "/arm";
  doc.object(arm_json, ap);
  doc.allowOnly(arm_json, ap,
                {"palm_link", "urdf", "flange", "mount", "base", "initial", "motion"});
  if (const json* u = doc.optional(arm_json, "urdf")) {
    sc.arm_ref = doc.string(*u, "/arm/urdf");
    sc.arm_flange =
        doc.string(doc.require(arm_json, ap, "flange"), JsonDocument::child(ap, "flange"));
    if (const json* m = doc.optional(arm_json, "mount")) sc.arm_mount = doc.pose(*m, "/arm/mount");
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path dir = fs::path(doc.file()).parent_path();
    std::string path = sc.arm_ref;
    if (fs::is_regular_file(dir / sc.arm_ref, ec))
      path = (dir / sc.arm_ref).string();
    else if (fs::is_regular_file(fs::path(hand::assetDirectory()) / sc.arm_ref, ec))
      path = (fs::path(hand::assetDirectory()) / sc.arm_ref).string();
    else if (const std::string found = hand::findOnHandSearchPath(sc.arm_ref); !found.empty())
      path = found;
    if (!hand.arm.empty())
      doc.fail("/arm/urdf", "the hand has an arm already (its palm link '" + hand.arm.palm_link +
                                "'); mount a hand without one");
    try {
      hand::mountOnArm(hand, hand::loadUrdfArm(path, sc.arm_flange), sc.arm_mount);
    } catch (const io::InputError& e) {
      doc.fail("/arm/urdf", e.what());
    }
  } else if (doc.optional(arm_json, "flange") || doc.optional(arm_json, "mount")) {
    doc.fail(ap, "'flange' and 'mount' go with 'urdf' (the arm to mount the hand on)");
  }
  if (hand.arm.empty())
    doc.fail(ap,
             "the hand has no arm: name its palm link (\"palm_link\") or an arm to mount it "
             "on (\"urdf\", \"flange\")");
  const kinematics::Chain& chain = hand.arm.chain;
  const int dof = chain.dof();
  const auto jointOf = [&](const std::string& name, const std::string& ptr) {
    const int j = chain.jointIndex(name);
    if (j < 0) doc.fail(ptr, "no arm joint '" + io::excerpt(name) + "'");
    return j;
  };
  RunPlan& plan = sc.plan;
  plan.arm.initial.assign(static_cast<std::size_t>(dof), 0.0);
  for (int j = 0; j < dof; ++j) {  // 0, or the nearest limit
    const kinematics::DhRow& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
    plan.arm.initial[static_cast<std::size_t>(j)] = std::clamp(0.0, row.lower, row.upper);
  }
  if (const json* init = doc.optional(arm_json, "initial")) {
    doc.object(*init, "/arm/initial");
    for (auto it = init->begin(); it != init->end(); ++it) {
      const std::string ip = JsonDocument::child("/arm/initial", it.key());
      const int j = jointOf(it.key(), ip);
      const double v = doc.rational(it.value(), ip);
      const kinematics::DhRow& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
      if (v < row.lower - 1e-9 || v > row.upper + 1e-9)
        doc.fail(ip, "outside the joint's limits [" + shortNumber(row.lower) + ", " +
                         shortNumber(row.upper) + "]");
      plan.arm.initial[static_cast<std::size_t>(j)] = v;
    }
  }
  if (const json* base = doc.optional(arm_json, "base")) {
    const json* palm_json = doc.optional(doc.root(), "palm");
    if (doc.optional(doc.root(), "palm_pose") ||
        (palm_json && palm_json->is_object() && doc.optional(*palm_json, "pose")))
      doc.fail("/arm/base",
               "give the arm's base or the palm's pose, not both (one follows "
               "from the other through the arm's joints)");
    const Eigen::Isometry3d base_world = doc.pose(*base, "/arm/base");
    const Eigen::VectorXd q0 = Eigen::Map<const Eigen::VectorXd>(plan.arm.initial.data(), dof);
    plan.palm_pose_world = base_world * armPalmPose(chain, q0);
  }
  if (const json* motion = doc.optional(arm_json, "motion")) {
    doc.object(*motion, "/arm/motion");
    plan.arm.motion.assign(static_cast<std::size_t>(dof), AxisMotion());
    for (auto it = motion->begin(); it != motion->end(); ++it) {
      const std::string mp = JsonDocument::child("/arm/motion", it.key());
      const int j = jointOf(it.key(), mp);
      const kinematics::DhRow& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
      plan.arm.motion[static_cast<std::size_t>(j)] =
          readAxisMotion(doc, it.value(), mp, row.type == kinematics::JointType::Prismatic);
    }
    if (plan.arm.drives() && !plan.palm_motion.empty())
      doc.fail("/arm/motion",
               "the palm has a motion too; the arm's motion moves the palm, "
               "give one of them");
  }
}

}  // namespace

// "contact": the contact model and its parameters (docs/scenario-format.md).
void readContact(const JsonDocument& doc, const json& c_ref, Options& options) {
  const json* c = &c_ref;
  doc.object(*c, "/contact");
  doc.allowOnly(*c, "/contact",
                {"stiffness",
                 "slop_m",
                 "sink_rate",
                 "kdop_k",
                 "model",
                 "mu",
                 "object_push",
                 "torsional_m",
                 "resting_tolerance_m",
                 "friction",
                 "g1_n_per_m",
                 "g2_ns_per_m",
                 "gi",
                 "gt",
                 "target_depth_m",
                 "filter_damping_ratio",
                 "filter_natural_frequency_radps",
                 "viscous_ns_per_m",
                 "tanh_slope_s_per_m",
                 "anchor_stiffness_n_per_m",
                 "anchor_damping_ns_per_m",
                 "integration",
                 "continuous"});
  auto read = [&](const char* key, double& value, double lo, double hi) {
    if (const json* v = doc.optional(*c, key)) {
      const std::string p = JsonDocument::child("/contact", key);
      value = doc.rational(*v, p);
      if (!(value >= lo && value <= hi))
        doc.fail(p, "expected a value in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  };
  read("mu", options.contact.mu, 0.0, 100.0);
  if (const json* cc = doc.optional(*c, "continuous"))
    options.contact.continuous = doc.boolean(*cc, "/contact/continuous");
  if (const json* m = doc.optional(*c, "model")) {
    // "default": the constraint model (velocity-level Coulomb); "seed004": seed 004's volume
    // penalty contact (docs/free-objects.md, "Seed 004's model in the engine").
    const std::string model = doc.string(*m, "/contact/model");
    if (model == "seed004")
      options.contact.useVolumePenalty();
    else if (model == "default")
      options.contact.useConstraint();
    else
      doc.fail("/contact/model", "expected \"default\" or \"seed004\"");
  }
  // Each model's own keys; a key of the other model names the model it belongs to.
  ConstraintContactOptions* constraint = options.contact.constraint();
  VolumePenaltyOptions* penalty = options.contact.volumePenalty();
  double unused = 0.0;
  auto readOf = [&](bool mine, const char* model, const char* key, double& value, double lo,
                    double hi) {
    if (doc.optional(*c, key) && !mine)
      doc.fail(JsonDocument::child("/contact", key),
               std::string("only with \"model\": \"") + model + "\"");
    read(key, value, lo, hi);
  };
  auto readConstraint = [&](const char* key, double ConstraintContactOptions::*field, double lo,
                            double hi) {
    readOf(constraint != nullptr, "default", key, constraint ? constraint->*field : unused, lo, hi);
  };
  readConstraint("stiffness", &ConstraintContactOptions::stiffness, 0.0, 1.0);
  readConstraint("slop_m", &ConstraintContactOptions::slop, 0.0, 0.01);
  readConstraint("sink_rate", &ConstraintContactOptions::sink_rate, 0.0, 1.0);
  readConstraint("object_push", &ConstraintContactOptions::object_push, 0.0, 1.0);
  readConstraint("torsional_m", &ConstraintContactOptions::torsional, 0.0, 0.1);
  readConstraint("resting_tolerance_m", &ConstraintContactOptions::resting_tolerance, 0.0, 1e-3);
  // The volume penalty model's keys, in SI (defaults: contact::PenaltyContactParams and
  // contact::AnchorFrictionParams).
  contact::PenaltyContactParams no_params;
  contact::AnchorFrictionParams no_anchor;
  contact::PenaltyContactParams& pp = penalty ? penalty->penalty : no_params;
  contact::AnchorFrictionParams& anchor = penalty ? penalty->anchor : no_anchor;
  auto readPenalty = [&](const char* key, double& value, double lo, double hi) {
    readOf(penalty != nullptr, "seed004", key, value, lo, hi);
  };
  readPenalty("g1_n_per_m", pp.stiffness_n_per_m, 1e-6, 1e12);
  readPenalty("g2_ns_per_m", pp.damping_ns_per_m, 0.0, 1e12);
  readPenalty("gi", pp.first_contact_gain, 0.0, 1e6);
  readPenalty("gt", pp.first_contact_delay, 0.0, 1e3);
  readPenalty("target_depth_m", pp.target_depth_m, 1e-9, 1.0);
  readPenalty("filter_damping_ratio", pp.filter_damping_ratio, 1e-3, 1e3);
  readPenalty("filter_natural_frequency_radps", pp.filter_natural_frequency_radps, 1e-3, 1e9);
  readPenalty("viscous_ns_per_m", pp.viscous_ns_per_m, 0.0, 1e9);
  readPenalty("tanh_slope_s_per_m", pp.tanh_slope_s_per_m, 0.0, 1e9);
  readPenalty("anchor_stiffness_n_per_m", anchor.stiffness_n_per_m, 1e-6, 1e12);
  readPenalty("anchor_damping_ns_per_m", anchor.damping_ns_per_m, 0.0, 1e12);
  if (const json* f = doc.optional(*c, "friction")) {
    if (!penalty) doc.fail("/contact/friction", "only with \"model\": \"seed004\"");
    const std::string law = doc.string(*f, "/contact/friction");
    if (law == "tanh")
      penalty->friction = PenaltyFriction::Tanh;
    else if (law == "anchor")
      penalty->friction = PenaltyFriction::Anchor;
    else
      doc.fail("/contact/friction", "expected \"anchor\" or \"tanh\"");
  }
  if (const json* in = doc.optional(*c, "integration")) {
    if (!penalty) doc.fail("/contact/integration", "only with \"model\": \"seed004\"");
    const std::string how = doc.string(*in, "/contact/integration");
    if (how == "explicit")
      penalty->integration = PenaltyIntegration::Explicit;
    else if (how == "implicit")
      penalty->integration = PenaltyIntegration::Implicit;
    else
      doc.fail("/contact/integration", "expected \"implicit\" or \"explicit\"");
  }
  if (const json* k = doc.optional(*c, "kdop_k")) {
    options.contact.kdop_k = doc.integer(*k, "/contact/kdop_k");
    const int kk = options.contact.kdop_k;
    if (kk != 14 && kk != 18 && kk != 26) doc.fail("/contact/kdop_k", "expected 14, 18 or 26");
  }
}

// "solver": sweeps, warm start, tolerance.
void readSolver(const JsonDocument& doc, const json& so_ref, Options& options) {
  const json* so = &so_ref;
  doc.object(*so, "/solver");
  doc.allowOnly(*so, "/solver", {"sweeps", "warm_start", "tolerance", "warm_start_radius_m"});
  if (const json* n = doc.optional(*so, "sweeps")) {
    options.solver.sweeps = doc.integer(*n, "/solver/sweeps");
    if (options.solver.sweeps < 1 || options.solver.sweeps > 100000)
      doc.fail("/solver/sweeps", "expected 1 to 100000");
  }
  // The converged solve (the defaults) or the earlier cold one ("warm_start": false,
  // "tolerance": 0): docs/scenario-format.md.
  if (const json* ws = doc.optional(*so, "warm_start")) {
    options.solver.warm_start = doc.boolean(*ws, "/solver/warm_start");
  }
  if (const json* t = doc.optional(*so, "tolerance")) {
    options.solver.tolerance = doc.rational(*t, "/solver/tolerance");
    if (!(options.solver.tolerance >= 0.0 && options.solver.tolerance <= 1.0))
      doc.fail("/solver/tolerance", "expected a value in [0, 1]");
  }
  if (const json* r = doc.optional(*so, "warm_start_radius_m")) {
    options.solver.warm_start_radius = doc.rational(*r, "/solver/warm_start_radius_m");
    if (!(options.solver.warm_start_radius >= 0.0 && options.solver.warm_start_radius <= 0.1))
      doc.fail("/solver/warm_start_radius_m", "expected a value in [0, 0.1]");
  }
}

// "ground": a plane at a height, with its friction.
void readGround(const JsonDocument& doc, const json& gr_ref, Options& options) {
  const json* gr = &gr_ref;
  doc.object(*gr, "/ground");
  doc.allowOnly(*gr, "/ground", {"height_m", "friction"});
  options.ground.enabled = true;
  if (const json* h = doc.optional(*gr, "height_m")) {
    options.ground.height = doc.rational(*h, "/ground/height_m");
    if (!(std::abs(options.ground.height) <= 100.0))
      doc.fail("/ground/height_m", "expected a value in [-100, 100] (the world box)");
  }
  if (const json* f = doc.optional(*gr, "friction")) {
    options.ground.friction = doc.rational(*f, "/ground/friction");
    if (!(options.ground.friction >= 0.0 && options.ground.friction <= 100.0))
      doc.fail("/ground/friction", "expected a value in [0, 100]");
  }
}

// "initial": actuator and tendon start values, clamped defaults for the rest.
void readInitial(const JsonDocument& doc, const json& root, const hand::HandModel& hand,
                 RunPlan& plan) {
  const std::size_t na = hand.actuators.size();
  plan.initial.assign(na, 0.0);
  for (std::size_t a = 0; a < na; ++a)
    plan.initial[a] = std::clamp(0.0, hand.actuators[a].lower, hand.actuators[a].upper);
  for (const auto& t : hand.tendons)
    plan.initial_tendons.push_back(std::clamp(0.0, t.lower, t.upper));
  plan.tendon_trajectories.assign(hand.tendons.size(), {});
  if (const json* init = doc.optional(root, "initial")) {
    doc.object(*init, "/initial");
    for (auto it = init->begin(); it != init->end(); ++it) {
      const std::string p = JsonDocument::child("/initial", it.key());
      const int a = hand.actuatorIndex(it.key());
      if (const int t = hand.tendonIndex(it.key()); a < 0 && t >= 0) {
        const auto& tendon = hand.tendons[static_cast<std::size_t>(t)];
        const double v = doc.rational(it.value(), p);
        if (v < tendon.lower || v > tendon.upper) doc.fail(p, "outside the tendon's range");
        plan.initial_tendons[static_cast<std::size_t>(t)] = v;
        continue;
      }
      if (a < 0)
        doc.fail(p, "no actuator or tendon named '" + it.key() + "' in hand '" + hand.id + "'");
      const auto& act = hand.actuators[static_cast<std::size_t>(a)];
      const double v = doc.rational(it.value(), p);
      if (v < act.lower || v > act.upper) doc.fail(p, "outside the actuator's range");
      plan.initial[static_cast<std::size_t>(a)] = v;
    }
  }
}

// "trajectories": trapezoidal segments per actuator, joint or tendon.
void readTrajectories(const JsonDocument& doc, const json& root, const hand::HandModel& hand,
                      RunPlan& plan) {
  const std::size_t na = hand.actuators.size();
  plan.trajectories.assign(na, {});
  if (const json* trajs = doc.optional(root, "trajectories")) {
    doc.array(*trajs, "/trajectories");
    for (std::size_t i = 0; i < trajs->size(); ++i) {
      const std::string tp = JsonDocument::child("/trajectories", i);
      const json& t = doc.object((*trajs)[i], tp);
      doc.allowOnly(t, tp, {"actuator", "joint", "tendon", "segments"});
      const json* an = doc.optional(t, "actuator");
      const json* jn = doc.optional(t, "joint");
      const json* tn = doc.optional(t, "tendon");
      if (!!an + !!jn + !!tn != 1)
        doc.fail(tp, "give exactly one of 'actuator', 'joint' or 'tendon'");
      int a = -1;
      ActuatorTrajectory* traj_ptr = nullptr;
      double from = 0.0, lo = 0.0, hi = 0.0;
      double scale = 1.0;  // actuator units per user unit
      bool degrees = false;
      if (tn) {
        const std::string name = doc.string(*tn, JsonDocument::child(tp, "tendon"));
        const int ti = hand.tendonIndex(name);
        if (ti < 0) doc.fail(JsonDocument::child(tp, "tendon"), "no tendon named '" + name + "'");
        const auto& tendon = hand.tendons[static_cast<std::size_t>(ti)];
        traj_ptr = &plan.tendon_trajectories[static_cast<std::size_t>(ti)];
        from = plan.initial_tendons[static_cast<std::size_t>(ti)];
        lo = tendon.lower;
        hi = tendon.upper;
      } else if (an) {
        const std::string name = doc.string(*an, JsonDocument::child(tp, "actuator"));
        a = hand.actuatorIndex(name);
        if (a < 0)
          doc.fail(JsonDocument::child(tp, "actuator"), "no actuator named '" + name + "'");
      } else {
        const std::string name = doc.string(*jn, JsonDocument::child(tp, "joint"));
        const hand::JointRef j = hand.jointRef(name);
        if (j.finger < 0)
          doc.fail(JsonDocument::child(tp, "joint"), "no joint named '" + name + "'");
        const auto [act, drive] = hand.driverOf(j);
        a = act;
        const auto& chain = hand.fingers[static_cast<std::size_t>(j.finger)];
        degrees = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j.joint))].type ==
                  kinematics::JointType::Revolute;
        scale = 1.0 / hand.actuators[static_cast<std::size_t>(act)]
                          .drives[static_cast<std::size_t>(drive)]
                          .ratio;
      }
      if (!traj_ptr) {
        traj_ptr = &plan.trajectories[static_cast<std::size_t>(a)];
        from = plan.initial[static_cast<std::size_t>(a)];
        lo = hand.actuators[static_cast<std::size_t>(a)].lower;
        hi = hand.actuators[static_cast<std::size_t>(a)].upper;
      }
      auto& traj = *traj_ptr;
      if (!traj.empty()) doc.fail(tp, "this actuator already has a trajectory");
      const std::string sp = JsonDocument::child(tp, "segments");
      const json& segs = doc.array(doc.require(t, tp, "segments"), sp);
      double start = 0.0;
      for (std::size_t k = 0; k < segs.size(); ++k) {
        const std::string kp = JsonDocument::child(sp, k);
        const json& seg = doc.object(segs[k], kp);
        const double unit = degrees ? kDeg : 1.0;
        const char* to_key = degrees ? "to_deg" : "to";
        const char* v_key = degrees ? "max_velocity_deg" : "max_velocity";
        const char* a_key = degrees ? "max_acceleration_deg" : "max_acceleration";
        doc.allowOnly(seg, kp, {to_key, v_key, a_key, "start_s"});
        const double to =
            doc.rational(doc.require(seg, kp, to_key), JsonDocument::child(kp, to_key)) * unit *
            scale;
        if (to < lo - 1e-9 || to > hi + 1e-9)
          doc.fail(JsonDocument::child(kp, to_key), "target is outside the actuator's range");
        const double v = positive(doc, seg, kp, v_key) * unit * std::abs(scale);
        const double acc = positive(doc, seg, kp, a_key) * unit * std::abs(scale);
        if (const json* s0 = doc.optional(seg, "start_s")) {
          const double s = doc.rational(*s0, JsonDocument::child(kp, "start_s"));
          if (s < start - 1e-12)
            doc.fail(JsonDocument::child(kp, "start_s"),
                     "segment starts before the previous one ends");
          start = s;
        }
        TrapezoidalProfile prof(from, to, v, acc, start);
        traj.append(prof);
        from = to;
        start = prof.end();
      }
    }
  }
}

// "controller": seed 002's hybrid grasp controller.
void readController(const JsonDocument& doc, const json& ctl_ref, const hand::HandModel& hand,
                    RunPlan& plan) {
  const json* ctl = &ctl_ref;
  const std::string cp = "/controller";
  doc.object(*ctl, cp);
  doc.allowOnly(*ctl, cp,
                {"type", "desired_force_N", "gains", "closing_speed_mps", "contact_threshold_N",
                 "ramp_s", "hold_s", "retract_speed_mps"});
  const std::string type = doc.string(doc.require(*ctl, cp, "type"), cp + "/type");
  if (type != "kthand_hybrid") doc.fail(cp + "/type", "expected \"kthand_hybrid\"");
  HybridGraspOptions o;
  auto read = [&](const char* key, double& value) {
    if (const json* v = doc.optional(*ctl, key))
      value = doc.rational(*v, JsonDocument::child(cp, key));
  };
  read("desired_force_N", o.desired_force);
  read("closing_speed_mps", o.closing_speed);
  read("contact_threshold_N", o.contact_threshold);
  read("ramp_s", o.ramp_time);
  read("hold_s", o.hold_time);
  read("retract_speed_mps", o.retract_speed);
  if (const json* g = doc.optional(*ctl, "gains")) {
    const auto v = doc.numbers(*g, cp + "/gains", 4);
    o.gains = Eigen::Vector4d(v[0], v[1], v[2], v[3]);
  }
  try {
    HybridGraspController check(hand, o);
  } catch (const std::invalid_argument& e) {
    doc.fail(cp, e.what());
  }
  plan.controller = o;
}

// One entry of "objects": its mesh, shape, material and mass; its start pose (the world origin
// when it gives none) into `pose` and its start velocity (none: at rest) into `twist`, for the
// plan.
ObjectModel readObject(const JsonDocument& doc, const json& o_ref, const std::string& op,
                       const std::filesystem::path& dir, const Options& scene,
                       Eigen::Isometry3d& pose, Twist& twist) {
  std::error_code ec;
  const json& o = doc.object(o_ref, op);
  doc.allowOnly(o, op,
                {"name", "mesh", "pose", "scale", "friction", "torsional_m", "density_kg_m3",
                 "free", "mass_kg", "linear_velocity_mps", "angular_velocity_radps", "collision"});
  const std::string mp = JsonDocument::child(op, "mesh");
  const std::string mesh = doc.string(doc.require(o, op, "mesh"), mp);
  // Relative to the scenario file, else to the shipped assets.
  std::filesystem::path path = dir / mesh;
  if (!std::filesystem::is_regular_file(path, ec))
    path = std::filesystem::path(hand::assetDirectory()) / mesh;
  geometry::MeshLoadOptions options;
  if (doc.optional(o, "scale")) options.scale = positive(doc, o, op, "scale");
  const std::string name = o.contains("name")
                               ? doc.string(o["name"], JsonDocument::child(op, "name"))
                               : std::filesystem::path(mesh).stem().string();
  double density = ObjectModel::kDefaultDensity;
  if (doc.optional(o, "density_kg_m3")) density = positive(doc, o, op, "density_kg_m3");
  if (doc.optional(o, "density_kg_m3") && doc.optional(o, "mass_kg"))
    doc.fail(JsonDocument::child(op, "mass_kg"), "give 'mass_kg' or 'density_kg_m3', not both");
  ObjectModel obj;
  try {
    obj = loadObject(path.string(), options, name, scene.contact.kdop_k, density);
  } catch (const io::InputError& e) {
    doc.fail(mp, e.what());
  }
  // Its collision shape (the mass stays that of the file's mesh).
  const collision::CollisionShape shape =
      io::readCollisionShape(doc, o, op, collision::CollisionShape::Mesh);
  if (shape != obj.geometry->collision.shape) {
    try {
      obj.geometry = withCollisionShape(*obj.geometry, shape, scene.contact.kdop_k);
    } catch (const io::InputError& e) {
      doc.fail(JsonDocument::child(op, "collision"), e.what());
    }
  }
  // A mesh in millimetres read as metres (a 190 mm bottle becomes 190 m): said, not guessed.
  double extent = 0.0;
  if (!doc.optional(o, "scale") && looksLikeMillimetres(obj.geometry->collision.mesh, &extent))
    obj.warnings.push_back(millimetreWarning(path.string(), extent) + " (" + op + ")");
  pose = Eigen::Isometry3d::Identity();
  if (const json* p = doc.optional(o, "pose")) pose = doc.pose(*p, JsonDocument::child(op, "pose"));
  obj.friction = scene.contact.mu;
  if (const json* f = doc.optional(o, "friction")) {
    obj.friction = doc.rational(*f, JsonDocument::child(op, "friction"));
    if (!(obj.friction >= 0.0) || !std::isfinite(obj.friction))
      doc.fail(JsonDocument::child(op, "friction"), "must be finite and not negative");
  }
  if (const json* tm = doc.optional(o, "torsional_m")) {
    const std::string p = JsonDocument::child(op, "torsional_m");
    if (!scene.contact.constraint())
      doc.fail(p,
               "only with the default contact model (seed004's twisting friction comes "
               "from the overlap's area)");
    obj.torsional = doc.rational(*tm, p);
    if (!(obj.torsional >= 0.0 && obj.torsional <= 0.1)) doc.fail(p, "expected 0 to 0.1 m");
  }
  if (const json* m = doc.optional(o, "mass_kg")) {
    const std::string p = JsonDocument::child(op, "mass_kg");
    const double mass = doc.rational(*m, p);
    if (!(mass >= 1e-9 && mass < 1e6)) doc.fail(p, "expected a mass in [1e-9, 1e6) kg");
    if (!(obj.mass.volume_m3 > 0.0))
      doc.fail(p, "the mesh is not closed, so it has no volume to give this mass to");
    computeMassProperties(obj, mass / obj.mass.volume_m3);
    if (!(obj.mass.mass_kg > 0.0) || !obj.mass.inertia_com.allFinite() ||
        !(obj.mass.inertia_com.trace() > 0.0))
      doc.fail(p,
               "this mass on this mesh gives no usable inertia (too small for double "
               "precision)");
  }
  if (const json* fr = doc.optional(o, "free")) {
    obj.fixed = !doc.boolean(*fr, JsonDocument::child(op, "free"));
    if (!obj.fixed && !(obj.mass.mass_kg > 0.0))
      doc.fail(JsonDocument::child(op, "free"),
               "a free object needs a mass, and this mesh is not closed" +
                   (obj.warnings.empty() ? std::string() : " (" + obj.warnings.front() + ")"));
  }
  twist = Twist::Zero();
  for (const auto& [key, offset] : {std::pair<const char*, int>{"linear_velocity_mps", 0},
                                    std::pair<const char*, int>{"angular_velocity_radps", 3}}) {
    if (const json* v = doc.optional(o, key)) {
      const std::string p = JsonDocument::child(op, key);
      const Eigen::Vector3d value = doc.vector3(*v, p);
      if (!(value.cwiseAbs().maxCoeff() <=
            (offset == 0 ? kRunawayObjectSpeed : kRunawayObjectSpin)))
        doc.fail(p, "expected components within the runaway bounds (" +
                        shortNumber(kRunawayObjectSpeed) + " m/s, " +
                        shortNumber(kRunawayObjectSpin) + " rad/s)");
      if (obj.fixed) doc.fail(p, "only a free object (\"free\": true) has a velocity");
      twist.segment<3>(offset) = value;
    }
  }
  return obj;
}

Scenario readScenario(const JsonDocument& doc) {
  const json& root = doc.object(doc.root(), "");
  doc.allowOnly(root, "",
                {"format", "version", "description", "hand", "duration_s", "dt_s", "gravity_mps2",
                 "contact", "solver", "record_every", "palm_pose", "palm", "initial",
                 "trajectories", "objects", "controller", "ground", "arm"});
  if (doc.string(doc.require(root, "", "format"), "/format") != "handsim-scenario")
    doc.fail("/format", "expected \"handsim-scenario\"");
  if (doc.integer(doc.require(root, "", "version"), "/version") != 1)
    doc.fail("/version", "unsupported version");
  Scenario sc;
  sc.source_file = doc.file();
  if (const json* d = doc.optional(root, "description"))
    sc.description = doc.string(*d, "/description");
  sc.hand_ref = doc.string(doc.require(root, "", "hand"), "/hand");
  const std::filesystem::path dir = std::filesystem::path(doc.file()).parent_path();
  const std::filesystem::path rel = dir / sc.hand_ref;
  std::error_code ec;
  hand::HandModel hand_model;
  const json* arm_json = doc.optional(root, "arm");
  if (arm_json && arm_json->is_object())
    if (const json* pl = doc.optional(*arm_json, "palm_link"))
      sc.palm_link = doc.string(*pl, "/arm/palm_link");
  try {
    hand_model = hand::loadHand(
        std::filesystem::is_regular_file(rel, ec) ? rel.string() : sc.hand_ref, sc.palm_link);
  } catch (const io::InputError& e) {
    doc.fail(sc.palm_link.empty() ? "/hand" : "/arm/palm_link", e.what());
  }
  const hand::HandModel& hand = hand_model;
  RunPlan& plan = sc.plan;
  plan.duration = positive(doc, root, "", "duration_s");
  if (doc.optional(root, "dt_s")) sc.options.dt = positive(doc, root, "", "dt_s");
  if (const json* g = doc.optional(root, "gravity_mps2"))
    sc.options.gravity_world = doc.vector3(*g, "/gravity_mps2");
  if (const json* c = doc.optional(root, "contact")) readContact(doc, *c, sc.options);
  if (const json* so = doc.optional(root, "solver")) readSolver(doc, *so, sc.options);
  if (const json* gr = doc.optional(root, "ground")) readGround(doc, *gr, sc.options);
  if (const json* r = doc.optional(root, "record_every")) {
    plan.record_every = doc.integer(*r, "/record_every");
    if (plan.record_every < 1) doc.fail("/record_every", "must be at least 1");
  }
  if (plan.duration / sc.options.dt > 1e8) doc.fail("/duration_s", "more than 1e8 steps");
  if (plan.duration < sc.options.dt)
    doc.fail("/duration_s", "shorter than one step (dt_s " + std::to_string(sc.options.dt) +
                                " s): the run would have no end");
  if (const json* pose = doc.optional(root, "palm_pose"))
    plan.palm_pose_world = doc.pose(*pose, "/palm_pose");
  if (const json* palm = doc.optional(root, "palm")) readPalm(doc, *palm, plan);
  if (arm_json) readArm(doc, *arm_json, sc, hand_model);

  readInitial(doc, root, hand, plan);
  // The step must be one the explicit servo and tendon forces can take (sim/stability.hpp).
  {
    const StepLimit limit = stableStep(hand, hand::jointPositions(hand, plan.initial), {});
    if (sc.options.dt > limit.dt_max)
      doc.fail(doc.optional(root, "dt_s") ? "/dt_s" : "",
               "a step of " + shortNumber(sc.options.dt) + " s is above the stable limit " +
                   shortNumber(limit.dt_max) + " s set by " + limit.what +
                   " (semi-implicit Euler, docs/simulation.md); use a smaller dt_s");
  }
  readTrajectories(doc, root, hand, plan);
  if (const json* ctl = doc.optional(root, "controller")) readController(doc, *ctl, hand, plan);
  if (const json* objs = doc.optional(root, "objects")) {
    doc.array(*objs, "/objects");
    // Each object's start pose and velocity go into the plan, the one place they live.
    for (std::size_t i = 0; i < objs->size(); ++i) {
      Eigen::Isometry3d& pose = plan.object_pose_world.emplace_back(Eigen::Isometry3d::Identity());
      Twist& twist = plan.object_twist_world.emplace_back(Twist::Zero());
      sc.objects.push_back(readObject(doc, (*objs)[i], JsonDocument::child("/objects", i), dir,
                                      sc.options, pose, twist));
    }
    makeObjectNamesUnique(sc.objects);  // as the compiled model names them
  }
  // The seed004 model's explicit friction (and, with "integration": "explicit", its normal
  // force) bounds the step too (sim/penalty_contacts.hpp).
  if (sc.options.contact.volumePenalty()) {
    const StepLimit limit = penaltyStableStep(sc.options, sc.objects);
    if (sc.options.dt > limit.dt_max)
      doc.fail(doc.optional(root, "dt_s") ? "/dt_s" : "",
               "a step of " + shortNumber(sc.options.dt) + " s is above the stable limit " +
                   shortNumber(limit.dt_max) + " s of the seed004 contact, set by " + limit.what +
                   " (docs/free-objects.md, \"Integrator for the stiff contact\"); use a "
                   "smaller dt_s");
  }
  sc.hand = std::make_shared<const hand::HandModel>(std::move(hand_model));
  return sc;
}

}  // namespace

Scenario parseScenario(const std::string& text, const std::string& file_name) {
  return readScenario(JsonDocument::parse(text, file_name));
}

Scenario loadScenario(const std::string& path) {
  return readScenario(JsonDocument::load(path));
}

namespace {

using ordered = nlohmann::ordered_json;

ordered poseJson(const Eigen::Isometry3d& pose) {
  ordered rotation = ordered::array();
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) rotation.push_back(pose.linear()(r, c));
  const Eigen::Vector3d t = pose.translation();
  return {{"translation_m", {t.x(), t.y(), t.z()}}, {"rotation", rotation}};
}

// A path as the file at `target` should name it: relative to its folder when both are on
// the same tree, absolute otherwise.
std::string pathFrom(const std::string& path, const std::string& target) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path, ec);
  const std::filesystem::path dir =
      std::filesystem::absolute(std::filesystem::path(target), ec).parent_path();
  const std::filesystem::path rel = abs.lexically_relative(dir);
  if (rel.empty()) return abs.lexically_normal().string();
  return rel.lexically_normal().string();
}

ordered segmentsJson(const ActuatorTrajectory& trajectory) {
  ordered segments = ordered::array();
  for (const TrapezoidalProfile& p : trajectory.segments())
    segments.push_back({{"to", p.to()},
                        {"max_velocity", p.maxVelocity()},
                        {"max_acceleration", p.maxAcceleration()},
                        {"start_s", p.start()}});
  return segments;
}

// "contact": the options every model uses, then the model with its own.
ordered contactJson(const Options& options) {
  const ContactOptions& co = options.contact;
  if (const ConstraintContactOptions* c = co.constraint()) {
    ordered out{
        {"stiffness", c->stiffness},     {"slop_m", c->slop},          {"sink_rate", c->sink_rate},
        {"kdop_k", co.kdop_k},           {"model", "default"},         {"mu", co.mu},
        {"object_push", c->object_push}, {"torsional_m", c->torsional}};
    if (c->resting_tolerance != ConstraintContactOptions{}.resting_tolerance)
      out["resting_tolerance_m"] = c->resting_tolerance;
    return out;
  }
  ordered out = {{"kdop_k", co.kdop_k}, {"model", "seed004"}, {"mu", co.mu}};
  if (const VolumePenaltyOptions* v = co.volumePenalty()) {
    const contact::PenaltyContactParams& pp = v->penalty;
    out["friction"] = v->friction == PenaltyFriction::Tanh ? "tanh" : "anchor";
    out["integration"] = v->integration == PenaltyIntegration::Explicit ? "explicit" : "implicit";
    out["g1_n_per_m"] = pp.stiffness_n_per_m;
    out["g2_ns_per_m"] = pp.damping_ns_per_m;
    out["gi"] = pp.first_contact_gain;
    out["gt"] = pp.first_contact_delay;
    out["target_depth_m"] = pp.target_depth_m;
    out["filter_damping_ratio"] = pp.filter_damping_ratio;
    out["filter_natural_frequency_radps"] = pp.filter_natural_frequency_radps;
    out["viscous_ns_per_m"] = pp.viscous_ns_per_m;
    out["tanh_slope_s_per_m"] = pp.tanh_slope_s_per_m;
    out["anchor_stiffness_n_per_m"] = v->anchor.stiffness_n_per_m;
    out["anchor_damping_ns_per_m"] = v->anchor.damping_ns_per_m;
  }
  return out;
}

// One moving axis (a palm axis, an arm joint): its segments and sinusoids.
ordered axisMotionJson(const AxisMotion& m) {
  ordered axis = ordered::object();
  if (!m.segments.empty()) axis["segments"] = segmentsJson(m.segments);
  if (!m.sinusoids.empty()) {
    ordered sins = ordered::array();
    for (const Sinusoid& sin : m.sinusoids)
      sins.push_back({{"amplitude", sin.amplitude},
                      {"frequency_hz", sin.frequency_hz},
                      {"start_s", sin.start},
                      {"cycles", sin.cycles}});
    axis["sinusoids"] = sins;
  }
  return axis;
}

// "palm": {"motion": ...}, the axes that move: their segments and sinusoids.
ordered palmMotionJson(const PalmMotion& palm_motion) {
  ordered motion = ordered::object();
  for (int a = 0; a < 6; ++a) {
    const AxisMotion& m = palm_motion.axis(a);
    if (m.empty()) continue;
    motion[PalmMotion::axisName(a)] = axisMotionJson(m);
  }
  return motion;
}

// "arm": the palm link, the arm's file and mount when it was mounted, its joints' start and
// motion (docs/arm.md).
ordered armJson(const Scenario& sc, const hand::HandModel& hand, const RunPlan& plan) {
  const kinematics::Chain& chain = hand.arm.chain;
  ordered arm = ordered::object();
  if (!sc.palm_link.empty()) arm["palm_link"] = sc.palm_link;
  if (!sc.arm_ref.empty()) {
    arm["urdf"] = sc.arm_ref;
    arm["flange"] = sc.arm_flange;
    arm["mount"] = poseJson(sc.arm_mount);
  }
  ordered init = ordered::object();
  for (int j = 0; j < chain.dof(); ++j)
    if (static_cast<std::size_t>(j) < plan.arm.initial.size())
      init[chain.joint_names[static_cast<std::size_t>(chain.rowOfJoint(j))]] =
          plan.arm.initial[static_cast<std::size_t>(j)];
  arm["initial"] = init;
  ordered motion = ordered::object();
  for (std::size_t j = 0; j < plan.arm.motion.size(); ++j) {
    const AxisMotion& m = plan.arm.motion[j];
    if (m.empty()) continue;
    motion[chain.joint_names[static_cast<std::size_t>(chain.rowOfJoint(static_cast<int>(j)))]] =
        axisMotionJson(m);
  }
  if (!motion.empty()) arm["motion"] = motion;
  return arm;
}

// "initial": every actuator's start (clamped into its range) and every tendon's.
ordered initialJson(const hand::HandModel& hand, const RunPlan& plan) {
  ordered initial = ordered::object();
  const std::vector<double> start = hand::clampActuators(
      hand, plan.initial.empty() ? std::vector<double>(hand.actuators.size(), 0.0) : plan.initial);
  for (std::size_t a = 0; a < hand.actuators.size(); ++a)
    initial[hand.actuators[a].name] = start[a];
  for (std::size_t t = 0; t < hand.tendons.size(); ++t)
    initial[hand.tendons[t].name] =
        t < plan.initial_tendons.size()
            ? plan.initial_tendons[t]
            : std::clamp(0.0, hand.tendons[t].lower, hand.tendons[t].upper);
  return initial;
}

// "trajectories": the segments of every actuator and tendon that has some.
ordered trajectoriesJson(const hand::HandModel& hand, const RunPlan& plan) {
  ordered trajectories = ordered::array();
  for (std::size_t a = 0; a < plan.trajectories.size(); ++a)
    if (!plan.trajectories[a].empty())
      trajectories.push_back(
          {{"actuator", hand.actuators[a].name}, {"segments", segmentsJson(plan.trajectories[a])}});
  for (std::size_t t = 0; t < plan.tendon_trajectories.size(); ++t)
    if (!plan.tendon_trajectories[t].empty())
      trajectories.push_back({{"tendon", hand.tendons[t].name},
                              {"segments", segmentsJson(plan.tendon_trajectories[t])}});
  return trajectories;
}

// "objects": each object's mesh (relative to `target_file`), material and start: its pose and
// (a free object's) velocity from the plan (`plan.object_pose_world`, empty: the world origin;
// `plan.object_twist_world`, empty: at rest).
ordered objectsJson(const std::vector<ObjectModel>& list, const RunPlan& plan,
                    const std::string& target_file) {
  const std::vector<Eigen::Isometry3d>& poses = plan.object_pose_world;
  const std::vector<Twist>& twists = plan.object_twist_world;
  for (const auto& [count, what] : {std::pair<std::size_t, const char*>{poses.size(), "poses"},
                                    std::pair<std::size_t, const char*>{twists.size(), "twists"}})
    if (count != 0 && count != list.size())
      throw std::invalid_argument("the plan has " + std::to_string(count) + " object " + what +
                                  " for " + std::to_string(list.size()) + " objects");
  ordered objects = ordered::array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const ObjectModel& o = list[i];
    if (o.source.empty())
      throw std::invalid_argument("object '" + o.name + "' was not read from a file");
    ordered object = {{"name", o.name},
                      {"mesh", pathFrom(o.source, target_file)},
                      {"scale", o.scale},
                      {"friction", o.friction},
                      {"density_kg_m3", o.density},
                      {"pose", poseJson(poses.empty() ? Eigen::Isometry3d::Identity() : poses[i])}};
    if (o.torsional >= 0.0) object["torsional_m"] = o.torsional;
    if (o.geometry->collision.shape != collision::CollisionShape::Mesh)
      object["collision"] = collision::collisionShapeName(o.geometry->collision.shape);
    if (!o.fixed) {
      const Twist t = twists.empty() ? Twist::Zero() : twists[i];
      object["free"] = true;
      object["linear_velocity_mps"] = {t[0], t[1], t[2]};
      object["angular_velocity_radps"] = {t[3], t[4], t[5]};
    }
    objects.push_back(object);
  }
  return objects;
}

}  // namespace

std::string scenarioToJson(const Scenario& sc, const std::string& target_file) {
  if (!sc.hand) throw std::invalid_argument("scenarioToJson: the scenario has no hand");
  const hand::HandModel& hand = *sc.hand;
  const RunPlan& plan = sc.plan;
  ordered doc = {{"format", "handsim-scenario"}, {"version", 1}};
  if (!sc.description.empty()) doc["description"] = sc.description;
  // A built-in id stays an id; a hand file is named by its path.
  std::error_code ec;
  const bool is_file = !hand.source_file.empty() &&
                       (sc.hand_ref.empty() || sc.hand_ref.find('/') != std::string::npos ||
                        std::filesystem::path(sc.hand_ref).extension() == ".json");
  doc["hand"] = is_file ? pathFrom(hand.source_file, target_file)
                        : (sc.hand_ref.empty() ? hand.id : sc.hand_ref);
  doc["duration_s"] = plan.duration;
  doc["dt_s"] = sc.options.dt;
  const Eigen::Vector3d& g = sc.options.gravity_world;
  doc["gravity_mps2"] = {g.x(), g.y(), g.z()};
  doc["contact"] = contactJson(sc.options);
  if (sc.options.ground.enabled) {
    doc["ground"] = {{"height_m", sc.options.ground.height}};
    if (sc.options.ground.friction >= 0.0) doc["ground"]["friction"] = sc.options.ground.friction;
  }
  doc["solver"] = {{"sweeps", sc.options.solver.sweeps},
                   {"warm_start", sc.options.solver.warm_start},
                   {"tolerance", sc.options.solver.tolerance},
                   {"warm_start_radius_m", sc.options.solver.warm_start_radius}};
  doc["record_every"] = plan.record_every;
  doc["palm_pose"] = poseJson(plan.palm_pose_world);
  if (!plan.palm_motion.empty()) doc["palm"] = {{"motion", palmMotionJson(plan.palm_motion)}};
  if (!hand.arm.empty()) doc["arm"] = armJson(sc, hand, plan);
  doc["initial"] = initialJson(hand, plan);
  doc["trajectories"] = trajectoriesJson(hand, plan);
  doc["objects"] = objectsJson(sc.objects, plan, target_file);
  if (plan.controller) {
    const HybridGraspOptions& c = *plan.controller;
    doc["controller"] = {{"type", "kthand_hybrid"},
                         {"desired_force_N", c.desired_force},
                         {"gains", {c.gains[0], c.gains[1], c.gains[2], c.gains[3]}},
                         {"closing_speed_mps", c.closing_speed},
                         {"contact_threshold_N", c.contact_threshold},
                         {"ramp_s", c.ramp_time},
                         {"hold_s", c.hold_time},
                         {"retract_speed_mps", c.retract_speed}};
  }
  try {
    return doc.dump(2) + "\n";
  } catch (const nlohmann::json::type_error&) {
    // Replacing the bytes would write a path that names another file: refuse instead.
    throw std::invalid_argument(
        "cannot write the scenario: a name or file path in it is not "
        "valid UTF-8 (JSON files hold UTF-8 only); rename the file");
  }
}

void saveScenario(const Scenario& scenario, const std::string& path) {
  io::writeFileAtomically(path, scenarioToJson(scenario, path));
}

std::shared_ptr<const Model> compileScenario(const Scenario& scenario) {
  return compileModel(scenario.hand, scenario.objects, scenario.options);
}

std::unique_ptr<Run> runScenario(const Scenario& scenario,
                                 const std::function<void(double)>& progress) {
  auto run = std::make_unique<Run>(compileScenario(scenario), scenario.plan);
  run->runToEnd(progress);
  return run;
}

}  // namespace handsim::sim
