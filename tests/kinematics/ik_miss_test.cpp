// SPDX-License-Identifier: GPL-3.0-or-later
// The miss an inverse-kinematics solver reports for an unreachable target is the true distance
// from the target to the fingertips reachable within the joint limits (and the fixed tip
// angle, for the planar solver), to 1 um: checked against an independent brute force, a dense
// grid over the joint box refined by a compass (pattern) search from its best samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <utility>
#include <vector>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/kinematics/closed_form_ik.hpp"
#include "handsim/kinematics/forward_kinematics.hpp"
#include "handsim/kinematics/numerical_ik.hpp"
#include "handsim/kinematics/unreachable_target.hpp"

using namespace handsim;
using namespace handsim::kinematics;

namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kMicron = 1e-6;
constexpr double kInf = std::numeric_limits<double>::infinity();

using Objective = std::function<double(const Eigen::VectorXd&)>;

/// Minimum of f over the box [lo, hi] (f = +inf where infeasible): the best `polish` samples
/// of a grid of `per` values per coordinate (ends included), each refined by a compass search
/// along the coordinate axes and the diagonals of each coordinate pair, step halved down to
/// 1e-10.
double bruteForceMinimum(const Objective& f, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                         int per, int polish) {
  const int n = static_cast<int>(lo.size());
  long long total = 1;
  for (int j = 0; j < n; ++j) total *= per;
  std::vector<std::pair<double, Eigen::VectorXd>> samples;
  samples.reserve(static_cast<std::size_t>(total));
  Eigen::VectorXd q(n);
  for (long long s = 0; s < total; ++s) {
    long long code = s;
    for (int j = 0; j < n; ++j) {
      q[j] = lo[j] + (hi[j] - lo[j]) * static_cast<double>(code % per) / (per - 1.0);
      code /= per;
    }
    const double v = f(q);
    if (std::isfinite(v)) samples.emplace_back(v, q);
  }
  if (samples.empty()) return kInf;
  const auto last = samples.begin() + std::min<std::ptrdiff_t>(polish, samples.size());
  std::partial_sort(samples.begin(), last, samples.end(),
                    [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Eigen::VectorXd> dirs;
  for (int i = 0; i < n; ++i) {
    dirs.push_back(Eigen::VectorXd::Unit(n, i));
    for (int j = i + 1; j < n; ++j) {
      dirs.push_back(Eigen::VectorXd::Unit(n, i) + Eigen::VectorXd::Unit(n, j));
      dirs.push_back(Eigen::VectorXd::Unit(n, i) - Eigen::VectorXd::Unit(n, j));
    }
  }
  double best = kInf;
  for (auto it = samples.begin(); it != last; ++it) {
    Eigen::VectorXd x = it->second;
    double fx = it->first;
    double step = (hi - lo).maxCoeff() / (per - 1.0);
    while (step > 1e-10) {
      bool moved = false;
      for (const auto& d : dirs) {
        for (double sign : {1.0, -1.0}) {
          const Eigen::VectorXd y = (x + sign * step * d).cwiseMax(lo).cwiseMin(hi);
          const double fy = f(y);
          if (fy < fx) {
            x = y;
            fx = fy;
            moved = true;
          }
        }
      }
      if (!moved) step *= 0.5;
    }
    best = std::min(best, fx);
  }
  return best;
}

void jointBox(const Chain& c, Eigen::VectorXd& lo, Eigen::VectorXd& hi) {
  lo.resize(c.dof());
  hi.resize(c.dof());
  for (int j = 0; j < c.dof(); ++j) {
    const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
    lo[j] = row.lower;
    hi[j] = row.upper;
  }
}

/// Brute-force distance from `target` (finger base {k0}) to the reachable tips.
double bruteTipMiss(const Chain& c, const Eigen::Vector3d& target, int per, int polish = 10) {
  Eigen::VectorXd lo, hi;
  jointBox(c, lo, hi);
  return bruteForceMinimum(
      [&](const Eigen::VectorXd& q) { return (fingertipPosition(c, q) - target).norm(); }, lo, hi,
      per, polish);
}

/// Brute-force distance from (x, y) in the frame of the first planar joint to the tips with
/// tip angle phi: the grid runs over the first two planar joints, the third follows from phi
/// (infeasible where it leaves its limits); the other joints keep q_ref.
double brutePlanarMiss(const Chain& c, double x, double y, double phi, const JointVector& q_ref,
                       int per) {
  const int j0 = c.dof() - 3;
  const std::size_t n = c.rows.size();
  const DhRow& r3 = c.rows[n - 1];
  Eigen::VectorXd lo(2), hi(2);
  for (int k = 0; k < 2; ++k) {
    lo[k] = c.rows[n - 3 + k].lower;
    hi[k] = c.rows[n - 3 + k].upper;
  }
  const double offsets = c.rows[n - 3].theta + c.rows[n - 2].theta + r3.theta;
  return bruteForceMinimum(
      [&](const Eigen::VectorXd& q12) {
        // q3 for the whole turn that puts it nearest its limits' middle.
        double q3 = phi - offsets - q12[0] - q12[1];
        const double mid = 0.5 * (r3.lower + r3.upper);
        q3 = mid + std::remainder(q3 - mid, 2.0 * kPi);
        if (q3 < r3.lower || q3 > r3.upper) return kInf;
        JointVector q = q_ref;
        q[j0] = q12[0];
        q[j0 + 1] = q12[1];
        q[j0 + 2] = q3;
        const auto frames = forwardKinematics(c, q);
        const Eigen::Vector3d tip =
            frames.at(static_cast<int>(n) - 3).inverse() * frames.tip().translation();
        return (tip.head<2>() - Eigen::Vector2d(x, y)).norm();
      },
      lo, hi, per, 10);
}

JointVector onTheLimits(const Chain& c, std::mt19937& rng) {
  JointVector q(c.dof());
  std::uniform_int_distribution<int> pick(0, 2);
  for (int j = 0; j < c.dof(); ++j) {
    const auto& row = c.rows[static_cast<std::size_t>(c.rowOfJoint(j))];
    const int k = j == 0 ? pick(rng) % 2 : pick(rng);  // at least one joint on a limit
    q[j] = k == 0   ? row.lower
           : k == 1 ? row.upper
                    : std::uniform_real_distribution<double>(row.lower, row.upper)(rng);
  }
  return q;
}

class IkMiss : public ::testing::Test {
 protected:
  hand::HandModel barrett = hand::loadHand("barrett");
  hand::HandModel dex = hand::loadHand("dexterous3");
  hand::HandModel anthro = hand::loadHand("anthro20");
};

/// Random targets in the cube [-half, half]^3 that `solve` refuses; compares each reported
/// miss with the brute force. Returns how many were compared.
int compareMisses(int count, double half, unsigned seed,
                  const std::function<double(const Eigen::Vector3d&)>& reported,
                  const std::function<double(const Eigen::Vector3d&)>& brute) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-half, half);
  int compared = 0;
  double worst = 0.0;
  for (int attempt = 0; compared < count && attempt < 20 * count; ++attempt) {
    const Eigen::Vector3d p(u(rng), u(rng), u(rng));
    const double miss = reported(p);
    if (miss < 0.0) continue;  // reachable
    const double ref = brute(p);
    EXPECT_NEAR(miss, ref, kMicron) << "target " << p.transpose();
    EXPECT_LE(miss, ref + kMicron) << "target " << p.transpose();
    worst = std::max(worst, std::abs(miss - ref));
    ++compared;
  }
  std::printf("%d targets, worst |miss - brute force| = %.3g m\n", compared, worst);
  return compared;
}

