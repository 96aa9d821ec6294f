// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace handsim::io {

/// Writes `content` to `path` so that readers see either the old file or the complete new one:
/// the bytes go to a temporary file in the same directory, are flushed to disk, the temporary
/// is renamed over `path`, and the directory is flushed. An existing file keeps its permission
/// bits (a new one gets 0666 & ~umask); when `path` is a symbolic link, its target is replaced
/// and the link stays. Throws std::runtime_error naming the path on failure (the old file, if
/// any, is then untouched and no temporary file is left).
void writeFileAtomically(const std::string& path, std::string_view content);

/// A file written in pieces that appears at `path` only when complete, with the guarantees of
/// writeFileAtomically (same temporary file, permissions, symbolic links and flushes): for
/// outputs too large to hold in memory, e.g. the CSV of a long run (sim::Recorder::streamCsv).
/// Destroying a writer that was not committed removes its temporary file and leaves `path` as
/// it was. Every failure throws std::runtime_error naming the path.
class AtomicFileWriter {
 public:
  /// Creates the temporary file beside `path` (or beside its link target).
  explicit AtomicFileWriter(const std::string& path);
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  ~AtomicFileWriter();

  /// Appends bytes to the temporary file.
  void write(std::string_view bytes);
  /// Flushes the temporary file, renames it over `path` and flushes the folder. Only once.
  void commit();
  /// Bytes written so far.
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void abandon(const std::string& what);
  std::string path_;    ///< as given
  std::string target_;  ///< the file that gets replaced (the link target for a link)
  std::string temporary_;
  int fd_ = -1;
  std::size_t size_ = 0;
};

/// Throws std::runtime_error naming the path when `path` (or the file a symbolic link at `path`
/// leads to) exists and is not a regular file: a directory, a device node such as /dev/null, a
/// FIFO or a socket. Renaming a new file over one of those would replace it (as root, even the
/// system's /dev/null), so every output is refused there: checkWritable, writeFileAtomically
/// and AtomicFileWriter call this. A path that does not exist passes.
void requireRegularOutput(const std::string& path);

/// Checks, before any work, that writeFileAtomically(path, ...) can create its file: the
/// folder (of the link's target, for a symbolic link) exists and takes a new file, and `path`
/// is absent or a regular file (requireRegularOutput). Creates and removes an empty file beside
/// the target; throws std::runtime_error naming the path otherwise.
void checkWritable(const std::string& path);

/// An exclusive advisory lock (flock) for processes that read, merge and rewrite the same
/// output, e.g. sweeps of several --shard processes writing one results file: held from
/// construction to destruction on the folder that holds `path` (its link target's), since the
/// file itself is replaced by every atomic write. Blocks until the lock is free; throws
/// std::runtime_error naming the path when the folder cannot be opened or locked.
class OutputLock {
 public:
  explicit OutputLock(const std::string& path);
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  ~OutputLock();

 private:
  int fd_ = -1;
};

/// Reads a whole file; throws std::runtime_error naming the path when it cannot be read.
std::string readFile(const std::string& path);

}  // namespace handsim::io
