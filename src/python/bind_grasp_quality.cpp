// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp quality (Ferrari & Canny 1992: the L1 grasp wrench space, its epsilon and volume) of
// point contacts with Coulomb friction: handsim.GraspQuality, grasp_quality, force_closure.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handsim/geometry/triangle_mesh.hpp"
#include "handsim/grasp/grasp_quality.hpp"
#include "handsim/grasp/grasp_sweep.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {

using grasp::GraspQuality;

// Contacts from (N, 3) points, (N, 3) normals into the object and one friction coefficient or
// one per contact; the core checks the values (finite, non-zero normal, friction >= 0).
std::vector<grasp::GraspContact> graspContacts(const py::handle& points, const py::handle& normals,
                                               const py::handle& friction) {
  const RowMatrix3d p = rowsOf3(points, "points");
  const RowMatrix3d n = rowsOf3(normals, "normals");
  if (n.rows() != p.rows())
    throw std::invalid_argument("normals: " + std::to_string(n.rows()) + " rows for " +
                                std::to_string(p.rows()) + " points");
  const auto f = realArray(friction, "friction");
  if (!(f.ndim() == 0 || (f.ndim() == 1 && f.shape(0) == p.rows())))
    throw std::invalid_argument("friction: expected a number or shape (" +
                                std::to_string(p.rows()) + ",), got " + shapeText(f));
  std::vector<grasp::GraspContact> out;
  for (Eigen::Index i = 0; i < p.rows(); ++i)
    out.push_back({p.row(i).transpose(), n.row(i).transpose(), f.data()[f.ndim() == 0 ? 0 : i]});
  return out;
}

}  // namespace

std::string graspQualityRepr(const GraspQuality& q) {
  return "GraspQuality(force_closure=" + std::string(q.force_closure ? "True" : "False") +
         ", epsilon=" + std::to_string(q.epsilon) + ", volume=" + std::to_string(q.volume) +
         (q.note.empty() ? "" : ", note='" + q.note + "'") + ")";
}

void bindGraspQuality(py::module_& m) {
  py::class_<GraspQuality>(
      m, "GraspQuality",
      "Quality of a grasp (docs/grasp.md): the convex hull of the primitive wrenches of the "
      "linearised friction cones (Ferrari & Canny's L1 grasp wrench space, GraspIt!'s epsilon). "
      "Forces per unit total normal force [N/N]; torques divided by the torque radius [m].")
      .def_readonly("force_closure", &GraspQuality::force_closure,
                    "True when the origin lies strictly inside the wrench space.")
      .def_readonly("epsilon", &GraspQuality::epsilon,
                    "Radius of the largest origin-centred ball inside the wrench space "
                    "[N per unit total normal force]; 0 unless force_closure.")
      .def_readonly("volume", &GraspQuality::volume,
                    "6-D volume of the wrench space [-]; 0 when it is degenerate.")
      .def_readonly("hull_facets", &GraspQuality::hull_facets,
                    "Facets of the triangulated hull; 0 when it is degenerate.")
      .def_property_readonly(
          "weakest_direction",
          [](const GraspQuality& q) { return Eigen::VectorXd(q.weakest_direction); },
          "(6,) unit outward normal of the hull facet nearest to (force closure) or farthest "
          "beyond (otherwise) the origin: the wrench (force, torque / radius) the grasp resists "
          "least. Zero when the hull is degenerate.")
      .def_readonly("note", &GraspQuality::note,
                    "Why the result is degenerate (no contacts, wrenches spanning fewer than 6 "
                    "dimensions...); empty otherwise.")
      .def("__repr__", &graspQualityRepr);

  m.def(
      "evaluate_grasp",
      [](const py::handle& points, const py::handle& normals, const py::handle& friction,
         const py::handle& torque_reference, double torque_radius, int cone_edges) {
        grasp::GraspQualityOptions o;
        o.torque_reference = vector3(torque_reference, "torque_reference");
        o.torque_radius = torque_radius;
        o.cone_edges = cone_edges;
        const auto contacts = graspContacts(points, normals, friction);
        // Refused up front, as handsim-cli grasp refuses it (the hull would run for minutes).
        try {
          grasp::checkWrenchPointBudget(contacts.size(), cone_edges);
        } catch (const std::invalid_argument& e) {
          throw std::invalid_argument(std::string(e.what()) +
                                      " (fewer contacts, or fewer cone_edges)");
        }
        py::gil_scoped_release release;
        return grasp::evaluateGrasp(contacts, o);
      },
      py::arg("points"), py::arg("normals"), py::arg("friction"),
      py::arg("torque_reference") = std::vector<double>{0.0, 0.0, 0.0},
      py::arg("torque_radius") = 1.0, py::arg("cone_edges") = 8,
      "Grasp quality of hard-finger point contacts with Coulomb friction: points (N, 3) [m] and "
      "normals (N, 3) pointing INTO the object (along the force the finger applies; normalised "
      "here), in any one frame; friction a coefficient [-] for all or an (N,) array. Torques are "
      "taken about torque_reference (3,) [m] and divided by torque_radius [m] (e.g. "
      "torque_radius(mesh, centre)); each friction cone has cone_edges edges (>= 3). Degenerate "
      "grasps give force_closure False and a note. Raises ValueError for bad shapes or values "
      "and, up front, for more than 256 wrench points (contacts x cone_edges), as "
      "handsim-cli grasp does: the hull's cost grows steeply with them.");
  m.def(
      "torque_radius",
      [](const geometry::TriangleMesh& mesh, const py::handle& centre) {
        return grasp::torqueRadius(mesh, vector3(centre, "centre"));
      },
      py::arg("mesh"), py::arg("centre"),
      "The largest distance of a vertex of `mesh` from `centre` (3,) [m]: the torque radius "
      "that makes torques about the centre weigh like forces (Ferrari & Canny 1992). 0 for an "
      "empty mesh.");
}

}  // namespace handsim::python
