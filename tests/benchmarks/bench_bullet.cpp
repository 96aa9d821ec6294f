// SPDX-License-Identifier: GPL-3.0-or-later
// Seed 004's hold test in handsim and in Bullet 3.24 (double precision, Debian
// libbullet-dev's -float64 libraries), in the same program (issue #9, docs/performance.md):
// two parallel pads squeeze a free 50 mm, 0.2 kg cube with 10 N each, fingers horizontal,
// gravity along the pad faces, dt = 1 ms, 10 s.
//
//   handsim: assets/scenarios/gripper2p_hold_cube.json (seed 004's prismatic gripper, its
//            servo saturating at 20 N = 10 N per pad, the 12-triangle cube.wrl), default
//            contact model, mu set on the cube.
//   Bullet:  the pads as dynamic 0.15 kg boxes (the gripper's moving mass per pad: carriage,
//            jaw and half the reflected rotor mass) on btSliderConstraints to the world, each
//            driven by the slider's linear motor at 50 mm/s with its force limited to 10 N
//            (the same saturated servo), btSequentialImpulseConstraintSolver with 10
//            iterations. The cube once as a btBoxShape and once as the same 12-triangle mesh
//            (btConvexTriangleMeshShape, and btGImpactMeshShape). Bullet multiplies the two
//            bodies' friction coefficients: pads 1, cube mu.
//
// Besides Google Benchmark's timing (one iteration = one whole 10 s run), the program prints
// a report of one run of each: CPU time per step, the cube's slip relative to the pads
// between t = 1 s and 10 s, and the largest pad contact force over its steady value.
// Flags (before Google Benchmark's own): --side=handsim|bullet|both (default both: which
// side is set up, reported and timed, for peak-memory runs), --report_only,
// --no_report, --cold (the earlier default solve: no warm start, tolerance 0, no torsional
// friction), --handsim_contact_model=NAME (adds "model": NAME to the scenario's contact
// block, for engines that have more than the default).
#include <BulletCollision/CollisionShapes/btConvexTriangleMeshShape.h>
#include <BulletCollision/CollisionShapes/btTriangleMesh.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointMotor.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <benchmark/benchmark.h>
#include <btBulletDynamicsCommon.h>
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
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

