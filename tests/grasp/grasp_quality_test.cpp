// SPDX-License-Identifier: GPL-3.0-or-later
// Grasp quality against cases worked out by hand and against independent checks: support
// functions of the primitive wrenches (no hull), a simplex computed with Eigen, symmetry.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "handsim/grasp/grasp_contact.hpp"
#include "handsim/grasp/grasp_quality.hpp"
#include "handsim/grasp/grasp_wrench_space.hpp"

namespace handsim::grasp {
namespace {

using Wrench = Eigen::Matrix<double, 6, 1>;
using Wrenches = Eigen::Matrix<double, 6, Eigen::Dynamic>;
constexpr double kPi = 3.14159265358979323846;

/// A contact on the sphere of radius r about the origin at the unit direction `dir`: the finger
/// pushes towards the centre.
GraspContact onSphere(const Eigen::Vector3d& dir, double mu, double r = 1.0) {
  const Eigen::Vector3d d = dir.normalized();
  return {r * d, -d, mu};
}

/// Three contacts on the equator of the unit sphere at 0, 120 and 240 degrees.
std::vector<GraspContact> threeAt120(double mu) {
  std::vector<GraspContact> c;
  for (int k = 0; k < 3; ++k) {
    const double a = 2.0 * kPi * k / 3.0;
    c.push_back(onSphere({std::cos(a), std::sin(a), 0.0}, mu));
  }
  return c;
}

/// Seven frictionless contacts on the cube [-1, 1]^3 (normals into the cube) that achieve form
/// closure. With f = n and torque p x f, a contact on face x = +-1 has torque (0, -+z, +-y), on
/// y = +-1 (+-z, 0, -+x), on z = +-1 (-+y, +-x, 0). The wrenches are
///   c1 p=( 1,  .5, .2) f=(-1,0,0): (-1, 0, 0,  0, -.2, .5)
///   c2 p=(-1, -.3,-.4) f=( 1,0,0): ( 1, 0, 0,  0, -.4, .3)
///   c3 p=(.4,   1, .3) f=(0,-1,0): ( 0,-1, 0, .3,   0,-.4)
///   c4 p=(-.4, -1,-.5) f=(0, 1,0): ( 0, 1, 0, .5,   0,-.4)
///   c5 p=(.4,  .2,  1) f=(0,0,-1): ( 0, 0,-1,-.2,  .4,  0)
///   c6 p=(.5, -.2, -1) f=(0,0, 1): ( 0, 0, 1,-.2, -.5,  0)
///   c7 p=(-.3,-.2, -1) f=(0,0, 1): ( 0, 0, 1,-.2,  .3,  0)
/// and c1 + c2 + c3 + c4 + 2 c5 + c6 + c7 = 0 row by row (forces: -1+1, -1+1, -2+1+1; torques:
/// .3+.5-.4-.2-.2, -.2-.4+.8-.5+.3, .5+.3-.4-.4). The positions were chosen to satisfy these
/// three torque sums without symmetry (a symmetric choice made the 6x7 matrix rank 5). Seven
/// wrenches that span R^6 with a strictly positive null combination have the origin inside
/// their convex hull, a 6-simplex: force closure with zero friction. The rank is checked below.
std::vector<GraspContact> cubeFormClosure() {
  return {{{1, .5, .2}, {-1, 0, 0}, 0.0},  {{-1, -.3, -.4}, {1, 0, 0}, 0.0},
          {{.4, 1, .3}, {0, -1, 0}, 0.0},  {{-.4, -1, -.5}, {0, 1, 0}, 0.0},
          {{.4, .2, 1}, {0, 0, -1}, 0.0},  {{.5, -.2, -1}, {0, 0, 1}, 0.0},
          {{-.3, -.2, -1}, {0, 0, 1}, 0.0}};
}

/// Support function of the primitive wrenches: max_i u . w_i. For a convex hull H, the ball of
/// radius r about the origin lies in H iff support(u) >= r for every unit u, and the origin is
/// outside the interior iff support(u) <= 0 for some u (a separating direction).
double support(const Wrenches& w, const Wrench& u) {
  return (u.transpose() * w).maxCoeff();
}

Wrenches wrenchesOf(const std::vector<GraspContact>& c, const GraspQualityOptions& o) {
  return primitiveWrenches(c, o.cone_edges, o.torque_reference, o.torque_radius);
}

/// Epsilon of a 6-simplex that contains the origin, from its 7 vertices with plain linear
/// algebra: the facet opposite vertex k is {x : a . x = 1} through the other six vertices, at
/// distance 1 / |a| from the origin.
double simplexEpsilon(const Wrenches& w) {
  EXPECT_EQ(w.cols(), 7);
  double eps = HUGE_VAL;
  for (int k = 0; k < 7; ++k) {
    Eigen::Matrix<double, 6, 6> rows;
    int r = 0;
    for (int i = 0; i < 7; ++i)
      if (i != k) rows.row(r++) = w.col(i).transpose();
    const Wrench a = rows.fullPivLu().solve(Wrench::Ones());
    EXPECT_LT(a.dot(w.col(k)), 1.0) << "origin not on the simplex side of facet " << k;
    eps = std::min(eps, 1.0 / a.norm());
  }
  return eps;
}

TEST(GraspWrenchSpace, PrimitiveWrenchesHaveUnitNormalForceAndTheirOwnTorque) {
  // Contact at p = (1, 0, 0) on the unit sphere pushing along n = (-1, 0, 0) with mu = 0.5:
  // every edge force is n + 0.5 t with t a unit vector in the y-z plane, so f . n = 1,
  // |f - n| = 0.5, and the torque p x f = (0, -f_z, f_y) has no x component.
  const std::vector<GraspContact> c = {onSphere({1, 0, 0}, 0.5)};
  const Wrenches w = primitiveWrenches(c, 8, Eigen::Vector3d::Zero(), 1.0);
  ASSERT_EQ(w.cols(), 8);
  for (int j = 0; j < 8; ++j) {
    const Eigen::Vector3d f = w.col(j).head<3>();
    EXPECT_NEAR(f.x(), -1.0, 1e-15);
    EXPECT_NEAR(std::hypot(f.y(), f.z()), 0.5, 1e-15);
    EXPECT_NEAR(w(3, j), 0.0, 1e-15);
    EXPECT_NEAR(w(4, j), -f.z(), 1e-15);
    EXPECT_NEAR(w(5, j), f.y(), 1e-15);
  }
  // Torque radius 2 halves the torques; a torque reference at p removes them.
  const Wrenches half = primitiveWrenches(c, 8, Eigen::Vector3d::Zero(), 2.0);
  EXPECT_TRUE(half.bottomRows<3>().isApprox(0.5 * w.bottomRows<3>(), 1e-15));
  const Wrenches at_p = primitiveWrenches(c, 8, Eigen::Vector3d(1, 0, 0), 1.0);
  EXPECT_EQ(at_p.bottomRows<3>().norm(), 0.0);
  // A frictionless contact contributes its normal only.
  EXPECT_EQ(primitiveWrenches({onSphere({1, 0, 0}, 0.0)}, 8, Eigen::Vector3d::Zero(), 1.0).cols(),
            1);
}

// One normal convention: the simulator's contact normal already points into the object, along
// the force the link applies, which is what the grasp analysis wants; contacts are picked by
// object.
TEST(GraspWrenchSpace, SimContactsKeepTheirNormalAndArePickedByObject) {
  contact::Contact s;
  s.point_world = {0.1, 0.2, 0.3};
  s.normal_world = {0, 0, -1};  // the link pushes down on the object
  s.force = 2.0;
  const GraspContact g = fromSimContact(s, 0.7);
  EXPECT_EQ(g.point, s.point_world);
  EXPECT_EQ(g.normal, Eigen::Vector3d(0, 0, -1));
  EXPECT_EQ(g.normal * s.force, s.forceOnObjectWorld());
  EXPECT_EQ(g.friction, 0.7);
  contact::Contact other = s;
  other.object = 1;
  s.object = 0;
  const auto on0 = graspContactsOn({s, other, s}, 0, 0.4);
  ASSERT_EQ(on0.size(), 2u);
  EXPECT_EQ(on0[1].friction, 0.4);
  EXPECT_TRUE(graspContactsOn({s, other}, 2, 0.4).empty());
}

TEST(GraspQuality, InvalidInputThrows) {
  const auto c = threeAt120(0.5);
  GraspQualityOptions o;
  o.cone_edges = 2;
  EXPECT_THROW(evaluateGrasp(c, o), std::invalid_argument);
  o = {};
  o.torque_radius = 0.0;
  EXPECT_THROW(evaluateGrasp(c, o), std::invalid_argument);
  auto bad = c;
  bad[1].friction = -0.1;
  EXPECT_THROW(evaluateGrasp(bad, {}), std::invalid_argument);
  bad = c;
  bad[0].normal.setZero();
  EXPECT_THROW(evaluateGrasp(bad, {}), std::invalid_argument);
  bad = c;
  bad[2].point.x() = std::nan("");
  EXPECT_THROW(evaluateGrasp(bad, {}), std::invalid_argument);
}

TEST(GraspQuality, NoContactsIsDegenerate) {
  const GraspQuality q = evaluateGrasp({}, {});
  EXPECT_FALSE(q.force_closure);
  EXPECT_EQ(q.epsilon, 0.0);
  EXPECT_EQ(q.volume, 0.0);
  EXPECT_FALSE(q.note.empty());
}

TEST(GraspQuality, OneContactIsNeverForceClosure) {
  // One contact's wrenches (f, p x f) are linear in f, and every edge force has f . n = 1:
  // they lie on a 2-D affine plane of a 3-D subspace, so the hull is flat in R^6.
  for (const double mu : {0.0, 0.5, 2.0}) {
    const GraspQuality q = evaluateGrasp({onSphere({0.3, -0.2, 0.9}, mu)}, {});
    EXPECT_FALSE(q.force_closure) << mu;
    EXPECT_EQ(q.epsilon, 0.0);
    EXPECT_EQ(q.volume, 0.0);
    EXPECT_NE(q.note.find("span only"), std::string::npos) << q.note;
  }
}

TEST(GraspQuality, TwoAntipodalHardContactsCannotResistTwistAboutTheirAxis) {
  // Contacts at (+-1, 0, 0) on the unit sphere pushing to the centre. Every force acts at a
  // point of the x axis, so its torque (0, -p_x f_z, p_x f_y) about the centre has no x
  // component: the wrenches lie in the 5-D subspace tau_x = 0 for every mu, and a twist about
  // the contact axis is unresisted (hard-finger contacts carry no torsional friction). With
  // mu = 0 the two wrenches (-+1, 0, 0, 0, 0, 0) span one dimension.
  for (const double mu : {0.0, 0.2, 1.0, 5.0}) {
    const GraspQuality q = evaluateGrasp({onSphere({1, 0, 0}, mu), onSphere({-1, 0, 0}, mu)}, {});
    EXPECT_FALSE(q.force_closure) << mu;
    EXPECT_EQ(q.epsilon, 0.0);
    const std::string dims = mu > 0.0 ? "span only 5" : "span only 1";
    EXPECT_NE(q.note.find(dims), std::string::npos) << q.note;
  }
  // The friction cones do close everything except that twist: in the 5 remaining directions
  // (+-f_x balanced by the two normals, f_y, f_z, tau_y, tau_z from friction) the support
  // function is positive exactly when mu > 0.
  for (const double mu : {0.0, 0.3}) {
    const Wrenches w = primitiveWrenches({onSphere({1, 0, 0}, mu), onSphere({-1, 0, 0}, mu)}, 8,
                                         Eigen::Vector3d::Zero(), 1.0);
    for (const int axis : {0, 1, 2, 4, 5})
      for (const double sign : {-1.0, 1.0}) {
        const double h = support(w, sign * Wrench::Unit(axis));
        if (mu > 0.0 || axis == 0)
          EXPECT_GT(h, 0.0) << mu << " " << axis;
        else
          EXPECT_LE(h, 0.0) << mu << " " << axis;
      }
  }
}

TEST(GraspQuality, ThreeContactsAt120DegreesCloseWithFrictionOnly) {
  // mu = 0: three normals through the centre in the equator plane: no f_z, no torque at all;
  // the three wrenches span a 2-D affine plane.
  const GraspQuality none = evaluateGrasp(threeAt120(0.0), {});
  EXPECT_FALSE(none.force_closure);
  EXPECT_EQ(none.epsilon, 0.0);
  EXPECT_NE(none.note.find("span only 2"), std::string::npos) << none.note;

  // mu = 0.5, 8 edges, lambda = 1: the normals balance in the plane (they sum to zero), the
  // edges with tangent +-z give +-f_z and, at three different points of the equator, +-tau_x
  // and +-tau_y; the in-plane tangents give +-tau_z. So the origin is interior: force closure.
  // Upper bounds by hand from support values (epsilon <= support(u) for every unit u):
  //  u = f_z: the largest f_z of any edge is mu (edge along +z);
  //  u = tau_z: tau_z = (p x mu t)_z = +-mu for in-plane tangent t, so again mu;
  //  u = f_x: the contacts at 120 and 240 deg push with n_x = 1/2 and in-plane friction up to
  //     mu sin(60 deg) along x: 1/2 + mu sqrt(3)/2.
  const double mu = 0.5;
  const GraspQuality q = evaluateGrasp(threeAt120(mu), {});
  ASSERT_TRUE(q.force_closure) << q.note;
  EXPECT_GT(q.epsilon, 0.0);
  EXPECT_LE(q.epsilon, mu + 1e-12);
  const Wrenches w = wrenchesOf(threeAt120(mu), {});
  EXPECT_NEAR(support(w, Wrench::Unit(2)), mu, 1e-15);
  EXPECT_NEAR(support(w, Wrench::Unit(5)), mu, 1e-15);
  EXPECT_NEAR(support(w, Wrench::Unit(0)), 0.5 + mu * std::sqrt(3.0) / 2.0, 1e-15);
  EXPECT_GT(q.volume, 0.0);
  EXPECT_GT(q.hull_facets, 0);
  EXPECT_TRUE(q.note.empty());
}

TEST(GraspQuality, FrictionlessGraspsWithFewContactsDoNotClose) {
  // Four frictionless contacts on a sphere push through its centre: all torques vanish and
  // four points span at most 3 dimensions.
  const std::vector<GraspContact> tetra = {onSphere({1, 1, 1}, 0), onSphere({1, -1, -1}, 0),
                                           onSphere({-1, 1, -1}, 0), onSphere({-1, -1, 1}, 0)};
  const GraspQuality q = evaluateGrasp(tetra, {});
  EXPECT_FALSE(q.force_closure);
  EXPECT_EQ(q.epsilon, 0.0);
  EXPECT_FALSE(q.note.empty());
  // Six frictionless contacts anywhere give six wrenches: an affine hull of dimension <= 5.
  auto six = cubeFormClosure();
  six.pop_back();
  six.pop_back();
  six.push_back({{0.2, -0.7, -1}, {0, 0, 1}, 0.0});
  const GraspQuality q6 = evaluateGrasp(six, {});
  EXPECT_FALSE(q6.force_closure);
  EXPECT_EQ(q6.epsilon, 0.0);
  EXPECT_FALSE(q6.note.empty());
}

TEST(GraspQuality, SevenFrictionlessCubeContactsAchieveFormClosure) {
  const GraspQuality q = evaluateGrasp(cubeFormClosure(), {});
  ASSERT_TRUE(q.force_closure) << q.note;
  const Wrenches w = wrenchesOf(cubeFormClosure(), {});
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(Eigen::MatrixXd(w), Eigen::ComputeFullV);
  EXPECT_GT(svd.singularValues().minCoeff(), 0.1);
  const Eigen::VectorXd null = svd.matrixV().col(6) / svd.matrixV()(0, 6);
  EXPECT_TRUE(null.isApprox((Eigen::VectorXd(7) << 1, 1, 1, 1, 2, 1, 1).finished(), 1e-12));
  // The hull is the 6-simplex of the seven wrenches: 7 facets, epsilon from linear algebra.
  EXPECT_EQ(q.hull_facets, 7);
  EXPECT_NEAR(q.epsilon, simplexEpsilon(w), 1e-12);
  // Volume of a 6-simplex: |det(w_1 - w_0, ..., w_6 - w_0)| / 6!.
  Eigen::Matrix<double, 6, 6> edges;
  for (int i = 1; i < 7; ++i) edges.col(i - 1) = w.col(i) - w.col(0);
  EXPECT_NEAR(q.volume, std::abs(edges.determinant()) / 720.0, 1e-12);
  // Dropping any contact loses closure (seven is the minimum in 3-D).
  for (std::size_t k = 0; k < 7; ++k) {
    auto fewer = cubeFormClosure();
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(k));
    EXPECT_FALSE(evaluateGrasp(fewer, {}).force_closure) << k;
  }
}

TEST(GraspQuality, TorqueRadiusScalesEpsilonWithinDerivedBounds) {
  // Torque radius k * lambda maps the wrench space by D = diag(1,1,1,1/k,1/k,1/k). For k > 1:
  //  - D shrinks no vector by more than 1/k, so the ball of radius eps/k lies in D(H):
  //    eps' >= eps / k;
  //  - with v the direction of a facet of H at distance eps, the direction u = D^-1 v /
  //    |D^-1 v| has support_DH(u) = support_H(v) / |D^-1 v| <= eps: eps' <= eps.
  // Volume scales exactly by det D = k^-3.
  GraspQualityOptions o;
  o.cone_edges = 8;
  const auto c = threeAt120(0.6);
  const GraspQuality q1 = evaluateGrasp(c, o);
  ASSERT_TRUE(q1.force_closure);
  for (const double k : {2.0, 5.0}) {
    o.torque_radius = k;
    const GraspQuality qk = evaluateGrasp(c, o);
    ASSERT_TRUE(qk.force_closure);
    EXPECT_GE(qk.epsilon, q1.epsilon / k - 1e-12) << k;
    EXPECT_LE(qk.epsilon, q1.epsilon + 1e-12) << k;
    EXPECT_NEAR(qk.volume, q1.volume / (k * k * k), 1e-12 * q1.volume) << k;
  }
  // The cube simplex against linear algebra at lambda = 2.
  o = {};
  o.torque_radius = 2.0;
  EXPECT_NEAR(evaluateGrasp(cubeFormClosure(), o).epsilon,
              simplexEpsilon(wrenchesOf(cubeFormClosure(), o)), 1e-12);
  // Scaling the object about the reference together with lambda leaves every wrench equal.
  auto big = c;
  for (auto& ci : big) ci.point *= 3.0;
  o = {};
  o.torque_radius = 3.0;
  const GraspQuality q3 = evaluateGrasp(big, o);
  EXPECT_NEAR(q3.epsilon, q1.epsilon, 1e-12);
  EXPECT_NEAR(q3.volume, q1.volume, 1e-12);
}

std::vector<GraspContact> randomGrasp(std::mt19937& rng, int n, double max_mu) {
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, max_mu);
  std::uniform_real_distribution<double> r(0.5, 1.5);
  std::vector<GraspContact> c;
  for (int i = 0; i < n; ++i) {
    const Eigen::Vector3d d(g(rng), g(rng), g(rng));
    // Normals tilted from the radial direction, as on a non-spherical object.
    const Eigen::Vector3d tilt(0.3 * g(rng), 0.3 * g(rng), 0.3 * g(rng));
    c.push_back({r(rng) * d.normalized(), (-d.normalized() + tilt).normalized(), u(rng)});
  }
  return c;
}

