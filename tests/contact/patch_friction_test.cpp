// SPDX-License-Identifier: GPL-3.0-or-later
// Where a flat patch's friction acts (contact/patch_friction.hpp), checked against what the
// code does not compute: the mean distance of a polygon's area from a point by brute force on
// a fine grid, the square's closed form worked here, and a line's quarter length.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "handsim/contact/patch_friction.hpp"
#include "handsim/geometry/tangent_basis.hpp"

using namespace handsim;

namespace {

double cross2(const Eigen::Vector2d& a, const Eigen::Vector2d& b) {
  return a.x() * b.y() - a.y() * b.x();
}

// Counter-clockwise convex polygon: inside when left of (or on) every edge.
bool inside(const std::vector<Eigen::Vector2d>& poly, const Eigen::Vector2d& p) {
  for (std::size_t i = 0; i < poly.size(); ++i)
    if (cross2(poly[(i + 1) % poly.size()] - poly[i], p - poly[i]) < 0.0) return false;
  return true;
}

// (1 / A) integral |x - c| dA and the area centroid by the midpoints of an n x n grid.
void bruteForce(const std::vector<Eigen::Vector2d>& poly, const Eigen::Vector2d* c, int n,
                double& mean, Eigen::Vector2d& centroid) {
  Eigen::Vector2d lo = poly[0], hi = poly[0];
  for (const auto& p : poly) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  double sum = 0.0;
  long count = 0;
  centroid.setZero();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const Eigen::Vector2d p(lo.x() + (i + 0.5) * (hi.x() - lo.x()) / n,
                              lo.y() + (j + 0.5) * (hi.y() - lo.y()) / n);
      if (!inside(poly, p)) continue;
      ++count;
      centroid += p;
      if (c != nullptr) sum += (p - *c).norm();
    }
  centroid /= static_cast<double>(count);
  mean = sum / static_cast<double>(count);
}

// A random convex polygon: points on an ellipse at sorted random angles.
std::vector<Eigen::Vector2d> randomConvex(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int n = 3 + static_cast<int>(u(rng) * 6);
  std::vector<double> angles;
  for (int i = 0; i < n; ++i) angles.push_back(2.0 * M_PI * u(rng));
  std::sort(angles.begin(), angles.end());
  const double rx = 0.01 + 0.05 * u(rng), ry = 0.01 + 0.05 * u(rng);
  const Eigen::Vector2d shift(u(rng) - 0.5, u(rng) - 0.5);
  std::vector<Eigen::Vector2d> poly;
  for (double t : angles) poly.emplace_back(shift.x() + rx * std::cos(t), shift.y() + ry * std::sin(t));
  return poly;
}

}  // namespace

TEST(PatchFriction, TheSquaresMeanDistanceIsTheClosedForm) {
  const double a = 0.05;
  const std::vector<Eigen::Vector2d> square = {{0, 0}, {a, 0}, {a, a}, {0, a}};
  const double closed = a * (std::sqrt(2.0) + std::log(1.0 + std::sqrt(2.0))) / 6.0;
  EXPECT_NEAR(contact::convexPolygonMeanDistance(square, {0.5 * a, 0.5 * a}), closed,
              1e-12 * a);
  // Clockwise gives the same; from a corner, the quarter of a square of side 2a about its centre.
  const std::vector<Eigen::Vector2d> clockwise(square.rbegin(), square.rend());
  EXPECT_NEAR(contact::convexPolygonMeanDistance(clockwise, {0.5 * a, 0.5 * a}), closed,
              1e-12 * a);
  EXPECT_NEAR(contact::convexPolygonMeanDistance(square, {0.0, 0.0}), 2.0 * closed, 1e-12 * a);
}

TEST(PatchFriction, MeanDistancesOfRandomPolygonsMatchAGrid) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<Eigen::Vector2d> poly = randomConvex(rng);
    // A point inside: a random convex combination of three vertices.
    double w0 = u(rng), w1 = u(rng), w2 = u(rng);
    const double sum = w0 + w1 + w2;
    const Eigen::Vector2d c = (w0 * poly[0] + w1 * poly[1] + w2 * poly[2]) / sum;
    double mean = 0.0;
    Eigen::Vector2d centroid;
    bruteForce(poly, &c, 600, mean, centroid);
    EXPECT_NEAR(contact::convexPolygonMeanDistance(poly, c), mean, 3e-3 * mean) << trial;
  }
}

// Equal loads on the friction points of a patch spinning about its centroid give the Coulomb
// moment of uniform pressure: their mean distance from the centroid equals the area's. The
// points' order and the patch's depth profile do not matter; sliding (the points' mean) moves
// nothing off the centroid; the normal coordinate of each point is kept.
TEST(PatchFriction, EqualLoadsSpinningMeetTheUniformPressureMoment) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<Eigen::Vector2d> poly = randomConvex(rng);
    const Eigen::Vector3d normal = Eigen::Vector3d(u(rng), u(rng), u(rng)).normalized();
    Eigen::Vector3d t1, t2;
    geometry::tangentBasis(normal, t1, t2);
    std::vector<Eigen::Vector3d> points;
    for (const auto& p : poly) points.push_back(p.x() * t1 + p.y() * t2 + 1e-3 * u(rng) * normal);
    std::vector<Eigen::Vector3d> friction(points.size());
    contact::PatchFrictionScratch scratch;
    contact::patchFrictionPoints(points.data(), points.size(), normal, scratch, friction.data());
    double mean = 0.0;
    Eigen::Vector2d centroid;
    bruteForce(poly, nullptr, 600, mean, centroid);
    const Eigen::Vector2d area_centre = centroid;
    bruteForce(poly, &area_centre, 600, mean, centroid);
    double points_mean = 0.0;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const Eigen::Vector2d q(friction[i].dot(t1), friction[i].dot(t2));
      points_mean += (q - area_centre).norm();
      EXPECT_NEAR(friction[i].dot(normal), points[i].dot(normal), 1e-15) << trial;
    }
    points_mean /= static_cast<double>(points.size());
    EXPECT_NEAR(points_mean, mean, 3e-3 * mean) << trial;
    // Reversed order: the same points, reversed.
    std::vector<Eigen::Vector3d> reversed(points.rbegin(), points.rend()), back(points.size());
    contact::patchFrictionPoints(reversed.data(), reversed.size(), normal, scratch, back.data());
    for (std::size_t i = 0; i < points.size(); ++i)
      EXPECT_LT((back[points.size() - 1 - i] - friction[i]).norm(), 1e-15) << trial;
  }
}

TEST(PatchFriction, ALinePatchActsAtAQuarterOfItsLengthAndOnePointStays) {
  const Eigen::Vector3d n = Eigen::Vector3d::UnitZ();
  const std::vector<Eigen::Vector3d> line = {{-0.04, 0.01, 0.0}, {0.04, 0.01, 0.0}};
  std::vector<Eigen::Vector3d> f(2);
  contact::PatchFrictionScratch scratch;
  contact::patchFrictionPoints(line.data(), 2, n, scratch, f.data());
  // A uniform load on a segment of length L: mean distance L / 4 from its middle.
  EXPECT_LT((f[0] - Eigen::Vector3d(-0.02, 0.01, 0.0)).norm(), 1e-15);
  EXPECT_LT((f[1] - Eigen::Vector3d(0.02, 0.01, 0.0)).norm(), 1e-15);
  const Eigen::Vector3d one(0.3, -0.2, 0.1);
  Eigen::Vector3d out;
  contact::patchFrictionPoints(&one, 1, n, scratch, &out);
  EXPECT_EQ(out, one);
}
