// SPDX-License-Identifier: GPL-3.0-or-later
// Long runs: the recorder streams rows to a CSV file and keeps a bounded, evenly thinned set in
// memory (docs/simulation.md, "Long runs"). Checked against the in-memory recorder of an
// identical run, against the row arithmetic of the thinning worked here, and against the file
// system (nothing appears before the end, nothing is left behind).
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/io/atomic_file.hpp"
#include "handsim/sim/model.hpp"
#include "handsim/sim/run.hpp"

using namespace handsim;
namespace fs = std::filesystem;

namespace {

std::shared_ptr<const sim::Model> barrett() {
  auto hand = std::make_shared<const hand::HandModel>(hand::loadHand("barrett"));
  return sim::compileModel(hand, {}, sim::Options{});
}

// A closing motion on every actuator, so rows differ from each other.
sim::RunPlan closing(const sim::Model& model, double duration) {
  sim::RunPlan plan;
  plan.duration = duration;
  for (const auto& a : model.hand().actuators) {
    const double span = a.upper - a.lower;
    sim::ActuatorTrajectory t;
    t.append(sim::TrapezoidalProfile(a.lower, a.lower + 0.5 * span, span, 4.0 * span));
    plan.trajectories.push_back(t);
  }
  return plan;
}

fs::path freshFolder(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("handsim_stream_" + name + "_" +
                                                         std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::size_t lines(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST(RecorderStream, StreamedFileEqualsTheInMemoryCsvOfTheSameRun) {
  const auto model = barrett();
  const fs::path dir = freshFolder("equal");
  const std::string path = (dir / "run.csv").string();

  sim::Run memory(model, closing(*model, 0.4));
  memory.runToEnd();

  sim::Run streamed(model, closing(*model, 0.4));
  streamed.recorder().streamCsv(path, 1000);  // more than the 401 rows: nothing thinned
  streamed.runToEnd();
  EXPECT_FALSE(fs::exists(path)) << "the file appears only when complete";
  streamed.recorder().finishCsv();
  EXPECT_FALSE(streamed.recorder().streaming());

  const std::string expected = memory.recorder().toCsv();
  EXPECT_EQ(lines(expected), 402u);  // header + 0.4 s / 1 ms + the first row
  EXPECT_EQ(io::readFile(path), expected);
  EXPECT_EQ(entries(dir), 1u) << "no temporary file left";
}

TEST(RecorderStream, KeptRowsStayBoundedAndEvenlySpacedWhileTheFileHasEveryRow) {
  const auto model = barrett();
  const double dt = model->options.dt;
  const fs::path dir = freshFolder("bounded");
  const std::string path = (dir / "long.csv").string();
  constexpr std::size_t kKept = 64;
  constexpr std::int64_t kSteps = 10007;  // not a power of two: the latest row is off-stride

  sim::Run run(model, closing(*model, static_cast<double>(kSteps) * dt));
  run.recorder().streamCsv(path, kKept);
  std::size_t most_kept = 0;
  while (!run.finished()) {
    run.step();
    most_kept = std::max(most_kept, run.recorder().rowCount());
  }
  run.recorder().finishCsv();
  const sim::Recorder& rec = run.recorder();

  EXPECT_EQ(rec.recordedRows(), kSteps + 1);
  EXPECT_LE(most_kept, kKept + 1);  // the limit, plus the latest row when it is off-stride
  // The stride is the smallest power of two that fits the on-stride rows under the limit,
  // worked out here from the halving rule: rows 0, s, 2s, ... below the limit.
  std::int64_t stride = 1;
  while ((kSteps / stride) + 1 >= static_cast<std::int64_t>(kKept)) stride *= 2;
  EXPECT_EQ(rec.keptStride(), stride);
  const std::int64_t on_stride = kSteps / stride + 1;
  const bool latest_extra = kSteps % stride != 0;
  ASSERT_EQ(static_cast<std::int64_t>(rec.rowCount()), on_stride + (latest_extra ? 1 : 0));
  for (std::int64_t r = 0; r < on_stride; ++r)
    EXPECT_NEAR(rec.value(static_cast<std::size_t>(r), 0), static_cast<double>(r * stride) * dt,
                1e-9)
        << "kept row " << r;
  EXPECT_NEAR(rec.value(rec.rowCount() - 1, 0), static_cast<double>(kSteps) * dt, 1e-9)
      << "the final state is always kept";
  // Each kept row is, value for value, the streamed file's row of the same time.
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::int64_t index = 0;
  std::size_t kept = 0;
  while (std::getline(in, line)) {
    if (index % stride == 0 || index == kSteps) {
      std::istringstream cells(line);
      std::string cell;
      for (std::size_t c = 0; std::getline(cells, cell, ','); ++c)
        ASSERT_EQ(std::stod(cell), rec.value(kept, c)) << "row " << index << " column " << c;
      ++kept;
    }
    ++index;
  }
  EXPECT_EQ(index, kSteps + 1) << "the file holds every recorded row";
  EXPECT_EQ(kept, rec.rowCount());
}

TEST(RecorderStream, KeptRowsWithoutStreamingThinTheSameWay) {
  const auto model = barrett();
  sim::RunPlan plan = closing(*model, 0.0);  // endless, like the GUI's free play
  plan.kept_rows = 10;
  sim::Run run(model, plan);
  for (int i = 0; i < 100; ++i) run.step();
  // 101 rows recorded; halving at 10 kept rows: stride 16 keeps rows 0, 16, ..., 96 (7 rows)
  // and the latest (100) besides.
  EXPECT_EQ(run.recorder().recordedRows(), 101);
  EXPECT_EQ(run.recorder().keptStride(), 16);
  ASSERT_EQ(run.recorder().rowCount(), 8u);
  EXPECT_NEAR(run.recorder().value(6, 0), 96 * model->options.dt, 1e-12);
  EXPECT_NEAR(run.recorder().value(7, 0), 100 * model->options.dt, 1e-12);
}

TEST(RecorderStream, AnAbandonedStreamLeavesNoFileAndAResetStartsTheFileAgain) {
  const auto model = barrett();
  const fs::path dir = freshFolder("abandon");
  const std::string path = (dir / "run.csv").string();
  {
    sim::Run run(model, closing(*model, 0.05));
    run.recorder().streamCsv(path);
    run.runToEnd();
    EXPECT_EQ(entries(dir), 1u);  // the temporary file
  }
  EXPECT_EQ(entries(dir), 0u) << "destroyed before finishCsv: nothing left, nothing written";

  sim::Run run(model, closing(*model, 0.05));
  run.recorder().streamCsv(path);
  run.runToEnd();
  run.reset();  // back to time 0: the file restarts with the header and the first row
  run.runToEnd();
  run.recorder().finishCsv();
  EXPECT_EQ(lines(io::readFile(path)), 52u);  // header + 51 rows, not 102
  EXPECT_EQ(entries(dir), 1u);
}

TEST(RecorderStream, AStreamedFileKeepsPermissionsAndWritesThroughASymbolicLink) {
  const auto model = barrett();
  const fs::path dir = freshFolder("link");
  const fs::path target = dir / "target.csv", link = dir / "link.csv";
  io::writeFileAtomically(target.string(), "old\n");
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  fs::create_symlink(target.filename(), link);
  sim::Run run(model, closing(*model, 0.01));
  run.recorder().streamCsv(link.string());
  run.runToEnd();
  run.recorder().finishCsv();
  EXPECT_TRUE(fs::is_symlink(link));
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(io::readFile(target.string()), run.recorder().toCsv());
}

TEST(RecorderStream, AFailedWriteStopsTheRunWithTheFileNamedAndLeavesNothing) {
  const auto model = barrett();
  const fs::path dir = freshFolder("full");
  const std::string path = (dir / "big.csv").string();
  // A file size limit makes write() fail with EFBIG, as a full disk would with ENOSPC.
  struct rlimit old {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
  const auto previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 256 * 1024;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  sim::Run run(model, closing(*model, 20.0));
  run.recorder().streamCsv(path);
  std::string message;
  try {
    run.runToEnd();
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, previous);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_LT(run.state().time, 20.0) << "the run stopped at the failure, not at its end";
  EXPECT_FALSE(run.recorder().streaming());
  EXPECT_EQ(entries(dir), 0u);
}

TEST(RecorderStream, TheFirstNonFiniteValueIsNamedWithItsTime) {
  const auto model = barrett();
  sim::Run run(model, closing(*model, 0.01));
  EXPECT_EQ(run.recorder().firstNonFinite(), "");
  sim::SimState s = run.state();
  s.time = 0.25;
  s.actuator_effort[1] = std::nan("");
  run.recorder().record(s);
  const std::string what = run.recorder().firstNonFinite();
  EXPECT_EQ(what.rfind(model->hand().actuators[1].name + ".effort at t = 0.25", 0), 0u) << what;
}