namespace {

using namespace handsim;

constexpr double kDt = 1e-3;                 // [s]
constexpr double kDuration = 10.0;           // [s]
constexpr double kSlipFrom = 1.0;            // slip is measured from here [s]
constexpr double kSteadyFrom = 9.0;          // steady force: mean over [9 s, 10 s]
constexpr double kHalfCube = 0.025;          // [m]
constexpr double kCubeMass = 0.2;            // [kg]
constexpr double kGap = 0.00005;             // pad face to cube face at the start [m]
constexpr double kPadHalfThickness = 0.007;  // along the jaw travel [m]
constexpr double kPadMass = 0.15;            // [kg]
constexpr double kPadForce = 10.0;           // [N]
constexpr double kCloseSpeed = 0.05;         // [m/s]
constexpr double kMeshMargin = 0.001;        // Bullet's collision margin of the mesh cube [m]

std::string g_contact_model;  // --handsim_contact_model
bool g_trace = false;         // --trace: print the samples of the report's runs now and then

using bench::cpuSeconds;
using bench::peakRssKb;

// What one 10 s run gives, the same for both engines. Positions in the world frame.
struct Trace {
  double cpu_s = 0.0;
  int steps = 0;
  Eigen::Vector3d rel_at_slip_start = Eigen::Vector3d::Zero();  // cube - pad midpoint at 1 s
  Eigen::Vector3d rel_end = Eigen::Vector3d::Zero();
  double max_drift = 0.0;  // max |rel(t) - rel(1 s)| over [1 s, 10 s]
  double max_pad_force = 0.0;
  double max_pad_force_hold = 0.0;  // after kSlipFrom: spikes while holding, not the closing
  double peak_time = 0.0;
  double steady_sum = 0.0;
  int steady_n = 0;
  double fall = 0.0;  // cube's drop in world z over the whole run [m]
  void sample(double t, const Eigen::Vector3d& cube, const Eigen::Vector3d& pad_mid, double force_l,
              double force_r) {
    const Eigen::Vector3d rel = cube - pad_mid;
    const long ms = std::lround(t * 1e3);
    if (g_trace && (ms <= 100 ? ms % 5 == 0 : ms % 1000 == 0))
      std::printf("  t %.3f  cube %+.5f %+.5f %+.5f  pads mid %+.5f %+.5f %+.5f  F %.3f %.3f\n", t,
                  cube.x(), cube.y(), cube.z(), pad_mid.x(), pad_mid.y(), pad_mid.z(), force_l,
                  force_r);
    if (std::abs(t - kSlipFrom) < 0.5 * kDt) rel_at_slip_start = rel;
    if (t > kSlipFrom + 0.5 * kDt)
      max_drift = std::max(max_drift, (rel - rel_at_slip_start).norm());
    rel_end = rel;
    if (std::max(force_l, force_r) > max_pad_force) {
      max_pad_force = std::max(force_l, force_r);
      peak_time = t;
    }
    if (t > kSlipFrom + 0.5 * kDt)
      max_pad_force_hold = std::max({max_pad_force_hold, force_l, force_r});
    if (t > kSteadyFrom + 0.5 * kDt) {
      steady_sum += 0.5 * (force_l + force_r);
      ++steady_n;
    }
  }
  double slip() const { return (rel_end - rel_at_slip_start).norm(); }
  double steady() const { return steady_n > 0 ? steady_sum / steady_n : 0.0; }
  double spike() const { return steady() > 0 ? max_pad_force / steady() : 0.0; }
  double holdSpike() const { return steady() > 0 ? max_pad_force_hold / steady() : 0.0; }
};

// ------------------------------------------------------------------------ handsim side

struct HandsimScene {
  std::shared_ptr<const sim::Model> model;
  sim::RunPlan plan;
};

bool g_warm_start = false;
bool g_cold = false;  // --cold: cold 50-sweep solve to the exact fixed point, no torsion

HandsimScene makeHandsim(double mu, int sweeps = 0) {
  const std::string path = hand::assetDirectory() + "/scenarios/gripper2p_hold_cube.json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (!g_contact_model.empty()) {
    const std::string key = "\"contact\": {";
    const auto at = text.find(key);
    if (at == std::string::npos) throw std::runtime_error(path + ": no contact block");
    text.insert(at + key.size(), "\"model\": \"" + g_contact_model + "\", ");
  }
  sim::Scenario sc = sim::parseScenario(text, path);
  sc.options.contact.mu = mu;
  if (sweeps > 0) sc.options.solver.sweeps = sweeps;
  if (g_warm_start) {  // --warm_start: SolverOptions::warm_start with tolerance 1e-9
    sc.options.solver.warm_start = true;
    sc.options.solver.tolerance = 1e-9;
  }
  if (g_cold) {  // --cold: the solve before the converged one became the default
    sc.options.solver.warm_start = false;
    sc.options.solver.tolerance = 0.0;
    sc.options.contact.constraint()->torsional = 0.0;
  }
  for (auto& o : sc.objects) o.friction = mu;
  sc.plan.duration = kDuration;
  sc.plan.record_every = std::numeric_limits<int>::max();  // no recording: time the engine
  return {sim::compileScenario(sc), sc.plan};
}

void sampleHandsim(const sim::Run& run, Trace& tr) {
  const sim::Model& m = run.model();
  const sim::SimState& s = run.state();
  const Eigen::Vector3d pad_l = sim::linkPoseWorld(m, s, 0, 1).translation();
  const Eigen::Vector3d pad_r = sim::linkPoseWorld(m, s, 1, 1).translation();
  const Eigen::Vector3d cube = s.object_pose_world[0] * m.objects[0].mass.centre_of_mass;
  double f[2] = {0.0, 0.0};
  for (const auto& c : s.contacts)
    if (c.finger == 0 || c.finger == 1) f[c.finger] += c.force + c.impact_force;
  tr.sample(s.time, cube, 0.5 * (pad_l + pad_r), f[0], f[1]);
}

