// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/grasp/grasp_sweep.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../support/cli_run.hpp"
#include "handsim/io/atomic_file.hpp"
#include "handsim/io/input_error.hpp"

using namespace handsim;
using namespace handsim::grasp;

namespace {

// Three palm positions around the bottle asset (axis along y, radius 35 mm), the palm facing
// it from +x: 1 m away (nothing can touch), on the axis (the palm is inside the bottle), and
// 140 mm out at a height of 50 mm, where the hand closes on the bottle.
std::string writeSpec(const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << R"({
  "format": "handsim-sweep", "version": 1,
  "object": {"mesh": "objects/bottle.wrl"},
  "closing": "scenarios/barrett_grasp_close.json",
  "palm_orientation": {"rotation": [0, 0, -1, 1, 0, 0, 0, -1, 0]},
  "palm_positions_m": [[1.0, 0.1, 0.0], [0.0, 0.1, 0.0], [0.14, 0.05, -0.035], [0.16, 0.05, -0.035]],
  "friction": 0.5
})";
  return path;
}

int runCli(const std::string& args, std::string* out) {
  const auto r = handsim::test::runCli(args);
  *out = r.out;
  return r.code;
}
}  // namespace

TEST(GraspSweep, FarInsideAndGraspingPoses) {
  const SweepSpec spec = loadSweepSpec(writeSpec("sweep_a.json"));
  ASSERT_EQ(spec.palm_poses.size(), 4u);
  // The torque radius defaults to the farthest vertex from the object's box centre: the
  // bottle is round, 70 mm across and 260 mm tall, so a point of its base rim,
  // sqrt(35^2 + 130^2) mm away.
  EXPECT_NEAR(spec.quality.torque_radius, std::sqrt(0.035 * 0.035 + 0.13 * 0.13), 1e-7);
  const auto results = runSweep(spec, {0, 1, 2, 3}, 1);
  EXPECT_FALSE(results[0].start_collision);
  EXPECT_EQ(results[0].contacts, 0);
  EXPECT_FALSE(results[0].quality.force_closure);
  EXPECT_TRUE(results[1].start_collision);
  EXPECT_EQ(results[1].contacts, 0);
  EXPECT_FALSE(results[2].start_collision);
  EXPECT_GE(results[2].contacts, 3);
  EXPECT_TRUE(results[2].quality.force_closure);
  EXPECT_GT(results[2].quality.epsilon, 0.0);
  EXPECT_NEAR(results[2].palm_position.x(), 0.14, 1e-15);
}

TEST(GraspSweep, ThreadsDoNotChangeResults) {
  const SweepSpec spec = loadSweepSpec(writeSpec("sweep_b.json"));
  const auto one = runSweep(spec, {3, 2, 0}, 1);
  const auto two = runSweep(spec, {3, 2, 0}, 2);
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].index, two[i].index);
    EXPECT_EQ(one[i].contacts, two[i].contacts);
    EXPECT_EQ(one[i].quality.epsilon, two[i].quality.epsilon);  // bit for bit
    EXPECT_EQ(one[i].quality.volume, two[i].quality.volume);
  }
}

// Table I statistics worked by hand: epsilons 0.01, 0.03 over the force-closure grasps give
// mean 0.02 and sample standard deviation sqrt(2 * 0.01^2 / 1).
TEST(GraspSweep, SummaryAndCsvRoundTrip) {
  std::vector<SweepResult> r(4);
  for (int i = 0; i < 4; ++i) r[static_cast<std::size_t>(i)].index = i;
  r[0].start_collision = true;
  r[1].quality.force_closure = true;
  r[1].quality.epsilon = 0.01;
  r[2].quality.force_closure = true;
  r[2].quality.epsilon = 0.03;
  r[2].palm_position = Eigen::Vector3d(0.1, -0.2, 1.0 / 3.0);
  const SweepSummary s = summarize(r);
  EXPECT_EQ(s.configurations, 4);
  EXPECT_EQ(s.collision_free, 3);
  EXPECT_EQ(s.force_closure, 2);
  EXPECT_NEAR(s.epsilon_mean, 0.02, 1e-15);
  EXPECT_NEAR(s.epsilon_std, std::sqrt(2.0) * 0.01, 1e-15);
  const auto back = parseSweepCsv(sweepCsv(r), "r.csv");
  ASSERT_EQ(back.size(), 4u);
  EXPECT_EQ(back[2].palm_position, r[2].palm_position);  // 17 digits read back exactly
  EXPECT_TRUE(back[0].start_collision);
  EXPECT_EQ(back[2].quality.epsilon, 0.03);
  EXPECT_THROW(parseSweepCsv("index,x,y,z,a\n1,2,x\n", "bad.csv"), io::InputError);
  EXPECT_THROW(parseSweepCsv("time,a\n", "bad.csv"), io::InputError);
}

