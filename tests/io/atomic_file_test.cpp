// SPDX-License-Identifier: GPL-3.0-or-later
// io::writeFileAtomically keeps what the file was (its permission bits, a symbolic link to it)
// and leaves the old content and no temporary behind when it fails.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

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

// An output that exists and is not a regular file is refused before anything is written: a
// rename over a FIFO or a device node would replace it with a regular file (as root, even the
// system's /dev/null). A link to one is refused too; the node stays what it was.
TEST(AtomicFile, RefusesDeviceNodesAndFifos) {
  const fs::path dir = freshFolder("nodes");
  std::vector<fs::path> nodes;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0666), 0);
  nodes.push_back(dir / "fifo");
  // A character device like /dev/null (1, 3) needs root (mknod); skipped otherwise.
  if (::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0)
    nodes.push_back(dir / "null");
  fs::create_symlink(dir / "fifo", dir / "link_to_fifo");
  nodes.push_back(dir / "link_to_fifo");
  for (const fs::path& p : nodes) {
    for (int how = 0; how < 3; ++how) {
      try {
        if (how == 0) handsim::io::checkWritable(p.string());
        if (how == 1) writeFileAtomically(p.string(), "new");
        if (how == 2) handsim::io::AtomicFileWriter w(p.string());
        ADD_FAILURE() << "no error for " << p << " (way " << how << ")";
      } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(p.string()), std::string::npos) << what;
        EXPECT_NE(what.find("not a regular file"), std::string::npos) << what;
      }
    }
  }
  struct stat st {};
  ASSERT_EQ(::stat((dir / "fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
  if (nodes.size() == 3) {
    ASSERT_EQ(::stat((dir / "null").c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode));
  }
  EXPECT_TRUE(fs::is_symlink(dir / "link_to_fifo"));
  EXPECT_EQ(entries(dir), nodes.size());  // no temporary left behind
}
