// SPDX-License-Identifier: GPL-3.0-or-later
// Mass properties against closed forms worked out here, never against the code under test:
// boxes, regular prisms (exact) and their convergence to the cylinder, UV spheres converging at
// O(1/n^2), one tetrahedron by Tonon's explicit formulas and his published example, the
// parallel-axis theorem, and every error and closedness case.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "handsim/formats/mesh_loader.hpp"
#include "handsim/geometry/mass_properties.hpp"
#include "handsim/geometry/primitives.hpp"

namespace handsim::geometry {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Box [0, a] x [0, b] x [0, c] from 12 outward triangles. Corner k has x from bit 0, y from
// bit 1, z from bit 2.
TriangleMesh boxMesh(double a, double b, double c) {
  TriangleMesh m;
  for (int k = 0; k < 8; ++k)
    m.vertices.emplace_back((k & 1) ? a : 0.0, (k & 2) ? b : 0.0, (k & 4) ? c : 0.0);
  const int faces[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                           {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
  for (const auto& f : faces) {
    m.triangles.push_back({f[0], f[1], f[2]});
    m.triangles.push_back({f[0], f[2], f[3]});
  }
  m.updateNormals();
  return m;
}

void expectMatrixNear(const Eigen::Matrix3d& actual, const Eigen::Matrix3d& expected,
                      double relative) {
  const double scale = expected.cwiseAbs().maxCoeff();
  EXPECT_LE((actual - expected).cwiseAbs().maxCoeff(), relative * scale) << "actual\n"
                                                                         << actual << "\nexpected\n"
                                                                         << expected;
}

void expectRelNear(double actual, double expected, double relative) {
  EXPECT_NEAR(actual, expected, relative * std::abs(expected));
}

std::string invalidArgumentMessage(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::invalid_argument";
  return {};
}

TEST(MassProperties, AxisAlignedBox) {
  const double a = 0.1, b = 0.2, c = 0.3, rho = 800.0;
  const auto p = massProperties(boxMesh(a, b, c), rho);
  const double m = rho * a * b * c;
  expectRelNear(p.volume_m3, a * b * c, 1e-14);
  expectRelNear(p.mass_kg, m, 1e-14);
  EXPECT_FALSE(p.winding_flipped);
  EXPECT_LE((p.centre_of_mass - Eigen::Vector3d(a / 2, b / 2, c / 2)).norm(), 1e-15);
  const Eigen::Matrix3d expected =
      Eigen::Vector3d(b * b + c * c, a * a + c * c, a * a + b * b).asDiagonal() * (m / 12.0);
  expectMatrixNear(p.inertia_com, expected, 1e-12);
}

TEST(MassProperties, RotatedTranslatedBox) {
  const double a = 0.1, b = 0.2, c = 0.3, rho = 800.0;
  const double m = rho * a * b * c;
  const Eigen::Matrix3d body =
      Eigen::Vector3d(b * b + c * c, a * a + c * c, a * a + b * b).asDiagonal() * (m / 12.0);
  const Eigen::Matrix3d r =
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  const Eigen::Vector3d t(0.5, -0.3, 1.2);
  Eigen::Affine3d pose = Eigen::Affine3d::Identity();
  pose.linear() = r;
  pose.translation() = t;
  auto mesh = boxMesh(a, b, c);
  mesh.transform(pose);
  const auto p = massProperties(mesh, rho);
  expectRelNear(p.mass_kg, m, 1e-12);
  EXPECT_LE((p.centre_of_mass - (r * Eigen::Vector3d(a / 2, b / 2, c / 2) + t)).norm(), 1e-14);
  expectMatrixNear(p.inertia_com, r * body * r.transpose(), 1e-12);
}

// Regular N-gon prism of circumradius r and height h (makeCylinder: axis y, centred), theta =
// 2 pi / N. Split the polygon into N triangles (0, p, q) with |p| = |q| = r, p . q = r^2 cos
// theta, area A_t = r^2 sin(theta) / 2. For a triangle with corners 0, p, q,
// integral(x x^T dA) = A_t / 12 (p p^T + q q^T + (p + q)(p + q)^T), whose trace is
// A_t r^2 (2 + cos theta) / 6. So the polygon of area A = N r^2 sin(theta) / 2 has polar moment
// J = A r^2 (2 + cos theta) / 6, split equally between the two in-plane axes (an N-fold
// symmetric 2x2 tensor with N >= 3 is isotropic). The prism of mass m = rho A h then has
//   I_axis = m r^2 (2 + cos theta) / 6,  I_transverse = m r^2 (2 + cos theta) / 12 + m h^2 / 12,
// which tend to the solid cylinder's m r^2 / 2 and m (3 r^2 + h^2) / 12 as N grows.
TEST(MassProperties, RegularPrismExact) {
  const double r = 0.03, h = 0.1, rho = 1200.0;
  for (int n : {3, 5, 24, 100}) {
    SCOPED_TRACE(n);
    const double theta = 2 * kPi / n;
    const double volume = 0.5 * n * r * r * std::sin(theta) * h;
    const double m = rho * volume;
    const double axial = m * r * r * (2 + std::cos(theta)) / 6;
    const double transverse = m * r * r * (2 + std::cos(theta)) / 12 + m * h * h / 12;
    const auto mesh = makeCylinder(r, h, n);
    EXPECT_TRUE(checkClosed(mesh).closed);
    const auto p = massProperties(mesh, rho);
    expectRelNear(p.volume_m3, volume, 1e-12);
    expectRelNear(p.mass_kg, m, 1e-12);
    EXPECT_LE(p.centre_of_mass.norm(), 1e-12 * r);
    expectMatrixNear(p.inertia_com, Eigen::Vector3d(transverse, axial, transverse).asDiagonal(),
                     1e-12);
  }
}

TEST(MassProperties, PrismConvergesToCylinder) {
  const double r = 0.03, h = 0.1;
  double previous_axial = 0.0, previous_transverse = 0.0;
  for (int n : {16, 32, 64, 128}) {
    SCOPED_TRACE(n);
    const auto p = massProperties(makeCylinder(r, h, n), 1000.0);
    const double axial = std::abs(p.inertia_com(1, 1) / (p.mass_kg * r * r / 2) - 1);
    const double transverse =
        std::abs(p.inertia_com(0, 0) / (p.mass_kg * (3 * r * r + h * h) / 12) - 1);
    if (previous_axial > 0.0) {
      // Both errors are proportional to 1 - cos(2 pi / N) ~ 2 pi^2 / N^2.
      EXPECT_NEAR(previous_axial / axial, 4.0, 0.1);
      EXPECT_NEAR(previous_transverse / transverse, 4.0, 0.1);
    }
    previous_axial = axial;
    previous_transverse = transverse;
  }
  EXPECT_LT(previous_axial, 1e-3);
  EXPECT_LT(previous_transverse, 1e-3);
}

// A UV sphere is an inscribed polyhedron: volume and I / (m r^2) approach 4/3 pi r^3 and 2/5
// with an error of order 1/n^2, so doubling the resolution divides the error by about 4.
TEST(MassProperties, SphereConverges) {
  const double r = 0.03, rho = 1000.0;
  const double volume = 4.0 / 3.0 * kPi * r * r * r;
  double previous_volume = 0.0, previous_inertia = 0.0;
  for (int n : {16, 32, 64, 128}) {
    SCOPED_TRACE(n);
    const auto mesh = makeSphere(r, n);
    EXPECT_TRUE(checkClosed(mesh).closed);
    const auto p = massProperties(mesh, rho);
    EXPECT_LE(p.centre_of_mass.norm(), 1e-12 * r);
    const Eigen::Matrix3d& i = p.inertia_com;
    EXPECT_LE(std::abs(i(0, 1)) + std::abs(i(0, 2)) + std::abs(i(1, 2)), 1e-12 * i.trace());
    // The x and z axes are equivalent under the sphere's n-fold symmetry about y.
    expectRelNear(i(0, 0), i(2, 2), 1e-12);
    const double volume_error = std::abs(p.volume_m3 / volume - 1);
    double inertia_error = 0.0;
    for (int k = 0; k < 3; ++k)
      inertia_error = std::max(inertia_error, std::abs(i(k, k) / (0.4 * p.mass_kg * r * r) - 1));
    if (previous_volume > 0.0) {
      EXPECT_NEAR(previous_volume / volume_error, 4.0, 0.3);
      EXPECT_NEAR(previous_inertia / inertia_error, 4.0, 0.3);
    }
    previous_volume = volume_error;
    previous_inertia = inertia_error;
  }
  // At n = 128 both errors are about 16 / n^2.
  EXPECT_LT(previous_volume, 2e-3);
  EXPECT_LT(previous_inertia, 2e-3);
}

// Tonon (2004), eqs. for a tetrahedron with corners x_1..x_4 measured from its centroid and
// |D| = 6 V: a = mu |D| (sum_{i<=j} (y_i y_j + z_i z_j)) / 60 (b, c alike), and the products of
// inertia a' = mu |D| (sum_i 2 y_i z_i + sum_{i != j} y_i z_j) / 120 = integral(y z dm), b' the
// same with x z and c' with x y. By the definition I_xy = -integral(x y dm):
// I = [a -c' -b'; -c' b -a'; -b' -a' c].
Eigen::Matrix3d tononInertia(const std::array<Eigen::Vector3d, 4>& corners, double mu) {
  const Eigen::Vector3d centroid = (corners[0] + corners[1] + corners[2] + corners[3]) / 4;
  std::array<Eigen::Vector3d, 4> p;
  for (int i = 0; i < 4; ++i) p[i] = corners[i] - centroid;
  const double det = std::abs((p[1] - p[0]).dot((p[2] - p[0]).cross(p[3] - p[0])));
  auto square = [&](int u) {
    double s = 0.0;
    for (int i = 0; i < 4; ++i)
      for (int j = i; j < 4; ++j) s += p[i][u] * p[j][u];
    return mu * det * s / 60;
  };
  auto product = [&](int u, int v) {
    double s = 0.0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) s += (i == j ? 2.0 : 1.0) * p[i][u] * p[j][v];
    return mu * det * s / 120;
  };
  const double a = square(1) + square(2), b = square(0) + square(2), c = square(0) + square(1);
  const double ap = product(1, 2), bp = product(0, 2), cp = product(0, 1);
  Eigen::Matrix3d out;
  out << a, -cp, -bp, -cp, b, -ap, -bp, -ap, c;
  return out;
}

TriangleMesh tetrahedronMesh(const std::array<Eigen::Vector3d, 4>& corners) {
  TriangleMesh m;
  m.vertices.assign(corners.begin(), corners.end());
  // Outward when (x1 - x0, x2 - x0, x3 - x0) is right-handed; reversed otherwise.
  const bool right =
      (corners[1] - corners[0]).dot((corners[2] - corners[0]).cross(corners[3] - corners[0])) > 0;
  m.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  if (!right)
    for (auto& t : m.triangles) std::swap(t[1], t[2]);
  m.updateNormals();
  return m;
}

TEST(MassProperties, TetrahedronMatchesTonon) {
  // Tonon's worked example, density 1: V = 1873.23348, centroid (15.92492, 0.78281, 3.72962),
  // a = 43520.33257, b = 194711.28938, c = 191168.76173, a' = 4417.66150, b' = -46343.16662,
  // c' = 11996.20119. The printed corners are rounded to 5 decimals and the printed results
  // agree with them to about 1e-7 relative (the exact formulas below to 1e-12).
  const std::array<Eigen::Vector3d, 4> corners{
      Eigen::Vector3d(8.33220, -11.86875, 0.93355), Eigen::Vector3d(0.75523, 5.00000, 16.37072),
      Eigen::Vector3d(52.61236, 5.00000, -5.38580), Eigen::Vector3d(2.00000, 5.00000, 3.00000)};
  const auto p = massProperties(tetrahedronMesh(corners), 1.0);
  expectRelNear(p.volume_m3, 1873.23348, 1e-7);
  EXPECT_LE((p.centre_of_mass - Eigen::Vector3d(15.92492, 0.78281, 3.72962)).norm(), 1e-4);
  expectMatrixNear(p.inertia_com, tononInertia(corners, 1.0), 1e-12);
  Eigen::Matrix3d published;
  published << 43520.33257, -11996.20119, 46343.16662, -11996.20119, 194711.28938, -4417.66150,
      46343.16662, -4417.66150, 191168.76173;
  expectMatrixNear(p.inertia_com, published, 1e-7);
}

TEST(MassProperties, ForMassChoosesDensity) {
  const double a = 0.04, b = 0.05, c = 0.06, m = 0.25;
  const auto p = massPropertiesForMass(boxMesh(a, b, c), m);
  EXPECT_DOUBLE_EQ(p.mass_kg, m);
  expectRelNear(p.volume_m3, a * b * c, 1e-14);
  expectMatrixNear(
      p.inertia_com,
      Eigen::Vector3d(b * b + c * c, a * a + c * c, a * a + b * b).asDiagonal() * (m / 12.0),
      1e-12);
  EXPECT_THROW(massPropertiesForMass(boxMesh(a, b, c), 0.0), std::invalid_argument);
  EXPECT_THROW(massPropertiesForMass(boxMesh(a, b, c), std::nan("")), std::invalid_argument);
}

TEST(MassProperties, TranslationLeavesCentralInertia) {
  const auto mesh = makeSphere(0.03, 24);
  const auto p = massProperties(mesh, 1000.0);
  for (const Eigen::Vector3d& t :
       {Eigen::Vector3d(0.2, -0.1, 0.05), Eigen::Vector3d(3.0, -2.0, 5.0),
        Eigen::Vector3d(-40.0, 10.0, 25.0)}) {
    SCOPED_TRACE(t.transpose());
    auto moved = mesh;
    moved.transform(Eigen::Affine3d(Eigen::Translation3d(t)));
    const auto q = massProperties(moved, 1000.0);
    expectRelNear(q.mass_kg, p.mass_kg, 1e-12);
    EXPECT_LE((q.centre_of_mass - p.centre_of_mass - t).norm(), 1e-12 * t.norm());
    expectMatrixNear(q.inertia_com, p.inertia_com, 1e-12);
  }
}

// Two separate boxes in one mesh: the composite equals the parallel-axis sum of the parts,
// I = sum_k (I_k + m_k (|d_k|^2 1 - d_k d_k^T)), d_k from the composite centre of mass.
TEST(MassProperties, CompositeObeysParallelAxisTheorem) {
  auto first = boxMesh(0.1, 0.02, 0.03);
  auto second = boxMesh(0.03, 0.05, 0.04);
  Eigen::Affine3d pose = Eigen::Affine3d::Identity();
  pose.linear() = Eigen::AngleAxisd(0.4, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  pose.translation() = Eigen::Vector3d(0.3, 0.1, -0.2);
  second.transform(pose);
  const auto p1 = massProperties(first, 500.0);
  const auto p2 = massProperties(second, 500.0);
  auto both = first;
  both.append(second);
  const auto p = massProperties(both, 500.0);
  expectRelNear(p.mass_kg, p1.mass_kg + p2.mass_kg, 1e-12);
  const Eigen::Vector3d com =
      (p1.mass_kg * p1.centre_of_mass + p2.mass_kg * p2.centre_of_mass) / p.mass_kg;
  EXPECT_LE((p.centre_of_mass - com).norm(), 1e-14);
  auto shifted = [&](const MassProperties& q) {
    const Eigen::Vector3d d = q.centre_of_mass - com;
    return Eigen::Matrix3d(q.inertia_com +
                           q.mass_kg *
                               (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose()));
  };
  expectMatrixNear(p.inertia_com, shifted(p1) + shifted(p2), 1e-12);
}

TEST(MassProperties, InwardWindingIsFlippedAndFlagged) {
  auto mesh = boxMesh(0.1, 0.2, 0.3);
  const auto outward = massProperties(mesh, 700.0);
  for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
  const auto inward = massProperties(mesh, 700.0);
  EXPECT_TRUE(inward.winding_flipped);
  expectRelNear(inward.volume_m3, outward.volume_m3, 1e-14);
  expectRelNear(inward.mass_kg, outward.mass_kg, 1e-14);
  EXPECT_LE((inward.centre_of_mass - outward.centre_of_mass).norm(), 1e-15);
  expectMatrixNear(inward.inertia_com, outward.inertia_com, 1e-12);
  // Consistently inward is still closed: every edge is used once in each direction.
  EXPECT_TRUE(checkClosed(mesh).closed);
}

TEST(ClosednessCheck, ClosedBox) {
  const auto r = checkClosed(boxMesh(0.1, 0.2, 0.3));
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(r.boundary_edges, 0);
  EXPECT_EQ(r.non_manifold_edges, 0);
  EXPECT_EQ(r.inconsistently_oriented_edges, 0);
  EXPECT_EQ(r.collapsed_triangles, 0);
  EXPECT_EQ(r.welded_vertices, 8);
}

TEST(ClosednessCheck, BoxWithoutOneFaceHasFourBoundaryEdges) {
  auto mesh = boxMesh(0.1, 0.2, 0.3);
  // Removing the two triangles of the +z face frees its four sides; its diagonal belonged to
  // those two triangles only and disappears with them.
  mesh.triangles.erase(mesh.triangles.begin() + 8, mesh.triangles.begin() + 10);
  const auto r = checkClosed(mesh);
  EXPECT_FALSE(r.closed);
  EXPECT_EQ(r.boundary_edges, 4);
  EXPECT_EQ(r.non_manifold_edges, 0);
  EXPECT_EQ(r.inconsistently_oriented_edges, 0);
}

TEST(ClosednessCheck, OneFaceTurnedInside) {
  auto mesh = boxMesh(0.1, 0.2, 0.3);
  // Reversing both triangles of one face: its four sides now run the same way as in the
  // neighbouring faces; its own diagonal stays consistent.
  for (std::size_t t : {0u, 1u}) std::swap(mesh.triangles[t][1], mesh.triangles[t][2]);
  const auto r = checkClosed(mesh);
  EXPECT_FALSE(r.closed);
  EXPECT_EQ(r.boundary_edges, 0);
  EXPECT_EQ(r.inconsistently_oriented_edges, 4);
}

TEST(ClosednessCheck, RepeatedTriangleIsNonManifold) {
  auto mesh = boxMesh(0.1, 0.2, 0.3);
  mesh.triangles.push_back(mesh.triangles[0]);
  const auto r = checkClosed(mesh);
  EXPECT_FALSE(r.closed);
  EXPECT_EQ(r.non_manifold_edges, 3);
}

TEST(ClosednessCheck, WeldsRepeatedVertices) {
  // Triangle soup as STL stores it: three vertices of its own per triangle, each shifted by a
  // different tiny amount (below the default 1 nm tolerance).
  const auto box = boxMesh(0.1, 0.2, 0.3);
  TriangleMesh soup;
  int k = 0;
  for (const auto& t : box.triangles) {
    const int first = static_cast<int>(soup.vertices.size());
    for (int i : t)
      soup.vertices.push_back(box.vertices[static_cast<std::size_t>(i)] +
                              Eigen::Vector3d::Constant(1e-12 * (k++ % 7)));
    soup.triangles.push_back({first, first + 1, first + 2});
  }
  const auto welded = checkClosed(soup);
  EXPECT_TRUE(welded.closed);
  EXPECT_EQ(welded.welded_vertices, 8);
  // Without welding every one of the 36 directed edges is a separate, boundary edge.
  const auto exact = checkClosed(soup, 0.0);
  EXPECT_FALSE(exact.closed);
  EXPECT_EQ(exact.boundary_edges, 36);
  // The soup's mass properties are those of the box, closed or not.
  expectRelNear(massProperties(soup, 1.0).volume_m3, 0.1 * 0.2 * 0.3, 1e-9);
}

TEST(ClosednessCheck, WeldingCollapsesSlivers) {
  auto mesh = boxMesh(0.1, 0.2, 0.3);
  mesh.vertices.push_back(mesh.vertices[0] + Eigen::Vector3d(1e-12, 0, 0));
  mesh.triangles.push_back({0, 8, 1});
  const auto r = checkClosed(mesh);
  EXPECT_EQ(r.collapsed_triangles, 1);
  EXPECT_TRUE(r.closed);
}

TEST(MassPropertiesErrors, NonFiniteVertexIsNamed) {
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity()}) {
    auto mesh = boxMesh(0.1, 0.2, 0.3);
    mesh.vertices[5].y() = bad;
    EXPECT_NE(invalidArgumentMessage([&] { massProperties(mesh, 1.0); }).find("vertex 5"),
              std::string::npos);
    EXPECT_NE(invalidArgumentMessage([&] { checkClosed(mesh); }).find("vertex 5"),
              std::string::npos);
  }
}

TEST(MassPropertiesErrors, ZeroVolume) {
  // A double-sided square: closed as an edge graph, but it encloses nothing.
  TriangleMesh flat;
  flat.vertices = {{0.1, 0.2, 0.3}, {0.2, 0.2, 0.3}, {0.2, 0.3, 0.3}, {0.1, 0.3, 0.3}};
  flat.triangles = {{0, 1, 2}, {0, 2, 3}, {0, 2, 1}, {0, 3, 2}};
  EXPECT_NE(invalidArgumentMessage([&] { massProperties(flat, 1.0); }).find("zero volume"),
            std::string::npos);
  // A flat but tilted square whose coordinates are not exact in binary.
  Eigen::Affine3d pose = Eigen::Affine3d::Identity();
  pose.linear() = Eigen::AngleAxisd(0.3, Eigen::Vector3d(1, 1, 0).normalized()).toRotationMatrix();
  flat.transform(pose);
  EXPECT_THROW(massProperties(flat, 1.0), std::invalid_argument);
  EXPECT_THROW(massProperties(TriangleMesh{}, 1.0), std::invalid_argument);
}

TEST(MassPropertiesErrors, BadDensityAndIndex) {
  EXPECT_THROW(massProperties(boxMesh(1, 1, 1), 0.0), std::invalid_argument);
  EXPECT_THROW(massProperties(boxMesh(1, 1, 1), -1.0), std::invalid_argument);
  EXPECT_THROW(massProperties(boxMesh(1, 1, 1), std::numeric_limits<double>::infinity()),
               std::invalid_argument);
  auto mesh = boxMesh(1, 1, 1);
  mesh.triangles[3][1] = 8;
  EXPECT_NE(invalidArgumentMessage([&] { massProperties(mesh, 1.0); }).find("triangle 3"),
            std::string::npos);
  EXPECT_THROW(checkClosed(boxMesh(1, 1, 1), -1e-9), std::invalid_argument);
}

// The shipped objects: closed after welding (merged() shares no vertices between shapes),
// outward, positive volume. The mug's three parts overlap by design (assets/objects/mug.wrl),
// so its merged volume counts the overlap twice: closed, but an overestimate of the solid.
TEST(MassPropertiesAssets, ShippedObjectsAreClosedSolids) {
  for (const char* name : {"bottle.wrl", "cube.wrl", "cylinder.wrl", "mug.wrl", "sphere.wrl"}) {
    SCOPED_TRACE(name);
    const auto model = loadMesh(std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/" + name);
    const auto mesh = model.merged();
    const auto report = checkClosed(mesh);
    EXPECT_TRUE(report.closed) << "boundary " << report.boundary_edges << ", non-manifold "
                               << report.non_manifold_edges << ", inconsistent "
                               << report.inconsistently_oriented_edges;
    const auto p = massProperties(mesh, 1000.0);
    EXPECT_GT(p.volume_m3, 0.0);
    EXPECT_FALSE(p.winding_flipped);
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> principal(p.inertia_com);
    EXPECT_GT(principal.eigenvalues().minCoeff(), 0.0);
  }
}

TEST(MassPropertiesAssets, CubeIsItsEdgeCubed) {
  const double edge = 0.05;  // stated in the header of assets/objects/cube.wrl
  const auto mesh = loadMesh(std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/cube.wrl").merged();
  const auto p = massPropertiesForMass(mesh, 0.1);
  expectRelNear(p.volume_m3, edge * edge * edge, 1e-12);
  EXPECT_LE(p.centre_of_mass.norm(), 1e-15);
  expectMatrixNear(p.inertia_com, Eigen::Matrix3d::Identity() * (0.1 * edge * edge / 6), 1e-12);
}

}  // namespace
}  // namespace handsim::geometry