// Two shards cover the poses between them; a rerun finds nothing left to do.
TEST(GraspSweep, CliShardsAndResume) {
  const std::string spec = writeSpec("sweep_c.json");
  const std::string out = ::testing::TempDir() + "/sweep_c.csv";
  std::remove(out.c_str());
  std::string j0, j1, j2;
  ASSERT_EQ(runCli("sweep " + spec + " --out " + out + " --shard 0/2 --quiet", &j0), 0);
  EXPECT_EQ(nlohmann::json::parse(j0)["configurations"], 2);
  ASSERT_EQ(runCli("sweep " + spec + " --out " + out + " --shard 1/2 --quiet --threads 2", &j1), 0);
  const auto all = nlohmann::json::parse(j1);
  EXPECT_EQ(all["configurations"], 4);
  EXPECT_EQ(all["collision_free"], 3);
  const auto rows = parseSweepCsv(io::readFile(out), out);
  ASSERT_EQ(rows.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(rows[static_cast<std::size_t>(i)].index, i);
  ASSERT_EQ(runCli("sweep " + spec + " --out " + out + " --quiet", &j2), 0);
  EXPECT_EQ(nlohmann::json::parse(j2)["configurations"], 4);
  std::string bad;
  EXPECT_EQ(runCli("sweep " + spec + " --out " + out + " --shard 2/2", &bad), 2);
}

TEST(GraspSweep, BadSpecIsLocated) {
  const std::string path = ::testing::TempDir() + "/sweep_bad.json";
  std::ofstream(path)
      << "{\"format\": \"handsim-sweep\", \"version\": 1,\n"
         " \"object\": {\"mesh\": \"objects/bottle.wrl\"},\n"
         " \"closing\": \"scenarios/barrett_grasp_close.json\",\n"
         " \"grid\": {\"x_m\": [0, 1, 2.5], \"y_m\": [0, 0, 1], \"z_m\": [0, 0, 1]}}\n";
  try {
    loadSweepSpec(path);
    FAIL();
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().line, 4) << e.what();
    EXPECT_EQ(e.location().field, "/grid/x_m") << e.what();
  }
}

// ---- The hold test (docs/grasp-sweep.md "Hold test") ----

namespace {

// Four poses of the shipped BarrettHand sweep (barrett_bottle_sweep.json, gravity down the
// bottle's axis): 1 m away (closes on nothing), inside the bottle (start collision), pose 4
// (a force-closure grasp round the bottle's body, epsilon 0.08) and pose 399 (one finger tip
// touches the bottle's shoulder).
std::string writeHoldSpec(const std::string& name, const std::string& extra = "") {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << R"({
  "format": "handsim-sweep", "version": 1,
  "object": {"mesh": "objects/bottle.wrl"},
  "closing": "scenarios/barrett_grasp_close.json",
  "palm_orientation": {"rotation": [0, 0, -1, 1, 0, 0, 0, -1, 0]},
  "palm_positions_m": [[1.0, 0.1, 0.0], [0.0, 0.1, 0.0], [0.14, 0.05, -0.035], [0.19, 0.21, 0.035]],
  "friction": 0.5,
  "hold_test": {"gravity_object_mps2": [0, -9.81, 0])"
                      << extra << R"(}
})";
  return path;
}

}  // namespace

TEST(GraspSweepHold, ForceClosureHoldsOneFingerAndNothingDrop) {
  const SweepSpec spec = loadSweepSpec(writeHoldSpec("hold_a.json"));
  ASSERT_TRUE(spec.hold_test);
  const HoldTestSpec& h = *spec.hold_test;
  const auto r = runSweep(spec, {0, 1, 2, 3}, 2);
  // Inside the bottle: nothing runs.
  EXPECT_TRUE(r[1].start_collision);
  EXPECT_FALSE(r[1].hold);
  // The force-closure grasp (the static oracle) holds: the bottle stays with the palm through
  // the lift and the shake, to well under the tolerance.
  ASSERT_TRUE(r[2].quality.force_closure);
  ASSERT_TRUE(r[2].hold);
  EXPECT_TRUE(r[2].hold->held) << r[2].hold->slip;
  EXPECT_LT(r[2].hold->slip, 0.2 * h.tolerance);
  // One finger tip cannot carry the bottle against gravity: it falls out.
  EXPECT_EQ(r[3].contacts, 1);
  EXPECT_FALSE(r[3].quality.force_closure);
  ASSERT_TRUE(r[3].hold);
  EXPECT_FALSE(r[3].hold->held);
  EXPECT_GT(r[3].hold->slip, 1.0);
  // Nothing touches it: free fall from the moment it is set free, in closed form. At the end
  // of the release it has fallen g tr^2 / 2 and moves at g tr; over the remaining T it falls
  // g tr T + g T^2 / 2 more, while the palm has risen by the lift (the shake ends where it
  // began). Semi-implicit Euler is off by g t dt / 2.
  ASSERT_TRUE(r[0].hold);
  EXPECT_EQ(r[0].contacts, 0);
  EXPECT_FALSE(r[0].hold->held);
  const double g = 9.81, tr = h.release, dt = spec.options.dt;
  const double lift_time =
      sim::TrapezoidalProfile(0.0, h.lift, h.lift_speed, h.lift_acceleration).duration();
  const double T = lift_time + h.shake_cycles / h.shake_frequency_hz + h.settle;
  EXPECT_NEAR(r[0].hold->seat, 0.5 * g * tr * tr, g * tr * dt);
  EXPECT_NEAR(r[0].hold->slip, g * tr * T + 0.5 * g * T * T + h.lift, g * (tr + T) * dt);
}

