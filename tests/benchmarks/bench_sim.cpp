// SPDX-License-Identifier: GPL-3.0-or-later
// Inverse kinematics and simulator steps on the shipped hands. Peer: Orocos KDL's
// Levenberg-Marquardt position IK (ChainIkSolverPos_LMA) on the same BarrettHand finger and
// targets; at start-up every solver's answers are checked (fingertip within 1e-6 m of the
// target) so the comparison is like for like. Results: docs/performance.md.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/chainiksolverpos_lma.hpp>
#include <limits>
#include <random>
#include <vector>

#include "bench_scenes.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"
#include "handsim/sim/run.hpp"
#include "kdl_bridge.hpp"

namespace {

using namespace handsim;

struct Targets {
  std::vector<Eigen::Vector3d> points;
  std::vector<kinematics::JointVector> near;  ///< a start 0.1 rad from the generating q
};

Targets makeTargets(const kinematics::Chain& c, int n) {
  std::mt19937 rng(42);
  Targets t;
  for (int i = 0; i < n; ++i) {
    kinematics::JointVector q(c.dof()), q0(c.dof());
    for (int j = 0; j < c.dof(); ++j) {
      const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
      const double lo = row.lower + 0.15, hi = row.upper - 0.15;
      q[j] = std::uniform_real_distribution<double>(lo, hi)(rng);
      q0[j] = q[j] + 0.1;
    }
    t.points.push_back(kinematics::fingertipPosition(c, q));
    t.near.push_back(q0);
  }
  return t;
}

const hand::HandModel& barrett() {
  static const hand::HandModel h = hand::loadHand("barrett");
  return h;
}
const hand::HandModel& anthro() {
  static const hand::HandModel h = hand::loadHand("anthro20");
  return h;
}
const hand::HandModel& dexterous() {
  static const hand::HandModel h = hand::loadHand("dexterous3");
  return h;
}

KDL::ChainIkSolverPos_LMA makeLma(const KDL::Chain& chain) {
  Eigen::Matrix<double, 6, 1> weights;
  weights << 1, 1, 1, 0, 0, 0;  // position only, as handsim's solvers
  return KDL::ChainIkSolverPos_LMA(chain, weights, 1e-14, 500, 1e-15);
}

void BM_IkBarrettClosedForm(benchmark::State& state) {
  const auto& c = barrett().fingers[0];
  const Targets t = makeTargets(c, 256);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(kinematics::barrettFingerIk(c, t.points[i], t.near[i]));
    i = (i + 1) % t.points.size();
  }
}

void numericalIk(benchmark::State& state, const kinematics::Chain& c) {
  const Targets t = makeTargets(c, 256);
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(kinematics::solveNumericalIk(c, t.points[i], t.near[i]));
    i = (i + 1) % t.points.size();
  }
}

void BM_IkBarrettDls(benchmark::State& state) {
  numericalIk(state, barrett().fingers[0]);
}

void BM_IkBarrettKdlLma(benchmark::State& state) {
  const auto& c = barrett().fingers[0];
  const Targets t = makeTargets(c, 256);
  const KDL::Chain kc = bench::toKdl(c);
  auto lma = makeLma(kc);
  KDL::JntArray out(kc.getNrOfJoints());
  std::size_t i = 0;
  for (auto _ : state) {
    const Eigen::Vector3d& p = t.points[i];
    const KDL::Frame goal(KDL::Vector(p.x(), p.y(), p.z()));
    benchmark::DoNotOptimize(lma.CartToJnt(bench::toKdl(Eigen::VectorXd(t.near[i])), goal, out));
    i = (i + 1) % t.points.size();
  }
}

void BM_IkPlanarClosedForm(benchmark::State& state) {
  const auto& c = dexterous().fingers[1];
  std::mt19937 rng(1);
  std::vector<Eigen::Vector3d> goals;  // x, y, phi in the finger plane
  std::vector<kinematics::JointVector> qs;
  for (int i = 0; i < 256; ++i) {
    kinematics::JointVector q(c.dof());
    for (int j = 0; j < c.dof(); ++j) {
      const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
      q[j] = std::uniform_real_distribution<double>(row.lower, row.upper)(rng);
    }
    const auto f = kinematics::forwardKinematics(c, q);
    const Eigen::Isometry3d tip = f.at(static_cast<int>(c.rows.size()) - 3).inverse() * f.tip();
    goals.emplace_back(tip.translation().x(), tip.translation().y(),
                       std::atan2(tip.linear()(1, 0), tip.linear()(0, 0)));
    qs.push_back(q);
  }
  std::size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        kinematics::planarFingerIk(c, goals[i].x(), goals[i].y(), goals[i].z(), qs[i]));
    i = (i + 1) % goals.size();
  }
}

void BM_IkAnthroIndexDls(benchmark::State& state) {
  numericalIk(state, anthro().fingers[1]);
}

// One sim::Run step (controller, references, the staged step; no recording), the run
// restarted every 2 s of simulated time so the hand keeps moving.
void runSteps(benchmark::State& state, std::shared_ptr<const sim::Model> model, sim::RunPlan plan) {
  plan.duration = 0.0;  // no end: the benchmark decides
  plan.record_every = std::numeric_limits<int>::max();
  sim::Run run(std::move(model), std::move(plan));
  std::int64_t contacts = 0;
  for (auto _ : state) {
    run.step();
    contacts += static_cast<std::int64_t>(run.state().contacts.size());
    if (run.state().time > 2.0) run.reset();
  }
  state.counters["contacts_per_step"] =
      static_cast<double>(contacts) / static_cast<double>(state.iterations());
}

