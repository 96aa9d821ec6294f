// SPDX-License-Identifier: GPL-3.0-or-later
// Reading a user's input file without trusting it: what the path names is checked (fstat on the
// opened descriptor, so nothing can be swapped in between) before a byte is read, and the read
// never goes past the size limit however the file behaves.
#include "handsim/io/input_file.hpp"
#include "file_kind.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "handsim/io/input_error.hpp"

namespace handsim::io {

namespace {

// Closes the descriptor on every way out of readInputFile.
class Descriptor {
 public:
  explicit Descriptor(int fd) noexcept : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

std::string describeLimit(std::size_t max_bytes) {
  if (max_bytes % (std::size_t{1} << 20) == 0)
    return std::to_string(max_bytes >> 20) + " MiB (" + std::to_string(max_bytes) + " bytes)";
  return std::to_string(max_bytes) + " bytes";
}

[[noreturn]] void tooLarge(const std::string& path, std::size_t max_bytes) {
  throw InputError({path, 0, 0, ""}, "file is larger than the limit of " +
                                         describeLimit(max_bytes) + " for this kind of input");
}

}  // namespace

std::string readInputFile(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0)
    throw InputError({path, 0, 0, ""}, std::string("cannot open file: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    throw InputError({path, 0, 0, ""}, std::string("cannot read file: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw InputError({path, 0, 0, ""},
                     std::string("not a regular file (") + detail::fileKind(st.st_mode) + ")");
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) tooLarge(path, max_bytes);

  // The size may change while reading; read until end of file, but never past the limit.
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t used = 0;
  while (true) {
    if (used == bytes.size()) {
      if (bytes.size() > max_bytes) tooLarge(path, max_bytes);
      bytes.resize(std::min(max_bytes + 1, bytes.size() + 65536));
    }
    const ssize_t n = ::read(fd.get(), bytes.data() + used, bytes.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw InputError({path, 0, 0, ""}, std::string("cannot read file: ") + std::strerror(errno));
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  bytes.resize(used);
  return bytes;
}

}  // namespace handsim::io