Trace runHandsim(const HandsimScene& scene) {
  sim::Run run(scene.model, scene.plan);
  Trace tr;
  const double z0 =
      (run.state().object_pose_world[0] * scene.model->objects[0].mass.centre_of_mass).z();
  const double c0 = cpuSeconds();
  double sampling = 0.0;
  while (!run.finished()) {
    run.step();
    const double a = cpuSeconds();
    sampleHandsim(run, tr);
    sampling += cpuSeconds() - a;
  }
  tr.cpu_s = cpuSeconds() - c0 - sampling;
  tr.steps = static_cast<int>(run.state().step);
  tr.fall =
      z0 - (run.state().object_pose_world[0] * scene.model->objects[0].mass.centre_of_mass).z();
  if (run.state().warning_count > 0)
    std::fprintf(stderr, "handsim: %lld warnings, first: %s\n",
                 static_cast<long long>(run.state().warning_count),
                 run.state().warnings.empty() ? "" : run.state().warnings.front().c_str());
  return tr;
}

// ------------------------------------------------------------------------- Bullet side

enum class CubeShape { Box, ConvexMesh, GImpactMesh };

const char* shapeName(CubeShape s) {
  switch (s) {
    case CubeShape::Box:
      return "box";
    case CubeShape::ConvexMesh:
      return "convex_mesh12";
    case CubeShape::GImpactMesh:
      return "gimpact_mesh12";
  }
  return "?";
}

