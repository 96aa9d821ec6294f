// SPDX-License-Identifier: GPL-3.0-or-later
// handsim.Mesh, load_mesh and mass properties; collide and intersects: the k-DOP tree contact
// query (Klosowski et al. 1998) between two meshes placed in a common frame, its triangle pairs
// chained into patches and reduced to point contacts (seed 000 sec. IV).
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "handsim/collision/contact_patch.hpp"
#include "handsim/collision/kdop_tree.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/formats/mesh_loader.hpp"
#include "handsim/geometry/mass_properties.hpp"
#include "handsim/geometry/triangle_mesh.hpp"

namespace py = pybind11;

namespace handsim::python {

namespace {

using geometry::TriangleMesh;
using RowMatrix3i = Eigen::Matrix<std::int64_t, Eigen::Dynamic, 3, Eigen::RowMajor>;

// What mass_properties returns: the core's mass properties and whether the mesh is closed.
struct MeshMassProperties {
  geometry::MassProperties mass;
  geometry::ClosednessReport closedness;
};

// One contact patch in the common frame of the two poses.
struct PatchInCommonFrame {
  Eigen::Vector3d point = Eigen::Vector3d::Zero();
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();
  double depth = 0.0;
  double area = 0.0;
  std::vector<int> triangles_a;
  std::vector<int> triangles_b;
};

// A mesh from numpy arrays, every vertex finite and every index in range; errors name the row.
TriangleMesh meshFromArrays(const py::handle& vertices, const py::handle& triangles) {
  const RowMatrix3d v = rowsOf3(vertices, "vertices");
  const py::array tri = py::array::ensure(triangles);
  if (!tri || (tri.dtype().kind() != 'i' && tri.dtype().kind() != 'u'))
    throw std::invalid_argument("triangles: expected an integer array of shape (M, 3)");
  if (tri.ndim() != 2 || tri.shape(1) != 3)
    throw std::invalid_argument("triangles: expected shape (M, 3), got " + shapeText(tri));
  const auto t = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(tri);
  TriangleMesh mesh;
  mesh.vertices.reserve(static_cast<std::size_t>(v.rows()));
  for (Eigen::Index r = 0; r < v.rows(); ++r) {
    if (!v.row(r).allFinite())
      throw std::invalid_argument("vertices row " + std::to_string(r) + " is not finite");
    mesh.vertices.emplace_back(v.row(r).transpose());
  }
  const auto ti = t.unchecked<2>();
  const auto n = static_cast<std::int64_t>(v.rows());
  mesh.triangles.reserve(static_cast<std::size_t>(ti.shape(0)));
  for (py::ssize_t r = 0; r < ti.shape(0); ++r) {
    std::array<int, 3> corners{};
    for (py::ssize_t c = 0; c < 3; ++c) {
      const std::int64_t index = ti(r, c);
      if (index < 0 || index >= n)
        throw std::invalid_argument("triangles row " + std::to_string(r) + ": index " +
                                    std::to_string(index) + " is not in 0.." +
                                    std::to_string(n - 1));
      corners[static_cast<std::size_t>(c)] = static_cast<int>(index);
    }
    mesh.triangles.push_back(corners);
  }
  mesh.updateNormals();
  return mesh;
}

RowMatrix3d verticesOf(const std::vector<Eigen::Vector3d>& points) {
  RowMatrix3d out(static_cast<Eigen::Index>(points.size()), 3);
  for (std::size_t i = 0; i < points.size(); ++i)
    out.row(static_cast<Eigen::Index>(i)) = points[i].transpose();
  return out;
}

// Both trees in their meshes' frames and B placed in A's frame, for the queries below.
struct TreePair {
  collision::KdopTree a;
  collision::KdopTree b;
  Eigen::Isometry3d b_in_a;
};

TreePair buildTrees(const TriangleMesh& a, const Eigen::Isometry3d& pose_a, const TriangleMesh& b,
                    const Eigen::Isometry3d& pose_b, int k) {
  collision::KdopTreeOptions o;
  o.k = k;
  return {collision::KdopTree(a, o), collision::KdopTree(b, o), pose_a.inverse() * pose_b};
}

// Meshes and their mass properties.
void bindMeshes(py::module_& m) {
  py::class_<TriangleMesh>(
      m, "Mesh",
      "An indexed triangle mesh in metres. Triangles are counter-clockwise seen from outside, so "
      "(v1 - v0) x (v2 - v0) points outward. Immutable: the properties return copies.")
      .def(py::init([](const py::handle& vertices, const py::handle& triangles) {
             return meshFromArrays(vertices, triangles);
           }),
           py::arg("vertices"), py::arg("triangles"),
           "A mesh from vertices (N, 3) [m] and triangles (M, 3) of vertex indices in 0..N-1, "
           "counter-clockwise seen from outside. Raises ValueError for a wrong shape, a "
           "non-finite vertex or an index out of range, naming the row.")
      .def_property_readonly(
          "vertices", [](const TriangleMesh& x) { return verticesOf(x.vertices); },
          "(N, 3) float64 array of vertex positions [m].")
      .def_property_readonly(
          "triangles",
          [](const TriangleMesh& x) {
            RowMatrix3i out(static_cast<Eigen::Index>(x.triangles.size()), 3);
            for (std::size_t t = 0; t < x.triangles.size(); ++t)
              for (int c = 0; c < 3; ++c)
                out(static_cast<Eigen::Index>(t), c) = x.triangles[t][static_cast<std::size_t>(c)];
            return out;
          },
          "(M, 3) int64 array of vertex indices per triangle.")
      .def_property_readonly(
          "normals", [](const TriangleMesh& x) { return verticesOf(x.normals); },
          "(M, 3) float64 array of unit outward triangle normals; zero rows for degenerate "
          "triangles.")
      .def_property_readonly(
          "area", [](const TriangleMesh& x) { return geometry::surfaceArea(x); },
          "Total surface area [m^2].")
      .def(
          "mass_properties",
          [](const TriangleMesh& x, double density) {
            if (!(density > 0.0) || !std::isfinite(density))
              throw std::invalid_argument("density must be positive and finite [kg/m^3]");
            MeshMassProperties p;
            p.closedness = geometry::checkClosed(x);
            p.mass = geometry::massProperties(x, density);
            return p;
          },
          py::arg("density") = 1000.0,
          "Mass properties of the uniform solid of this density [kg/m^3] bounded by the mesh "
          "(divergence theorem, Tonon 2004). Only meaningful when the result's `closed` is "
          "True. Raises ValueError for an empty or flat mesh.")
      .def("__repr__", [](const TriangleMesh& x) {
        return "Mesh(" + std::to_string(x.vertices.size()) + " vertices, " +
               std::to_string(x.triangles.size()) + " triangles)";
      });

  py::class_<MeshMassProperties>(
      m, "MassProperties",
      "Mass properties of a uniform solid bounded by a mesh, in the mesh frame.")
      .def_property_readonly(
          "mass", [](const MeshMassProperties& p) { return p.mass.mass_kg; }, "Mass [kg].")
      .def_property_readonly(
          "volume", [](const MeshMassProperties& p) { return p.mass.volume_m3; },
          "Enclosed volume [m^3].")
      .def_property_readonly(
          "centre_of_mass", [](const MeshMassProperties& p) { return p.mass.centre_of_mass; },
          "Centre of mass (3,) [m].")
      .def_property_readonly(
          "inertia", [](const MeshMassProperties& p) { return p.mass.inertia_com; },
          "Inertia tensor (3, 3) about the centre of mass, axes of the mesh frame [kg m^2].")
      .def_property_readonly(
          "closed", [](const MeshMassProperties& p) { return p.closedness.closed; },
          "True when every edge (vertices welded within 1e-9 m) is shared by exactly two "
          "triangles in opposite directions; the numbers are meaningless otherwise.")
      .def_property_readonly(
          "winding_flipped", [](const MeshMassProperties& p) { return p.mass.winding_flipped; },
          "True when the mesh was wound inwards and was treated as reversed.")
      .def("__repr__", [](const MeshMassProperties& p) {
        return "MassProperties(mass=" + std::to_string(p.mass.mass_kg) +
               ", volume=" + std::to_string(p.mass.volume_m3) +
               ", closed=" + (p.closedness.closed ? "True" : "False") + ")";
      });

  m.def(
      "load_mesh",
      [](const std::string& path, double scale) {
        if (!(scale > 0.0) || !std::isfinite(scale))
          throw std::invalid_argument("scale must be positive and finite");
        requireFile(path);
        geometry::MeshLoadOptions o;
        o.scale = scale;
        const geometry::LoadedModel model = geometry::loadMesh(path, o);
        // The loader's repairs are worth seeing, as the CLI shows them.
        const py::object warn = py::module_::import("warnings").attr("warn");
        for (const auto& w : model.warnings) warn(w);
        TriangleMesh mesh = model.merged();
        mesh.updateNormals();
        return mesh;
      },
      py::arg("path"), py::arg("scale") = 1.0,
      "Reads a mesh file, every shape merged into one Mesh [m, after multiplying by scale]: "
      "VRML97 (.wrl, .wrz, .wrl.gz, .vrml) by handsim's reader, everything else (OBJ, STL, PLY, "
      "OFF, COLLADA, glTF...) by Assimp. Loader warnings become Python warnings. Raises "
      "FileNotFoundError for a missing file, InputError (file, line, column) for a bad one.");
}

// Collision queries between two meshes: k-DOP trees, contact patches.
void bindCollisionQueries(py::module_& m) {
  py::class_<PatchInCommonFrame>(
      m, "ContactPatch",
      "One connected piece of the intersection of mesh A and mesh B, reduced to a point contact "
      "(seed 000 sec. IV), in the common frame of the poses given to collide().")
      .def_readonly("point", &PatchInCommonFrame::point,
                    "Centre of the bounding box (in A's frame) of the patch's intersection "
                    "points, (3,) [m].")
      .def_readonly("normal", &PatchInCommonFrame::normal,
                    "Unit contact normal (3,): area-weighted mean outward normal of B's "
                    "triangles in the patch, so it points OUT OF B, the direction in which B "
                    "pushes A (minus A's when B's cancel; zero when both cancel).")
      .def_readonly("depth", &PatchInCommonFrame::depth,
                    "Penetration estimate [m]: deepest vertex of A's patch triangles below the "
                    "tangent plane through `point`, along -normal; 0 when none is below.")
      .def_readonly("area", &PatchInCommonFrame::area,
                    "Total area of B's triangles in the patch [m^2].")
      .def_readonly("triangles_a", &PatchInCommonFrame::triangles_a,
                    "Indices of A's triangles in the patch, ascending.")
      .def_readonly("triangles_b", &PatchInCommonFrame::triangles_b,
                    "Indices of B's triangles in the patch, ascending.")
      .def("__repr__", [](const PatchInCommonFrame& p) {
        return "ContactPatch(depth=" + std::to_string(p.depth) +
               ", area=" + std::to_string(p.area) + ", " + std::to_string(p.triangles_a.size()) +
               " + " + std::to_string(p.triangles_b.size()) + " triangles)";
      });

  m.def(
      "collide",
      [](const TriangleMesh& a, const py::handle& pose_a, const TriangleMesh& b,
         const py::handle& pose_b, int k) {
        const Eigen::Isometry3d ta = rigidPose(pose_a, "pose_a");
        const Eigen::Isometry3d tb = rigidPose(pose_b, "pose_b");
        std::vector<collision::ContactPatch> patches;
        {
          py::gil_scoped_release release;
          const TreePair trees = buildTrees(a, ta, b, tb, k);
          const auto pairs = collision::allContacts(trees.a, trees.b, trees.b_in_a);
          patches = collision::buildContactPatches(a, b, trees.b_in_a, pairs);
        }
        // The core reports patches in A's frame; pose_a takes them to the common frame.
        std::vector<PatchInCommonFrame> out;
        for (const auto& p : patches) {
          PatchInCommonFrame q;
          q.point = ta * p.point;
          q.normal = ta.linear() * p.normal;
          q.depth = p.depth_m;
          q.area = p.object_area_m2;
          q.triangles_a = p.link_triangles;
          q.triangles_b = p.object_triangles;
          out.push_back(std::move(q));
        }
        return out;
      },
      py::arg("a"), py::arg("pose_a"), py::arg("b"), py::arg("pose_b"), py::arg("k") = 18,
      "Contact patches between mesh `a` placed by the 4x4 rigid transform `pose_a` (A's frame "
      "-> common frame) and mesh `b` placed by `pose_b`, in the common frame, ordered by their "
      "first intersecting triangle pair. Builds k-DOP trees (k = 14, 18 or 26) of both meshes; "
      "the GIL is released meanwhile. Each patch's normal points out of B. Raises ValueError "
      "for a pose that is not a finite rigid transform or an unsupported k.");
  m.def(
      "intersects",
      [](const TriangleMesh& a, const py::handle& pose_a, const TriangleMesh& b,
         const py::handle& pose_b, int k) {
        const Eigen::Isometry3d ta = rigidPose(pose_a, "pose_a");
        const Eigen::Isometry3d tb = rigidPose(pose_b, "pose_b");
        py::gil_scoped_release release;
        const TreePair trees = buildTrees(a, ta, b, tb, k);
        return collision::anyContact(trees.a, trees.b, trees.b_in_a);
      },
      py::arg("a"), py::arg("pose_a"), py::arg("b"), py::arg("pose_b"), py::arg("k") = 18,
      "True when the surfaces of mesh `a` (placed by the 4x4 pose_a) and mesh `b` (placed by "
      "pose_b) share a point; stops at the first intersecting triangle pair. A mesh wholly "
      "inside the other does not intersect it. The GIL is released during the query.");
}

}  // namespace

void bindGeometry(py::module_& m) {
  bindMeshes(m);
  bindCollisionQueries(m);
}

}  // namespace handsim::python
