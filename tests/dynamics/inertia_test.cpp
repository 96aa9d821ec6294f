// SPDX-License-Identifier: GPL-3.0-or-later
// The pseudo-inertia against its definition integral(r r^T dm) for point-mass bodies, and the
// inertia reading of docs/design.md section 4 against physical validity.
#include "handsim/dynamics/pseudo_inertia.hpp"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <random>
#include <utility>
#include <vector>

#include "test_chains.hpp"

using namespace handsim;
using namespace handsim::dynamics;
using namespace handsim::dynamics::test;

namespace {

/// Principal moments of a tensor, ascending.
Eigen::Vector3d principalMoments(const Eigen::Matrix3d& t) {
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(t).eigenvalues();
}

/// A rotational inertia is physical iff it is positive definite and its principal moments
/// satisfy the triangle inequalities (the smallest two add up to at least the largest).
bool physical(const Eigen::Matrix3d& t) {
  const Eigen::Vector3d e = principalMoments(t);
  return e[0] > 0.0 && e[0] + e[1] >= e[2];
}

/// Parallel-axis theorem: tensor about the centre of mass from the tensor about the origin.
Eigen::Matrix3d aboutCom(const Eigen::Matrix3d& about_origin, double mass,
                         const Eigen::Vector3d& com) {
  return about_origin -
         mass * (com.squaredNorm() * Eigen::Matrix3d::Identity() - com * com.transpose());
}

}  // namespace

// J = sum m_k r_k r_k^T (homogeneous r) for a body made of point masses, whose mass, centre of
// mass and tensor about the origin are computed here from their definitions.
TEST(PseudoInertia, EqualsPointMassSum) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> mass(0.01, 1.0), pos(-0.2, 0.2), ang(-kPi, kPi);
  for (int trial = 0; trial < 50; ++trial) {
    kinematics::LinkInertia link;
    Eigen::Matrix4d expected = Eigen::Matrix4d::Zero();
    Eigen::Vector3d first_moment = Eigen::Vector3d::Zero();
    std::vector<std::pair<double, Eigen::Vector3d>> points;
    for (int k = 0; k < 7; ++k) {
      const double m = mass(rng);
      const Eigen::Vector3d r(pos(rng), pos(rng), pos(rng));
      points.emplace_back(m, r);
      link.mass += m;
      first_moment += m * r;
      link.inertia += m * (r.squaredNorm() * Eigen::Matrix3d::Identity() - r * r.transpose());
      expected += m * r.homogeneous() * r.homogeneous().transpose();
    }
    link.com = first_moment / link.mass;
    EXPECT_LT((pseudoInertia(link) - expected).cwiseAbs().maxCoeff(), 1e-15);

    const Eigen::Isometry3d t = Eigen::Translation3d(pos(rng), pos(rng), pos(rng)) *
                                Eigen::AngleAxisd(ang(rng), Eigen::Vector3d::UnitZ()) *
                                Eigen::AngleAxisd(ang(rng), Eigen::Vector3d::UnitX());
    Eigen::Matrix4d moved = Eigen::Matrix4d::Zero();
    for (const auto& [m, r] : points) {
      const Eigen::Vector4d rb = (t * r).homogeneous();
      moved += m * rb * rb.transpose();
    }
    EXPECT_LT((pseudoInertiaInBase(link, t) - moved).cwiseAbs().maxCoeff(), 1e-15);
  }
}

// docs/design.md section 4: with the off-diagonal numbers read as products of inertia (tensor entries
// are their negatives), all three Barrett links have physical inertias about the frame origin
// and about their centre of mass, and positive definite pseudo-inertias (the full condition for
// a mass, centre of mass and tensor to belong to one rigid body).
TEST(BarrettInertiaReading, ProductsReadingIsPhysicalForAllLinks) {
  for (std::size_t j = 0; j < 3; ++j) {
    kinematics::LinkInertia link;
    link.mass = kBarrettMass[j];
    link.com = kBarrettCom[j];
    link.inertia = barrettTensor(kBarrettInertiaNumbers[j], true);
    EXPECT_TRUE(physical(link.inertia))
        << "link " << j + 1 << " about origin: " << principalMoments(link.inertia).transpose();
    const Eigen::Matrix3d about_com = aboutCom(link.inertia, link.mass, link.com);
    EXPECT_TRUE(physical(about_com))
        << "link " << j + 1 << " about COM: " << principalMoments(about_com).transpose();
    EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::Matrix4d>(pseudoInertia(link))
                  .eigenvalues()
                  .minCoeff(),
              0.0);
  }
}

// Reading the numbers as tensor entries leaves link 1's tensor about the origin positive
// definite (flipping all off-diagonal signs barely moves its eigenvalues, since xz and yz are
// tiny), but moved to the centre of mass it is not: no rigid body has that mass, centre of mass
// and tensor. So docs/design.md's "link 1 is not positive definite otherwise" holds about the COM,
// and the origin-only check cannot tell the readings apart.
TEST(BarrettInertiaReading, TensorEntryReadingBreaksLink1AboutCom) {
  kinematics::LinkInertia link;
  link.mass = kBarrettMass[0];
  link.com = kBarrettCom[0];
  link.inertia = barrettTensor(kBarrettInertiaNumbers[0], false);
  EXPECT_TRUE(physical(link.inertia)) << principalMoments(link.inertia).transpose();
  const Eigen::Matrix3d about_com = aboutCom(link.inertia, link.mass, link.com);
  EXPECT_LT(principalMoments(about_com)[0], 0.0) << principalMoments(about_com).transpose();
  EXPECT_LT(
      Eigen::SelfAdjointEigenSolver<Eigen::Matrix4d>(pseudoInertia(link)).eigenvalues().minCoeff(),
      0.0);
}
