// SPDX-License-Identifier: GPL-3.0-or-later
#include "batch.hpp"

#include <algorithm>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

namespace handsim::python::batch {

namespace {

using RowMatrix4 = Eigen::Matrix<double, 4, 4, Eigen::RowMajor>;

void put(const Eigen::Isometry3d& t, double* out) {
  Eigen::Map<RowMatrix4> m(out);
  m = t.matrix();
}

}  // namespace

int defaultThreads(std::size_t n) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t by_size = std::max<std::size_t>(1, n / 64);
  return static_cast<int>(std::min<std::size_t>(cores, by_size));
}

void parallelFor(std::size_t n, int threads,
                 const std::function<void(std::size_t, std::size_t)>& body) {
  if (threads < 0) throw std::invalid_argument("threads must not be negative");
  if (n == 0) return;
  const auto count = static_cast<std::size_t>(
      std::min<std::size_t>(n, threads == 0 ? static_cast<std::size_t>(defaultThreads(n))
                                            : static_cast<std::size_t>(threads)));
  if (count <= 1) {
    body(0, n);
    return;
  }
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::vector<std::thread> workers;
  workers.reserve(count - 1);
  auto chunk = [&](std::size_t k) {
    try {
      body(n * k / count, n * (k + 1) / count);
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  for (std::size_t k = 1; k < count; ++k) workers.emplace_back(chunk, k);
  chunk(0);
  for (auto& w : workers) w.join();
  if (failure) std::rethrow_exception(failure);
}

void forwardKinematics(const kinematics::Chain& c, const double* q, std::size_t n, bool in_base,
                       double* out, int threads) {
  const auto dof = static_cast<std::size_t>(c.dof());
  const std::size_t frames = c.rows.size() + 1;
  const Eigen::Isometry3d start = in_base ? Eigen::Isometry3d::Identity() : c.base;
  parallelFor(n, threads, [&](std::size_t begin, std::size_t end) {
    // The frames are accumulated from the base (palm frame) on, each written as it is made: no
    // frame set allocated per configuration and no second product with the base per frame.
    for (std::size_t i = begin; i < end; ++i) {
      const double* qi = q + i * dof;
      double* o = out + i * frames * 16;
      Eigen::Isometry3d t = start;
      put(t, o);
      std::size_t j = 0;
      for (std::size_t r = 0; r + 1 < frames; ++r) {
        const kinematics::DhRow& row = c.rows[r];
        t = t *
            kinematics::dhTransform(row, row.type == kinematics::JointType::Fixed ? 0.0 : qi[j++]);
        put(t, o + (r + 1) * 16);
      }
    }
  });
}

void jacobian(const kinematics::Chain& c, const double* q, std::size_t n, int frame,
              const Eigen::Vector3d& point, bool in_base, double* out, int threads) {
  const auto dof = static_cast<std::size_t>(c.dof());
  const Eigen::Matrix3d r = c.base.linear();
  parallelFor(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const Eigen::Map<const Eigen::VectorXd> qi(q + i * dof, static_cast<Eigen::Index>(dof));
      kinematics::Jacobian j = kinematics::geometricJacobian(c, qi, frame, point);
      if (!in_base) {
        j.topRows(3) = (r * j.topRows(3)).eval();
        j.bottomRows(3) = (r * j.bottomRows(3)).eval();
      }
      Eigen::Map<Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::RowMajor>>(
          out + i * 6 * dof, 6, static_cast<Eigen::Index>(dof)) = j;
    }
  });
}

std::vector<LinkSlot> linkSlots(const hand::HandModel& h) {
  std::vector<LinkSlot> slots;
  if (!h.tree.empty()) {
    for (const hand::TreeLink& l : h.tree.links)
      slots.push_back({l.name, l.finger, l.finger >= 0 ? l.row + 1 : 0, l.in_frame});
    return slots;
  }
  slots.push_back({"palm", -1, 0, Eigen::Isometry3d::Identity()});
  for (std::size_t f = 0; f < h.fingers.size(); ++f)
    for (std::size_t r = 0; r < h.fingers[f].rows.size(); ++r)
      slots.push_back({h.fingers[f].name + ".link" + std::to_string(r + 1), static_cast<int>(f),
                       static_cast<int>(r) + 1, Eigen::Isometry3d::Identity()});
  return slots;
}

void linkPoses(const hand::HandModel& h, const std::vector<LinkSlot>& slots,
               const std::vector<const double*>& q, std::size_t n, const std::vector<double*>& out,
               int threads) {
  if (q.size() != h.fingers.size() || out.size() != slots.size())
    throw std::invalid_argument("linkPoses: one joint array per finger, one output per link");
  parallelFor(n, threads, [&](std::size_t begin, std::size_t end) {
    std::vector<kinematics::ChainFrames> frames(h.fingers.size());
    for (std::size_t i = begin; i < end; ++i) {
      for (std::size_t f = 0; f < h.fingers.size(); ++f) {
        const auto dof = static_cast<std::size_t>(h.fingers[f].dof());
        kinematics::forwardKinematics(
            h.fingers[f],
            Eigen::Map<const Eigen::VectorXd>(q[f] + i * dof, static_cast<Eigen::Index>(dof)),
            frames[f]);
      }
      for (std::size_t l = 0; l < slots.size(); ++l) {
        const LinkSlot& s = slots[l];
        if (s.finger < 0) {
          put(s.in_frame, out[l] + i * 16);
        } else {
          const auto f = static_cast<std::size_t>(s.finger);
          put(h.fingers[f].base * frames[f].at(s.frame) * s.in_frame, out[l] + i * 16);
        }
      }
    }
  });
}

kinematics::JointVector fingertipIk(const kinematics::Chain& c, const Eigen::Vector3d& local,
                                    const kinematics::JointVector& start,
                                    const std::optional<double>& phi) {
  if (phi) {
    if (!kinematics::isPlanarThreeLinkFinger(c))
      throw std::invalid_argument("phi: finger '" + c.name +
                                  "' does not end in three planar joints");
    const auto frames = kinematics::forwardKinematics(c, start);
    const Eigen::Vector3d in_plane =
        frames.at(static_cast<int>(c.rows.size()) - 3).inverse() * local;
    return kinematics::planarFingerIk(c, in_plane.x(), in_plane.y(), *phi, start);
  }
  if (kinematics::isBarrettFinger(c)) return kinematics::barrettFingerIk(c, local, start);
  return kinematics::inverseKinematicsNumerical(c, local, start, 1e-6);
}

void fingertipIk(const kinematics::Chain& c, const double* targets, std::size_t n, const double* q0,
                 std::size_t q0_rows, const std::optional<double>& phi, double* out, double* miss,
                 int threads) {
  const auto dof = static_cast<Eigen::Index>(c.dof());
  const Eigen::Isometry3d to_base = c.base.inverse();
  parallelFor(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) {
      const kinematics::JointVector start =
          Eigen::Map<const Eigen::VectorXd>(q0 + (q0_rows == 1 ? 0 : i) * dof, dof);
      const Eigen::Vector3d local = to_base * Eigen::Map<const Eigen::Vector3d>(targets + 3 * i);
      Eigen::Map<Eigen::VectorXd> qi(out + i * dof, dof);
      try {
        qi = fingertipIk(c, local, start, phi);
        miss[i] = 0.0;
      } catch (const kinematics::UnreachableTarget& e) {
        if (e.closest().size() == dof) {
          qi = e.closest();
        } else {
          qi.setConstant(std::numeric_limits<double>::quiet_NaN());
        }
        miss[i] = e.miss();
      }
    }
  });
}

}  // namespace handsim::python::batch
