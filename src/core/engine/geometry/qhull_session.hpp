// SPDX-License-Identifier: GPL-3.0-or-later
// One reentrant qhull run with its messages kept in memory (internal to handsim_core): the
// grasp wrench space (grasp/grasp_quality.cpp) and the convex hulls of collision meshes
// (collision/convex_hull.cpp) use it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace handsim::geometry::detail {

/// qhull's messages go to an in-memory stream so nothing reaches the terminal; the first line
/// becomes the message of a failed hull.
class CapturedStream {
 public:
  CapturedStream() : file_(open_memstream(&buffer_, &size_)) {
    // qhull dereferences its error stream, so without memory for messages discard them.
    if (!file_) file_ = std::fopen("/dev/null", "w");
    if (!file_) throw std::runtime_error("qhull: no stream for its messages");
  }
  ~CapturedStream() {
    if (file_) std::fclose(file_);
    std::free(buffer_);
  }
  CapturedStream(const CapturedStream&) = delete;
  CapturedStream& operator=(const CapturedStream&) = delete;
  FILE* file() const { return file_; }
  std::string firstLine() {
    std::fflush(file_);
    std::string text(buffer_ ? buffer_ : "", size_);
    const auto start = text.find_first_not_of(" \n");
    if (start == std::string::npos) return {};
    return text.substr(start, text.find('\n', start) - start);
  }

 private:
  char* buffer_ = nullptr;
  std::size_t size_ = 0;
  FILE* file_ = nullptr;
};

/// Owns one reentrant qhull instance and frees all of its memory.
class Qhull {
 public:
  explicit Qhull(FILE* err) { qh_zero(&qh_, err); }
  ~Qhull() {
    qh_freeqhull(&qh_, !qh_ALL);
    int curlong = 0, totlong = 0;
    qh_memfreeshort(&qh_, &curlong, &totlong);
  }
  Qhull(const Qhull&) = delete;
  Qhull& operator=(const Qhull&) = delete;
  qhT* get() { return &qh_; }

 private:
  qhT qh_;
};

}  // namespace handsim::geometry::detail
