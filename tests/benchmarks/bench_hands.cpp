// SPDX-License-Identifier: GPL-3.0-or-later
// Real hands closing, and the other cases of issue #19's targets table, CPU time per 1 ms step
// (docs/performance.md, "Real hands closing: handsim and MuJoCo 2.2.2"):
//
//   hands/allegro_sphere, hands/allegro_box, hands/leap_sphere
//       assets/scenarios/{allegro_grasp_sphere,allegro_grasp_box,leap_grasp_sphere}.json: the
//       public Allegro and LEAP URDFs (not shipped: found on $HANDSIM_HAND_PATH, the case is
//       skipped without them) close on a fixed object for 1.5 s. Peer: MuJoCo 2.2.2 (Debian
//       libmujoco-dev, linked here only) on the same URDF, same object, same references and
//       servo, in the same iteration (below).
//   hands/anthro20_sphere    assets/scenarios/anthro20_grasp_sphere.json (finger-finger contacts)
//   cube_on_table            bench::cubeOnTableModel, 1 s at rest (after 0.2 s to settle)
//   lift/cube12, lift/cube10k, lift/sphere10k
//                            bench::liftScenario (bench_lift's 14 s lift); real-time factor
//   hold/gripper2p_cube      assets/scenarios/gripper2p_hold_cube.json (bench_bullet's hold
//                            test, handsim side), 10 s; slip of the cube between the pads
//
// One iteration is one whole run of the case (handsim, then MuJoCo for the hands with a peer),
// timed with the process CPU clock; the reported time (manual time) is handsim's per run, and
// the counters say per step: us_per_step (handsim), mujoco_us_per_step, ratio (handsim /
// MuJoCo, < 1: handsim is faster), contacts_per_step (handsim: link-object, or object contacts
// for cube_on_table), link_contacts_per_step (finger-finger and finger-palm), mujoco_contacts_
// per_step (MuJoCo's d->ncon), and the process's peak resident set size so far (getrusage).
// Flags (before Google Benchmark's own): --engine=both|handsim|mujoco (which side of the peer
// cases runs, for peak-memory runs of one case).
//
// MuJoCo side. The URDF is copied to a temporary folder with a <mujoco><compiler> element
// (meshdir = the URDF's folder, strippath false, balanceinertia, discardvisual) and loaded with
// mj_loadXML (collision meshes become their convex hulls, MuJoCo's way); the compiled model is
// saved as MJCF, the fixed object is added to its worldbody as a primitive of the same size
// (sphere: the radius of handsim's tessellated sphere's vertices; box: its half extents), and
// the folder is removed. Contacts: hand-object only (hand geoms contype 1 conaffinity 0, the
// object contype 0 conaffinity 1), as handsim's URDF hands have no self-collision by default,
// and frictionless (condim 1), as handsim's contacts with a fixed object (seed 000).
// Each actuator's joint gets handsim's servo, computed before every mj_step from the same
// trapezoidal references at the end of the step: tau = clamp(kp (q_ref - q) + kd (q'_ref - q'),
// +-torque_limit) in qfrc_applied, with the servo's rotor inertia as the joint's armature, no
// joint damping. Default options otherwise (Newton solver, pyramidal cones, Euler), timestep
// 1 ms, the scenario's gravity.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_scenes.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

#ifdef HANDSIM_BENCH_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace {

using namespace handsim;
namespace fs = std::filesystem;

bool g_handsim = true;  // --engine
bool g_mujoco = true;

std::string scenarioPath(const std::string& file) {
  return hand::assetDirectory() + "/scenarios/" + file;
}

