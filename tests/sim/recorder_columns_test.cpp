// SPDX-License-Identifier: GPL-3.0-or-later
// A run's recorder follows its model's columns without a new Run (sim::Run::
// updateRecorderColumns, issue 20 item 3): an object set free brings its columns, the rows
// recorded so far stay (NaN in the new columns before the change), the state and time go on
// untouched, and the next rows record the free object's fall under gravity.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "../support/box_objects.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/geometry/primitives.hpp"
#include "handsim/sim/object_names.hpp"
#include "handsim/sim/run.hpp"

using namespace handsim;

namespace {

TEST(RecorderColumns, AnObjectSetFreeBringsItsColumnsAndTheRowsStay) {
  const Eigen::Vector3d at(0.5, 0.0, 0.3);  // far from the hand
  sim::ObjectModel box = test::boxObject("box", Eigen::Vector3d(0.02, 0.02, 0.02), false, 1000.0);
  auto model = sim::compileModel(test::barrettHand(), {box}, sim::Options{});
  sim::RunPlan plan;
  plan.object_pose_world = {test::at(at)};
  sim::Run run(model, plan);
  for (int i = 0; i < 10; ++i) run.step();
  const std::size_t rows = run.recorder().rowCount();
  ASSERT_EQ(rows, 11u);
  EXPECT_FALSE(run.updateRecorderColumns());  // the model did not change
  const std::vector<std::string> before = run.recorder().columns();
  ASSERT_EQ(std::count(before.begin(), before.end(), "box.z"), 0);

  box.fixed = false;
  run.setModel(sim::withObjects(*model, {box}));
  const sim::SimState state = run.state();
  EXPECT_TRUE(run.updateRecorderColumns());
  EXPECT_FALSE(run.updateRecorderColumns());  // now they match
  const sim::Recorder& rec = run.recorder();
  const std::vector<std::string>& cols = rec.columns();
  ASSERT_EQ(std::count(cols.begin(), cols.end(), "box.z"), 1);
  // The same columns as a run made on the new model from the start.
  const sim::Run fresh(run.modelPtr(), sim::RunPlan{});
  EXPECT_EQ(cols, fresh.recorder().columns());
  EXPECT_EQ(rec.rowCount(), rows);
  for (double z : rec.series("box.z")) EXPECT_TRUE(std::isnan(z));
  EXPECT_EQ(rec.series("time"), [&] {
    std::vector<double> t;
    for (int i = 0; i <= 10; ++i) t.push_back(i * model->options.dt);
    return t;
  }());
  EXPECT_EQ(run.state().step, state.step);
  EXPECT_EQ(run.state().time, state.time);

  // Free now: after n more steps of dt it has fallen g dt^2 n (n + 1) / 2 (semi-implicit
  // Euler from rest), recorded in its new column.
  const int n = 20;
  for (int i = 0; i < n; ++i) run.step();
  const double dt = model->options.dt, g = -model->options.gravity_world.z();
  const double fall = g * dt * dt * n * (n + 1) / 2.0;
  const std::vector<double> z = run.recorder().series("box.z");
  ASSERT_EQ(z.size(), rows + n);
  EXPECT_NEAR(z.back(), at.z() - fall, 1e-9);
}

// Two objects from one file (the same name) get columns of their own: the model names them
// cube and cube_2, skipping a name another object already has (cube_2 given -> cube_3), and
// every recorder column is distinct.
TEST(RecorderColumns, ObjectsOfOneNameGetColumnsOfTheirOwn) {
  std::vector<sim::ObjectModel> objects;
  sim::RunPlan plan;
  for (const char* name : {"cube", "cube", "cube_2", "cube"}) {
    plan.object_pose_world.push_back(test::at({0.5 + 0.1 * objects.size(), 0.0, 0.3}));
    objects.push_back(test::boxObject(name, Eigen::Vector3d(0.02, 0.02, 0.02), true, 1000.0));
  }
  auto model = sim::compileModel(test::barrettHand(), objects, sim::Options{});
  std::vector<std::string> names;
  for (const sim::ObjectModel& o : model->objects) names.push_back(o.name);
  EXPECT_EQ(names, (std::vector<std::string>{"cube", "cube_3", "cube_2", "cube_4"}));
  sim::makeObjectNamesUnique(objects);  // what the scenario reader and the GUI call
  for (std::size_t i = 0; i < objects.size(); ++i) EXPECT_EQ(objects[i].name, names[i]);
  const sim::Run run(model, plan);
  std::vector<std::string> cols = run.recorder().columns();
  EXPECT_EQ(std::count(cols.begin(), cols.end(), "cube_4.z"), 1);
  EXPECT_EQ(std::count(cols.begin(), cols.end(), "contact.F1.cube_3.force"), 1);
  std::sort(cols.begin(), cols.end());
  EXPECT_EQ(std::adjacent_find(cols.begin(), cols.end()), cols.end());
}

}  // namespace
