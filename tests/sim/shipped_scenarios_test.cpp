// SPDX-License-Identifier: GPL-3.0-or-later
// Every scenario in assets/scenarios loads; the grasp scenarios of the hand benchmarks
// (tests/benchmarks/bench_hands.cpp) close on their objects. The Allegro and LEAP ones name
// hands that are not shipped, relative to a folder of $HANDSIM_HAND_PATH
// (docs/scenario-format.md); without them those tests skip, saying so.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "../support/corpus.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/io/input_error.hpp"
#include "handsim/sim/run.hpp"

namespace handsim {
namespace {

namespace fs = std::filesystem;

fs::path scenarioDir() {
  return fs::path(hand::assetDirectory()) / "scenarios";
}

/// The shipped scenarios whose hand is not shipped, with the hand path they name.
struct CorpusScenario {
  const char* file;
  const char* hand;
};
constexpr CorpusScenario kCorpusScenarios[] = {
    {"allegro_grasp_sphere.json", "allegro_hand/allegro_hand_right.urdf"},
    {"allegro_grasp_box.json", "allegro_hand/allegro_hand_right.urdf"},
    {"leap_grasp_sphere.json", "leap_hand/leap_hand_right.urdf"},
};

/// Sets an environment variable for one scope and puts the old value back.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(ShippedScenarios, EveryOneLoads) {
  std::set<std::string> corpus;
  for (const auto& c : kCorpusScenarios) corpus.insert(c.file);
  corpus.insert("arm_barrett_lift_cube.json");  // ArmScenario below
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(scenarioDir()))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 18u);
  int loaded = 0;
  for (const fs::path& f : files) {
    SCOPED_TRACE(f.string());
    if (corpus.count(f.filename().string())) {
      // Loaded by CorpusHandGrasp below when the hand is found; here only its name.
      EXPECT_TRUE(fs::exists(f));
      continue;
    }
    // Sweep files are read by grasp::loadSweep (tests/grasp), not as scenarios.
    std::ifstream in(f);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\"handsim-scenario\"") == std::string::npos) continue;
    EXPECT_NO_THROW(sim::loadScenario(f.string()));
    ++loaded;
  }
  EXPECT_GE(loaded, 13);
}

TEST(ShippedScenarios, Anthro20GraspPressesFingersTogetherAroundTheSphere) {
  const sim::Scenario sc =
      sim::loadScenario((scenarioDir() / "anthro20_grasp_sphere.json").string());
  sim::RunPlan plan = sc.plan;
  plan.record_every = 1000000;
  sim::Run run(sim::compileScenario(sc), plan);
  int late_steps = 0, late_steps_with_link_contacts = 0;
  while (!run.finished()) {
    run.step();
    if (run.state().time <= 0.75) continue;
    ++late_steps;
    late_steps_with_link_contacts += !run.state().link_contacts.empty();
  }
  EXPECT_EQ(run.state().warning_count, 0)
      << (run.state().warnings.empty() ? "" : run.state().warnings.front());
  // The closed hand: fingers on the sphere and on each other on every step of the last half.
  EXPECT_GE(run.state().contacts.size(), 2u);
  EXPECT_GE(run.state().link_contacts.size(), 2u);
  EXPECT_EQ(late_steps_with_link_contacts, late_steps);
}

class CorpusHandGrasp : public ::testing::TestWithParam<CorpusScenario> {};

TEST_P(CorpusHandGrasp, ClosesOnItsObject) {
  const CorpusScenario c = GetParam();
  // Without HANDSIM_HAND_PATH: the corpus's urdf folder (tests/support/corpus.hpp), when one
  // is configured.
  const std::string kCorpusHands = test::corpusPath("urdf");
  std::optional<ScopedEnv> corpus;
  if (!std::getenv("HANDSIM_HAND_PATH") && fs::is_directory(kCorpusHands))
    corpus.emplace("HANDSIM_HAND_PATH", kCorpusHands);
  if (hand::findOnHandSearchPath(c.hand).empty())
    GTEST_SKIP() << c.hand << " is on no folder of HANDSIM_HAND_PATH (the public URDF hands are "
                 << "not shipped; set HANDSIM_HAND_PATH to the folder holding allegro_hand/ and "
                 << "leap_hand/ to run this test)";
  const sim::Scenario sc = sim::loadScenario((scenarioDir() / c.file).string());
  sim::RunPlan plan = sc.plan;
  plan.record_every = 1000000;
  sim::Run run(sim::compileScenario(sc), plan);
  run.runToEnd();
  EXPECT_EQ(run.state().warning_count, 0)
      << (run.state().warnings.empty() ? "" : run.state().warnings.front());
  // Four fingertips (index, middle, ring, thumb) rest on the fixed object at the end.
  std::set<int> fingers;
  for (const auto& k : run.state().contacts) fingers.insert(k.finger);
  EXPECT_EQ(fingers.size(), 4u);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusHandGrasp, ::testing::ValuesIn(kCorpusScenarios),
                         [](const ::testing::TestParamInfo<CorpusScenario>& i) {
                           std::string n = fs::path(i.param.file).stem().string();
                           std::replace(n.begin(), n.end(), '.', '_');
                           return n;
                         });

