// SPDX-License-Identifier: GPL-3.0-or-later
// The Python Run (handsim.Run): sim::Run with the numpy views onto its state and the guard that
// keeps one Run on one thread at a time. Shared by the files that bind Run's methods.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "handsim/formats/scenario.hpp"
#include "handsim/sim/run.hpp"
#include "handsim/sim/step.hpp"

namespace handsim::python {

using sim::Model;
using sim::Run;
using sim::RunPlan;
using sim::Scenario;

// One Run is used by one thread at a time (issue 24, finding 2: run_to_end() releases the GIL,
// and a step(), reset() or signals() from another thread then tore the state apart). Every
// method of Run marks the run as in use by the calling thread for its duration; a call from
// another thread while it is marked raises RuntimeError instead of touching the state. Calls
// from the same thread nest (a controller called by run_to_end sets commands on its run).
class RunUse {
 public:
  explicit RunUse(const Run& run) : run_(&run) {
    const std::lock_guard<std::mutex> lock(mutex());
    auto [it, fresh] = users().try_emplace(run_, User{std::this_thread::get_id(), 0});
    if (!fresh && it->second.thread != std::this_thread::get_id())
      throw std::runtime_error(
          "this Run is in use by another thread (a Run is not shared between threads while it "
          "steps: give each thread its own Run; they may share one Model)");
    ++it->second.depth;
  }
  ~RunUse() {
    const std::lock_guard<std::mutex> lock(mutex());
    const auto it = users().find(run_);
    if (--it->second.depth == 0) users().erase(it);
  }
  RunUse(const RunUse&) = delete;
  RunUse& operator=(const RunUse&) = delete;

 private:
  struct User {
    std::thread::id thread;
    int depth;
  };
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::unordered_map<const Run*, User>& users() {
    static std::unordered_map<const Run*, User> u;
    return u;
  }
  const Run* run_;
};

// `guarded(f)`: f (a lambda whose first parameter is the Run) called under a RunUse.
template <class F, class R, class Self, class... A>
auto guardedImpl(F f, R (F::*)(Self, A...) const) {
  return [f](Self self, A... a) -> R {
    const RunUse use(self);
    return f(self, std::forward<A>(a)...);
  };
}
template <class F>
auto guarded(F f) {
  return guardedImpl(f, &F::operator());
}

// The Python Run: sim::Run and what the numpy views onto its state need (issue 22, item 5).
// Views (run.q, run.actuator_commands, run.object_poses, ...) point into the state's vectors,
// which keep their buffers for the run's life: the step allocates nothing and reset() here
// copies the fresh state into the old buffers. Writable views are checked before the next
// step against what the last step left (a copy of a few dozen numbers): a change is validated
// (finite, within range, a rigid pose) and takes effect in that step; a bad one raises
// ValueError there, naming the entry, and the step does not run.
class PyRun : public Run {
 public:
  using Run::Run;

  /// Validates what views changed since the last step and brings the state in line
  /// (forwardPosition after new actuator positions or velocities).
  void beforeStep() {
    if (!views_) return;
    sim::SimState& s = state();
    const hand::HandModel& h = model().hand();
    const RunPlan& p = plan();
    bool moved = false;
    for (std::size_t a = 0; a < h.actuators.size(); ++a) {
      const hand::Actuator& act = h.actuators[a];
      const bool traj = a < p.trajectories.size() && !p.trajectories[a].empty();
      if (s.actuator_command[a] != seen_command_[a]) {
        if (!std::isfinite(s.actuator_command[a]))
          throw std::invalid_argument("actuator_commands[" + std::to_string(a) + "] (" + act.name +
                                      ") is not finite");
        if (traj)
          throw std::invalid_argument("actuator_commands[" + std::to_string(a) + "]: " + act.name +
                                      " follows a trajectory; a command would be "
                                      "ignored");
        s.actuator_command[a] = std::clamp(s.actuator_command[a], act.lower, act.upper);
      }
      if (s.actuator_torque[a] != seen_torque_[a] && !std::isfinite(s.actuator_torque[a]))
        throw std::invalid_argument("actuator_torques[" + std::to_string(a) + "] (" + act.name +
                                    ") is not finite");
      if (s.actuator_position[a] != seen_position_[a]) {
        if (!std::isfinite(s.actuator_position[a]) || s.actuator_position[a] < act.lower ||
            s.actuator_position[a] > act.upper)
          throw std::invalid_argument("actuator_positions[" + std::to_string(a) + "] (" + act.name +
                                      ") = " + std::to_string(s.actuator_position[a]) +
                                      " is not within [" + std::to_string(act.lower) + ", " +
                                      std::to_string(act.upper) + "]");
        moved = true;
      }
      if (s.actuator_velocity[a] != seen_velocity_[a]) {
        if (!std::isfinite(s.actuator_velocity[a]))
          throw std::invalid_argument("actuator_velocities[" + std::to_string(a) + "] (" +
                                      act.name + ") is not finite");
        moved = true;
      }
    }
    for (std::size_t o = 0; o < s.object_pose_world.size(); ++o) {
      if (s.object_pose_world[o].matrix() != seen_pose_[o].matrix()) {
        const Eigen::Matrix4d t = s.object_pose_world[o].matrix();
        const Eigen::Matrix3d r = t.topLeftCorner<3, 3>();
        if (!t.allFinite() || t.row(3) != Eigen::RowVector4d(0.0, 0.0, 0.0, 1.0) ||
            (r.transpose() * r - Eigen::Matrix3d::Identity()).norm() > 1e-6 ||
            r.determinant() < 0.0)
          throw std::invalid_argument("object_poses[" + std::to_string(o) + "] (" +
                                      model().objects[o].name +
                                      ") is not a rigid pose (finite, rotation, last row 0 0 0 1)");
      }
      if (s.object_twist_world[o] != seen_twist_[o]) {
        if (!s.object_twist_world[o].allFinite())
          throw std::invalid_argument("object_twists[" + std::to_string(o) + "] (" +
                                      model().objects[o].name + ") is not finite");
        if (model().objects[o].fixed && !s.object_twist_world[o].isZero(0.0))
          throw std::invalid_argument("object_twists[" + std::to_string(o) + "]: " +
                                      model().objects[o].name + " is fixed; it cannot move");
      }
    }
    if (moved) sim::forwardPosition(model(), s);
  }

