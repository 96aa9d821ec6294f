// SPDX-License-Identifier: GPL-3.0-or-later
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include <filesystem>

#include "handsim/io/atomic_file.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/planner/grasp_records.hpp"
#include "handsim/planner/random.hpp"

using namespace handsim;

namespace {

planner::GraspRecord sample(std::uint64_t seed) {
  planner::Random rng(seed, 0);
  planner::GraspRecord r;
  r.hand = "barrett";
  r.hand_source = "/hands/barrett.json";
  r.object = "cube";
  r.object_source = "/objects/cube.wrl";
  r.object_scale = 0.1 * (1.0 + rng.uniform());
  r.actuators = {"M1", "M2", "M3", "M4"};
  r.run.seed = seed;
  r.run.strategy = "surface-normals";
  r.run.energy = "contact";
  r.run.grasps = 20;
  r.run.candidates = 2000;
  r.run.radius = rng.uniform();
  r.run.distinct_angle = 1.2566370614359172;
  auto& g = r.grasp;
  g.candidate = 17;
  g.palm_object.linear() =
      Eigen::AngleAxisd(rng.uniform(0, 3),
                        Eigen::Vector3d(rng.normal(), rng.normal(), 1).normalized())
          .toRotationMatrix();
  g.palm_object.translation() = Eigen::Vector3d(rng.normal(), rng.normal(), rng.normal()) / 10;
  g.amplitudes = Eigen::Vector2d(rng.uniform(), rng.uniform());
  g.pregrasp = Eigen::Vector4d(rng.uniform(), 1e-300, -0.0, 1.0 / 3.0);
  g.energy = rng.normal();
  g.closed.posture = Eigen::Vector4d(17500, 16000.123456789, 3, 0.1);
  g.closed.q = {Eigen::Vector3d(0.1, 0.2, 0.3), Eigen::Vector3d(rng.uniform(), 0, 1)};
  g.closed.time = 0.437;
  g.closed.stalled = true;
  g.closed.quality.force_closure = true;
  g.closed.quality.epsilon = rng.uniform();
  g.closed.quality.volume = rng.uniform() * 1e-7;
  contact::Contact c;
  c.finger = 2;
  c.row = 1;
  c.object = 0;
  c.point_world = Eigen::Vector3d(rng.normal(), rng.normal(), rng.normal());
  c.normal_world = c.point_world.normalized();
  c.force = 2.5;
  g.closed.contacts = {c};
  planner::ValidationOutcome v;
  v.preset = "tug";
  v.passed = false;
  v.force_closure = true;
  v.epsilon = 0.1;
  v.volume = 0.2;
  planner::DirectionOutcome d;
  d.direction = Eigen::Vector3d::UnitX();
  d.displacement = 0.06;
  d.rotation = 0.1;
  d.time_to_slip = 1.25;
  d.contacts = 3;
  d.links = 2;
  v.directions = {d, d};
  v.directions[1].time_to_slip.reset();
  r.validation = {v};
  return r;
}

}  // namespace

TEST(GraspRecords, RoundTripBitForBit) {
  std::vector<planner::GraspRecord> records = {sample(1), sample(2)};
  // The second closed on the held object, in planning and in validation.
  records[1].grasp.closed.held = true;
  records[1].validation[0].held = true;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("handsim_records_test_" + std::to_string(getpid()) + ".jsonl"))
                               .string();
  planner::saveGraspRecords(path, records);
  const auto back = planner::loadGraspRecords(path);
  std::filesystem::remove(path);
  ASSERT_EQ(back.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& a = records[i].grasp;
    const auto& b = back[i].grasp;
    EXPECT_EQ(a.palm_object.matrix(), b.palm_object.matrix());
    EXPECT_EQ(a.pregrasp, b.pregrasp);
    EXPECT_EQ(a.amplitudes, b.amplitudes);
    EXPECT_EQ(a.energy, b.energy);
    EXPECT_EQ(a.closed.quality.epsilon, b.closed.quality.epsilon);
    EXPECT_EQ(a.closed.q[1], b.closed.q[1]);
    EXPECT_EQ(a.closed.contacts[0].point_world, b.closed.contacts[0].point_world);
    EXPECT_EQ(records[i].object_scale, back[i].object_scale);
    EXPECT_EQ(records[i].run.radius, back[i].run.radius);
    ASSERT_EQ(back[i].validation.size(), 1u);
    EXPECT_EQ(b.closed.held, i == 1);
    EXPECT_EQ(back[i].validation[0].held, i == 1);
    EXPECT_EQ(back[i].validation[0].directions[0].time_to_slip, 1.25);
    EXPECT_FALSE(back[i].validation[0].directions[1].time_to_slip.has_value());
  }
  EXPECT_EQ(planner::graspRecordsText(back), planner::graspRecordsText(records));
  // One grasp per line.
  const std::string text = planner::graspRecordsText(records);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
}

TEST(GraspRecords, ABadLineIsNamedWithItsField) {
  std::string text = planner::graspRecordsText({sample(1), sample(2)});
  const std::size_t second = text.find('\n') + 1;
  const std::size_t at = text.find("\"energy\":", text.find("\"candidate\"", second));
  text.replace(at, 9, "\"energy\":\"x\",\"_e\":");
  try {
    planner::parseGraspRecords("\n" + text, "g.jsonl");
    FAIL() << "accepted a bad energy";
  } catch (const io::InputError& e) {
    EXPECT_EQ(e.location().file, "g.jsonl");
    EXPECT_EQ(e.location().line, 3);  // a blank line, the first grasp, then this one
    EXPECT_EQ(e.location().field, "/energy");
  }
}
