// SPDX-License-Identifier: GPL-3.0-or-later
#include "handsim/io/atomic_file.hpp"
#include "file_kind.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace handsim::io {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what, const std::string& path, int error) {
  throw std::runtime_error("cannot " + what + " '" + path + "': " + std::strerror(error));
}

// The file a write to `path` lands in: a symbolic link is followed (to its target, and on
// through links to links) so that the link stays a link. Links inside the folder part of the
// path need no care: rename works in the folder they lead to.
fs::path resolveTarget(const std::string& path) {
  fs::path p(path);
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::error_code ec;
    const fs::path link = fs::read_symlink(p, ec);
    if (ec) return p;
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
  fail("follow the links of", path, ELOOP);
}

fs::path folderOf(const fs::path& target) {
  return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

// A new, empty file beside `target` with a name no one else uses: ".NAME.<pid>.<n>". Created
// with mode 0666, so the kernel applies the umask as for any new file. Returns the descriptor
// or -1 with errno set.
int createTemporary(const fs::path& target, std::string& name) {
  static std::atomic<unsigned> counter{0};
  const auto salt =
      static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count() & 0xffffff);
  for (int attempt = 0; attempt < 100; ++attempt) {
    name =
        (folderOf(target) / ("." + target.filename().string() + "." + std::to_string(::getpid()) +
                             "." + std::to_string(salt) + "." + std::to_string(counter++)))
            .string();
    const int fd = ::open(name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

// Refuses a `target` that exists and is anything but a regular file: renaming over a device
// node such as /dev/null, a FIFO or a socket would replace it with a regular file. Returns
// whether the target exists; `st` is its status then.
bool requireRegularTarget(const std::string& path, const fs::path& target, struct stat& st) {
  if (::stat(target.c_str(), &st) != 0) return false;
  if (S_ISDIR(st.st_mode)) fail("write", path, EISDIR);
  if (!S_ISREG(st.st_mode))
    throw std::runtime_error("refusing to write '" + path + "': it exists and is " +
                             detail::fileKind(st.st_mode) +
                             ", not a regular file (an output may only replace a regular file "
                             "or a link to one)");
  return true;
}

}  // namespace

void requireRegularOutput(const std::string& path) {
  struct stat st {};
  requireRegularTarget(path, resolveTarget(path), st);
}

void checkWritable(const std::string& path) {
  const fs::path target = resolveTarget(path);
  struct stat st {};
  requireRegularTarget(path, target, st);
  std::string tmp;
  const int fd = createTemporary(target, tmp);
  if (fd < 0) fail("create a file beside", path, errno);
  ::close(fd);
  ::unlink(tmp.c_str());
}

AtomicFileWriter::AtomicFileWriter(const std::string& path) : path_(path) {
  const fs::path target = resolveTarget(path);
  target_ = target.string();
  // An existing file keeps its permission bits; a new one gets 0666 & ~umask from open().
  struct stat old {};
  const bool existed = requireRegularTarget(path, target, old);
  fd_ = createTemporary(target, temporary_);
  if (fd_ < 0) fail("create a temporary file next to", path, errno);
  if (existed && ::fchmod(fd_, old.st_mode & 07777) != 0) abandon("keep the permissions of");
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    ::unlink(temporary_.c_str());
  }
}

void AtomicFileWriter::abandon(const std::string& what) {
  const int error = errno;
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temporary_.c_str());
  fail(what, path_, error);
}

void AtomicFileWriter::write(std::string_view bytes) {
  if (fd_ < 0) throw std::logic_error("AtomicFileWriter: write after commit or failure");
  // POSIX write may be partial; loop until everything is on its way.
  const char* data = bytes.data();
  std::size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, data, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      abandon("write");
    }
    data += n;
    left -= static_cast<std::size_t>(n);
  }
  size_ += bytes.size();
}

void AtomicFileWriter::commit() {
  if (fd_ < 0) throw std::logic_error("AtomicFileWriter: commit twice or after a failure");
  if (::fsync(fd_) != 0) abandon("flush");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    fail("close", path_, error);
  }
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary_.c_str());
    fail("replace", path_, error);
  }
  // The rename is durable once the folder's entry is on disk too. Some file systems cannot
  // sync a folder (EINVAL): the file itself is already flushed there.
  const int dir = ::open(folderOf(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) fail("open the folder of", path_, errno);
  if (::fsync(dir) != 0 && errno != EINVAL) {
    const int error = errno;
    ::close(dir);
    fail("flush the folder of", path_, error);
  }
  ::close(dir);
}

void writeFileAtomically(const std::string& path, std::string_view content) {
  AtomicFileWriter out(path);
  out.write(content);
  out.commit();
}

OutputLock::OutputLock(const std::string& path) {
  const fs::path folder = folderOf(resolveTarget(path));
  fd_ = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) fail("open the folder of", path, errno);
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    fail("lock the folder of", path, error);
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the lock
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("open", path, errno);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace handsim::io