// The 12 triangles of cube.wrl (the same vertex order and faces) with half edge `half`.
void addCubeTriangles(btTriangleMesh& mesh, double half) {
  const double h = half;
  const btVector3 v[8] = {{-h, -h, -h}, {h, -h, -h}, {-h, h, -h}, {h, h, -h},
                          {-h, -h, h},  {h, -h, h},  {-h, h, h},  {h, h, h}};
  const int quads[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                           {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
  for (const auto& q : quads) {
    mesh.addTriangle(v[q[0]], v[q[1]], v[q[2]]);
    mesh.addTriangle(v[q[0]], v[q[2]], v[q[3]]);
  }
}

// How the pads are jointed to the world.
enum class PadJoints {
  Slider,        // rigid bodies on btSliderConstraint, btSequentialImpulseConstraintSolver
  Featherstone,  // one btMultiBody per pad (fixed base, prismatic link),
                 // btMultiBodyConstraintSolver
};

const char* jointsName(PadJoints j) {
  return j == PadJoints::Slider ? "slider" : "featherstone";
}

class BulletScene {
 public:
  BulletScene(PadJoints joints, CubeShape shape, double mu, int iterations)
      : dispatcher_(&config_) {
    if (joints == PadJoints::Slider) {
      solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
      world_ = std::make_unique<btDiscreteDynamicsWorld>(&dispatcher_, &broadphase_, solver_.get(),
                                                         &config_);
    } else {
      auto mb_solver = std::make_unique<btMultiBodyConstraintSolver>();
      auto mb_world = std::make_unique<btMultiBodyDynamicsWorld>(&dispatcher_, &broadphase_,
                                                                 mb_solver.get(), &config_);
      mb_world_ = mb_world.get();
      solver_ = std::move(mb_solver);
      world_ = std::move(mb_world);
    }
    if (shape == CubeShape::GImpactMesh)
      btGImpactCollisionAlgorithm::registerAlgorithm(&dispatcher_);
    world_->setGravity(btVector3(0, 0, -9.81));
    world_->getSolverInfo().m_numIterations = iterations;

    // Cube: world (0.05, 0, 0), faces along the axes, at rest.
    switch (shape) {
      case CubeShape::Box:
        cube_shape_ = std::make_unique<btBoxShape>(btVector3(kHalfCube, kHalfCube, kHalfCube));
        cube_shape_->setMargin(kMeshMargin);  // inside the box's extents
        break;
      case CubeShape::ConvexMesh: {
        // Full size: the polyhedral clipping below works on the polyhedra without margins.
        addCubeTriangles(mesh_, kHalfCube);
        auto s = std::make_unique<btConvexTriangleMeshShape>(&mesh_);
        s->setMargin(kMeshMargin);
        // Face contacts by separating axes and clipping (btPolyhedralContactClipping), with
        // the pads' polyhedra below: without them GJK adds one point a step and the cube
        // turns about it and drops within 0.1 s.
        s->initializePolyhedralFeatures();
        cube_shape_ = std::move(s);
        break;
      }
      case CubeShape::GImpactMesh: {
        // Shrunk by the margin, which GImpact's triangle contacts add outside the mesh.
        addCubeTriangles(mesh_, kHalfCube - kMeshMargin);
        auto s = std::make_unique<btGImpactMeshShape>(&mesh_);
        s->setMargin(kMeshMargin);
        s->updateBound();
        cube_shape_ = std::move(s);
        break;
      }
    }
    // Inertia of the solid 50 mm cube for every shape (btGImpactMeshShape has none).
    const double i_cube = kCubeMass * (2 * kHalfCube) * (2 * kHalfCube) / 6.0;
    cube_ = addBody(cube_shape_.get(), kCubeMass, btVector3(i_cube, i_cube, i_cube),
                    btVector3(0.05, 0, 0), mu);

    // Pads: 40 mm along world x (palm z 30..70 mm), 14 mm along the travel (world y), 30 mm
    // in world z; 0.05 mm from the cube's faces.
    pad_shape_ = std::make_unique<btBoxShape>(btVector3(0.02, kPadHalfThickness, 0.015));
    pad_shape_->setMargin(kMeshMargin);
    if (shape == CubeShape::ConvexMesh) pad_shape_->initializePolyhedralFeatures();
    btVector3 pad_inertia;
    pad_shape_->calculateLocalInertia(kPadMass, pad_inertia);
    const double off = kHalfCube + kGap + kPadHalfThickness;
    for (int k = 0; k < 2; ++k) {
      const double side = k == 0 ? -1.0 : 1.0;  // left pad at -y closes along +y
      const btVector3 at(0.05, side * off, 0);
      if (joints == PadJoints::Slider) {
        btRigidBody* pad = addBody(pad_shape_.get(), kPadMass, pad_inertia, at, 1.0);
        pads_[k] = pad;
        // The slider's axis is the x axis of its frame: turn x onto the closing direction.
        btTransform frame;
        frame.setIdentity();
        frame.setRotation(btQuaternion(btVector3(0, 0, 1), -side * SIMD_HALF_PI));
        auto slider = std::make_unique<btSliderConstraint>(*pad, frame, true);
        slider->setLowerLinLimit(-0.05);
        slider->setUpperLinLimit(0.05);
        // The gripper's saturated servo: closing at 50 mm/s, at most 10 N.
        slider->setPoweredLinMotor(true);
        slider->setTargetLinMotorVelocity(kCloseSpeed);
        slider->setMaxLinMotorForce(kPadForce);
        world_->addConstraint(slider.get(), true);
        constraints_.push_back(std::move(slider));
      } else {
        auto mb = std::make_unique<btMultiBody>(1, 0.0, btVector3(0, 0, 0), true, false);
        mb->setBasePos(at);
        mb->setWorldToBaseRot(btQuaternion::getIdentity());
        mb->setupPrismatic(0, kPadMass, pad_inertia, -1, btQuaternion::getIdentity(),
                           btVector3(0, -side, 0), btVector3(0, 0, 0), btVector3(0, 0, 0), true);
        mb->finalizeMultiDof();
        mb->setLinearDamping(0.0);
        mb->setAngularDamping(0.0);
        mb->setHasSelfCollision(false);
        mb_world_->addMultiBody(mb.get());
        auto col = std::make_unique<btMultiBodyLinkCollider>(mb.get(), 0);
        col->setCollisionShape(pad_shape_.get());
        btTransform pose;
        pose.setIdentity();
        pose.setOrigin(at);
        col->setWorldTransform(pose);
        col->setFriction(1.0);
        col->setRestitution(0.0);
        col->setActivationState(DISABLE_DEACTIVATION);
        mb_world_->addCollisionObject(col.get(), btBroadphaseProxy::DefaultFilter,
                                      btBroadphaseProxy::AllFilter);
        mb->getLink(0).m_collider = col.get();
        // The saturated servo: 50 mm/s, at most 10 N (the motor's bound is an impulse a step).
        auto motor =
            std::make_unique<btMultiBodyJointMotor>(mb.get(), 0, kCloseSpeed, kPadForce * kDt);
        mb_world_->addMultiBodyConstraint(motor.get());
        pads_[k] = col.get();
        multibodies_.push_back(std::move(mb));
        colliders_.push_back(std::move(col));
        motors_.push_back(std::move(motor));
      }
    }
  }
  BulletScene(const BulletScene&) = delete;
  BulletScene& operator=(const BulletScene&) = delete;
  ~BulletScene() {
    for (auto& m : motors_) mb_world_->removeMultiBodyConstraint(m.get());
    for (auto& c : colliders_) mb_world_->removeCollisionObject(c.get());
    for (auto& b : multibodies_) mb_world_->removeMultiBody(b.get());
    for (auto& c : constraints_) world_->removeConstraint(c.get());
    for (auto& b : bodies_) world_->removeRigidBody(b.get());
  }

  double time() const { return time_; }
  void advance() {
    world_->stepSimulation(kDt, 0, kDt);
    time_ += kDt;
  }

  // Normal force of each pad on the cube during the last step [N].
  void padForces(double f[2]) {
    f[0] = f[1] = 0.0;
    const int n = dispatcher_.getNumManifolds();
    for (int i = 0; i < n; ++i) {
      btPersistentManifold* m = dispatcher_.getManifoldByIndexInternal(i);
      const btCollisionObject* a = m->getBody0();
      const btCollisionObject* b = m->getBody1();
      for (int k = 0; k < 2; ++k) {
        if (!((a == pads_[k] && b == cube_) || (a == cube_ && b == pads_[k]))) continue;
        for (int p = 0; p < m->getNumContacts(); ++p)
          f[k] += m->getContactPoint(p).getAppliedImpulse() / kDt;
      }
    }
  }
  static Eigen::Vector3d position(const btCollisionObject* b) {
    const btVector3 p = b->getWorldTransform().getOrigin();
    return {p.x(), p.y(), p.z()};
  }
  void sample(Trace& tr) {
    double f[2];
    padForces(f);
    tr.sample(time_, position(cube_), 0.5 * (position(pads_[0]) + position(pads_[1])), f[0], f[1]);
  }
  const btRigidBody* cube() const { return cube_; }

 private:
  btRigidBody* addBody(btCollisionShape* shape, double mass, const btVector3& inertia,
                       const btVector3& at, double friction) {
    btTransform pose;
    pose.setIdentity();
    pose.setOrigin(at);
    motion_.push_back(std::make_unique<btDefaultMotionState>(pose));
    btRigidBody::btRigidBodyConstructionInfo info(mass, motion_.back().get(), shape, inertia);
    info.m_friction = friction;
    info.m_restitution = 0.0;
    bodies_.push_back(std::make_unique<btRigidBody>(info));
    btRigidBody* b = bodies_.back().get();
    b->setActivationState(DISABLE_DEACTIVATION);  // no sleeping: every step is simulated
    world_->addRigidBody(b);
    return b;
  }

  btDefaultCollisionConfiguration config_;
  btCollisionDispatcher dispatcher_;
  btDbvtBroadphase broadphase_;
  std::unique_ptr<btConstraintSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  btMultiBodyDynamicsWorld* mb_world_ = nullptr;  // world_ when the pads are multibodies
  btTriangleMesh mesh_;
  std::unique_ptr<btCollisionShape> cube_shape_;
  std::unique_ptr<btBoxShape> pad_shape_;
  std::vector<std::unique_ptr<btDefaultMotionState>> motion_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;
  std::vector<std::unique_ptr<btTypedConstraint>> constraints_;
  std::vector<std::unique_ptr<btMultiBody>> multibodies_;
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders_;
  std::vector<std::unique_ptr<btMultiBodyJointMotor>> motors_;
  btRigidBody* cube_ = nullptr;
  const btCollisionObject* pads_[2] = {nullptr, nullptr};
  double time_ = 0.0;
};

Trace runBullet(PadJoints joints, CubeShape shape, double mu, int iterations) {
  BulletScene scene(joints, shape, mu, iterations);
  Trace tr;
  const double z0 = scene.cube()->getCenterOfMassPosition().z();
  const int n = static_cast<int>(std::llround(kDuration / kDt));
  const double c0 = cpuSeconds();
  double sampling = 0.0;
  for (int i = 0; i < n; ++i) {
    scene.advance();
    const double a = cpuSeconds();
    scene.sample(tr);
    sampling += cpuSeconds() - a;
  }
  tr.cpu_s = cpuSeconds() - c0 - sampling;
  tr.steps = n;
  tr.fall = z0 - scene.cube()->getCenterOfMassPosition().z();
  return tr;
}

// --------------------------------------------------------------------------- benchmarks

void setCounters(benchmark::State& state, std::int64_t steps) {
  state.counters["steps_per_s"] =
      benchmark::Counter(static_cast<double>(steps), benchmark::Counter::kIsRate);
  state.counters["us_per_step"] = benchmark::Counter(
      static_cast<double>(steps) * 1e-6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_HoldHandsim(benchmark::State& state, double mu, int sweeps) {
  const HandsimScene scene = makeHandsim(mu, sweeps);
  sim::Run run(scene.model, scene.plan);
  std::int64_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    run.reset();
    state.ResumeTiming();
    while (!run.finished()) run.step();
    steps += run.state().step;
  }
  setCounters(state, steps);
}

void BM_HoldBullet(benchmark::State& state, PadJoints joints, CubeShape shape, double mu,
                   int iterations) {
  const int n = static_cast<int>(std::llround(kDuration / kDt));
  std::int64_t steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto scene = std::make_unique<BulletScene>(joints, shape, mu, iterations);
    state.ResumeTiming();
    for (int i = 0; i < n; ++i) scene->advance();
    steps += n;
    state.PauseTiming();
    scene.reset();
    state.ResumeTiming();
  }
  setCounters(state, steps);
}

// ------------------------------------------------------------------------------ report

struct Row {
  std::string engine, cube;
  double mu;
  Trace tr;
};

void printReport(const std::vector<Row>& rows) {
  std::printf("\n## Hold test, one 10 s run each (dt = 1 ms; slip from t = 1 s to 10 s)\n\n");
  std::printf(
      "| engine | cube | mu | us/step (CPU) | steps/s | slip mm | max drift mm | "
      "fall mm | steady N/pad | peak N (at s) | spike | hold spike |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows)
    std::printf(
        "| %s | %s | %.1f | %.1f | %.0f | %.3g | %.3g | %.3g | %.3f | %.2f (%.3f) | "
        "%.2f | %.2f |\n",
        r.engine.c_str(), r.cube.c_str(), r.mu, 1e6 * r.tr.cpu_s / r.tr.steps,
        r.tr.steps / r.tr.cpu_s, 1e3 * r.tr.slip(), 1e3 * r.tr.max_drift, 1e3 * r.tr.fall,
        r.tr.steady(), r.tr.max_pad_force, r.tr.peak_time, r.tr.spike(), r.tr.holdSpike());
  // Ratios against handsim at the same mu.
  std::printf(
      "\n| handsim | mu | Bullet run | Bullet us/step / handsim us/step | "
      "Bullet slip / handsim slip |\n");
  std::printf("|---|---:|---|---:|---:|\n");
  for (const Row& h : rows) {
    if (h.engine.rfind("handsim", 0) != 0) continue;
    for (const Row& b : rows) {
      if (b.engine.rfind("bullet", 0) != 0 || b.mu != h.mu) continue;
      const double hs = h.tr.cpu_s / h.tr.steps, bs = b.tr.cpu_s / b.tr.steps;
      // A slip below 1 um is reported as such: its ratio would only measure rounding.
      char slip[64];
      if (h.tr.slip() < 1e-6 && b.tr.slip() < 1e-6)
        std::snprintf(slip, sizeof slip, "both < 1 um");
      else if (h.tr.slip() < 1e-6)
        std::snprintf(slip, sizeof slip, "> %.3g (handsim < 1 um)", b.tr.slip() / 1e-6);
      else
        std::snprintf(slip, sizeof slip, "%.3g", b.tr.slip() / h.tr.slip());
      std::printf("| %s | %.1f | %s %s | %.2f | %s |\n", h.engine.c_str(), h.mu, b.engine.c_str(),
                  b.cube.c_str(), bs / hs, slip);
    }
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::string side = "both";
  bool report = true, bench = true;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--side=", 0) == 0) {
      side = a.substr(7);
    } else if (a == "--warm_start") {
      g_warm_start = true;
    } else if (a == "--cold") {
      g_cold = true;
    } else if (a == "--report_only") {
      bench = false;
    } else if (a == "--trace") {
      g_trace = true;
    } else if (a == "--no_report") {
      report = false;
    } else if (a.rfind("--handsim_contact_model=", 0) == 0) {
      g_contact_model = a.substr(24);
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (side != "both" && side != "handsim" && side != "bullet") {
    std::fprintf(stderr, "bench_bullet: --side must be handsim, bullet or both\n");
    return 2;
  }
  const bool with_handsim = side != "bullet", with_bullet = side != "handsim";
  const double mus[] = {0.5, 0.2};
  const CubeShape shapes[] = {CubeShape::Box, CubeShape::ConvexMesh, CubeShape::GImpactMesh};
  const PadJoints joints[] = {PadJoints::Featherstone, PadJoints::Slider};

  try {
    if (report) {
      std::vector<Row> rows;
      for (double mu : mus) {
        if (with_handsim) {
          if (g_trace) std::printf("handsim mu %.1f\n", mu);
          rows.push_back({"handsim", "mesh12", mu, runHandsim(makeHandsim(mu))});
          if (g_trace) std::printf("handsim 10 sweeps mu %.1f\n", mu);
          rows.push_back({"handsim_10sweeps", "mesh12", mu, runHandsim(makeHandsim(mu, 10))});
        }
        if (with_bullet)
          for (PadJoints j : joints)
            for (int it : {10, 50})
              for (CubeShape s : shapes) {
                const std::string name =
                    std::string("bullet_") + jointsName(j) + "_" + std::to_string(it) + "it";
                if (g_trace) std::printf("%s %s mu %.1f\n", name.c_str(), shapeName(s), mu);
                rows.push_back({name, shapeName(s), mu, runBullet(j, s, mu, it)});
              }
      }
      printReport(rows);
    }
    if (bench) {
      for (double mu : mus) {
        char tag[32];
        std::snprintf(tag, sizeof tag, "mu:%.1f", mu);
        if (with_handsim)
          for (int sweeps : {0, 10})
            benchmark::RegisterBenchmark(
                (std::string("Hold10s/handsim/mesh12/") + (sweeps ? "sweeps:10/" : "") + tag)
                    .c_str(),
                BM_HoldHandsim, mu, sweeps)
                ->Unit(benchmark::kMillisecond);
        if (with_bullet)
          for (PadJoints j : joints)
            for (int it : {10, 50})
              for (CubeShape s : shapes)
                benchmark::RegisterBenchmark(
                    (std::string("Hold10s/bullet/") + jointsName(j) + "/" + shapeName(s) +
                     "/iterations:" + std::to_string(it) + "/" + tag)
                        .c_str(),
                    BM_HoldBullet, j, s, mu, it)
                    ->Unit(benchmark::kMillisecond);
      }
      int n = static_cast<int>(rest.size());
      benchmark::Initialize(&n, rest.data());
      if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
      benchmark::RunSpecifiedBenchmarks();
      benchmark::Shutdown();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_bullet: %s\n", e.what());
    return 1;
  }
  std::printf("peak resident set size: %ld kB (side: %s)\n", peakRssKb(), side.c_str());
  return 0;
}
