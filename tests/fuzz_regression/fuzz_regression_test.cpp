// SPDX-License-Identifier: GPL-3.0-or-later
// Replays every seed (tests/fuzz/corpus/<target>/) and every kept finding
// (tests/fuzz/regressions/<target>/) through the same entry functions as the libFuzzer targets
// (tests/fuzz/<target>_entry.hpp), with the normal build and no libFuzzer. A clean outcome is
// a result or the error the API documents; the entry functions let anything else through.
// Inputs whose finding is not fixed yet are listed in known_failures.txt with the reason; they
// are reported, not run (a crash would take the whole test down) and not failed.
#include <gtest/gtest.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "../fuzz/hand_entry.hpp"
#include "../fuzz/mesh_entry.hpp"
#include "../fuzz/scenario_entry.hpp"
#include "../fuzz/sidecar_entry.hpp"
#include "../fuzz/sweep_entry.hpp"
#include "../fuzz/urdf_entry.hpp"
#include "../fuzz/vrml_entry.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kFuzzDir = fs::path(HANDSIM_SOURCE_DIR) / "tests" / "fuzz";
const fs::path kKnownFailures =
    fs::path(HANDSIM_SOURCE_DIR) / "tests" / "fuzz_regression" / "known_failures.txt";

/// known_failures.txt: "<path below tests/fuzz> <reason>" per line; '#' starts a comment line.
std::map<std::string, std::string> knownFailures() {
  std::map<std::string, std::string> known;
  std::ifstream in(kKnownFailures);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string path;
    fields >> path;
    std::string reason;
    std::getline(fields >> std::ws, reason);
    known[path] = reason;
  }
  return known;
}

std::string readBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Inputs of one target below tests/fuzz, as paths relative to it, sorted.
std::vector<std::string> inputsOf(const std::string& target) {
  std::vector<std::string> inputs;
  for (const char* kind : {"corpus", "regressions"}) {
    const fs::path folder = kFuzzDir / kind / target;
    if (!fs::is_directory(folder)) continue;
    for (const auto& entry : fs::directory_iterator(folder))
      if (entry.is_regular_file())
        inputs.push_back(fs::relative(entry.path(), kFuzzDir).generic_string());
  }
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}

template <typename Entry>
void replayAll(const std::string& target, Entry entry) {
  const auto known = knownFailures();
  int loaded = 0;
  int rejected = 0;
  int reported = 0;
  for (const auto& input : inputsOf(target)) {
    if (const auto it = known.find(input); it != known.end()) {
      std::cout << "[ KNOWN    ] " << input << ": " << it->second << '\n';
      ++reported;
      continue;
    }
    try {
      ++(entry(readBytes(kFuzzDir / input)) ? loaded : rejected);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "tests/fuzz/" << input << ": uncaught exception: " << e.what();
    } catch (...) {
      ADD_FAILURE() << "tests/fuzz/" << input << ": uncaught exception of unknown type";
    }
  }
  std::cout << "[ REPLAYED ] " << target << ": " << loaded << " loaded, " << rejected
            << " rejected with the documented error, " << reported << " known failures\n";
  testing::Test::RecordProperty("loaded", loaded);
  testing::Test::RecordProperty("rejected", rejected);
  testing::Test::RecordProperty("known_failures", reported);
  EXPECT_GT(loaded, 0) << "no seed of tests/fuzz/corpus/" << target << " loads";
}

TEST(FuzzRegression, Vrml) {
  replayAll("vrml", handsim::fuzz::runVrmlInput);
}

TEST(FuzzRegression, Hand) {
  replayAll("hand", handsim::fuzz::runHandInput);
}

TEST(FuzzRegression, Scenario) {
  replayAll("scenario", handsim::fuzz::runScenarioInput);
}

TEST(FuzzRegression, Mesh) {
  replayAll("mesh", handsim::fuzz::runMeshInput);
}

TEST(FuzzRegression, Urdf) {
  replayAll("urdf", handsim::fuzz::runUrdfInput);
}

TEST(FuzzRegression, Sidecar) {
  replayAll("sidecar", handsim::fuzz::runSidecarInput);
}

TEST(FuzzRegression, Sweep) {
  replayAll("sweep", handsim::fuzz::runSweepInput);
}

// A stale entry (its input renamed or removed) would hide nothing but mislead the reader.
TEST(FuzzRegression, KnownFailuresNameExistingInputs) {
  for (const auto& [input, reason] : knownFailures()) {
    EXPECT_TRUE(fs::is_regular_file(kFuzzDir / input))
        << "known_failures.txt lists tests/fuzz/" << input << " (" << reason
        << "), which does not exist";
    EXPECT_FALSE(reason.empty()) << "known_failures.txt: no reason given for " << input;
  }
}

}  // namespace