TEST(GraspQuality, TranslationInvariance) {
  std::mt19937 rng(7);
  int closed = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const auto c = randomGrasp(rng, 3 + trial % 3, 1.0);
    GraspQualityOptions o;
    o.torque_radius = 1.3;
    o.torque_reference = {0.1, -0.05, 0.2};
    const GraspQuality q = evaluateGrasp(c, o);
    closed += q.force_closure;
    const Eigen::Vector3d shift(0.75, -1.25, 2.5);  // exact in binary: shifted sums round alike
    auto moved = c;
    for (auto& ci : moved) ci.point += shift;
    o.torque_reference += shift;
    const GraspQuality qm = evaluateGrasp(moved, o);
    EXPECT_EQ(qm.force_closure, q.force_closure) << trial;
    EXPECT_NEAR(qm.epsilon, q.epsilon, 1e-12) << trial;
    EXPECT_NEAR(qm.volume, q.volume, 1e-12) << trial;
  }
  EXPECT_GT(closed, 3);  // the test must exercise closed grasps
}

TEST(GraspQuality, RotationInvariance) {
  // A rotation R maps every wrench by blockdiag(R, R), an isometry of R^6, provided the cone
  // edges rotate with the contact. They do for signed axis permutations and an even number of
  // edges (the tangent basis is built from coordinate axes; a sign flip of t1 maps the edge
  // polygon onto itself), and trivially without friction for any rotation.
  const Eigen::Matrix3d cyclic = (Eigen::Matrix3d() << 0, 0, 1, 1, 0, 0, 0, 1, 0).finished();
  const Eigen::Matrix3d quarter_x = Eigen::AngleAxisd(kPi / 2, Eigen::Vector3d::UnitX())
                                        .toRotationMatrix()
                                        .array()
                                        .round()
                                        .matrix();
  const auto rotate = [](std::vector<GraspContact> c, const Eigen::Matrix3d& r) {
    for (auto& ci : c) {
      ci.point = r * ci.point;
      ci.normal = r * ci.normal;
    }
    return c;
  };
  std::mt19937 rng(11);
  for (int trial = 0; trial < 10; ++trial) {
    const auto c = randomGrasp(rng, 4, 1.0);
    const GraspQuality q = evaluateGrasp(c, {});
    for (const Eigen::Matrix3d& r : {cyclic, quarter_x}) {
      const GraspQuality qr = evaluateGrasp(rotate(c, r), {});
      EXPECT_EQ(qr.force_closure, q.force_closure) << trial;
      EXPECT_NEAR(qr.epsilon, q.epsilon, 1e-12) << trial;
      EXPECT_NEAR(qr.volume, q.volume, 1e-12) << trial;
    }
  }
  const Eigen::Matrix3d any =
      Eigen::AngleAxisd(0.7, Eigen::Vector3d(1, 2, -0.5).normalized()).toRotationMatrix();
  const GraspQuality q = evaluateGrasp(cubeFormClosure(), {});
  const GraspQuality qr = evaluateGrasp(rotate(cubeFormClosure(), any), {});
  ASSERT_TRUE(qr.force_closure);
  EXPECT_NEAR(qr.epsilon, q.epsilon, 1e-12);
  EXPECT_NEAR(qr.volume, q.volume, 1e-12);
}

