// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/trapezoidal_profile.hpp"

#include <gtest/gtest.h>

#include <cmath>

using handsim::sim::TrapezoidalProfile;

// 0 -> 17500 counts at 10000 counts/s, 20000 counts/s^2: ta = 0.5 s, the ramps cover
// 2 * 0.5 * 20000 * 0.25 = 5000 counts, the cruise the other 12500 counts in 1.25 s.
TEST(TrapezoidalProfile, PhaseTimesAreExact) {
  const TrapezoidalProfile p(0.0, 17500.0, 10000.0, 20000.0, 0.2);
  EXPECT_DOUBLE_EQ(p.accelerationTime(), 0.5);
  EXPECT_DOUBLE_EQ(p.cruiseTime(), 1.25);
  EXPECT_DOUBLE_EQ(p.duration(), 2.25);
  EXPECT_DOUBLE_EQ(p.end(), 2.45);
  EXPECT_FALSE(p.triangular());
  EXPECT_DOUBLE_EQ(p.position(0.2 + 0.5), 2500.0);
  EXPECT_DOUBLE_EQ(p.position(0.2 + 1.75), 15000.0);
  EXPECT_DOUBLE_EQ(p.velocity(1.0), 10000.0);
  EXPECT_DOUBLE_EQ(p.position(0.0), 0.0);
  EXPECT_DOUBLE_EQ(p.position(10.0), 17500.0);
  EXPECT_DOUBLE_EQ(p.acceleration(0.3), 20000.0);
  EXPECT_DOUBLE_EQ(p.acceleration(1.0), 0.0);
  EXPECT_DOUBLE_EQ(p.acceleration(2.3), -20000.0);
}

// 100 units with v = 50, a = 10: v^2/a = 250 > 100, so no cruise; ta = sqrt(100/10).
TEST(TrapezoidalProfile, ShortMovesAreTriangular) {
  const TrapezoidalProfile p(5.0, -95.0, 50.0, 10.0);
  EXPECT_TRUE(p.triangular());
  EXPECT_DOUBLE_EQ(p.cruiseTime(), 0.0);
  EXPECT_DOUBLE_EQ(p.accelerationTime(), std::sqrt(10.0));
  EXPECT_NEAR(p.peakVelocity(), 10.0 * std::sqrt(10.0), 1e-12);
  EXPECT_NEAR(p.position(p.accelerationTime()), 5.0 - 50.0, 1e-12);  // half way at the peak
  EXPECT_LT(p.velocity(1.0), 0.0);
}

// Velocity is the derivative of position and acceleration that of velocity (finite
// differences away from the phase boundaries); position is continuous everywhere.
TEST(TrapezoidalProfile, DerivativesAreConsistent) {
  for (const TrapezoidalProfile& p :
       {TrapezoidalProfile(0.0, 17500.0, 10000.0, 20000.0, 0.1),
        TrapezoidalProfile(1.0, 0.2, 3.0, 7.0), TrapezoidalProfile(-1.0, 2.0, 1.0, 100.0)}) {
    const double h = 1e-6;
    for (double t = -0.05; t < p.end() + 0.1; t += 0.01237) {
      const double near_boundary = std::min(
          {std::abs(t - p.start()), std::abs(t - p.start() - p.accelerationTime()),
           std::abs(t - p.start() - p.accelerationTime() - p.cruiseTime()), std::abs(t - p.end())});
      const double scale = std::max(1.0, std::abs(p.to() - p.from()));
      EXPECT_NEAR(p.position(t + 1e-12), p.position(t), 1e-8 * scale);
      if (near_boundary < 2 * h) continue;
      EXPECT_NEAR((p.position(t + h) - p.position(t - h)) / (2 * h), p.velocity(t), 1e-4 * scale);
      EXPECT_NEAR((p.velocity(t + h) - p.velocity(t - h)) / (2 * h), p.acceleration(t),
                  1e-3 * scale);
    }
  }
}

TEST(TrapezoidalProfile, RejectsBadLimits) {
  EXPECT_THROW(TrapezoidalProfile(0, 1, 0, 1), std::invalid_argument);
  EXPECT_THROW(TrapezoidalProfile(0, 1, 1, -1), std::invalid_argument);
  EXPECT_THROW(TrapezoidalProfile(0, NAN, 1, 1), std::invalid_argument);
  const TrapezoidalProfile still(3, 3, 1, 1);
  EXPECT_DOUBLE_EQ(still.duration(), 0.0);
  EXPECT_DOUBLE_EQ(still.position(1.0), 3.0);
}
