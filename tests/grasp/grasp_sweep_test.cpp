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