TEST(GraspQuality, EpsilonGrowsWithFriction) {
  // With an even number of edges, edge n + mu t lies on the segment between the edges
  // n + mu' t and n - mu' t of a larger mu' (weights (1 +- mu/mu')/2), so every old primitive
  // wrench lies in the new hull: epsilon and volume cannot decrease.
  double last_eps = 0.0, last_vol = 0.0;
  for (const double mu : {0.1, 0.2, 0.4, 0.8, 1.6}) {
    const GraspQuality q = evaluateGrasp(threeAt120(mu), {});
    ASSERT_TRUE(q.force_closure) << mu;
    EXPECT_GE(q.epsilon, last_eps) << mu;
    EXPECT_GE(q.volume, last_vol) << mu;
    last_eps = q.epsilon;
    last_vol = q.volume;
  }
  EXPECT_GT(last_eps, evaluateGrasp(threeAt120(0.1), {}).epsilon);
}

TEST(GraspQuality, MoreConeEdgesApproachTheCircularConeFromBelow) {
  // Edge j of an m-edge cone is at angle 2 pi j / m from the same t1, so the 4 edges are
  // among the 8 and the 8 among the 16: the hulls are nested and epsilon cannot decrease.
  // All edges lie on the circular cone, so each hull lies inside the circular cone's.
  GraspQualityOptions o;
  double last = 0.0;
  for (const int m : {4, 8, 16, 32}) {
    o.cone_edges = m;
    const GraspQuality q = evaluateGrasp(threeAt120(0.5), o);
    ASSERT_TRUE(q.force_closure) << m;
    EXPECT_GE(q.epsilon, last) << m;
    last = q.epsilon;
  }
  // The circular cone's support in f_z is mu, reached already by the 4-edge cone (edge +z).
  EXPECT_LE(last, 0.5 + 1e-12);
}