void simulatorStep(benchmark::State& state, const hand::HandModel& h) {
  sim::RunPlan plan;
  for (std::size_t a = 0; a < h.actuators.size(); ++a) {
    sim::ActuatorTrajectory traj;
    const auto& act = h.actuators[a];
    traj.append(sim::TrapezoidalProfile(act.lower, act.lower + 0.8 * (act.upper - act.lower),
                                        (act.upper - act.lower), 4 * (act.upper - act.lower)));
    plan.trajectories.push_back(traj);
  }
  runSteps(state, sim::compileModel(std::make_shared<const hand::HandModel>(h), {}), plan);
}

void BM_SimStepBarrett(benchmark::State& state) {
  simulatorStep(state, barrett());
}
void BM_SimStepAnthro20(benchmark::State& state) {
  simulatorStep(state, anthro());
}
// The seed-000 experiment: finger 3 closes on the shipped cube, which stops its inner link;
// the clutch breaks and the outer link closes on the cube (contacts on most steps after 1.7 s).
void BM_SimStepBarrettCube(benchmark::State& state) {
  const sim::Scenario sc =
      sim::loadScenario(hand::assetDirectory() + "/scenarios/barrett_breakaway_cube.json");
  sim::RunPlan plan = sc.plan;
  runSteps(state, sim::compileScenario(sc), plan);
}
// The same with the cube in the way from the first step: every step has contacts.
void BM_SimStepBarrettCubeContact(benchmark::State& state) {
  const sim::Scenario sc =
      sim::loadScenario(hand::assetDirectory() + "/scenarios/barrett_breakaway_cube.json");
  sim::RunPlan plan = sc.plan;
  plan.duration = 0.0;
  plan.record_every = std::numeric_limits<int>::max();
  sim::Run run(sim::compileScenario(sc), plan);
  // Until the outer link rests on the cube too (both links touch).
  while (run.state().contacts.size() < 2 && run.state().time < 5.0) run.step();
  const sim::SimState start = run.state();
  std::int64_t contacts = 0, n = 0;
  for (auto _ : state) {
    run.step();
    contacts += static_cast<std::int64_t>(run.state().contacts.size());
    if (++n % 500 == 0) {
      state.PauseTiming();
      run.state() = start;
      state.ResumeTiming();
    }
  }
  state.counters["contacts_per_step"] =
      static_cast<double>(contacts) / static_cast<double>(state.iterations());
}

// A free 5 cm cube resting on a fixed table box beside the open BarrettHand (docs/free-objects.md,
// contacts between bodies): four corner contacts with friction against the table every step.
void BM_SimStepCubeOnTable(benchmark::State& state) {
  auto model = bench::cubeOnTableModel();
  sim::Run run(model, bench::cubeOnTablePlan());
  while (run.state().time < 0.2) run.step();  // it falls 5 cm and comes to rest
  const sim::SimState start = run.state();
  std::int64_t contacts = 0, n = 0;
  for (auto _ : state) {
    run.step();
    contacts += static_cast<std::int64_t>(run.state().object_contacts.size());
    if (++n % 500 == 0) {
      state.PauseTiming();
      run.state() = start;
      state.ResumeTiming();
    }
  }
  state.counters["contacts_per_step"] =
      static_cast<double>(contacts) / static_cast<double>(state.iterations());
}

bool checkSolvers() {
  const auto& c = barrett().fingers[0];
  const Targets t = makeTargets(c, 64);
  const KDL::Chain kc = bench::toKdl(c);
  auto lma = makeLma(kc);
  KDL::ChainFkSolverPos_recursive fk(kc);
  for (std::size_t i = 0; i < t.points.size(); ++i) {
    const auto q1 = kinematics::barrettFingerIk(c, t.points[i], t.near[i]);
    const auto q2 = kinematics::solveNumericalIk(c, t.points[i], t.near[i]).q;
    KDL::JntArray out(kc.getNrOfJoints());
    const Eigen::Vector3d& p = t.points[i];
    lma.CartToJnt(bench::toKdl(Eigen::VectorXd(t.near[i])),
                  KDL::Frame(KDL::Vector(p.x(), p.y(), p.z())), out);
    KDL::Frame tip;
    fk.JntToCart(out, tip);
    const double e1 = (kinematics::fingertipPosition(c, q1) - p).norm();
    const double e2 = (kinematics::fingertipPosition(c, q2) - p).norm();
    const double e3 = (Eigen::Vector3d(tip.p.x(), tip.p.y(), tip.p.z()) - p).norm();
    if (e1 > 1e-6 || e2 > 1e-6 || e3 > 1e-6) {
      std::fprintf(stderr, "IK solvers disagree on target %zu: errors %g %g %g m\n", i, e1, e2, e3);
      return false;
    }
  }
  return true;
}

}  // namespace

BENCHMARK(BM_IkBarrettClosedForm);
BENCHMARK(BM_IkBarrettDls);
BENCHMARK(BM_IkBarrettKdlLma);
BENCHMARK(BM_IkPlanarClosedForm);
BENCHMARK(BM_IkAnthroIndexDls);
BENCHMARK(BM_SimStepBarrett);
BENCHMARK(BM_SimStepAnthro20);
BENCHMARK(BM_SimStepBarrettCube);
BENCHMARK(BM_SimStepBarrettCubeContact);
BENCHMARK(BM_SimStepCubeOnTable);

int main(int argc, char** argv) {
  if (!checkSolvers()) return 1;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