// A scenario names a hand relative to a folder of $HANDSIM_HAND_PATH; folders are tried in
// order, missing ones skipped, and the error says where it looked.
TEST(HandSearchPath, ScenarioNamesAHandRelativeToTheSearchPath) {
  const fs::path dir =
      fs::temp_directory_path() / ("handsim_hand_path_test_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string text =
      "{\"format\": \"handsim-scenario\", \"version\": 1,\n"
      " \"hand\": \"urdf/wrist_hand.urdf\", \"duration_s\": 0.01}\n";
  {
    ScopedEnv env("HANDSIM_HAND_PATH",
                  (dir / "missing").string() + "::" + hand::assetDirectory() + "/hands");
    EXPECT_EQ(hand::handSearchPath().size(), 2u);
    const sim::Scenario sc = sim::parseScenario(text, (dir / "s.json").string());
    EXPECT_EQ(fs::path(sc.hand->source_file).filename(), "wrist_hand.urdf");
    EXPECT_EQ(hand::findOnHandSearchPath("/urdf/wrist_hand.urdf"), "");  // absolute: never
  }
  {
    ScopedEnv env("HANDSIM_HAND_PATH", (dir / "missing").string());
    try {
      sim::parseScenario(text, (dir / "s.json").string());
      ADD_FAILURE() << "loaded a hand that is on no folder of the path";
    } catch (const io::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("HANDSIM_HAND_PATH"), std::string::npos) << e.what();
    }
  }
  fs::remove_all(dir);
}

// Issue 24's arm + hand assembly: the corpus BarrettHand mounted on the shipped arm closes on
// a free cube on the table and the arm (shoulder lift and elbow) lifts it; the palm's motion
// comes from the arm alone.
TEST(ArmScenario, ArmLiftsTheCubeOffTheTable) {
  const std::string kCorpusHands = test::corpusPath("urdf");
  std::optional<ScopedEnv> corpus;
  if (!std::getenv("HANDSIM_HAND_PATH") && fs::is_directory(kCorpusHands))
    corpus.emplace("HANDSIM_HAND_PATH", kCorpusHands);
  if (hand::findOnHandSearchPath("barrett_hand/bhand_model.urdf").empty())
    GTEST_SKIP() << "barrett_hand/bhand_model.urdf is on no folder of HANDSIM_HAND_PATH (the "
                 << "public URDF hands are not shipped; set HANDSIM_HAND_PATH to run this test)";
  const sim::Scenario sc =
      sim::loadScenario((scenarioDir() / "arm_barrett_lift_cube.json").string());
  ASSERT_EQ(sc.hand->arm.dof(), 5);
  ASSERT_TRUE(sc.plan.palm_motion.empty());
  ASSERT_TRUE(sc.plan.arm.drives());
  sim::RunPlan plan = sc.plan;
  plan.record_every = 1000000;
  sim::Run run(sim::compileScenario(sc), plan);
  const double palm_z0 = run.state().palm_pose_world.translation().z();
  const double cube_z0 = run.state().object_pose_world.at(0).translation().z();
  run.runToEnd();
  EXPECT_EQ(run.state().warning_count, 0)
      << (run.state().warnings.empty() ? "" : run.state().warnings.front());
  const double palm_rise = run.state().palm_pose_world.translation().z() - palm_z0;
  const double cube_rise = run.state().object_pose_world.at(0).translation().z() - cube_z0;
  // The forearm stays vertical: the palm rises 0.30 sin(0.34) m, worked here.
  EXPECT_NEAR(palm_rise, 0.30 * std::sin(0.34), 1e-9);
  // The cube went up with the hand (held, not left on the table): within 2 cm of the palm's rise.
  EXPECT_GT(cube_rise, palm_rise - 0.02);
  EXPECT_LT(cube_rise, palm_rise + 0.02);
  EXPECT_GE(run.state().contacts.size(), 2u);
}

}  // namespace
}  // namespace handsim