// Without friction the contact forces are normal to the bottle's body, square to its axis:
// none can carry its weight, so even the force-closure grasp drops it.
TEST(GraspSweepHold, NoFrictionNothingHolds) {
  SweepSpec spec = loadSweepSpec(writeHoldSpec("hold_b.json"));
  spec.friction = 0.0;
  const auto r = runSweep(spec, {2}, 1);
  ASSERT_TRUE(r[0].hold);
  EXPECT_FALSE(r[0].hold->held);
  EXPECT_GT(r[0].hold->slip, spec.hold_test->tolerance);
}

// The hold test runs after the closing: the static results stay bit for bit, and threads do
// not change anything.
TEST(GraspSweepHold, StaticResultsUnchangedAndThreadsAgree) {
  SweepSpec spec = loadSweepSpec(writeHoldSpec("hold_c.json"));
  SweepSpec without = spec;
  without.hold_test.reset();
  const auto plain = runSweep(without, {2, 3}, 1);
  const auto one = runSweep(spec, {2, 3}, 1);
  const auto two = runSweep(spec, {2, 3}, 2);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_FALSE(plain[i].hold);
    EXPECT_EQ(plain[i].contacts, one[i].contacts);
    EXPECT_EQ(plain[i].quality.epsilon, one[i].quality.epsilon);
    EXPECT_EQ(plain[i].quality.volume, one[i].quality.volume);
    ASSERT_TRUE(one[i].hold && two[i].hold);
    EXPECT_EQ(one[i].hold->slip, two[i].hold->slip);  // bit for bit
    EXPECT_EQ(one[i].hold->seat, two[i].hold->seat);
    EXPECT_EQ(one[i].hold->held, two[i].hold->held);
  }
}

// Counts and statistics worked by hand; CSV files with and without the hold columns.
TEST(GraspSweepHold, SummaryAndCsv) {
  std::vector<SweepResult> r(5);
  for (int i = 0; i < 5; ++i) r[static_cast<std::size_t>(i)].index = i;
  r[0].start_collision = true;  // no hold result
  r[1].quality.force_closure = true;
  r[1].quality.epsilon = 0.01;
  r[1].hold = SweepResult::Hold{true, 1e-4, 0.002};
  r[2].quality.force_closure = true;
  r[2].quality.epsilon = 0.03;
  r[2].hold = SweepResult::Hold{true, 2e-4, 0.003};
  r[3].quality.force_closure = true;
  r[3].quality.epsilon = 0.05;
  r[3].hold = SweepResult::Hold{false, 0.5, 0.01};
  r[4].hold = SweepResult::Hold{true, 3e-3, 1.0 / 3.0};  // held without force closure
  const SweepSummary s = summarize(r);
  EXPECT_EQ(s.hold_tested, 4);
  EXPECT_EQ(s.held, 3);
  EXPECT_EQ(s.force_closure_tested, 3);
  EXPECT_EQ(s.held_force_closure, 2);
  EXPECT_NEAR(s.epsilon_held_mean, 0.02, 1e-15);
  EXPECT_NEAR(s.epsilon_held_std, std::sqrt(2.0) * 0.01, 1e-15);
  EXPECT_NEAR(s.epsilon_dropped_mean, 0.05, 1e-15);
  EXPECT_EQ(s.epsilon_dropped_std, 0.0);  // one value

  const std::string csv = sweepCsv(r);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "index,x,y,z,start_collision,contacts,force_closure,epsilon,volume,held,slip_m,seat_m,"
            "spec");
  const auto back = parseSweepCsv(csv, "r.csv");
  ASSERT_EQ(back.size(), 5u);
  EXPECT_FALSE(back[0].hold);
  for (std::size_t i = 1; i < 5; ++i) {
    ASSERT_TRUE(back[i].hold);
    EXPECT_EQ(back[i].hold->held, r[i].hold->held);
    EXPECT_EQ(back[i].hold->slip, r[i].hold->slip);  // 17 digits read back exactly
    EXPECT_EQ(back[i].hold->seat, r[i].hold->seat);
  }
  // A file written before the hold test (resume after an upgrade).
  const auto old = parseSweepCsv(
      "index,x,y,z,start_collision,contacts,force_closure,epsilon,volume\n"
      "7,0.1,0.2,0.3,0,3,1,0.025,0.5\n",
      "old.csv");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].index, 7);
  EXPECT_EQ(old[0].quality.epsilon, 0.025);
  EXPECT_FALSE(old[0].hold);
  // Bad rows name their line.
  const std::string header =
      "index,x,y,z,start_collision,contacts,force_closure,epsilon,volume,held,slip_m,seat_m\n";
  for (const std::string& row : {std::string("1,0,0,0,0,3,1,0.02,0.1,2,0.001,0\n"),
                                 std::string("1,0,0,0,0,3,1,0.02,0.1,1,,0\n"),
                                 std::string("1,0,0,0,0,3,1,0.02,0.1,1,0.001\n"),
                                 std::string("1,0,0,0,0,3,1,0.02x,0.1,,,\n")}) {
    try {
      parseSweepCsv(header + "0,0,0,0,1,0,0,0,0,,,\n" + row, "bad.csv");
      ADD_FAILURE() << row;
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.location().line, 3) << e.what();
    }
  }
}

