// SPDX-License-Identifier: GPL-3.0-or-later
// io::writeFileAtomically keeps what the file was (its permission bits, a symbolic link to it)
// and leaves the old content and no temporary behind when it fails.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "handsim/io/atomic_file.hpp"

namespace fs = std::filesystem;
using handsim::io::readFile;
using handsim::io::writeFileAtomically;

namespace {

// A fresh empty folder per test.
fs::path freshFolder(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("handsim_atomic_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

mode_t modeOf(const fs::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0) << p;
  return st.st_mode & 07777;
}

std::size_t entries(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST(AtomicFile, KeepsThePermissionsOfAnExistingFile) {
  const fs::path dir = freshFolder("mode");
  const fs::path file = dir / "secret.json";
  std::ofstream(file) << "old";
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
  writeFileAtomically(file.string(), "new");
  EXPECT_EQ(readFile(file.string()), "new");
  EXPECT_EQ(modeOf(file), 0600u);
}

TEST(AtomicFile, NewFileGetsTheUmask) {
  const fs::path dir = freshFolder("umask");
  const mode_t old_mask = ::umask(027);
  writeFileAtomically((dir / "a.txt").string(), "x");
  ::umask(old_mask);
  EXPECT_EQ(modeOf(dir / "a.txt"), 0640u);
}

TEST(AtomicFile, WritesThroughASymbolicLink) {
  const fs::path dir = freshFolder("link");
  fs::create_directories(dir / "real");
  const fs::path target = dir / "real" / "data.csv";
  std::ofstream(target) << "old";
  fs::create_symlink(fs::path("real") / "data.csv", dir / "link.csv");
  writeFileAtomically((dir / "link.csv").string(), "new");
  EXPECT_TRUE(fs::is_symlink(dir / "link.csv"));
  EXPECT_EQ(fs::read_symlink(dir / "link.csv"), fs::path("real") / "data.csv");
  EXPECT_EQ(readFile(target.string()), "new");
  // No temporary left beside the link or the target.
  EXPECT_EQ(entries(dir), 2u);
  EXPECT_EQ(entries(dir / "real"), 1u);
}

// A link whose target's folder is gone: the write fails, and the link is not replaced by a
// regular file.
TEST(AtomicFile, LinkToAMissingFolderFailsAndStaysALink) {
  const fs::path dir = freshFolder("dangling");
  fs::create_symlink(dir / "gone" / "data.csv", dir / "link.csv");
  EXPECT_THROW(writeFileAtomically((dir / "link.csv").string(), "new"), std::runtime_error);
  EXPECT_TRUE(fs::is_symlink(dir / "link.csv"));
  EXPECT_EQ(entries(dir), 1u);
}

// Root ignores permissions, so a write is made to fail by a file-size limit (EFBIG): the old
// content stays and no temporary is left.
TEST(AtomicFile, FailedWriteLeavesTheOldContent) {
  const fs::path dir = freshFolder("fail");
  const fs::path file = dir / "keep.txt";
  std::ofstream(file) << "old content";
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  rlimit small = old_limit;
  small.rlim_cur = 4096;
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  bool threw = false;
  try {
    writeFileAtomically(file.string(), std::string(100000, 'x'));
  } catch (const std::runtime_error& e) {
    threw = true;
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old_limit), 0);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(threw);
  EXPECT_EQ(readFile(file.string()), "old content");
  EXPECT_EQ(entries(dir), 1u);
}

// A folder that is a file, or does not exist: the error names the path.
TEST(AtomicFile, MissingFolderFailsNamingThePath) {
  const fs::path dir = freshFolder("nofolder");
  std::ofstream(dir / "plain") << "old";
  for (const fs::path& p : {dir / "plain" / "x.csv", dir / "missing" / "x.csv"}) {
    try {
      writeFileAtomically(p.string(), "new");
      ADD_FAILURE() << "no error for " << p;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(readFile((dir / "plain").string()), "old");
}