/// Support function of the exact (circular-cone) wrench space, in closed form. With
/// w = (f, a x f) and u = (u_f, u_t): u . w = f . g, g = u_f + u_t x a. Over the cone
/// f = n + mu t (t tangent, |t| <= 1) the maximum is g . n + mu |g - (g . n) n|.
double circularSupport(const std::vector<GraspContact>& contacts, const Wrench& u, double lambda) {
  double best = -HUGE_VAL;
  for (const auto& c : contacts) {
    const Eigen::Vector3d a = c.point / lambda;
    const Eigen::Vector3d g = u.head<3>() + Eigen::Vector3d(u.tail<3>()).cross(a);
    const double gn = g.dot(c.normal);
    best = std::max(best, gn + c.friction * (g - gn * c.normal).norm());
  }
  return best;
}

TEST(GraspQuality, LinearisedEpsilonBracketsTheCircularConeValue) {
  // The m-edge polygon lies inside the circular cone and contains the circular cone of
  // friction mu cos(pi / m). Hence, with u* the weakest direction of the m-edge hull,
  //   eps_m <= eps_circular <= support_circular(u*) <= eps_m + mu (1 - cos(pi / m)) max |g|,
  // (the last since support_m(u*) = eps_m and each contact's polygon support is at least
  // g . n + mu cos(pi / m) |g_tangential|). All brackets must overlap and shrink like m^-2.
  const double mu = 0.5;
  const auto c = threeAt120(mu);
  double lower = 0.0, upper = HUGE_VAL, last_gap = HUGE_VAL;
  for (const int m : {4, 8, 16, 32, 64}) {
    GraspQualityOptions o;
    o.cone_edges = m;
    const GraspQuality q = evaluateGrasp(c, o);
    ASSERT_TRUE(q.force_closure) << m;
    const Wrench u = q.weakest_direction;
    double g_max = 0.0;
    for (const auto& ci : c)
      g_max = std::max(g_max, (u.head<3>() + Eigen::Vector3d(u.tail<3>()).cross(ci.point)).norm());
    const double top = circularSupport(c, u, 1.0);
    EXPECT_GE(top, q.epsilon - 1e-12) << m;
    EXPECT_LE(top, q.epsilon + mu * (1.0 - std::cos(kPi / m)) * g_max + 1e-12) << m;
    lower = std::max(lower, q.epsilon);
    upper = std::min(upper, top);
    EXPECT_LE(top - q.epsilon, last_gap + 1e-12) << m;
    last_gap = top - q.epsilon;
  }
  EXPECT_LE(lower, upper + 1e-12);
  EXPECT_LT(upper - lower, 1e-3);
}