TEST(GraspSweepHold, BadBlockIsLocated) {
  struct Case {
    std::string extra, field;
  };
  for (const Case& c : std::vector<Case>{
           {",\n \"tolerance_m\": 0", "/hold_test/tolerance_m"},
           {",\n \"lift_speed_mps\": -1", "/hold_test/lift_speed_mps"},
           {",\n \"shake_cycles\": 2.5", "/hold_test/shake_cycles"},
           {",\n \"mass_kg\": 1, \"density_kg_m3\": 500", "/hold_test/density_kg_m3"},
           {",\n \"shake_direction_palm\": [3, 0, 0]", "/hold_test/shake_direction_palm"},
           {",\n \"gravity_object_mps2\": [0, 0, 0]", "/hold_test/gravity_object_mps2"},
           {",\n \"lift\": 0.1", "/hold_test/lift"}}) {
    // The spec's hold_test block starts on line 8; `extra` goes on line 9.
    const std::string text = io::readFile(writeHoldSpec("hold_bad.json", c.extra));
    std::string fixed = text;
    // Two gravity keys would be a JSON duplicate: give the bad one alone.
    if (c.extra.find("gravity") != std::string::npos)
      fixed.replace(fixed.find("\"gravity_object_mps2\": [0, -9.81, 0],"),
                    std::string("\"gravity_object_mps2\": [0, -9.81, 0],").size(), "");
    const std::string path = ::testing::TempDir() + "/hold_bad2.json";
    std::ofstream(path) << fixed;
    try {
      loadSweepSpec(path);
      ADD_FAILURE() << c.field;
    } catch (const io::InputError& e) {
      EXPECT_EQ(e.location().field, c.field) << e.what();
      EXPECT_EQ(e.location().line, 9) << e.what();
    }
  }
}

// --hold-test runs the test with its defaults on a spec without the block; --no-hold-test
// skips a spec's block; both together are a usage error.
TEST(GraspSweepHold, CliFlags) {
  const std::string plain = writeSpec("hold_cli.json");
  const std::string out = ::testing::TempDir() + "/hold_cli.csv";
  std::remove(out.c_str());
  std::string j;
  ASSERT_EQ(runCli("sweep " + plain + " --out " + out + " --hold-test --quiet", &j), 0) << j;
  const auto s = nlohmann::json::parse(j);
  EXPECT_EQ(s["hold_tested"], 3);  // every pose but the start collision
  EXPECT_EQ(s["force_closure_tested"], s["force_closure"]);
  const auto rows = parseSweepCsv(io::readFile(out), out);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_TRUE(rows[0].hold);
  EXPECT_FALSE(rows[1].hold);

  const std::string with = writeHoldSpec("hold_cli2.json");
  const std::string out2 = ::testing::TempDir() + "/hold_cli2.csv";
  std::remove(out2.c_str());
  ASSERT_EQ(runCli("sweep " + with + " --out " + out2 + " --no-hold-test --quiet", &j), 0) << j;
  EXPECT_EQ(nlohmann::json::parse(j)["hold_tested"], 0);
  for (const auto& r : parseSweepCsv(io::readFile(out2), out2)) EXPECT_FALSE(r.hold);
  std::remove(out2.c_str());
  EXPECT_EQ(runCli("sweep " + with + " --out " + out2 + " --hold-test --no-hold-test", &j), 2);
}
