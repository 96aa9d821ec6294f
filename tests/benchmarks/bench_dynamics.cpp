// SPDX-License-Identifier: GPL-3.0-or-later
// Kinematics and dynamics of one finger, handsim against Orocos KDL 1.5 on the same chains:
// the BarrettHand finger (seed 000; F1 with 3 joints, F3 with 2) and a 4-joint anthropomorphic
// finger (seed 001). Before timing anything, the program checks that both libraries compute the
// same numbers (fingertip pose, Jacobian, inverse and forward dynamics, D, H, C) and aborts
// otherwise, so the comparison is like for like. Results: docs/performance.md.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <kdl/chain.hpp>
#include <kdl/chaindynparam.hpp>
#include <kdl/chainfdsolver_recursive_newton_euler.hpp>
#include <kdl/chainfksolverpos_recursive.hpp>
#include <kdl/chainidsolver_recursive_newton_euler.hpp>
#include <kdl/chainjnttojacsolver.hpp>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "handsim/dynamics/forward_dynamics.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "kdl_bridge.hpp"

namespace {

using namespace handsim;
using bench::toKdl;

constexpr double kPi = 3.14159265358979323846;
double deg(double x) {
  return x * kPi / 180.0;
}

kinematics::DhRow dhRow(double a, double alpha, double d, double theta) {
  kinematics::DhRow r;
  r.a = a;
  r.alpha = alpha;
  r.d = d;
  r.theta = theta;
  r.lower = -kPi;
  r.upper = kPi;
  return r;
}

/// BarrettHand finger, docs/design.md section 3 (products-of-inertia reading of the seed's numbers).
kinematics::Chain barrettFinger(bool finger3) {
  kinematics::Chain c;
  c.name = finger3 ? "Barrett F3" : "Barrett F1";
  c.rows = {dhRow(0.050, deg(90.0), 0.0, 0.0), dhRow(0.070, 0.0, 0.0, deg(2.46)),
            dhRow(0.056, 0.0, 0.0, deg(50.0))};
  if (finger3) c.rows[0].type = kinematics::JointType::Fixed;
  c.joint_names = {"J1", "J2", "J3"};
  const double mass[3] = {0.16252678, 0.05795741, 0.03421781};
  const double com[3][3] = {{-0.01798334, -0.01569925, 0.00086502},
                            {-0.03827982, 0.00107042, -0.00058628},
                            {-0.03629026, 0.00182016, 0.00020041}};
  // (xx, xy, xz, yy, yz, zz) about the frame origin; off-diagonals are products of inertia.
  const double in[3][6] = {
      {0.0000658, 0.0000572, -0.0000011, 0.0001310, -0.0000013, 0.0001808},
      {0.0000047, -0.0000020, 0.0000030, 0.0001208, -0.0000000, 0.0001218},
      {0.00000298, -0.00000135, -0.00000032, 0.00005836, -0.00000001, 0.00005732}};
  for (int i = 0; i < 3; ++i) {
    kinematics::LinkInertia l;
    l.mass = mass[i];
    l.com = Eigen::Vector3d(com[i][0], com[i][1], com[i][2]);
    l.inertia << in[i][0], -in[i][1], -in[i][2],  //
        -in[i][1], in[i][3], -in[i][4],           //
        -in[i][2], -in[i][4], in[i][5];
    c.links.push_back(l);
  }
  return c;
}

/// Seed 001 finger: (theta, alpha, a, d) = (th1, -90, a1, 0), (th2, 90, a2, 0), (th3, 0, a3, 0),
/// (th4, 0, a4, 0), a = 10, 45, 25, 20 mm. Links: solid cylinders of radius 8 mm along -x of
/// their frame (standard DH puts frame {i} at the distal end of link i), masses of a human
/// finger's phalanges.
kinematics::Chain anthropomorphicFinger() {
  kinematics::Chain c;
  c.name = "Anthropomorphic";
  const double a[4] = {0.010, 0.045, 0.025, 0.020};
  const double alpha[4] = {-kPi / 2, kPi / 2, 0.0, 0.0};
  const double mass[4] = {0.005, 0.030, 0.015, 0.010};
  const double radius = 0.008;
  for (int i = 0; i < 4; ++i) {
    c.rows.push_back(dhRow(a[i], alpha[i], 0.0, 0.0));
    c.joint_names.push_back("J" + std::to_string(i + 1));
    kinematics::LinkInertia l;
    l.mass = mass[i];
    l.com = Eigen::Vector3d(-a[i] / 2, 0.0, 0.0);
    const double axial = l.mass * radius * radius / 2;
    const double transverse = l.mass * (3 * radius * radius + a[i] * a[i]) / 12;
    const Eigen::Matrix3d about_com = Eigen::Vector3d(axial, transverse, transverse).asDiagonal();
    l.inertia = about_com + l.mass * (l.com.squaredNorm() * Eigen::Matrix3d::Identity() -
                                      l.com * l.com.transpose());
    c.links.push_back(l);
  }
  return c;
}

const Eigen::Vector3d kGravity(0.0, 0.0, -9.81);

/// One chain with its KDL twin, solvers and a fixed random state.
struct Case {
  kinematics::Chain chain;
  KDL::Chain kdl;
  Eigen::VectorXd q, qd, qdd, tau;
  KDL::JntArray kq, kqd, kqdd, ktau;
  KDL::Wrenches f_ext;
  std::unique_ptr<KDL::ChainFkSolverPos_recursive> fk;
  std::unique_ptr<KDL::ChainJntToJacSolver> jac;
  std::unique_ptr<KDL::ChainIdSolver_RNE> id;
  std::unique_ptr<KDL::ChainFdSolver_RNE> fd;
  std::unique_ptr<KDL::ChainDynParam> dyn;