double barrettMiss(const Chain& c, const Eigen::Vector3d& p) {
  try {
    barrettFingerIk(c, p, JointVector::Zero(c.dof()));
    return -1.0;
  } catch (const UnreachableTarget& e) {
    EXPECT_NEAR((fingertipPosition(c, e.closest()) - p).norm(), e.miss(), 1e-12);
    return e.miss();
  }
}

double numericalMiss(const Chain& c, const Eigen::Vector3d& p) {
  try {
    inverseKinematicsNumerical(c, p, JointVector::Zero(c.dof()));
    return -1.0;
  } catch (const UnreachableTarget& e) {
    EXPECT_NEAR((fingertipPosition(c, e.closest()) - p).norm(), e.miss(), 1e-12);
    return e.miss();
  }
}

double planarMiss(const Chain& c, double x, double y, double phi, const JointVector& q_ref) {
  try {
    planarFingerIk(c, x, y, phi, q_ref);
    return -1.0;
  } catch (const UnreachableTarget& e) {
    return e.miss();
  }
}

}  // namespace

TEST_F(IkMiss, BarrettF1MissIsTheTrueDistance) {
  const Chain& f1 = barrett.fingers[0];
  EXPECT_EQ(compareMisses(
                200, 0.2, 21, [&](const Eigen::Vector3d& p) { return barrettMiss(f1, p); },
                [&](const Eigen::Vector3d& p) { return bruteTipMiss(f1, p, 25); }),
            200);
}

TEST_F(IkMiss, BarrettF3MissIsTheTrueDistance) {
  const Chain& f3 = barrett.fingers[2];
  EXPECT_EQ(compareMisses(
                200, 0.2, 22, [&](const Eigen::Vector3d& p) { return barrettMiss(f3, p); },
                [&](const Eigen::Vector3d& p) { return bruteTipMiss(f3, p, 61); }),
            200);
}

TEST_F(IkMiss, DexterousF1WithoutPhiMissIsTheTrueDistance) {
  const Chain& f1 = dex.fingers[0];
  EXPECT_EQ(compareMisses(
                60, 0.2, 23, [&](const Eigen::Vector3d& p) { return numericalMiss(f1, p); },
                [&](const Eigen::Vector3d& p) { return bruteTipMiss(f1, p, 13); }),
            60);
}

TEST_F(IkMiss, AnthroIndexMissIsTheTrueDistance) {
  const Chain& index = anthro.fingers[1];
  EXPECT_EQ(compareMisses(
                60, 0.12, 24, [&](const Eigen::Vector3d& p) { return numericalMiss(index, p); },
                [&](const Eigen::Vector3d& p) { return bruteTipMiss(index, p, 13); }),
            60);
}

