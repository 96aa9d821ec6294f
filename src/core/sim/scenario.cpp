// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "../io/json_document.hpp"
#include "handsim/geometry/mesh_loader.hpp"
#include "handsim/hand/hand_loader.hpp"

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

Scenario readScenario(const JsonDocument& doc) {
  const json& root = doc.object(doc.root(), "");
  doc.allowOnly(root, "",
                {"format", "version", "description", "hand", "duration_s", "dt_s", "gravity_mps2",
                 "record_every", "initial", "trajectories", "objects", "controller"});
  if (doc.string(doc.require(root, "", "format"), "/format") != "handsim-scenario")
    doc.fail("/format", "expected \"handsim-scenario\"");
  if (doc.integer(doc.require(root, "", "version"), "/version") != 1)
    doc.fail("/version", "unsupported version");
  Scenario sc;
  sc.source_file = doc.file();
  const std::string hand_ref = doc.string(doc.require(root, "", "hand"), "/hand");
  const std::filesystem::path dir = std::filesystem::path(doc.file()).parent_path();
  const std::filesystem::path rel = dir / hand_ref;
  std::error_code ec;
  try {
    sc.hand = hand::loadHand(std::filesystem::is_regular_file(rel, ec) ? rel.string() : hand_ref);
  } catch (const io::InputError& e) {
    doc.fail("/hand", e.what());
  }
  sc.duration = positive(doc, root, "", "duration_s");
  if (doc.optional(root, "dt_s")) sc.options.dt = positive(doc, root, "", "dt_s");
  if (const json* g = doc.optional(root, "gravity_mps2"))
    sc.options.gravity = doc.vector3(*g, "/gravity_mps2");
  if (const json* r = doc.optional(root, "record_every")) {
    sc.record_every = doc.integer(*r, "/record_every");
    if (sc.record_every < 1) doc.fail("/record_every", "must be at least 1");
  }
  if (sc.duration / sc.options.dt > 1e8) doc.fail("/duration_s", "more than 1e8 steps");

  const std::size_t na = sc.hand.actuators.size();
  sc.initial.assign(na, 0.0);
  for (std::size_t a = 0; a < na; ++a)
    sc.initial[a] = std::clamp(0.0, sc.hand.actuators[a].lower, sc.hand.actuators[a].upper);
  for (const auto& t : sc.hand.tendons)
    sc.initial_tendons.push_back(std::clamp(0.0, t.lower, t.upper));
  sc.tendon_trajectories.assign(sc.hand.tendons.size(), {});
  if (const json* init = doc.optional(root, "initial")) {
    doc.object(*init, "/initial");
    for (auto it = init->begin(); it != init->end(); ++it) {
      const std::string p = JsonDocument::child("/initial", it.key());
      const int a = sc.hand.actuatorIndex(it.key());
      if (const int t = sc.hand.tendonIndex(it.key()); a < 0 && t >= 0) {
        const auto& tendon = sc.hand.tendons[static_cast<std::size_t>(t)];
        const double v = doc.rational(it.value(), p);
        if (v < tendon.lower || v > tendon.upper) doc.fail(p, "outside the tendon's range");
        sc.initial_tendons[static_cast<std::size_t>(t)] = v;
        continue;
      }
      if (a < 0)
        doc.fail(p, "no actuator or tendon named '" + it.key() + "' in hand '" + sc.hand.id + "'");
      const auto& act = sc.hand.actuators[static_cast<std::size_t>(a)];
      const double v = doc.rational(it.value(), p);
      if (v < act.lower || v > act.upper) doc.fail(p, "outside the actuator's range");
      sc.initial[static_cast<std::size_t>(a)] = v;
    }
  }

  sc.trajectories.assign(na, {});
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
        const int ti = sc.hand.tendonIndex(name);
        if (ti < 0) doc.fail(JsonDocument::child(tp, "tendon"), "no tendon named '" + name + "'");
        const auto& tendon = sc.hand.tendons[static_cast<std::size_t>(ti)];
        traj_ptr = &sc.tendon_trajectories[static_cast<std::size_t>(ti)];
        from = sc.initial_tendons[static_cast<std::size_t>(ti)];
        lo = tendon.lower;
        hi = tendon.upper;
      } else if (an) {
        const std::string name = doc.string(*an, JsonDocument::child(tp, "actuator"));
        a = sc.hand.actuatorIndex(name);
        if (a < 0)
          doc.fail(JsonDocument::child(tp, "actuator"), "no actuator named '" + name + "'");
      } else {
        const std::string name = doc.string(*jn, JsonDocument::child(tp, "joint"));
        const hand::JointRef j = sc.hand.jointRef(name);
        if (j.finger < 0)
          doc.fail(JsonDocument::child(tp, "joint"), "no joint named '" + name + "'");
        const auto [act, drive] = sc.hand.driverOf(j);
        a = act;
        const auto& chain = sc.hand.fingers[static_cast<std::size_t>(j.finger)];
        degrees = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j.joint))].type ==
                  kinematics::JointType::Revolute;
        scale = 1.0 / sc.hand.actuators[static_cast<std::size_t>(act)]
                          .drives[static_cast<std::size_t>(drive)]
                          .ratio;
      }
      if (!traj_ptr) {
        traj_ptr = &sc.trajectories[static_cast<std::size_t>(a)];
        from = sc.initial[static_cast<std::size_t>(a)];
        lo = sc.hand.actuators[static_cast<std::size_t>(a)].lower;
        hi = sc.hand.actuators[static_cast<std::size_t>(a)].upper;
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
  if (const json* ctl = doc.optional(root, "controller")) {
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
      HybridGraspController check(sc.hand, o);
    } catch (const std::invalid_argument& e) {
      doc.fail(cp, e.what());
    }
    sc.controller = o;
  }
  if (const json* objs = doc.optional(root, "objects")) {
    doc.array(*objs, "/objects");
    for (std::size_t i = 0; i < objs->size(); ++i) {
      const std::string op = JsonDocument::child("/objects", i);
      const json& o = doc.object((*objs)[i], op);
      doc.allowOnly(o, op, {"name", "mesh", "pose", "scale"});
      WorldObject obj;
      const std::string mp = JsonDocument::child(op, "mesh");
      const std::string mesh = doc.string(doc.require(o, op, "mesh"), mp);
      // Relative to the scenario file, else to the shipped assets.
      std::filesystem::path path = dir / mesh;
      if (!std::filesystem::is_regular_file(path, ec))
        path = std::filesystem::path(hand::assetDirectory()) / mesh;
      geometry::MeshLoadOptions options;
      if (doc.optional(o, "scale")) options.scale = positive(doc, o, op, "scale");
      try {
        obj.model = geometry::loadMesh(path.string(), options);
      } catch (const io::InputError& e) {
        doc.fail(mp, e.what());
      }
      obj.source = path.string();
      obj.name = o.contains("name") ? doc.string(o["name"], JsonDocument::child(op, "name"))
                                    : std::filesystem::path(mesh).stem().string();
      if (const json* pose = doc.optional(o, "pose"))
        obj.pose = doc.pose(*pose, JsonDocument::child(op, "pose"));
      sc.objects.push_back(std::move(obj));
    }
  }
  return sc;
}

}  // namespace

