// SPDX-License-Identifier: GPL-3.0-or-later
// The public hands of the reference corpus's urdf folder (HANDSIM_CORPUS_DIR; skipped when absent): each loads, its joint
// counts match a count of the file's own <joint> elements, every actuator moves through its
// range within the joint limits, and a short closing motion runs without warnings.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "../support/corpus.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/hand/transmission.hpp"
#include "handsim/sim/run.hpp"

namespace handsim {
namespace {

namespace fs = std::filesystem;
const fs::path kCorpus = test::corpusPath("urdf");

std::vector<fs::path> corpusFiles() {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(kCorpus, ec)) return out;
  for (const auto& e : fs::recursive_directory_iterator(kCorpus, ec))
    if (e.path().extension() == ".urdf") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// Counts of <joint ... type="T"> elements by a plain text scan (comments removed), the
/// independent reference for the reader's joint counts.
std::map<std::string, int> jointTypesInText(const fs::path& p) {
  std::stringstream ss;
  ss << std::ifstream(p).rdbuf();
  const std::string text =
      std::regex_replace(ss.str(), std::regex("<!--[\\s\\S]*?-->"), std::string());
  std::map<std::string, int> out;
  const std::regex joint("<joint\\s[^>]*type\\s*=\\s*\"([a-z]+)\"");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), joint);
       it != std::sregex_iterator(); ++it)
    ++out[(*it)[1].str()];
  const std::regex mimic("<mimic\\s");
  out["mimic"] = static_cast<int>(
      std::distance(std::sregex_iterator(text.begin(), text.end(), mimic), std::sregex_iterator()));
  return out;
}

TEST(UrdfCorpus, EveryPublicHandLoadsMovesAndCloses) {
  const auto files = corpusFiles();
  if (files.empty()) GTEST_SKIP() << kCorpus << " is absent";
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    const auto t0 = std::chrono::steady_clock::now();
    hand::HandModel loaded;
    ASSERT_NO_THROW(loaded = hand::loadUrdfHand(file.string())) << file;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto h = std::make_shared<const hand::HandModel>(std::move(loaded));
    const auto types = jointTypesInText(file);
    const int movable = types.count("revolute") ? types.at("revolute") : 0;
    const int movable_all = movable + (types.count("continuous") ? types.at("continuous") : 0) +
                            (types.count("prismatic") ? types.at("prismatic") : 0);
    int tree_movable = 0;
    for (const auto& j : h->tree.joints) tree_movable += j.type != kinematics::JointType::Fixed;
    EXPECT_EQ(tree_movable, movable_all);
    EXPECT_EQ(static_cast<int>(h->tree.joints.size()),
              movable_all + (types.count("fixed") ? types.at("fixed") : 0));
    EXPECT_EQ(static_cast<int>(h->actuators.size()), movable_all - types.at("mimic"));
    std::printf("%s: %d joints (%d movable, %d mimic), %zu actuators, %zu chains, %.3f s\n",
                file.filename().c_str(), static_cast<int>(h->tree.joints.size()), movable_all,
                types.at("mimic"), h->actuators.size(), h->fingers.size(), seconds);

    // Every actuator through its range: joints stay within limits (mimic joints included).
    for (std::size_t a = 0; a < h->actuators.size(); ++a) {
      std::vector<double> pos(h->actuators.size(), 0.0);
      for (std::size_t k = 0; k < pos.size(); ++k)
        pos[k] = std::clamp(0.0, h->actuators[k].lower, h->actuators[k].upper);
      for (double s : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        pos[a] = h->actuators[a].lower + s * (h->actuators[a].upper - h->actuators[a].lower);
        const auto q = hand::jointPositions(*h, pos);
        const auto bad = hand::jointLimitViolations(*h, q);
        EXPECT_TRUE(bad.empty()) << h->actuators[a].name << ": " << bad.front();
        for (const auto& [name, pose] : h->linkPoses(q))
          EXPECT_TRUE(pose.matrix().allFinite()) << name;
      }
    }

    // A short closing motion: every actuator from its zero-clamped value towards 60% of its
    // range, under gravity, no objects.
    const auto model = sim::compileModel(h, {});
    sim::RunPlan plan;
    plan.duration = 1.0;
    plan.initial.resize(h->actuators.size());
    plan.trajectories.resize(h->actuators.size());
    for (std::size_t a = 0; a < h->actuators.size(); ++a) {
      const auto& act = h->actuators[a];
      plan.initial[a] = std::clamp(0.0, act.lower, act.upper);
      const double to = act.lower + 0.6 * (act.upper - act.lower);
      const double speed = std::max(act.upper - act.lower, 1e-3);
      plan.trajectories[a].append(sim::TrapezoidalProfile(plan.initial[a], to, speed, 5 * speed));
    }
    sim::Run run(model, plan);
    run.runToEnd();
    EXPECT_EQ(run.state().warning_count, 0)
        << (run.state().warnings.empty() ? "" : run.state().warnings.front());
    for (std::size_t a = 0; a < h->actuators.size(); ++a) {
      const auto& act = h->actuators[a];
      const double to = act.lower + 0.6 * (act.upper - act.lower);
      EXPECT_NEAR(run.state().actuator_position[a], to, 0.1 * (act.upper - act.lower) + 1e-6)
          << act.name;
    }
  }
}

}  // namespace
}  // namespace handsim
