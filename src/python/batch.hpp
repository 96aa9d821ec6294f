// SPDX-License-Identifier: GPL-3.0-or-later
// Kinematics over many configurations at once (issue 22, item 4): forward kinematics,
// Jacobians, every link's pose and fingertip IK for N joint vectors, written into caller-owned
// row-major arrays, split over threads. No Python here: the bindings call these with the GIL
// released and the benchmark (tests/benchmarks/bench_python_batch.cpp) times the same code.
#pragma once

#include <Eigen/Geometry>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "handsim/hand/hand_model.hpp"
#include "handsim/kinematics/chain.hpp"
#include "handsim/kinematics/types.hpp"

namespace handsim::python::batch {

/// Threads a batch of `n` items uses when the caller passes 0: one per core, fewer for small
/// batches (each thread gets at least 64 items), at least 1.
int defaultThreads(std::size_t n);

/// body(begin, end) over contiguous chunks of [0, n) on `threads` threads (0: defaultThreads);
/// the first exception a chunk throws is rethrown here after every thread has finished.
void parallelFor(std::size_t n, int threads,
                 const std::function<void(std::size_t, std::size_t)>& body);

/// Forward kinematics compiled for one chain (issue 22, item 4): each row written as
/// pre * motion(q) * post with constant pre and post (a placement row: pre = placement; a DH
/// row: post = Rz(theta) Tz(d) Tx(a) Rx(alpha), which the motion Rz(q) or Tz(q) precedes) and a
/// motion specialised by kind: a rotation about +-x, +-y or +-z touches two columns of the
/// rotation (no 4x4 product), about another axis one 3x3 product, a slide one matrix-vector
/// product; identity pre/post are skipped and pure translations cost no rotation product. The
/// frames are accumulated from `start` on and each written as it is made. The per-call and the
/// batch paths of the Python module share it, so they agree to the last bit.
class FkKernel {
 public:
  /// Frames of chain `c` in the frame `start` is given in (the palm: c.base; {k0}: identity).
  FkKernel(const kinematics::Chain& c, const Eigen::Isometry3d& start);
  std::size_t dof() const { return dof_; }
  /// rows + 1
  std::size_t frames() const { return steps_.size() + 1; }
  /// Every frame {k0}..{kn} for one joint vector q (dof values): out (frames() x 4 x 4,
  /// row-major).
  void run(const double* q, double* out) const;
  /// Only the last frame's origin (3 values).
  void lastOrigin(const double* q, double* out) const;

  enum class Motion { None, RotX, RotY, RotZ, RotAxis, Slide };
  /// A constant rigid transform, rotation row-major; `rotates` false when it is the identity.
  struct Constant {
    bool present = false;
    bool rotates = false;
    double r[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double t[3] = {0, 0, 0};
  };
  struct Step {
    Constant pre, post;
    Motion motion = Motion::None;
    double sign = 1.0;                ///< RotX/Y/Z: -1 when the axis is the negative one
    double axis[3] = {0.0, 0.0, 1.0};  ///< RotAxis, Slide: unit axis in the joint frame
  };

 private:
  template <bool kAll>
  void walk(const double* q, double* out) const;
  Constant start_;
  std::vector<Step> steps_;
  std::size_t dof_ = 0;
};

/// FkKernel::run for n joint vectors (n x dof, row-major): out (n x frames x 4 x 4).
void forwardKinematics(const FkKernel& k, const double* q, std::size_t n, double* out,
                       int threads = 0);

/// Forward kinematics of finger chain `c` for `n` joint vectors q (n x dof, row-major): every
/// frame {k0}..{kn}, out (n x (rows+1) x 4 x 4, row-major), in the palm frame (or the finger
/// base {k0} with in_base).
void forwardKinematics(const kinematics::Chain& c, const double* q, std::size_t n, bool in_base,
                       double* out, int threads = 0);

/// Geometric Jacobians (6 x dof) of the point `point` rigid with frame `frame` (-1: the last)
/// for n joint vectors: out (n x 6 x dof, row-major), palm-frame axes (or {k0} with in_base).
void jacobian(const kinematics::Chain& c, const double* q, std::size_t n, int frame,
              const Eigen::Vector3d& point, bool in_base, double* out, int threads = 0);

/// Where each named link of a hand sits, as HandModel::linkPoses lists them (URDF links, or
/// "palm" and "<finger>.link<k>"), resolved once so that a batch computes no names.
struct LinkSlot {
  std::string name;
  int finger = -1;  ///< -1: rigid with the palm
  int frame = 0;    ///< index into the finger's frames
  Eigen::Isometry3d in_frame = Eigen::Isometry3d::Identity();
};
std::vector<LinkSlot> linkSlots(const hand::HandModel& h);

/// Every link's pose for n hand configurations: q[f] points to finger f's (n x dof_f) values,
/// out[l] to link l's (n x 4 x 4) poses in the palm (URDF: root link) frame, row-major.
void linkPoses(const hand::HandModel& h, const std::vector<LinkSlot>& slots,
               const std::vector<const double*>& q, std::size_t n, const std::vector<double*>& out,
               int threads = 0);

/// One fingertip IK, as Hand.ik solves it: the planar closed form with tip angle phi, the
/// BarrettHand closed form, or damped least squares from `start`. Target in {k0} [m]. Throws
/// kinematics::UnreachableTarget when out of reach.
kinematics::JointVector fingertipIk(const kinematics::Chain& c, const Eigen::Vector3d& local,
                                    const kinematics::JointVector& start,
                                    const std::optional<double>& phi);

/// fingertipIk for n targets (n x 3, palm frame, row-major) from one start (q0 with one row)
/// or one start each (q0 with n rows; q0 rows x dof): out (n x dof) the solutions or, where
/// the target is out of reach, the nearest joint values; miss (n) 0 where reached, else the
/// miss distance [m].
void fingertipIk(const kinematics::Chain& c, const double* targets, std::size_t n, const double* q0,
                 std::size_t q0_rows, const std::optional<double>& phi, double* out, double* miss,
                 int threads = 0);

}  // namespace handsim::python::batch
