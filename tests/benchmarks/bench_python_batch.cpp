// SPDX-License-Identifier: GPL-3.0-or-later
// Batch kinematics of the Python module (issue 22, item 4; src/python/batch.hpp, the code
// Hand.link_poses / Hand.fk run for an (N, dof) array with the GIL released) against the
// per-call loop and against MuJoCo 2.2.2's mj_kinematics (libmujoco-dev, linked here only) in
// the same iterations: 40,000 random configurations of the public Allegro hand (found on
// $HANDSIM_HAND_PATH; skipped without it), every link's pose.
//
// Each iteration times, wall clock, over the same 40,000 configurations:
//   loop      HandModel::linkPoses per configuration (the per-call path of link_poses)
//   batch_1   batch::linkPoses on one thread
//   batch     batch::linkPoses on one thread per core
//   fk_batch  batch::forwardKinematics of the four fingers (every DH frame; the FkKernel
//             Hand.fk runs), one thread per core (fk_batch) and one thread (fk_batch_1thread)
//   mujoco    qpos set, mj_kinematics (every body's, geom's and site's pose)
// Counters are ns per configuration, the speed-ups over the loop and the ratios to MuJoCo
// (handsim time / MuJoCo time: below 1 is faster), and the peak RSS. Before timing, the
// poses of every link MuJoCo keeps as a body are compared with ours (1e-9 m, 1e-9 rad).
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "batch.hpp"
#include "bench_scenes.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

#ifdef HANDSIM_BENCH_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace {

using namespace handsim;
namespace fs = std::filesystem;

constexpr std::size_t kConfigurations = 40000;
const char* kAllegro = "allegro_hand/allegro_hand_right.urdf";

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Random joint values within the limits, one (N x dof_f) row-major block per finger.
std::vector<std::vector<double>> randomConfigurations(const hand::HandModel& h, std::size_t n) {
  std::mt19937_64 rng(22);
  std::vector<std::vector<double>> q(h.fingers.size());
  for (std::size_t f = 0; f < h.fingers.size(); ++f) {
    const kinematics::Chain& c = h.fingers[f];
    q[f].resize(n * static_cast<std::size_t>(c.dof()));
    for (std::size_t i = 0; i < n; ++i)
      for (int j = 0; j < c.dof(); ++j) {
        const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
        q[f][i * static_cast<std::size_t>(c.dof()) + static_cast<std::size_t>(j)] =
            std::uniform_real_distribution<double>(row.lower, row.upper)(rng);
      }
  }
  return q;
}