// What a run gave: CPU time, steps, contacts summed over the steps.
struct Tally {
  double cpu_s = 0.0;
  std::int64_t steps = 0;
  std::int64_t contacts = 0;
  std::int64_t link_contacts = 0;
  void add(const Tally& o) {
    cpu_s += o.cpu_s;
    steps += o.steps;
    contacts += o.contacts;
    link_contacts += o.link_contacts;
  }
  double usPerStep() const { return steps > 0 ? 1e6 * cpu_s / static_cast<double>(steps) : 0.0; }
  double perStep(std::int64_t n) const {
    return steps > 0 ? static_cast<double>(n) / static_cast<double>(steps) : 0.0;
  }
};

// One whole run of `run` from `start` (its reset state when null); `after` sees every step,
// untimed.
Tally runHandsim(sim::Run& run, const sim::SimState* start = nullptr,
                 const std::function<void(const sim::SimState&)>& after = {}) {
  if (start)
    run.state() = *start;
  else
    run.reset();
  const std::int64_t first = run.state().step;
  Tally t;
  double outside = 0.0;
  const double c0 = bench::cpuSeconds();
  while (!run.finished()) {
    run.step();
    const sim::SimState& s = run.state();
    t.contacts += static_cast<std::int64_t>(s.contacts.size() + s.object_contacts.size());
    t.link_contacts += static_cast<std::int64_t>(s.link_contacts.size());
    if (after) {
      const double a = bench::cpuSeconds();
      after(s);
      outside += bench::cpuSeconds() - a;
    }
  }
  t.cpu_s = bench::cpuSeconds() - c0 - outside;
  t.steps = run.state().step - first;
  return t;
}

void setCommonCounters(benchmark::State& state, const Tally& h) {
  state.counters["us_per_step"] = h.usPerStep();
  state.counters["contacts_per_step"] = h.perStep(h.contacts);
  state.counters["link_contacts_per_step"] = h.perStep(h.link_contacts);
  state.counters["peak_rss_MB"] = static_cast<double>(bench::peakRssKb()) / 1024.0;
}

// ---------------------------------------------------------------------------- MuJoCo side

#ifdef HANDSIM_BENCH_MUJOCO