  explicit Case(kinematics::Chain c, unsigned seed) : chain(std::move(c)), kdl(toKdl(chain)) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const int n = chain.dof();
    q = Eigen::VectorXd::NullaryExpr(n, [&] { return kPi * u(rng); });
    qd = Eigen::VectorXd::NullaryExpr(n, [&] { return 3.0 * u(rng); });
    qdd = Eigen::VectorXd::NullaryExpr(n, [&] { return 10.0 * u(rng); });
    tau = Eigen::VectorXd::NullaryExpr(n, [&] { return 0.1 * u(rng); });
    kq = toKdl(q);
    kqd = toKdl(qd);
    kqdd = toKdl(qdd);
    ktau = toKdl(tau);
    f_ext.assign(kdl.getNrOfSegments(), KDL::Wrench::Zero());
    const KDL::Vector g(kGravity.x(), kGravity.y(), kGravity.z());
    fk = std::make_unique<KDL::ChainFkSolverPos_recursive>(kdl);
    jac = std::make_unique<KDL::ChainJntToJacSolver>(kdl);
    id = std::make_unique<KDL::ChainIdSolver_RNE>(kdl, g);
    fd = std::make_unique<KDL::ChainFdSolver_RNE>(kdl, g);
    dyn = std::make_unique<KDL::ChainDynParam>(kdl, g);
  }
};

std::vector<std::unique_ptr<Case>>& cases() {
  static std::vector<std::unique_ptr<Case>> all;
  return all;
}

double relDiff(const Eigen::Ref<const Eigen::MatrixXd>& a,
               const Eigen::Ref<const Eigen::MatrixXd>& b) {
  return (a - b).norm() / std::max(b.norm(), 1e-12);
}