TEST(GraspQuality, NearlyDegenerateGraspDoesNotCloseOrCrash) {
  // The antipodal pair spans tau_x = 0 only; a third, frictionless contact at (0, 1, 0) whose
  // normal is tilted by 1e-9 towards z adds tau_x = p_y n_z = +1e-9 and never a negative
  // tau_x, so the origin cannot be interior (support(-tau_x) = 0) although the set is
  // numerically 6-D.
  std::vector<GraspContact> c = {onSphere({1, 0, 0}, 0.5), onSphere({-1, 0, 0}, 0.5)};
  c.push_back({{0, 1, 0}, Eigen::Vector3d(0, -1, 1e-9).normalized(), 0.0});
  const GraspQuality q = evaluateGrasp(c, {});
  EXPECT_FALSE(q.force_closure) << q.note;
  EXPECT_EQ(q.epsilon, 0.0);
  const Wrenches w = wrenchesOf(c, {});
  EXPECT_LE(support(w, -Wrench::Unit(3)), 0.0);
}

TEST(GraspQuality, Deterministic) {
  std::mt19937 rng(3);
  const auto c = randomGrasp(rng, 5, 0.8);
  const GraspQuality a = evaluateGrasp(c, {});
  const GraspQuality b = evaluateGrasp(c, {});
  EXPECT_EQ(std::memcmp(&a.epsilon, &b.epsilon, sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(&a.volume, &b.volume, sizeof(double)), 0);
  EXPECT_EQ(a.force_closure, b.force_closure);
  EXPECT_EQ(a.hull_facets, b.hull_facets);
  EXPECT_EQ(a.weakest_direction, b.weakest_direction);
  EXPECT_EQ(a.note, b.note);
}

/// Epsilon by brute force, without qhull or LP: every 6 affinely independent wrenches span a
/// hyperplane; it is a facet when no wrench lies strictly beyond it. The origin is interior
/// iff it lies strictly inside every facet, and epsilon is then the smallest facet distance.
/// Returns the signed minimum (<= 0 without force closure), or NaN if no facet exists.
double bruteForceEpsilon(const Wrenches& w) {
  const int n = static_cast<int>(w.cols());
  double eps = HUGE_VAL;
  std::vector<int> pick = {0, 1, 2, 3, 4, 5};
  while (true) {
    // Hyperplane (a, d) with a . w_i = d through the picked wrenches: kernel of [W_S^T, -1].
    Eigen::Matrix<double, 6, 7> m;
    for (int r = 0; r < 6; ++r)
      m.row(r) << w.col(pick[static_cast<std::size_t>(r)]).transpose(), -1.0;
    const Eigen::FullPivLU<Eigen::Matrix<double, 6, 7>> lu(m);
    if (lu.rank() == 6) {
      Eigen::Matrix<double, 7, 1> k = lu.kernel().col(0);
      Wrench a = k.head<6>();
      if (a.norm() > 1e-9) {
        double d = k[6] / a.norm();
        a.normalize();
        const Eigen::VectorXd side = (a.transpose() * w).transpose().array() - d;
        if (side.maxCoeff() <= 1e-9 || side.minCoeff() >= -1e-9) {
          if (side.maxCoeff() > 1e-9) d = -d;  // orient the normal outwards
          eps = std::min(eps, d);
        }
      }
    }
    int i = 5;
    while (i >= 0 && pick[static_cast<std::size_t>(i)] == n - 6 + i) --i;
    if (i < 0) break;
    ++pick[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < 6; ++j)
      pick[static_cast<std::size_t>(j)] = pick[static_cast<std::size_t>(j - 1)] + 1;
  }
  return eps == HUGE_VAL ? std::nan("") : eps;
}

TEST(GraspQuality, EpsilonEqualsBruteForceFacetEnumeration) {
  std::mt19937 rng(99);
  int closed = 0, open = 0;
  for (int trial = 0; trial < 24; ++trial) {
    GraspQualityOptions o;
    o.cone_edges = 4;
    o.torque_radius = 0.9;
    // 3 or 4 frictional contacts (12 or 16 wrenches), or 7 to 9 frictionless ones.
    const bool frictionless = trial % 3 == 2;
    const auto c =
        frictionless ? randomGrasp(rng, 7 + trial % 3, 0.0) : randomGrasp(rng, 3 + trial % 2, 1.2);
    const GraspQuality q = evaluateGrasp(c, o);
    ASSERT_TRUE(q.note.empty()) << trial << ": " << q.note;
    const double brute = bruteForceEpsilon(wrenchesOf(c, o));
    ASSERT_FALSE(std::isnan(brute)) << trial;
    EXPECT_EQ(q.force_closure, brute > 1e-9) << trial << " brute " << brute;
    EXPECT_NEAR(q.epsilon, std::max(brute, 0.0), 1e-12) << trial;
    (q.force_closure ? closed : open)++;
  }
  EXPECT_GT(closed, 3);
  EXPECT_GT(open, 3);
}

TEST(GraspQuality, RandomGraspsAgreeWithSupportFunctionChecks) {
  // Independent of the hull: with u* = weakest_direction,
  //  - force closure: support(u*) == epsilon (the facet touches the ball, so the true inradius
  //    is <= epsilon) and support(u) >= epsilon for many random unit u (the ball is inside);
  //  - no closure: support(u*) <= 0 certifies that the origin is not interior;
  //  - degenerate: the centred wrenches have a (numerically) zero singular value.
  std::mt19937 rng(2024);
  std::normal_distribution<double> g(0.0, 1.0);
  std::vector<Wrench> directions;
  for (int i = 0; i < 4000; ++i) {
    Wrench u;
    for (int k = 0; k < 6; ++k) u[k] = g(rng);
    directions.push_back(u.normalized());
  }
  int closed = 0, open = 0, flat = 0;
  for (int trial = 0; trial < 60; ++trial) {
    GraspQualityOptions o;
    o.cone_edges = 4 + 2 * (trial % 3);
    o.torque_radius = 0.8;
    const auto c = randomGrasp(rng, 2 + trial % 5, trial % 7 == 0 ? 0.0 : 1.0);
    const Wrenches w = wrenchesOf(c, o);
    const GraspQuality q = evaluateGrasp(c, o);
    if (!q.note.empty()) {
      ++flat;
      EXPECT_FALSE(q.force_closure);
      const Wrenches centred = w.colwise() - w.rowwise().mean();
      const Eigen::JacobiSVD<Eigen::MatrixXd> svd(centred);
      EXPECT_LT(svd.singularValues().minCoeff(), 1e-9) << trial;
      continue;
    }
    const Wrench star = q.weakest_direction;
    ASSERT_NEAR(star.norm(), 1.0, 1e-12);
    if (q.force_closure) {
      ++closed;
      EXPECT_NEAR(support(w, star), q.epsilon, 1e-12) << trial;
      for (const auto& u : directions) ASSERT_GE(support(w, u), q.epsilon - 1e-12) << trial;
    } else {
      ++open;
      EXPECT_EQ(q.epsilon, 0.0);
      EXPECT_LE(support(w, star), 1e-9) << trial;
    }
  }
  EXPECT_GT(closed, 5);
  EXPECT_GT(open, 5);
  EXPECT_GT(flat, 5);
}

}  // namespace
}  // namespace handsim::grasp