std::string readText(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeText(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

std::string insertAfterTag(const std::string& text, const std::string& tag,
                           const std::string& what) {
  const std::size_t at = text.find(tag);
  const std::size_t end = at == std::string::npos ? at : text.find('>', at);
  if (end == std::string::npos) throw std::runtime_error("no " + tag + " element");
  return text.substr(0, end + 1) + what + text.substr(end + 1);
}

// A temporary folder, removed with everything in it when this goes.
class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "handsim_bench_hands_XXXXXX").string();
    if (!mkdtemp(t.data())) throw std::runtime_error("mkdtemp failed");
    path_ = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The scenario's URDF hand and its one fixed object in MuJoCo, driven like handsim's servos.
class MujocoHand {
 public:
  MujocoHand(const sim::Scenario& sc, const sim::SimState& start) : plan_(sc.plan) {
    const hand::HandModel& h = *sc.hand;
    if (sc.objects.size() != 1 || !sc.objects[0].fixed)
      throw std::runtime_error("MuJoCo side: one fixed object expected");
    if (!sc.plan.palm_pose_world.isApprox(Eigen::Isometry3d::Identity()))
      throw std::runtime_error("MuJoCo side: the palm must be at the world origin");
    const fs::path urdf = fs::absolute(h.source_file);
    const TempDir dir;
    const std::string compiler = "<mujoco><compiler meshdir=\"" + urdf.parent_path().string() +
                                 "/\" strippath=\"false\" balanceinertia=\"true\" "
                                 "discardvisual=\"true\"/></mujoco>";
    writeText(dir.path() / "hand.urdf", insertAfterTag(readText(urdf), "<robot", compiler));
    char err[1000] = "";
    mjModel* from_urdf = mj_loadXML((dir.path() / "hand.urdf").c_str(), nullptr, err, sizeof(err));
    if (!from_urdf) throw std::runtime_error(std::string("mj_loadXML(URDF): ") + err);
    const bool saved =
        mj_saveLastXML((dir.path() / "hand.xml").c_str(), from_urdf, err, sizeof(err));
    mj_deleteModel(from_urdf);
    if (!saved) throw std::runtime_error(std::string("mj_saveLastXML: ") + err);
    std::string xml = readText(dir.path() / "hand.xml");
    const std::size_t compiler_at = xml.find("<compiler ");
    if (compiler_at != std::string::npos) xml.insert(compiler_at + 10, "balanceinertia=\"true\" ");
    const std::size_t world_end = xml.rfind("</worldbody>");
    if (world_end == std::string::npos) throw std::runtime_error("no </worldbody>");
    xml.insert(world_end, objectGeom(sc.objects[0], sc.plan.object_pose_world.at(0)));
    writeText(dir.path() / "scene.xml", xml);
    m_ = mj_loadXML((dir.path() / "scene.xml").c_str(), nullptr, err, sizeof(err));
    if (!m_) throw std::runtime_error(std::string("mj_loadXML(scene): ") + err);
    m_->opt.timestep = sc.options.dt;
    for (int k = 0; k < 3; ++k) m_->opt.gravity[k] = sc.options.gravity_world[k];
    const int object = mj_name2id(m_, mjOBJ_GEOM, "handsim_object");
    for (int g = 0; g < m_->ngeom; ++g) {
      m_->geom_contype[g] = g == object ? 0 : 1;
      m_->geom_conaffinity[g] = g == object ? 1 : 0;
      m_->geom_condim[g] = 1;  // frictionless, as handsim's contacts with a fixed object
    }
    for (std::size_t a = 0; a < h.actuators.size(); ++a) {
      const hand::Actuator& act = h.actuators[a];
      const int j = mj_name2id(m_, mjOBJ_JOINT, act.name.c_str());
      if (j < 0 || act.drives.size() != 1 || act.drives[0].ratio != 1.0)
        throw std::runtime_error("MuJoCo side: actuator " + act.name +
                                 " is not one joint of the same name at ratio 1");
      Drive d;
      d.servo = act.servo;
      d.qpos = m_->jnt_qposadr[j];
      d.dof = m_->jnt_dofadr[j];
      d.start = start.actuator_position[a];
      d.trajectory = a < plan_.trajectories.size() ? &plan_.trajectories[a] : nullptr;
      m_->dof_armature[d.dof] = act.servo.rotor_inertia;
      m_->dof_damping[d.dof] = 0.0;
      m_->dof_frictionloss[d.dof] = 0.0;
      drives_.push_back(d);
    }
    d_ = mj_makeData(m_);
    if (!d_) throw std::runtime_error("mj_makeData failed");
  }
  ~MujocoHand() {
    if (d_) mj_deleteData(d_);
    if (m_) mj_deleteModel(m_);
  }
  MujocoHand(const MujocoHand&) = delete;
  MujocoHand& operator=(const MujocoHand&) = delete;

  /// The actuators' joint positions now (in handsim's actuator order) [rad].
  std::vector<double> positions() const {
    std::vector<double> q;
    for (const Drive& d : drives_) q.push_back(d_->qpos[d.qpos]);
    return q;
  }

  // One whole run of the plan's duration.
  Tally run() {
    mj_resetData(m_, d_);
    for (const Drive& d : drives_) d_->qpos[d.qpos] = d.start;
    const auto steps = static_cast<std::int64_t>(std::llround(plan_.duration / m_->opt.timestep));
    Tally t;
    const double c0 = bench::cpuSeconds();
    for (std::int64_t i = 0; i < steps; ++i) {
      const double t_next = d_->time + m_->opt.timestep;
      for (const Drive& d : drives_) {
        const double ref = d.trajectory ? d.trajectory->position(t_next, d.start) : d.start;
        const double vref = d.trajectory ? d.trajectory->velocity(t_next) : 0.0;
        const double tau =
            d.servo.kp * (ref - d_->qpos[d.qpos]) + d.servo.kd * (vref - d_->qvel[d.dof]);
        d_->qfrc_applied[d.dof] = std::clamp(tau, -d.servo.torque_limit, d.servo.torque_limit);
      }
      mj_step(m_, d_);
      t.contacts += d_->ncon;
    }
    t.cpu_s = bench::cpuSeconds() - c0;
    t.steps = steps;
    if (d_->warning[mjWARN_CONTACTFULL].number > 0 || d_->warning[mjWARN_BADQACC].number > 0)
      std::fprintf(stderr, "MuJoCo: warnings during the run (contact buffer full or bad qacc)\n");
    return t;
  }

 private:
  struct Drive {
    hand::ServoGains servo;
    int qpos = 0, dof = 0;
    double start = 0.0;
    const sim::ActuatorTrajectory* trajectory = nullptr;
  };

  static std::string objectGeom(const sim::ObjectModel& o, const Eigen::Isometry3d& start) {
    const auto& v = o.geometry->collision.mesh.vertices;
    Eigen::Vector3d half = Eigen::Vector3d::Zero();
    double radius = 0.0;
    for (const auto& p : v) {
      half = half.cwiseMax(p.cast<double>().cwiseAbs());
      radius = std::max(radius, p.cast<double>().norm());
    }
    const Eigen::Vector3d at = start.translation();
    const Eigen::Quaterniond q(start.linear());
    char buf[400];
    if (o.name.rfind("sphere", 0) == 0)
      std::snprintf(buf, sizeof(buf), "<geom type=\"sphere\" size=\"%.9g\"", radius);
    else if (o.name.rfind("box", 0) == 0)
      std::snprintf(buf, sizeof(buf), "<geom type=\"box\" size=\"%.9g %.9g %.9g\"", half.x(),
                    half.y(), half.z());
    else
      throw std::runtime_error("MuJoCo side: object " + o.name + " is neither sphere nor box");
    char pose[300];
    std::snprintf(pose, sizeof(pose),
                  " name=\"handsim_object\" pos=\"%.9g %.9g %.9g\" quat=\"%.9g %.9g %.9g %.9g\"/>",
                  at.x(), at.y(), at.z(), q.w(), q.x(), q.y(), q.z());
    return std::string(buf) + pose;
  }

  sim::RunPlan plan_;
  std::vector<Drive> drives_;
  mjModel* m_ = nullptr;
  mjData* d_ = nullptr;
};

#endif  // HANDSIM_BENCH_MUJOCO

// ------------------------------------------------------------------------------- cases

// A corpus hand closing on its object, handsim and MuJoCo in the same iteration.
struct PeerCase {
  std::shared_ptr<const sim::Model> model;
  sim::RunPlan plan;
#ifdef HANDSIM_BENCH_MUJOCO
  std::unique_ptr<MujocoHand> mujoco;
#endif
};

void BM_HandPeer(benchmark::State& state, const std::string& file, const std::string& hand) {
  if (hand::findOnHandSearchPath(hand).empty()) {
    state.SkipWithError((hand + " is on no folder of HANDSIM_HAND_PATH (the public URDF hands "
                                "are not shipped): skipped")
                            .c_str());
    return;
  }
  PeerCase c;
  const sim::Scenario sc = sim::loadScenario(scenarioPath(file));
  c.plan = sc.plan;
  c.plan.record_every = std::numeric_limits<int>::max();
  c.model = sim::compileScenario(sc);
  sim::Run run(c.model, c.plan);
#ifdef HANDSIM_BENCH_MUJOCO
  if (g_mujoco) c.mujoco = std::make_unique<MujocoHand>(sc, run.state());
#endif
  Tally h, mj;
  for (auto _ : state) {
    if (g_handsim) {
      const Tally t = runHandsim(run);
      h.add(t);
      state.SetIterationTime(t.cpu_s);
    }
#ifdef HANDSIM_BENCH_MUJOCO
    if (c.mujoco) {
      const Tally t = c.mujoco->run();
      mj.add(t);
      if (!g_handsim) state.SetIterationTime(t.cpu_s);
    }
#endif
  }
  setCommonCounters(state, h);
#ifdef HANDSIM_BENCH_MUJOCO
  if (c.mujoco && h.steps > 0) {  // do both close the hand alike? (stderr, once per case)
    const std::vector<double> q = c.mujoco->positions();
    double worst = 0.0;
    std::size_t at = 0;
    for (std::size_t a = 0; a < q.size(); ++a) {
      const double dq = std::abs(q[a] - run.state().actuator_position[a]);
      if (dq > worst) worst = dq, at = a;
    }
    std::fprintf(stderr,
                 "%s: final joint angles, handsim vs MuJoCo: largest difference %.3f rad "
                 "(%s)\n",
                 file.c_str(), worst, c.model->hand().actuators[at].name.c_str());
  }
#endif
  if (mj.steps > 0) {
    state.counters["mujoco_us_per_step"] = mj.usPerStep();
    state.counters["mujoco_contacts_per_step"] = mj.perStep(mj.contacts);
    if (h.steps > 0) state.counters["ratio"] = h.usPerStep() / mj.usPerStep();
  }
}

void BM_Anthro20(benchmark::State& state) {
  const sim::Scenario sc = sim::loadScenario(scenarioPath("anthro20_grasp_sphere.json"));
  sim::RunPlan plan = sc.plan;
  plan.record_every = std::numeric_limits<int>::max();
  sim::Run run(sim::compileScenario(sc), plan);
  Tally h;
  for (auto _ : state) {
    const Tally t = runHandsim(run);
    h.add(t);
    state.SetIterationTime(t.cpu_s);
  }
  setCommonCounters(state, h);
}

void BM_CubeOnTable(benchmark::State& state) {
  sim::RunPlan plan = bench::cubeOnTablePlan();
  plan.duration = 1.2;
  sim::Run run(bench::cubeOnTableModel(), plan);
  while (run.state().time < 0.2) run.step();  // it falls 0.1 mm and comes to rest
  const sim::SimState rest = run.state();
  Tally h;
  for (auto _ : state) {
    const Tally t = runHandsim(run, &rest);
    h.add(t);
    state.SetIterationTime(t.cpu_s);
  }
  setCommonCounters(state, h);
}

void BM_Lift(benchmark::State& state, const std::string& object) {
  const sim::Scenario sc = bench::liftScenario(object);
  sim::Run run(sim::compileScenario(sc), sc.plan);
  const sim::Model& m = run.model();
  // The object's centre in the palm frame at 4 s (the palm has stopped) and at the end.
  auto inPalm = [&m](const sim::SimState& s) -> Eigen::Vector3d {
    return s.palm_pose_world.inverse() *
           (s.object_pose_world[0] * m.objects[0].mass.centre_of_mass);
  };
  Eigen::Vector3d at_hold = Eigen::Vector3d::Zero();
  double z0 = 0.0, rise = 0.0, slip = 0.0;
  Tally h;
  for (auto _ : state) {
    z0 = (run.plan().object_pose_world.at(0) * m.objects[0].mass.centre_of_mass).z();
    const Tally t = runHandsim(run, nullptr, [&](const sim::SimState& s) {
      if (s.step == 4000) at_hold = inPalm(s);
    });
    h.add(t);
    state.SetIterationTime(t.cpu_s);
    const sim::SimState& s = run.state();
    rise = (s.object_pose_world[0] * m.objects[0].mass.centre_of_mass).z() - z0;
    slip = (inPalm(s) - at_hold).norm();
  }
  setCommonCounters(state, h);
  state.counters["realtime_factor"] =
      h.cpu_s > 0 ? 1e-3 * static_cast<double>(h.steps) / h.cpu_s : 0.0;
  state.counters["rise_mm"] = 1e3 * rise;
  state.counters["slip_mm"] = 1e3 * slip;
}

void BM_Hold(benchmark::State& state) {
  sim::Scenario sc = sim::loadScenario(scenarioPath("gripper2p_hold_cube.json"));
  sc.plan.record_every = std::numeric_limits<int>::max();
  sim::Run run(sim::compileScenario(sc), sc.plan);
  const sim::Model& m = run.model();
  // The cube's centre relative to the pads' midpoint (bench_bullet's slip), 1 s to the end.
  auto relative = [&m](const sim::SimState& s) -> Eigen::Vector3d {
    const Eigen::Vector3d mid = 0.5 * (sim::linkPoseWorld(m, s, 0, 1).translation() +
                                       sim::linkPoseWorld(m, s, 1, 1).translation());
    return s.object_pose_world[0] * m.objects[0].mass.centre_of_mass - mid;
  };
  Eigen::Vector3d at_1s = Eigen::Vector3d::Zero();
  double slip = 0.0;
  Tally h;
  for (auto _ : state) {
    const Tally t = runHandsim(run, nullptr, [&](const sim::SimState& s) {
      if (s.step == 1000) at_1s = relative(s);
    });
    h.add(t);
    state.SetIterationTime(t.cpu_s);
    slip = (relative(run.state()) - at_1s).norm();
  }
  setCommonCounters(state, h);
  state.counters["slip_m"] = slip;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--engine=", 0) == 0) {
      const std::string e = a.substr(9);
      g_handsim = e == "both" || e == "handsim";
      g_mujoco = e == "both" || e == "mujoco";
      if (!g_handsim && !g_mujoco) {
        std::fprintf(stderr, "bench_hands: --engine=both|handsim|mujoco\n");
        return 2;
      }
    } else {
      rest.push_back(argv[i]);
    }
  }