/// True when KDL and handsim agree to 1e-9 (relative) on every quantity timed below.
bool agree(Case& c) {
  KDL::Frame tip;
  c.fk->JntToCart(c.kq, tip);
  Eigen::Matrix4d kdl_tip = Eigen::Matrix4d::Identity();
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) kdl_tip(i, j) = tip.M(i, j);
    kdl_tip(i, 3) = tip.p(i);
  }
  KDL::Jacobian kjac(c.kdl.getNrOfJoints());
  c.jac->JntToJac(c.kq, kjac);
  KDL::JntArray ktau(c.kdl.getNrOfJoints()), kqdd(c.kdl.getNrOfJoints()),
      kcor(c.kdl.getNrOfJoints()), kgrav(c.kdl.getNrOfJoints());
  KDL::JntSpaceInertiaMatrix kmass(c.kdl.getNrOfJoints());
  c.id->CartToJnt(c.kq, c.kqd, c.kqdd, c.f_ext, ktau);
  c.fd->CartToJnt(c.kq, c.kqd, c.ktau, c.f_ext, kqdd);
  c.dyn->JntToMass(c.kq, kmass);
  c.dyn->JntToCoriolis(c.kq, c.kqd, kcor);
  c.dyn->JntToGravity(c.kq, kgrav);

  const dynamics::DynamicsTerms t = dynamics::lagrangeEuler(c.chain, c.q, c.qd, kGravity);
  const struct {
    const char* what;
    double diff;
  } checks[] = {
      {"fingertip pose",
       relDiff(kinematics::forwardKinematics(c.chain, c.q).tip().matrix(), kdl_tip)},
      {"Jacobian", relDiff(kinematics::geometricJacobian(c.chain, c.q), kjac.data)},
      {"inverse dynamics (LE)",
       relDiff(dynamics::inverseDynamicsLagrangeEuler(c.chain, c.q, c.qd, c.qdd, kGravity),
               ktau.data)},
      {"inverse dynamics (RNEA)",
       relDiff(dynamics::inverseDynamicsNewtonEuler(c.chain, c.q, c.qd, c.qdd, kGravity),
               ktau.data)},
      {"forward dynamics",
       relDiff(dynamics::forwardDynamics(c.chain, c.q, c.qd, c.tau, kGravity), kqdd.data)},
      {"D", relDiff(t.D, kmass.data)},
      {"H", relDiff(t.H, kcor.data)},
      {"C", relDiff(t.C, kgrav.data)},
  };
  bool ok = true;
  for (const auto& check : checks) {
    if (!(check.diff < 1e-9)) {
      std::fprintf(stderr, "%s: handsim and KDL disagree on %s (relative difference %g)\n",
                   c.chain.name.c_str(), check.what, check.diff);
      ok = false;
    }
  }
  return ok;
}

