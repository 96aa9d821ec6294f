// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.Hand's kinematics: forward kinematics, the fingertip, Jacobians and link poses, one
// configuration or a batch (N, dof) computed without the GIL (batch.hpp). Frames: {P} palm,
// {k0} finger base.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <set>

#include "arrays.hpp"
#include "batch.hpp"
#include "bindings.hpp"
#include "hand_args.hpp"
#include "handsim/dynamics/forward_dynamics.hpp"
#include "handsim/dynamics/lagrange_euler.hpp"
#include "handsim/dynamics/newton_euler.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/hand/breakaway_clutch.hpp"
#include "handsim/hand/hand_ik.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/hand/transmission_ik.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/dh_row.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"

namespace py = pybind11;

namespace handsim::python {

using hand::HandModel;
using Vector = Eigen::VectorXd;

void bindHandForwardKinematics(HandClass& h) {
  h.def(
       "fk",
       [](const HandModel& x, int f, const py::object& q, bool in_base, int threads,
          const py::object& out) -> py::object {
         const auto& c = finger(x, f);
         bool many = false;
         const auto a = jointArray(c, q, "q", many);
         // One kernel for one configuration and for a batch (batch::FkKernel): the same bits.
         const batch::FkKernel k(c, in_base ? Eigen::Isometry3d::Identity() : c.base);
         const auto frames = static_cast<py::ssize_t>(k.frames());
         if (!many) {
           auto o = outputArray(out, {frames, 4, 4});
           k.run(a.data(), o.mutable_data());
           return std::move(o);
         }
         const auto n = static_cast<std::size_t>(a.shape(0));
         auto o = outputArray(out, {static_cast<py::ssize_t>(n), frames, 4, 4});
         double* d = o.mutable_data();
         {
           py::gil_scoped_release release;
           batch::forwardKinematics(k, a.data(), n, d, threads);
         }
         return std::move(o);
       },
       py::arg("finger"), py::arg("q"), py::arg("in_base") = false, py::kw_only(),
       py::arg("threads") = 0, py::arg("out") = py::none(),
       "Forward kinematics: every DH frame {k0}..{kn} of the finger as an (n+1, 4, 4) array of "
       "homogeneous transforms, in the palm frame {P} (or the finger base {k0} with "
       "in_base=True); the last is the last joint frame {kn} (the fingertip may lie beyond it "
       "on a URDF tip link: fingertip(), fingertip_offset()). q: joint values [rad or m], "
       "shape (dof,); or a batch (N, dof), giving (N, n+1, 4, 4), computed without the GIL on "
       "`threads` threads (0: one per core). out: an array to write the result into and "
       "return (float64, C order, writeable, exactly the result's shape), so that a loop "
       "reuses its memory; otherwise a fresh array.")
      .def(
          "fingertip",
          [](const HandModel& x, int f, const py::object& q, const std::string& point,
             int threads) -> py::object {
            const kinematics::Chain c = pointChain(x, f, point);
            bool many = false;
            const auto a = jointArray(c, q, "q", many);
            if (many) {
              const auto n = static_cast<std::size_t>(a.shape(0));
              py::array_t<double> out({static_cast<py::ssize_t>(n), py::ssize_t{3}});
              double* o = out.mutable_data();
              {
                py::gil_scoped_release release;
                const batch::FkKernel k(c, c.base);
                const std::size_t dof = k.dof();
                batch::parallelFor(n, threads, [&](std::size_t begin, std::size_t end) {
                  for (std::size_t i = begin; i < end; ++i)
                    k.lastOrigin(a.data() + i * dof, o + 3 * i);
                });
              }
              return std::move(out);
            }
            py::array_t<double> out(py::ssize_t{3});
            batch::FkKernel(c, c.base).lastOrigin(a.data(), out.mutable_data());
            return std::move(out);
          },
          py::arg("finger"), py::arg("q"), py::arg("point") = "tip", py::kw_only(),
          py::arg("threads") = 0,
          "Fingertip position in the palm frame [m]: point='tip' (the default) is the finger's "
          "tip link where the file has one fixed beyond the last joint frame (URDF fingertip "
          "links), else the origin of the last joint frame: the point ik(), ik_hand(finger=), "
          "handsim-cli ik --finger and handsim-cli fk's \"tip\" use. point='last_frame' is the "
          "origin of the last joint frame, fk()[-1]. q (N, dof) gives (N, 3).")
      .def(
          "fingertip_offset",
          [](const HandModel& x, int f) {
            finger(x, f);
            return Eigen::Matrix4d(hand::fingerEndpoint(x, f).in_frame.matrix());
          },
          py::arg("finger"),
          "4x4 pose of the fingertip frame in the last joint frame {kn} (identity when the "
          "finger has no tip link beyond it): fingertip = (fk()[-1] @ fingertip_offset)[:3, 3]; "
          "jacobian(f, q, point=fingertip_offset(f)[:3, 3]) is the fingertip's Jacobian.");
}

void bindHandJacobians(HandClass& h) {
  h.def(
       "jacobian",
       [](const HandModel& x, int f, const py::object& q, int frame, const Eigen::Vector3d& point,
          bool in_base, int threads) -> py::object {
         const auto& c = finger(x, f);
         if (frame < -1 || frame > static_cast<int>(c.rows.size()))
           throw std::out_of_range("frame " + std::to_string(frame) + " is not in -1.." +
                                   std::to_string(c.rows.size()));
         finiteVector3(point, "point");
         bool many = false;
         const auto a = jointArray(c, q, "q", many);
         if (many) {
           const auto n = static_cast<std::size_t>(a.shape(0));
           py::array_t<double> out(
               {static_cast<py::ssize_t>(n), py::ssize_t{6}, static_cast<py::ssize_t>(c.dof())});
           double* o = out.mutable_data();
           {
             py::gil_scoped_release release;
             batch::jacobian(c, a.data(), n, frame, point, in_base, o, threads);
           }
           return std::move(out);
         }
         Eigen::MatrixXd j = kinematics::geometricJacobian(c, jointVectorOf(a), frame, point);
         if (!in_base) {
           const Eigen::Matrix3d r = c.base.linear();
           j.topRows(3) = r * j.topRows(3);
           j.bottomRows(3) = r * j.bottomRows(3);
         }
         return py::cast(j);
       },
       py::arg("finger"), py::arg("q"), py::arg("frame") = -1,
       py::arg("point") = Eigen::Vector3d::Zero(), py::arg("in_base") = false, py::kw_only(),
       py::arg("threads") = 0,
       "Geometric Jacobian (6, dof) of the point `point` [m] rigid with DH frame `frame` (-1: "
       "the last joint frame; point=fingertip_offset(f)[:3, 3] for the fingertip): rows 0-2 "
       "linear velocity [m/s], rows 3-5 angular [rad/s] per "
       "unit joint rate, expressed in the palm frame (or {k0} with in_base=True). q of shape "
       "(N, dof) gives (N, 6, dof), computed without the GIL on `threads` threads (0: one per "
       "core).")
      .def(
          "link_poses",
          [](const HandModel& x, const py::sequence& q, int threads) {
            if (q.size() != x.fingers.size())
              throw std::invalid_argument("q: the hand has " + std::to_string(x.fingers.size()) +
                                          " fingers, got " + std::to_string(q.size()));
            std::vector<py::array_t<double, py::array::c_style>> arrays;
            int batched = -1;
            for (std::size_t f = 0; f < x.fingers.size(); ++f) {
              bool many = false;
              arrays.push_back(jointArray(x.fingers[f], q[f], "q", many));
              if (batched >= 0 && batched != static_cast<int>(many))
                throw std::invalid_argument("q: every finger one vector, or every finger (N, dof)");
              batched = many;
            }
            py::dict d;
            if (batched != 1) {
              std::vector<kinematics::JointVector> jq;
              for (const auto& a : arrays) jq.push_back(jointVectorOf(a));
              for (const auto& [name, pose] : x.linkPoses(jq))
                d[py::str(name)] = Eigen::Matrix4d(pose.matrix());
              return d;
            }
            const auto n = static_cast<std::size_t>(arrays.front().shape(0));
            std::vector<const double*> qs;
            for (const auto& a : arrays) {
              if (static_cast<std::size_t>(a.shape(0)) != n)
                throw std::invalid_argument("q: every finger needs the same number of rows");
              qs.push_back(a.data());
            }
            const auto slots = batch::linkSlots(x);
            std::vector<py::array_t<double>> out;
            std::vector<double*> outs;
            for (std::size_t l = 0; l < slots.size(); ++l) {
              out.emplace_back(std::vector<py::ssize_t>{static_cast<py::ssize_t>(n), 4, 4});
              outs.push_back(out.back().mutable_data());
            }
            {
              py::gil_scoped_release release;
              batch::linkPoses(x, slots, qs, n, outs, threads);
            }
            for (std::size_t l = 0; l < slots.size(); ++l) d[py::str(slots[l].name)] = out[l];
            return d;
          },
          py::arg("q"), py::kw_only(), py::arg("threads") = 0,
          "Every link's 4x4 pose in the palm (URDF: root link) frame [m], by name: URDF link "
          "names, or 'palm' and '<finger>.link<k>' for hand files. q: one array per finger; "
          "arrays of shape (N, dof) give (N, 4, 4) per link, computed without the GIL on "
          "`threads` threads (0: one per core).");
}

}  // namespace handsim::python