#ifndef HANDSIM_BENCH_MUJOCO
  if (g_mujoco)
    std::fprintf(stderr,
                 "bench_hands: built without MuJoCo (libmujoco-dev not found by CMake): the "
                 "MuJoCo side of the hand cases is skipped\n");
  g_mujoco = false;
  g_handsim = true;
#endif
  struct Peer {
    const char* name;
    const char* file;
    const char* hand;
  };
  const Peer peers[] = {
      {"hands/allegro_sphere", "allegro_grasp_sphere.json", "allegro_hand/allegro_hand_right.urdf"},
      {"hands/allegro_box", "allegro_grasp_box.json", "allegro_hand/allegro_hand_right.urdf"},
      {"hands/leap_sphere", "leap_grasp_sphere.json", "leap_hand/leap_hand_right.urdf"},
  };
  // Every case: manual (CPU) time per whole run, a fixed number of runs.
  auto timed = [](benchmark::internal::Benchmark* b, int runs) {
    b->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(runs);
  };
  for (const Peer& p : peers)
    timed(
        benchmark::RegisterBenchmark(p.name, BM_HandPeer, std::string(p.file), std::string(p.hand)),
        4);
  if (g_handsim) {
    timed(benchmark::RegisterBenchmark("hands/anthro20_sphere", BM_Anthro20), 4);
    timed(benchmark::RegisterBenchmark("cube_on_table", BM_CubeOnTable), 10);
    for (const char* o : {"cube12", "sphere10k", "cube10k"})
      timed(
          benchmark::RegisterBenchmark((std::string("lift/") + o).c_str(), BM_Lift, std::string(o)),
          2);
    timed(benchmark::RegisterBenchmark("hold/gripper2p_cube", BM_Hold), 3);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
  try {
    benchmark::RunSpecifiedBenchmarks();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_hands: %s\n", e.what());
    return 1;
  }
  benchmark::Shutdown();
  std::printf("peak resident set size: %ld kB\n", bench::peakRssKb());
  return 0;
}