void registerAll() {
  for (const auto& owned : cases()) {
    Case* c = owned.get();
    const std::string n = "/" + c->chain.name + " (" + std::to_string(c->chain.dof()) + " dof)";
    // Forward kinematics: every frame (handsim) vs the tip frame (KDL computes the chain
    // product either way).
    benchmark::RegisterBenchmark(("fk/handsim" + n).c_str(), [c](benchmark::State& s) {
      for (auto _ : s) benchmark::DoNotOptimize(kinematics::forwardKinematics(c->chain, c->q));
    });
    benchmark::RegisterBenchmark(("fk/kdl" + n).c_str(), [c](benchmark::State& s) {
      KDL::Frame tip;
      for (auto _ : s) {
        c->fk->JntToCart(c->kq, tip);
        benchmark::DoNotOptimize(tip);
      }
    });
    benchmark::RegisterBenchmark(("jacobian/handsim" + n).c_str(), [c](benchmark::State& s) {
      for (auto _ : s) benchmark::DoNotOptimize(kinematics::geometricJacobian(c->chain, c->q));
    });
    benchmark::RegisterBenchmark(("jacobian/kdl" + n).c_str(), [c](benchmark::State& s) {
      KDL::Jacobian jac(c->kdl.getNrOfJoints());
      for (auto _ : s) {
        c->jac->JntToJac(c->kq, jac);
        benchmark::DoNotOptimize(jac.data.data());
      }
    });
    benchmark::RegisterBenchmark(("id_le/handsim" + n).c_str(), [c](benchmark::State& s) {
      for (auto _ : s)
        benchmark::DoNotOptimize(
            dynamics::inverseDynamicsLagrangeEuler(c->chain, c->q, c->qd, c->qdd, kGravity));
    });
    benchmark::RegisterBenchmark(("id_le_dhc/handsim" + n).c_str(), [c](benchmark::State& s) {
      for (auto _ : s) {
        const dynamics::DynamicsTerms t = dynamics::lagrangeEuler(c->chain, c->q, c->qd, kGravity);
        kinematics::JointVector tau = t.D * c->qdd + t.H + t.C;
        benchmark::DoNotOptimize(tau);
      }
    });
    benchmark::RegisterBenchmark(("id_rnea/handsim" + n).c_str(), [c](benchmark::State& s) {
      for (auto _ : s)
        benchmark::DoNotOptimize(
            dynamics::inverseDynamicsNewtonEuler(c->chain, c->q, c->qd, c->qdd, kGravity));
    });
    benchmark::RegisterBenchmark(("id_rnea/kdl" + n).c_str(), [c](benchmark::State& s) {
      KDL::JntArray tau(c->kdl.getNrOfJoints());
      for (auto _ : s) {
        c->id->CartToJnt(c->kq, c->kqd, c->kqdd, c->f_ext, tau);
        benchmark::DoNotOptimize(tau.data.data());
      }
    });
    benchmark::RegisterBenchmark(("dhc/handsim" + n).c_str(), [c](benchmark::State& s) {
      for (auto _ : s)
        benchmark::DoNotOptimize(dynamics::lagrangeEuler(c->chain, c->q, c->qd, kGravity));
    });
    benchmark::RegisterBenchmark(("dhc/kdl" + n).c_str(), [c](benchmark::State& s) {
      const unsigned nj = c->kdl.getNrOfJoints();
      KDL::JntSpaceInertiaMatrix mass(nj);
      KDL::JntArray cor(nj), grav(nj);
      for (auto _ : s) {
        c->dyn->JntToMass(c->kq, mass);
        c->dyn->JntToCoriolis(c->kq, c->kqd, cor);
        c->dyn->JntToGravity(c->kq, grav);
        benchmark::DoNotOptimize(mass.data.data());
        benchmark::DoNotOptimize(cor.data.data());
        benchmark::DoNotOptimize(grav.data.data());
      }
    });
    benchmark::RegisterBenchmark(("fd/handsim" + n).c_str(), [c](benchmark::State& s) {
      for (auto _ : s)
        benchmark::DoNotOptimize(
            dynamics::forwardDynamics(c->chain, c->q, c->qd, c->tau, kGravity));
    });
    benchmark::RegisterBenchmark(("fd/kdl" + n).c_str(), [c](benchmark::State& s) {
      KDL::JntArray qdd(c->kdl.getNrOfJoints());
      for (auto _ : s) {
        c->fd->CartToJnt(c->kq, c->kqd, c->ktau, c->f_ext, qdd);
        benchmark::DoNotOptimize(qdd.data.data());
      }
    });
  }
}

}  // namespace

int main(int argc, char** argv) {
  cases().push_back(std::make_unique<Case>(barrettFinger(false), 1U));
  cases().push_back(std::make_unique<Case>(barrettFinger(true), 2U));
  cases().push_back(std::make_unique<Case>(anthropomorphicFinger(), 3U));
  bool ok = true;
  for (const auto& c : cases()) ok = agree(*c) && ok;
  if (!ok) {
    std::fprintf(stderr, "handsim and KDL disagree; timings would not compare like for like\n");
    return EXIT_FAILURE;
  }
  std::printf("handsim and KDL agree to 1e-9 on every timed quantity for all chains\n");
  registerAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return EXIT_FAILURE;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return EXIT_SUCCESS;
}
