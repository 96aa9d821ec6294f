// SPDX-License-Identifier: GPL-3.0-or-later
// Every recorder column carries its unit, prismatic joints and actuators included.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/sim/recorder.hpp"
#include "handsim/sim/step.hpp"

using namespace handsim;

TEST(RecorderUnits, OneUnitPerColumn) {
  for (const std::string& id : hand::builtinHandIds()) {
    const hand::HandModel h = hand::loadHand(id);
    const sim::Recorder rec(h);
    EXPECT_EQ(rec.units().size(), rec.columns().size()) << id;
    for (std::size_t i = 0; i < rec.columns().size(); ++i)
      EXPECT_EQ(rec.unit(rec.columns()[i]), rec.units()[i]) << id;
  }
}

TEST(RecorderUnits, PrismaticJointsReportMetresAndNewtons) {
  const hand::HandModel h = hand::loadHand("anthro20");
  const hand::JointRef slot = h.jointRef("thumb.slot");
  ASSERT_GE(slot.finger, 0);
  const auto& chain = h.fingers[static_cast<std::size_t>(slot.finger)];
  ASSERT_EQ(chain.rows[static_cast<std::size_t>(chain.rowOfJoint(slot.joint))].type,
            kinematics::JointType::Prismatic);
  const sim::Recorder rec(h);
  EXPECT_EQ(rec.unit("time"), "s");
  EXPECT_EQ(rec.unit("thumb.slot.angle"), "m");
  EXPECT_EQ(rec.unit("thumb.slot.velocity"), "m/s");
  EXPECT_EQ(rec.unit("thumb.slot.acceleration"), "m/s^2");
  EXPECT_EQ(rec.unit("thumb.slot.torque"), "N");
  EXPECT_EQ(rec.unit("thumb.slot.contact_force"), "N");
  // Its direct actuator is in metres and pushes with a force.
  EXPECT_EQ(rec.unit("thumb.slot.position"), "m");
  EXPECT_EQ(rec.unit("thumb.slot.reference"), "m");
  EXPECT_EQ(rec.unit("thumb.slot.effort"), "N");
  // The revolute joint next to it.
  EXPECT_EQ(rec.unit("thumb.arc.angle"), "rad");
  EXPECT_EQ(rec.unit("thumb.arc.velocity"), "rad/s");
  EXPECT_EQ(rec.unit("thumb.arc.acceleration"), "rad/s^2");
  EXPECT_EQ(rec.unit("thumb.arc.torque"), "N m");
  EXPECT_EQ(rec.unit("thumb.arc.effort"), "N m");
  EXPECT_EQ(rec.unit("thumb.tactile_force"), "N");
}

TEST(RecorderUnits, MotorsTendonsClutchesAndChannels) {
  const hand::HandModel barrett = hand::loadHand("barrett");
  sim::Recorder rec(barrett);
  EXPECT_EQ(rec.unit("M1.position"), "counts");
  EXPECT_EQ(rec.unit("M1.reference"), "counts");
  EXPECT_EQ(rec.unit("M1.effort"), "N m");
  EXPECT_EQ(rec.unit("F1.clutch"), "");
  EXPECT_EQ(rec.unit("F1.inner_load_torque"), "N m");
  rec.addChannel("controller.force", "N", [](const sim::SimState&) { return 0.0; });
  EXPECT_EQ(rec.unit("controller.force"), "N");
  EXPECT_EQ(rec.units().back(), "N");
  EXPECT_THROW(rec.unit("F9.J2.torque"), std::invalid_argument);

  const hand::HandModel kthand = hand::loadHand("kthand");
  const sim::Recorder tendons(kthand);
  EXPECT_EQ(tendons.unit("T_index.position"), "m");
  EXPECT_EQ(tendons.unit("T_index.tension"), "N");
  EXPECT_EQ(tendons.unit("thumb_base.position"), "rad");
}

// A model change that adds or removes columns keeps the rows recorded so far: columns found by
// name keep their values, a new column reads NaN before it existed, a dropped one goes.
TEST(RecorderAdoptRows, KeepsRowsAcrossNewAndDroppedColumns) {
  auto model = sim::compileModel(std::make_shared<const hand::HandModel>(hand::loadHand("barrett")),
                                 {}, sim::Options{});
  const hand::HandModel& h = model->hand();
  sim::Recorder before(h);
  before.addChannel("gone", "m", [](const sim::SimState& s) { return 2.0 * s.time; });
  sim::SimState s = sim::makeState(*model);
  for (int i = 0; i < 5; ++i) {
    s.time = 0.1 * i;
    s.actuator_position[0] = 1000.0 * i;
    before.record(s);
  }
  sim::Recorder after(h);
  after.addChannel("new", "N", [](const sim::SimState& st) { return 3.0 * st.time; });
  after.adoptRows(before);
  ASSERT_EQ(after.rowCount(), 5u);
  EXPECT_EQ(after.recordedRows(), 5);
  EXPECT_EQ(after.columnIndex("gone"), -1);
  const std::vector<double> time = after.series("time");
  const std::vector<double> m1 = after.series("M1.position");
  const std::vector<double> added = after.series("new");
  for (int i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(time[static_cast<std::size_t>(i)], 0.1 * i);
    EXPECT_DOUBLE_EQ(m1[static_cast<std::size_t>(i)], 1000.0 * i);
    EXPECT_TRUE(std::isnan(added[static_cast<std::size_t>(i)]));
  }
  // The next row has every column; a gap before a new column is no non-finite value.
  s.time = 0.5;
  after.record(s);
  EXPECT_DOUBLE_EQ(after.series("new").back(), 1.5);
  EXPECT_TRUE(after.firstNonFinite().empty());
  // Only into an empty recorder.
  EXPECT_THROW(after.adoptRows(before), std::logic_error);
}