#ifdef HANDSIM_BENCH_MUJOCO
std::string readText(const fs::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The URDF in MuJoCo (meshes from the file's folder, visuals dropped), and the qpos address
// of each of our fingers' joints (by URDF joint name).
struct Mujoco {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  std::vector<std::vector<int>> qpos;  // [finger][joint]
  Mujoco(const hand::HandModel& h) {
    const fs::path urdf = fs::absolute(h.source_file);
    std::string text = readText(urdf);
    const std::size_t robot = text.find("<robot");
    const std::size_t end = robot == std::string::npos ? robot : text.find('>', robot);
    if (end == std::string::npos) throw std::runtime_error("no <robot> element");
    text.insert(
        end + 1,
        "<mujoco><compiler meshdir=\"" + urdf.parent_path().string() +
            "/\" strippath=\"false\" balanceinertia=\"true\" discardvisual=\"true\"/></mujoco>");
    std::string dir = (fs::temp_directory_path() / "handsim_bench_batch_XXXXXX").string();
    if (!mkdtemp(dir.data())) throw std::runtime_error("mkdtemp failed");
    const fs::path file = fs::path(dir) / "hand.urdf";
    std::ofstream(file) << text;
    char err[1000] = "";
    m = mj_loadXML(file.c_str(), nullptr, err, sizeof(err));
    std::error_code ec;
    fs::remove_all(dir, ec);
    if (!m) throw std::runtime_error(std::string("mj_loadXML: ") + err);
    d = mj_makeData(m);
    // Each movable URDF joint is one MuJoCo joint of the same name; our fingers hold a copy
    // of it per chain that passes through it.
    qpos.resize(h.fingers.size());
    for (std::size_t f = 0; f < h.fingers.size(); ++f)
      qpos[f].assign(static_cast<std::size_t>(h.fingers[f].dof()), -1);
    for (const hand::TreeJoint& tj : h.tree.joints) {
      if (tj.copies.empty()) continue;
      const int id = mj_name2id(m, mjOBJ_JOINT, tj.name.c_str());
      if (id < 0) throw std::runtime_error("MuJoCo has no joint " + tj.name);
      for (const hand::JointRef& c : tj.copies)
        qpos[static_cast<std::size_t>(c.finger)][static_cast<std::size_t>(c.joint)] =
            m->jnt_qposadr[id];
    }
    for (const auto& f : qpos)
      for (int a : f)
        if (a < 0) throw std::runtime_error("a finger joint has no MuJoCo joint");
  }
  ~Mujoco() {
    if (d) mj_deleteData(d);
    if (m) mj_deleteModel(m);
  }
  void set(const std::vector<std::vector<double>>& q, std::size_t i) {
    for (std::size_t f = 0; f < qpos.size(); ++f)
      for (std::size_t j = 0; j < qpos[f].size(); ++j)
        d->qpos[qpos[f][j]] = q[f][i * qpos[f].size() + j];
  }
};
#endif

void BM_AllegroKinematics(benchmark::State& state) {
  const std::string path = hand::findOnHandSearchPath(kAllegro);
  if (path.empty()) {
    state.SkipWithError("the Allegro URDF is on no folder of HANDSIM_HAND_PATH: skipped");
    return;
  }
  const hand::HandModel h = hand::loadHand(path);
  const std::size_t n = kConfigurations;
  const auto q = randomConfigurations(h, n);
  const auto slots = python::batch::linkSlots(h);
  std::vector<std::vector<double>> poses(slots.size(), std::vector<double>(n * 16));
  std::vector<const double*> qs;
  for (const auto& v : q) qs.push_back(v.data());
  std::vector<double*> outs;
  for (auto& v : poses) outs.push_back(v.data());
  std::vector<std::vector<double>> frames(h.fingers.size());
  for (std::size_t f = 0; f < h.fingers.size(); ++f)
    frames[f].resize(n * (h.fingers[f].rows.size() + 1) * 16);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

#ifdef HANDSIM_BENCH_MUJOCO
  Mujoco mj(h);
  {  // The same poses: every link MuJoCo keeps as a body, configuration 123.
    python::batch::linkPoses(h, slots, qs, n, outs, 1);
    mj.set(q, 123);
    mj_kinematics(mj.m, mj.d);
    int compared = 0;
    for (std::size_t l = 0; l < slots.size(); ++l) {
      const int b = mj_name2id(mj.m, mjOBJ_BODY, slots[l].name.c_str());
      if (b < 0) continue;
      const double* ours = &poses[l][123 * 16];
      for (int r = 0; r < 3; ++r) {
        if (std::abs(ours[r * 4 + 3] - mj.d->xpos[3 * b + r]) > 1e-9)
          throw std::runtime_error("MuJoCo disagrees on the position of " + slots[l].name);
        for (int c = 0; c < 3; ++c)
          if (std::abs(ours[r * 4 + c] - mj.d->xmat[9 * b + 3 * r + c]) > 1e-9)
            throw std::runtime_error("MuJoCo disagrees on the rotation of " + slots[l].name);
      }
      ++compared;
    }
    if (compared < 5) throw std::runtime_error("fewer than 5 links compared with MuJoCo");
    state.counters["links_compared"] = compared;
  }
#endif

  double loop = 0.0, batch1 = 0.0, batch = 0.0, fk = 0.0, fk1 = 0.0, mujoco = 0.0;
  std::vector<kinematics::JointVector> one(h.fingers.size());
  double sink = 0.0;
  for (auto _ : state) {
    double t = now();
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t f = 0; f < h.fingers.size(); ++f) {
        const auto dof = static_cast<std::size_t>(h.fingers[f].dof());
        one[f] = Eigen::Map<const Eigen::VectorXd>(&q[f][i * dof], static_cast<Eigen::Index>(dof));
      }
      const auto lp = h.linkPoses(one);
      sink += lp.back().second.translation().x();
    }
    loop += now() - t;
    t = now();
    python::batch::linkPoses(h, slots, qs, n, outs, 1);
    batch1 += now() - t;
    t = now();
    python::batch::linkPoses(h, slots, qs, n, outs, cores);
    batch += now() - t;
    t = now();
    for (std::size_t f = 0; f < h.fingers.size(); ++f)
      python::batch::forwardKinematics(h.fingers[f], q[f].data(), n, false, frames[f].data(),
                                       cores);
    fk += now() - t;
    t = now();
    for (std::size_t f = 0; f < h.fingers.size(); ++f)
      python::batch::forwardKinematics(h.fingers[f], q[f].data(), n, false, frames[f].data(), 1);
    fk1 += now() - t;
#ifdef HANDSIM_BENCH_MUJOCO
    t = now();
    for (std::size_t i = 0; i < n; ++i) {
      mj.set(q, i);
      mj_kinematics(mj.m, mj.d);
      sink += mj.d->xpos[3];
    }
    mujoco += now() - t;
#endif
    benchmark::DoNotOptimize(sink);
    benchmark::DoNotOptimize(poses.back().data());
  }
  const double per = 1e9 / static_cast<double>(state.iterations()) / static_cast<double>(n);
  state.counters["loop_ns"] = loop * per;
  state.counters["batch_1thread_ns"] = batch1 * per;
  state.counters["batch_ns"] = batch * per;
  state.counters["fk_batch_ns"] = fk * per;
  state.counters["fk_batch_1thread_ns"] = fk1 * per;
  state.counters["threads"] = cores;
  state.counters["speedup_vs_loop"] = loop / batch;
#ifdef HANDSIM_BENCH_MUJOCO
  state.counters["mujoco_ns"] = mujoco * per;
  state.counters["batch_vs_mujoco"] = batch / mujoco;
  state.counters["batch_1thread_vs_mujoco"] = batch1 / mujoco;
  state.counters["fk_batch_vs_mujoco"] = fk / mujoco;
  state.counters["fk_batch_1thread_vs_mujoco"] = fk1 / mujoco;
#endif
  state.counters["peak_rss_MB"] = static_cast<double>(bench::peakRssKb()) / 1024.0;
}
BENCHMARK(BM_AllegroKinematics)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
