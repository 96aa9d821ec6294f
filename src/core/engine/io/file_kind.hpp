// SPDX-License-Identifier: GPL-3.0-or-later
// What a file that is not a regular file is, for the readers' and writers' refusals (internal
// to src/core/engine/io).
#pragma once

#include <sys/stat.h>

namespace handsim::io::detail {

/// "a directory", "a FIFO", "a character device", "a block device", "a socket" or
/// "not a regular file", from stat's st_mode.
inline const char* fileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace handsim::io::detail