TEST_F(IkMiss, DexterousF1WithPhiMissIsTheTrueDistance) {
  const Chain& f1 = dex.fingers[0];
  std::mt19937 rng(25);
  std::uniform_real_distribution<double> u(-0.15, 0.15), angle(-kPi, kPi);
  const JointVector q_ref = JointVector::Zero(f1.dof());
  int compared = 0;
  for (int attempt = 0; compared < 200 && attempt < 4000; ++attempt) {
    const double x = u(rng), y = u(rng), phi = angle(rng);
    const double miss = planarMiss(f1, x, y, phi, q_ref);
    if (miss < 0.0) continue;
    const double ref = brutePlanarMiss(f1, x, y, phi, q_ref, 61);
    if (!std::isfinite(miss)) {
      EXPECT_FALSE(std::isfinite(ref)) << x << " " << y << " " << phi;
      continue;
    }
    EXPECT_NEAR(miss, ref, kMicron) << x << " " << y << " " << phi;
    EXPECT_LE(miss, ref + kMicron) << x << " " << y << " " << phi;
    ++compared;
  }
  EXPECT_EQ(compared, 200);
}

TEST_F(IkMiss, PhiReproducersGiveTheBruteForceNumbers) {
  const Chain& f1 = dex.fingers[0];
  const JointVector q_ref = JointVector::Zero(f1.dof());
  const double first = planarMiss(f1, 0.0, -0.12, 0.0, q_ref);
  EXPECT_NEAR(first, brutePlanarMiss(f1, 0.0, -0.12, 0.0, q_ref, 91), kMicron);
  EXPECT_NEAR(first, 0.17692, 1e-5);  // not 23.69 mm, the wrist point's reach alone
  const double second = planarMiss(f1, 0.12, 0.02, kPi / 4, q_ref);
  EXPECT_NEAR(second, brutePlanarMiss(f1, 0.12, 0.02, kPi / 4, q_ref, 91), kMicron);
  EXPECT_NEAR(second, 0.001716, 1e-6);
}

TEST_F(IkMiss, BarrettReproducerGivesTheBruteForceNumber) {
  const Chain& f1 = barrett.fingers[0];
  const Eigen::Vector3d p(0.08203433631593582, -0.11598649377798803, -0.030243456804369184);
  const double miss = barrettMiss(f1, p);
  EXPECT_NEAR(miss, bruteTipMiss(f1, p, 61), kMicron);
  EXPECT_NEAR(miss, 0.078572, 1e-6);
  // The numerical solver on the same finger agrees.
  EXPECT_NEAR(numericalMiss(f1, p), miss, kMicron);
}

TEST_F(IkMiss, PlanarRoundTripsAtTheJointLimits) {
  const Chain& f1 = dex.fingers[0];
  const std::size_t n = f1.rows.size();
  // The reproducer: FK of (0, 0, 90 deg) in the plane of the first planar joint.
  const JointVector q =
      planarFingerIk(f1, 0.09999999999999998, 0.03, kPi / 2, JointVector::Zero(f1.dof()));
  const auto qf = forwardKinematics(f1, q);
  const Eigen::Vector3d in_plane =
      qf.at(static_cast<int>(n) - 3).inverse() * qf.tip().translation();
  EXPECT_LT((in_plane - Eigen::Vector3d(0.09999999999999998, 0.03, 0.0)).norm(), 1e-9);
  std::mt19937 rng(26);
  for (int trial = 0; trial < 200; ++trial) {
    JointVector qt = onTheLimits(f1, rng);
    qt[0] = 0.0;
    const auto frames = forwardKinematics(f1, qt);
    const Eigen::Isometry3d tip = frames.at(static_cast<int>(n) - 3).inverse() * frames.tip();
    const double phi = std::atan2(tip.linear()(1, 0), tip.linear()(0, 0));
    const JointVector sol = planarFingerIk(f1, tip.translation().x(), tip.translation().y(), phi,
                                           JointVector::Zero(f1.dof()));
    const auto sf = forwardKinematics(f1, sol);
    ASSERT_LT((sf.tip().translation() - frames.tip().translation()).norm(), 1e-9) << qt.transpose();
    ASSERT_LT((sf.tip().linear() - frames.tip().linear()).norm(), 1e-9) << qt.transpose();
  }
}

TEST_F(IkMiss, BarrettRoundTripsAtTheJointLimits) {
  std::mt19937 rng(27);
  for (const Chain* finger : {&barrett.fingers[0], &barrett.fingers[2]}) {
    for (int trial = 0; trial < 200; ++trial) {
      const JointVector q = onTheLimits(*finger, rng);
      const Eigen::Vector3d p = fingertipPosition(*finger, q);
      const JointVector sol = barrettFingerIk(*finger, p, JointVector::Zero(finger->dof()));
      ASSERT_LT((fingertipPosition(*finger, sol) - p).norm(), 1e-9) << q.transpose();
    }
  }
}
