// SPDX-License-Identifier: GPL-3.0-or-later
#include "batch.hpp"

#include <algorithm>
#include <cmath>
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

namespace {

FkKernel::Constant constantOf(const Eigen::Isometry3d& x) {
  FkKernel::Constant k;
  const Eigen::Matrix3d r = x.linear();
  const Eigen::Vector3d t = x.translation();
  k.rotates = r != Eigen::Matrix3d::Identity();
  k.present = k.rotates || t != Eigen::Vector3d::Zero();
  for (int a = 0; a < 3; ++a) {
    k.t[a] = t[a];
    for (int b = 0; b < 3; ++b) k.r[3 * a + b] = r(a, b);
  }
  return k;
}

// Which of +-x, +-y, +-z a unit axis is exactly (0: none), with its sign.
int unitAxis(const Eigen::Vector3d& a, double& sign) {
  for (int k = 0; k < 3; ++k) {
    if (std::abs(a[k]) == 1.0 && a[(k + 1) % 3] == 0.0 && a[(k + 2) % 3] == 0.0) {
      sign = a[k];
      return k + 1;
    }
  }
  return 0;
}

// (r, t) <- (r, t) * k
inline void compose(double* r, double* t, const FkKernel::Constant& k) {
  for (int a = 0; a < 3; ++a)
    t[a] += r[3 * a] * k.t[0] + r[3 * a + 1] * k.t[1] + r[3 * a + 2] * k.t[2];
  if (!k.rotates) return;
  for (int a = 0; a < 3; ++a) {
    const double x = r[3 * a], y = r[3 * a + 1], z = r[3 * a + 2];
    r[3 * a] = x * k.r[0] + y * k.r[3] + z * k.r[6];
    r[3 * a + 1] = x * k.r[1] + y * k.r[4] + z * k.r[7];
    r[3 * a + 2] = x * k.r[2] + y * k.r[5] + z * k.r[8];
  }
}

// Columns u, v of r turned by the rotation about the third axis: u' = c u + s v, v' = c v - s u.
inline void turn(double* r, int u, int v, double c, double s) {
  for (int a = 0; a < 3; ++a) {
    const double x = r[3 * a + u], y = r[3 * a + v];
    r[3 * a + u] = c * x + s * y;
    r[3 * a + v] = c * y - s * x;
  }
}

inline void write(const double* r, const double* t, double* o) {
  o[0] = r[0], o[1] = r[1], o[2] = r[2], o[3] = t[0];
  o[4] = r[3], o[5] = r[4], o[6] = r[5], o[7] = t[1];
  o[8] = r[6], o[9] = r[7], o[10] = r[8], o[11] = t[2];
  o[12] = 0.0, o[13] = 0.0, o[14] = 0.0, o[15] = 1.0;
}

}  // namespace

FkKernel::FkKernel(const kinematics::Chain& c, const Eigen::Isometry3d& start)
    : start_(constantOf(start)), dof_(static_cast<std::size_t>(c.dof())) {
  using kinematics::JointType;
  steps_.reserve(c.rows.size());
  for (const kinematics::DhRow& row : c.rows) {
    Step s;
    Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();
    if (row.form == kinematics::JointFrameForm::Placement) {
      s.pre = constantOf(row.placement);
      axis = row.axis;
    } else {
      // Rz(theta + q) Tz(d) Tx(a) Rx(alpha) = Rz(q) [Rz(theta) Tz(d) Tx(a) Rx(alpha)], and
      // Tz(q) commutes with Rz(theta) for a prismatic row.
      kinematics::DhRow at_zero = row;
      at_zero.type = JointType::Revolute;
      s.post = constantOf(kinematics::dhTransform(at_zero, 0.0));
    }
    if (row.type == JointType::Revolute) {
      const int k = unitAxis(axis, s.sign);
      s.motion = k == 1 ? Motion::RotX : k == 2 ? Motion::RotY : k == 3 ? Motion::RotZ
                                                                        : Motion::RotAxis;
    } else if (row.type == JointType::Prismatic) {
      s.motion = Motion::Slide;
    }
    for (int a = 0; a < 3; ++a) s.axis[a] = axis[a];
    steps_.push_back(s);
  }
}

template <bool kAll>
void FkKernel::walk(const double* q, double* out) const {
  double r[9], t[3];
  std::copy(start_.r, start_.r + 9, r);
  std::copy(start_.t, start_.t + 3, t);
  if (kAll) write(r, t, out);
  std::size_t j = 0;
  for (std::size_t k = 0; k < steps_.size(); ++k) {
    const Step& s = steps_[k];
    if (s.pre.present) compose(r, t, s.pre);
    if (s.motion != Motion::None) {
      const double v = q[j++];
      switch (s.motion) {
        case Motion::RotX:
          turn(r, 1, 2, std::cos(v), s.sign * std::sin(v));
          break;
        case Motion::RotY:
          turn(r, 2, 0, std::cos(v), s.sign * std::sin(v));
          break;
        case Motion::RotZ:
          turn(r, 0, 1, std::cos(v), s.sign * std::sin(v));
          break;
        case Motion::RotAxis: {
          // Rodrigues: c I + s [a]x + (1 - c) a a^T
          Constant m;
          m.present = m.rotates = true;
          const double c = std::cos(v), sn = std::sin(v), w = 1.0 - c;
          const double* a = s.axis;
          m.r[0] = c + w * a[0] * a[0];
          m.r[1] = w * a[0] * a[1] - sn * a[2];
          m.r[2] = w * a[0] * a[2] + sn * a[1];
          m.r[3] = w * a[1] * a[0] + sn * a[2];
          m.r[4] = c + w * a[1] * a[1];
          m.r[5] = w * a[1] * a[2] - sn * a[0];
          m.r[6] = w * a[2] * a[0] - sn * a[1];
          m.r[7] = w * a[2] * a[1] + sn * a[0];
          m.r[8] = c + w * a[2] * a[2];
          compose(r, t, m);
          break;
        }
        case Motion::Slide:
          for (int a = 0; a < 3; ++a)
            t[a] += v * (r[3 * a] * s.axis[0] + r[3 * a + 1] * s.axis[1] +
                         r[3 * a + 2] * s.axis[2]);
          break;
        case Motion::None:
          break;
      }
    }
    if (s.post.present) compose(r, t, s.post);
    if (kAll) write(r, t, out + (k + 1) * 16);
  }
  if (!kAll) std::copy(t, t + 3, out);
}

void FkKernel::run(const double* q, double* out) const { walk<true>(q, out); }

void FkKernel::lastOrigin(const double* q, double* out) const { walk<false>(q, out); }

void forwardKinematics(const FkKernel& k, const double* q, std::size_t n, double* out,
                       int threads) {
  const std::size_t dof = k.dof(), size = k.frames() * 16;
  parallelFor(n, threads, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) k.run(q + i * dof, out + i * size);
  });
}

void forwardKinematics(const kinematics::Chain& c, const double* q, std::size_t n, bool in_base,
                       double* out, int threads) {
  forwardKinematics(FkKernel(c, in_base ? Eigen::Isometry3d::Identity() : c.base), q, n, out,
                    threads);
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
