// SPDX-License-Identifier: GPL-3.0-or-later
// A 20+ joint hand tree read from URDF: handsim's chains (shared wrist copied) against Orocos
// KDL's tree solvers built from the same file, in the same run. The Shadow hand of
// the reference corpus ($HANDSIM_CORPUS_DIR) when present (24 movable joints, 5 chains sharing a 2-joint wrist), else
// a seeded random tree of 20+ joints written here. Before timing, both must agree on every
// link pose and the actuator-space inverse dynamics (abort otherwise). Also the URDF load time
// with and without meshes. Results: docs/performance.md.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <kdl/treefksolverpos_recursive.hpp>
#include <kdl/treeidsolver_recursive_newton_euler.hpp>
#include <kdl/treejnttojacsolver.hpp>
#include <sstream>

#include "../support/corpus.hpp"
#include "../urdf/urdf_test_support.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"

namespace {

using namespace handsim;

const std::string kShadow = test::corpusPath("urdf/shadow_hand/shadow_hand_right.urdf");

struct Setup {
  std::string path;  ///< file the hand was read from ("" for the random tree)
  std::string text;
  hand::HandModel hand;
  KDL::Tree tree;
  std::vector<double> a, ad, add;
  std::vector<kinematics::JointVector> q, qd, qdd;
  KDL::JntArray kq, kqd, kqdd;
  std::vector<std::string> leaves;  ///< KDL segment names of the chains' tips
  Eigen::Vector3d g{0.0, 0.0, -9.81};
};

Setup& setup() {
  static Setup setup_once = [] {
    Setup s;
    std::error_code ec;
    if (std::filesystem::is_regular_file(kShadow, ec)) {
      s.path = kShadow;
      std::stringstream ss;
      ss << std::ifstream(kShadow).rdbuf();
      s.text = ss.str();
    } else {
      std::mt19937 rng(7);
      urdftest::RandomTree t;
      do t = urdftest::randomTreeUrdf(rng, false);
      while (t.movable < 20 || t.movable > 25);
      s.text = t.urdf;
    }
    hand::UrdfOptions opt;
    opt.load_geometry = false;
    s.hand = hand::parseUrdfHand(s.text, s.path.empty() ? "random.urdf" : s.path, opt);
    s.tree = urdftest::kdlTree(s.text);
    std::mt19937 rng(3);
    for (const auto& act : s.hand.actuators) {
      std::uniform_real_distribution<double> u(act.lower, act.upper), v(-1.0, 1.0);
      s.a.push_back(u(rng));
      s.ad.push_back(v(rng));
      s.add.push_back(3.0 * v(rng));
    }
    const auto drives = hand::effectiveDrives(s.hand, {});
    s.q = hand::jointPositions(s.hand, s.a);
    s.qd = s.q;
    s.qdd = s.q;
    std::map<std::string, double> vq, vd, vdd;
    for (std::size_t f = 0; f < s.hand.fingers.size(); ++f)
      for (int j = 0; j < s.hand.fingers[f].dof(); ++j) {
        const auto& e = drives[f][static_cast<std::size_t>(j)];
        s.qd[f][j] = e.ratio * s.ad[static_cast<std::size_t>(e.actuator)];
        s.qdd[f][j] = e.ratio * s.add[static_cast<std::size_t>(e.actuator)];
        const std::string& name = s.hand.fingers[f].joint_names[static_cast<std::size_t>(j)];
        vq[name] = s.q[f][j];
        vd[name] = s.qd[f][j];
        vdd[name] = s.qdd[f][j];
      }
    const auto fill = [&](const std::map<std::string, double>& v) {
      KDL::JntArray out(s.tree.getNrOfJoints());
      for (const auto& [name, el] : s.tree.getSegments())
        if (el.segment.getJoint().getType() != KDL::Joint::Fixed)
          out(el.q_nr) = v.at(el.segment.getJoint().getName());
      return out;
    };
    s.kq = fill(vq);
    s.kqd = fill(vd);
    s.kqdd = fill(vdd);
    for (const auto& tl : s.hand.tree.links)
      if (tl.finger >= 0 && tl.parent_joint >= 0 &&
          s.hand.tree.joints[static_cast<std::size_t>(tl.parent_joint)].type !=
              kinematics::JointType::Fixed &&
          tl.row + 1 == static_cast<int>(s.hand.fingers[static_cast<std::size_t>(tl.finger)].rows.size()))
        s.leaves.push_back(tl.name);

    // Like for like: every link pose and the actuator-space inverse dynamics agree.
    KDL::TreeFkSolverPos_recursive fk(s.tree);
    for (const auto& [name, pose] : s.hand.linkPoses(s.q)) {
      KDL::Frame f;
      fk.JntToCart(s.kq, f, name);
      for (int r = 0; r < 3; ++r)
        if (std::abs(f.p(r) - pose.translation()[r]) > 1e-10) {
          std::fprintf(stderr, "FK of %s differs from KDL\n", name.c_str());
          std::abort();
        }
    }
    KDL::TreeIdSolver_RNE id(s.tree, KDL::Vector(s.g.x(), s.g.y(), s.g.z()));
    KDL::JntArray tau(s.tree.getNrOfJoints());
    id.CartToJnt(s.kq, s.kqd, s.kqdd, KDL::WrenchMap(), tau);
    const Eigen::VectorXd ours = urdftest::actuatorInverseDynamics(s.hand, s.a, s.ad, s.add, s.g);
    for (const auto& [name, el] : s.tree.getSegments()) {
      const auto& j = el.segment.getJoint();
      if (j.getType() == KDL::Joint::Fixed) continue;
      const int ai = s.hand.actuatorIndex(j.getName());
      if (ai >= 0 && std::abs(ours[ai] - tau(el.q_nr)) > 1e-9 * std::max(1.0, std::abs(tau(el.q_nr)))) {
        std::fprintf(stderr, "inverse dynamics of %s differs from KDL\n", j.getName().c_str());
        std::abort();
      }
    }
    std::fprintf(stderr, "tree: %s, %zu links, %zu movable joints, %zu chains\n",
                 s.path.empty() ? "random" : s.path.c_str(), s.hand.tree.links.size(),
                 s.hand.actuators.size(), s.hand.fingers.size());
    return s;
  }();
  return setup_once;
}

void BM_Handsim_ForwardKinematicsAllChains(benchmark::State& state) {
  Setup& s = setup();
  for (auto _ : state)
    for (std::size_t f = 0; f < s.hand.fingers.size(); ++f)
      benchmark::DoNotOptimize(kinematics::forwardKinematics(s.hand.fingers[f], s.q[f]));
}
BENCHMARK(BM_Handsim_ForwardKinematicsAllChains);

void BM_Handsim_LinkPosesAllLinks(benchmark::State& state) {
  Setup& s = setup();
  for (auto _ : state) benchmark::DoNotOptimize(s.hand.linkPoses(s.q));
}
BENCHMARK(BM_Handsim_LinkPosesAllLinks);

void BM_Kdl_TreeFkEverySegment(benchmark::State& state) {
  Setup& s = setup();
  KDL::TreeFkSolverPos_recursive fk(s.tree);
  KDL::Frame f;
  for (auto _ : state)
    for (const auto& tl : s.hand.tree.links) benchmark::DoNotOptimize(fk.JntToCart(s.kq, f, tl.name));
}
BENCHMARK(BM_Kdl_TreeFkEverySegment);

void BM_Handsim_JacobianEveryChainTip(benchmark::State& state) {
  Setup& s = setup();
  for (auto _ : state)
    for (std::size_t f = 0; f < s.hand.fingers.size(); ++f)
      benchmark::DoNotOptimize(kinematics::geometricJacobian(s.hand.fingers[f], s.q[f]));
}
BENCHMARK(BM_Handsim_JacobianEveryChainTip);

void BM_Kdl_TreeJacobianEveryChainTip(benchmark::State& state) {
  Setup& s = setup();
  KDL::TreeJntToJacSolver solver(s.tree);
  KDL::Jacobian jac(s.tree.getNrOfJoints());
  for (auto _ : state)
    for (const auto& leaf : s.leaves) benchmark::DoNotOptimize(solver.JntToJac(s.kq, jac, leaf));
}
BENCHMARK(BM_Kdl_TreeJacobianEveryChainTip);

void BM_Handsim_ActuatorInverseDynamics(benchmark::State& state) {
  Setup& s = setup();
  const auto drives = hand::effectiveDrives(s.hand, {});
  Eigen::VectorXd tau(static_cast<Eigen::Index>(s.hand.actuators.size()));
  for (auto _ : state) {
    tau.setZero();
    for (std::size_t f = 0; f < s.hand.fingers.size(); ++f) {
      const auto t = dynamics::inverseDynamicsLagrangeEuler(s.hand.fingers[f], s.q[f], s.qd[f],
                                                            s.qdd[f], s.g);
      for (int j = 0; j < t.size(); ++j) {
        const auto& e = drives[f][static_cast<std::size_t>(j)];
        tau[e.actuator] += e.ratio * t[j];
      }
    }
    benchmark::DoNotOptimize(tau);
  }
}
BENCHMARK(BM_Handsim_ActuatorInverseDynamics);

void BM_Kdl_TreeIdRne(benchmark::State& state) {
  Setup& s = setup();
  KDL::TreeIdSolver_RNE id(s.tree, KDL::Vector(s.g.x(), s.g.y(), s.g.z()));
  KDL::JntArray tau(s.tree.getNrOfJoints());
  for (auto _ : state) benchmark::DoNotOptimize(id.CartToJnt(s.kq, s.kqd, s.kqdd, KDL::WrenchMap(), tau));
}
BENCHMARK(BM_Kdl_TreeIdRne);

void BM_Handsim_UrdfLoadNoMeshes(benchmark::State& state) {
  Setup& s = setup();
  hand::UrdfOptions opt;
  opt.load_geometry = false;
  for (auto _ : state)
    benchmark::DoNotOptimize(hand::parseUrdfHand(s.text, s.path.empty() ? "random.urdf" : s.path, opt));
}
BENCHMARK(BM_Handsim_UrdfLoadNoMeshes)->Unit(benchmark::kMillisecond);

void BM_Kdl_UrdfdomParseAndTree(benchmark::State& state) {
  Setup& s = setup();
  for (auto _ : state) benchmark::DoNotOptimize(urdftest::kdlTree(s.text));
}
BENCHMARK(BM_Kdl_UrdfdomParseAndTree)->Unit(benchmark::kMillisecond);

void BM_Handsim_UrdfLoadWithMeshes(benchmark::State& state) {
  Setup& s = setup();
  if (s.path.empty()) {
    state.SkipWithError("no corpus file: the random tree has no meshes");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(hand::loadUrdfHand(s.path));
}
BENCHMARK(BM_Handsim_UrdfLoadWithMeshes)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