  /// Remembers what the step left, for the next beforeStep.
  void afterStep() {
    if (!views_) return;
    const sim::SimState& s = state();
    seen_command_ = s.actuator_command;
    seen_torque_ = s.actuator_torque;
    seen_position_ = s.actuator_position;
    seen_velocity_ = s.actuator_velocity;
    seen_pose_ = s.object_pose_world;
    seen_twist_ = s.object_twist_world;
  }

  /// From now on views exist: writes through them are checked before every step.
  void viewsGiven() {
    if (views_) return;
    views_ = true;
    afterStep();
  }

  /// Run::reset keeping the buffers the views point into.
  void resetKeepingBuffers() {
    sim::SimState& s = state();
    auto q = std::move(s.q), qd = std::move(s.qd), qdd = std::move(s.qdd), tau = std::move(s.tau);
    auto ap = std::move(s.actuator_position), av = std::move(s.actuator_velocity),
         ac = std::move(s.actuator_command), at = std::move(s.actuator_torque),
         ae = std::move(s.actuator_effort), tt = std::move(s.tendon_tension);
    auto poses = std::move(s.object_pose_world);
    auto twists = std::move(s.object_twist_world);
    reset();
    sim::SimState& fresh = state();
    keep(q, fresh.q);
    keep(qd, fresh.qd);
    keep(qdd, fresh.qdd);
    keep(tau, fresh.tau);
    keep(ap, fresh.actuator_position);
    keep(av, fresh.actuator_velocity);
    keep(ac, fresh.actuator_command);
    keep(at, fresh.actuator_torque);
    keep(ae, fresh.actuator_effort);
    keep(tt, fresh.tendon_tension);
    keep(poses, fresh.object_pose_world);
    keep(twists, fresh.object_twist_world);
    afterStep();
  }

 private:
  template <class V>
  static void keep(V& old, V& fresh) {
    if (old.size() != fresh.size()) return;  // never for the same model
    std::copy(fresh.begin(), fresh.end(), old.begin());
    fresh.swap(old);
  }
  bool views_ = false;
  std::vector<double> seen_command_, seen_torque_, seen_position_, seen_velocity_;
  std::vector<Eigen::Isometry3d> seen_pose_;
  std::vector<sim::Twist> seen_twist_;
};

/// A numpy view of doubles at `data` with `shape` and byte `strides`, kept alive by the Python
/// Run `owner`; read-only unless `writable`.
pybind11::array stateView(double* data, std::vector<pybind11::ssize_t> shape,
                          std::vector<pybind11::ssize_t> strides, const pybind11::handle& owner,
                          bool writable);
/// A view of one state vector of the run.
pybind11::array vectorView(PyRun& r, std::vector<double>& v, bool writable);
/// Read-only views of per-finger joint vectors.
pybind11::list fingerViews(PyRun& r, std::vector<kinematics::JointVector>& v);
/// n steps (fewer if the plan ends); a Python controller runs between steps with the GIL held,
/// without one the steps run with it released.
void stepMany(PyRun& run, std::int64_t n, const std::function<void(PyRun&)>& controller);

}  // namespace handsim::python