Scenario parseScenario(const std::string& text, const std::string& file_name) {
  return readScenario(JsonDocument::parse(text, file_name));
}

Scenario loadScenario(const std::string& path) {
  return readScenario(JsonDocument::load(path));
}

SimState runScenario(const Scenario& sc, Recorder& recorder,
                     const std::function<void(double)>& progress) {
  Simulator sim(sc.hand, sc.options);
  if (!sc.objects.empty()) sim.setObjects(sc.objects);
  for (std::size_t a = 0; a < sc.trajectories.size(); ++a)
    sim.setTrajectory(static_cast<int>(a), sc.trajectories[a]);
  for (std::size_t t = 0; t < sc.tendon_trajectories.size(); ++t)
    sim.setTendonTrajectory(static_cast<int>(t), sc.tendon_trajectories[t]);
  SimState s = sim.initialState(sc.initial);
  s.tendon_position = s.tendon_command = sc.initial_tendons;
  std::optional<HybridGraspController> controller;
  if (sc.controller) {
    controller.emplace(sc.hand, *sc.controller);
    const HybridGraspController* c = &*controller;
    recorder.addChannel("controller.phase", "",
                        [c](const SimState&) { return static_cast<double>(c->phase()); });
    recorder.addChannel("controller.force", "N", [c](const SimState&) { return c->totalForce(); });
    recorder.addChannel("controller.force_reference", "N",
                        [c](const SimState&) { return c->reference()[1]; });
    for (int i = 0; i < 4; ++i)
      recorder.addChannel("controller.x" + std::to_string(i + 1), i == 0 ? "rad" : "m",
                          [c, i](const SimState&) { return c->x()[i]; });
  }
  recorder.record(s);
  const auto steps = static_cast<std::int64_t>(std::llround(sc.duration / sc.options.dt));
  const std::int64_t every_percent = std::max<std::int64_t>(1, steps / 100);
  for (std::int64_t i = 1; i <= steps; ++i) {
    if (controller) controller->update(s, sc.options.dt);
    sim.step(s);
    if (i % sc.record_every == 0 || i == steps) recorder.record(s);
    if (progress && i % every_percent == 0)
      progress(static_cast<double>(i) / static_cast<double>(steps));
  }
  return s;
}

}  // namespace handsim::sim
