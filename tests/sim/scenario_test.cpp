// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/sim/scenario.hpp"

#include <gtest/gtest.h>

#include "handsim/io/input_error.hpp"

using namespace handsim;
using namespace handsim::sim;

namespace {
std::string scenario(const std::string& trajectories) {
  return "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
         " \"duration_s\": 0.5, \"dt_s\": 0.002, \"record_every\": 5,\n"
         " \"trajectories\": [" +
         trajectories + "]}\n";
}
}  // namespace

// A joint target in degrees becomes encoder counts through the drive ratio: the BarrettHand's
// inner joint turns 1/125 deg per count, so 100 deg is 12500 counts.
TEST(Scenario, JointTargetsInDegreesBecomeActuatorUnits) {
  const Scenario sc = parseScenario(
      scenario("{\"joint\": \"F3.J2\", \"segments\": [{\"to_deg\": 100, \"max_velocity_deg\": 80,"
               " \"max_acceleration_deg\": 160}]}"),
      "s.json");
  ASSERT_EQ(sc.trajectories.size(), 4u);
  const auto& seg = sc.trajectories[2].segments().at(0);
  EXPECT_NEAR(seg.to(), 12500.0, 1e-9);
  EXPECT_NEAR(seg.peakVelocity(), 80.0 * 125.0, 1e-9);  // v^2/a = 40 deg < 100 deg: cruises
  EXPECT_NEAR(sc.options.dt, 0.002, 0);
  Recorder rec(sc.hand);
  int calls = 0;
  double last = 0.0;
  runScenario(sc, rec, [&](double f) {
    ++calls;
    EXPECT_GT(f, last);
    last = f;
  });
  EXPECT_EQ(rec.rowCount(), 1u + 250u / 5u);  // initial row + every 5th of 250 steps
  EXPECT_GE(calls, 90);
  EXPECT_DOUBLE_EQ(last, 1.0);
}

TEST(Scenario, ErrorsAreLocated) {
  auto expect = [](const std::string& text, int line, const std::string& phrase) {
    try {
      parseScenario(text, "bad.json");
      FAIL() << phrase;
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.location().line, line) << e.what();
      EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    }
  };
  expect(scenario("{\"actuator\": \"M3\", \"segments\": [{\"to\": 99999, \"max_velocity\": 1,"
                  " \"max_acceleration\": 1}]}"),
         3, "outside the actuator's range");
  expect(scenario("{\"actuator\": \"M3\", \"segments\": [{\"to\": 100, \"max_velocity\": 0,"
                  " \"max_acceleration\": 1}]}"),
         3, "must be positive");
  expect(scenario("{\"actuator\": \"M3\", \"segments\": [{\"to\": 100, \"max_velocity\": 10,"
                  " \"max_acceleration\": 10, \"start_s\": 1}, {\"to\": 0, \"max_velocity\": 10,"
                  " \"max_acceleration\": 10, \"start_s\": 2}]}"),
         3, "before the previous one ends");
  expect(scenario("{\"actuator\": \"M3\", \"joint\": \"F1.J2\", \"segments\": []}"), 3,
         "exactly one of");
  std::string bad_hand = scenario("");
  bad_hand.replace(bad_hand.find("\"barrett\""), 9, "\"nohand\"");
  expect(bad_hand, 1, "not a built-in hand id");
}
