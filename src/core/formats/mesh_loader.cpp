// SPDX-License-Identifier: GPL-3.0-or-later
// Mesh files other than VRML97 go through Assimp 5.2; VRML97 through our own reader (Assimp's
// VRML support is partial and would silently drop PROTOs and Extrusions).
//
// Assimp never runs in this process. Its parsers abort on their own asserts, dereference
// indices taken from the file and loop forever on some truncated headers (issue #12), so the
// import runs in the child program handsim-mesh-import (src/tools/mesh_import) under
// setrlimit's address-space and CPU limits and a wall-clock deadline kept here; whatever
// happens to the child becomes an io::InputError. docs/vrml.md explains the choice.
#include "handsim/formats/mesh_loader.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "handsim/io/input_error.hpp"

namespace handsim::geometry {

namespace {

std::string lowercase(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

bool isVrmlPath(const std::string& path) {
  const std::string p = lowercase(path);
  return endsWith(p, ".wrl") || endsWith(p, ".wrz") || endsWith(p, ".wrl.gz") ||
         endsWith(p, ".vrml");
}

// The reply layout, in native byte order:
//   "HSMESH1\n"
//   i64 dropped_degenerate_faces
//   u32 n, then n x (string node type, i64 count)          ignored_nodes
//   u32 n, then n x string                                   warnings
//   u32 n, then n x shape:
//     string name, 3 x f32 diffuse colour,
//     u64 nv, nv x 3 x f64 vertices [m], u64 nt, nt x 3 x i32 triangles
//   "END\n"
// where a string is a u32 byte count and the bytes. Normals are not sent: the reader recomputes
// them from the vertices exactly as the importer did.
constexpr char kReplyMagic[] = "HSMESH1\n";
constexpr char kReplyEnd[] = "END\n";

class ReplyWriter {
 public:
  template <typename T>
  void put(T value) {
    out_.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void putString(const std::string& s) {
    put(static_cast<std::uint32_t>(s.size()));
    out_ += s;
  }
  void putBytes(const char* text) { out_ += text; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class ReplyReader {
 public:
  ReplyReader(const std::string& bytes, const std::string& path) : bytes_(bytes), path_(path) {}

  template <typename T>
  T get(const char* what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string getString(const char* what) {
    const auto n = get<std::uint32_t>(what);
    need(n, what);
    std::string s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }
  void expectBytes(const char* text, const char* what) {
    const std::size_t n = std::strlen(text);
    need(n, what);
    if (bytes_.compare(at_, n, text) != 0) fail(std::string("no ") + what);
    at_ += n;
  }
  // A count of items of `item_bytes` each, refused when the rest of the reply cannot hold them
  // (so a corrupt count never becomes a huge allocation).
  std::size_t getCount(std::size_t item_bytes, const char* what) {
    const auto n = get<std::uint64_t>(what);
    if (n > (bytes_.size() - at_) / item_bytes) fail(std::string("too few bytes for the ") + what);
    return static_cast<std::size_t>(n);
  }
  bool atEnd() const { return at_ == bytes_.size(); }
  [[noreturn]] void fail(const std::string& why) const {
    throw io::InputError({path_, 0, 0, {}}, "the mesh importer's reply is malformed (" + why +
                                                " at byte " + std::to_string(at_) + " of " +
                                                std::to_string(bytes_.size()) + ")");
  }

 private:
  void need(std::size_t n, const char* what) {
    if (n > bytes_.size() - at_) fail(std::string("cut short in the ") + what);
  }
  const std::string& bytes_;
  const std::string& path_;
  std::size_t at_ = 0;
};

std::string formatSeconds(double s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

std::string signalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGKILL:
      return "SIGKILL";
    case SIGXCPU:
      return "SIGXCPU";
    default:
      return "signal " + std::to_string(sig);
  }
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  // Close-on-exec, so that a child another thread starts at the same time does not hold our
  // write end open (which would hide the end of the reply).
  Pipe(const std::string& path, int flags = 0) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC | flags) != 0)
      throw io::InputError({path, 0, 0, {}}, std::string("cannot start the mesh importer: pipe: ") +
                                                 std::strerror(errno));
    read.reset(fds[0]);
    write.reset(fds[1]);
  }
  Fd read, write;
};

// Kills and reaps the child unless it has been reaped already, whatever leaves the scope.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) : pid_(pid) {}
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;
  ~ChildGuard() {
    kill();
    int status = 0;
    waitFor(status);
  }
  // Blocks until the child ends; returns false when it cannot be reaped (SIGCHLD ignored).
  bool waitFor(int& status) {
    if (pid_ <= 0) return false;
    pid_t r;
    do {
      r = ::waitpid(pid_, &status, 0);
    } while (r < 0 && errno == EINTR);
    pid_ = 0;
    return r > 0;
  }
  // Reaps the child if it has ended; returns false while it still runs.
  bool tryWait(int& status, bool& reaped) {
    pid_t r;
    do {
      r = ::waitpid(pid_, &status, WNOHANG);
    } while (r < 0 && errno == EINTR);
    if (r == 0) return false;
    reaped = r > 0;
    pid_ = 0;
    return true;
  }
  // Never with pid 0 or -1, which would signal the whole process group or every process.
  void kill() {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
  }

 private:
  pid_t pid_;
};

struct ChildOutcome {
  bool timed_out = false;
  bool reaped = true;  // false when the status is unknown (SIGCHLD ignored by the host)
  int status = 0;
  int exec_errno = 0;  // errno of a failed execv, else 0
  std::string out, err;
};

// Runs `program args...` with stdin on /dev/null, the limits of `options` set in the child
// between fork and exec, stdout and stderr read through pipes until both close or the
// deadline passes (then the child is killed).
ChildOutcome runLimited(const std::string& program, const std::vector<std::string>& args,
                        const MeshLoadOptions& options, const std::string& path) {
  // Everything the child needs is prepared here: between fork and exec only async-signal-safe
  // calls are allowed (no allocation: another thread may hold the allocator's lock).
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(program.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // Limits beyond a year are a year (the casts below must not overflow).
  const double limit_s = std::min(options.import_time_limit_s, 3.2e7);
  const auto cpu_s = static_cast<rlim_t>(std::ceil(limit_s)) + 1;
  const rlimit cpu{cpu_s, cpu_s + 1};
  const rlimit memory{options.import_memory_limit_bytes, options.import_memory_limit_bytes};
  const bool limit_memory = options.import_memory_limit_bytes > 0;
  const rlimit no_core{0, 0};
  sigset_t no_signals;
  sigemptyset(&no_signals);
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;

  // The exec status pipe is read only after the child is reaped; non-blocking so that a write
  // end another thread's child inherited for a moment cannot stall that read.
  Pipe out(path), err(path), exec_status(path, O_NONBLOCK);
  const Fd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const pid_t pid = ::fork();
  if (pid < 0)
    throw io::InputError({path, 0, 0, {}}, std::string("cannot start the mesh importer: fork: ") +
                                               std::strerror(errno));
  if (pid == 0) {
    if (null_in.get() >= 0) ::dup2(null_in.get(), 0);
    ::dup2(out.write.get(), 1);
    ::dup2(err.write.get(), 2);
    // The host's blocked or ignored signals would otherwise disarm the CPU limit.
    ::sigprocmask(SIG_SETMASK, &no_signals, nullptr);
    ::sigaction(SIGXCPU, &default_action, nullptr);
    ::setrlimit(RLIMIT_CPU, &cpu);
    if (limit_memory) ::setrlimit(RLIMIT_AS, &memory);
    ::setrlimit(RLIMIT_CORE, &no_core);
    ::execv(argv[0], argv.data());
    const int e = errno;
    // Nothing else can be reported if even this write fails.
    if (::write(exec_status.write.get(), &e, sizeof e) != static_cast<ssize_t>(sizeof e))
      ::_exit(126);
    ::_exit(127);
  }
  ChildGuard child(pid);
  out.write.reset();
  err.write.reset();
  exec_status.write.reset();

  ChildOutcome r;
  constexpr std::size_t kMaxStderr = 64 * 1024;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(limit_s));
  // Both pipes are watched at once: a child blocked writing a full stderr pipe while we wait
  // on stdout (or the reverse) would otherwise deadlock.
  pollfd fds[2] = {{out.read.get(), POLLIN, 0}, {err.read.get(), POLLIN, 0}};
  char buffer[65536];
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)) + 1);
    if (ready < 0 && errno != EINTR)
      throw io::InputError({path, 0, 0, {}},
                           std::string("mesh importer: poll: ") + std::strerror(errno));
    for (int i = 0; i < 2 && ready > 0; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        const auto got = static_cast<std::size_t>(n);
        if (i == 0)
          r.out.append(buffer, got);
        else
          r.err.append(buffer, std::min(got, kMaxStderr - std::min(kMaxStderr, r.err.size())));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // end of file (the Fd still closes it)
      }
    }
  }
  // Both pipes are closed: the child is exiting; give it until the deadline to do so.
  while (!r.timed_out && !child.tryWait(r.status, r.reaped)) {
    if (std::chrono::steady_clock::now() >= deadline)
      r.timed_out = true;
    else
      ::poll(nullptr, 0, 2);
  }
  if (r.timed_out) {
    child.kill();
    r.reaped = child.waitFor(r.status);
  }
  int e = 0;
  if (::read(exec_status.read.get(), &e, sizeof e) == static_cast<ssize_t>(sizeof e))
    r.exec_errno = e;
  return r;
}

LoadedModel loadWithImporter(const std::string& path, const MeshLoadOptions& options) {
  if (!(options.import_time_limit_s > 0.0) || !std::isfinite(options.import_time_limit_s))
    throw io::InputError({path, 0, 0, "import_time_limit_s"},
                         "the import time limit must be a positive finite number of seconds");
  const std::string program = meshImporterPath();
  std::ostringstream scale;
  scale.precision(17);
  scale << options.scale;
  const ChildOutcome r =
      runLimited(program, {path, scale.str(), options.weld_vertices ? "1" : "0"}, options, path);
  const std::string limit = formatSeconds(options.import_time_limit_s) + " s";
  auto error = [&](const std::string& problem) {
    return io::InputError({path, 0, 0, {}}, problem);
  };
  if (r.exec_errno != 0)
    throw error("cannot run the mesh importer '" + program + "': " + std::strerror(r.exec_errno) +
                " (set HANDSIM_MESH_IMPORTER to the handsim-mesh-import program)");
  if (r.timed_out) throw error("the importer took longer than " + limit + " and was stopped");
  if (!r.reaped) throw error("the importer's exit status is unknown (SIGCHLD is ignored)");
  if (WIFSIGNALED(r.status)) {
    const int sig = WTERMSIG(r.status);
    if (sig == SIGXCPU || sig == SIGKILL)
      throw error("the importer used more than " + limit + " of CPU time and was stopped (" +
                  signalName(sig) + ")");
    throw error("the importer crashed (" + signalName(sig) + "): Assimp cannot read this file");
  }
  const int code = WIFEXITED(r.status) ? WEXITSTATUS(r.status) : -1;
  if (code == 0) return decodeMeshReply(r.out, path);
  if (code == 2) throw error(trimmed(r.err));
  if (code == 3)
    throw error("the importer ran out of memory (limit " +
                std::to_string(options.import_memory_limit_bytes >> 20) + " MiB)");
  throw error("the importer failed (exit status " + std::to_string(code) +
              (r.err.empty() ? std::string(")") : "): " + trimmed(r.err)));
}

}  // namespace

std::string meshImporterPath() {
  if (const char* env = std::getenv("HANDSIM_MESH_IMPORTER"); env && *env) return env;
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    const auto sibling =
        std::filesystem::path(std::string(self, static_cast<std::size_t>(n))).parent_path() /
        "handsim-mesh-import";
    if (::access(sibling.c_str(), X_OK) == 0) return sibling.string();
  }
  // Inside another program (the Python module in python3): next to the shared object that
  // holds this code, where `cmake --install` puts the program beside the module.
  Dl_info info;
  if (::dladdr(reinterpret_cast<void*>(&meshImporterPath), &info) != 0 && info.dli_fname) {
    const auto sibling =
        std::filesystem::path(info.dli_fname).parent_path() / "handsim-mesh-import";
    if (::access(sibling.c_str(), X_OK) == 0) return sibling.string();
  }
  return HANDSIM_MESH_IMPORTER_PATH;
}

std::string encodeMeshReply(const LoadedModel& model) {
  ReplyWriter w;
  w.putBytes(kReplyMagic);
  w.put(static_cast<std::int64_t>(model.dropped_degenerate_faces));
  w.put(static_cast<std::uint32_t>(model.ignored_nodes.size()));
  for (const auto& [type, count] : model.ignored_nodes) {
    w.putString(type);
    w.put(static_cast<std::int64_t>(count));
  }
  w.put(static_cast<std::uint32_t>(model.warnings.size()));
  for (const auto& warning : model.warnings) w.putString(warning);
  w.put(static_cast<std::uint32_t>(model.shapes.size()));
  for (const auto& s : model.shapes) {
    w.putString(s.name);
    for (int k = 0; k < 3; ++k) w.put(s.diffuse_color[k]);
    w.put(static_cast<std::uint64_t>(s.mesh.vertices.size()));
    for (const auto& v : s.mesh.vertices)
      for (int k = 0; k < 3; ++k) w.put(v[k]);
    w.put(static_cast<std::uint64_t>(s.mesh.triangles.size()));
    for (const auto& t : s.mesh.triangles)
      for (int i : t) w.put(static_cast<std::int32_t>(i));
  }
  w.putBytes(kReplyEnd);
  return w.take();
}

LoadedModel decodeMeshReply(const std::string& reply, const std::string& path) {
  ReplyReader r(reply, path);
  LoadedModel model;
  r.expectBytes(kReplyMagic, "header");
  model.dropped_degenerate_faces = static_cast<int>(r.get<std::int64_t>("count of dropped faces"));
  for (auto n = r.get<std::uint32_t>("ignored nodes"); n > 0; --n) {
    std::string type = r.getString("ignored node type");
    model.ignored_nodes[type] = static_cast<int>(r.get<std::int64_t>("ignored node count"));
  }
  for (auto n = r.get<std::uint32_t>("warnings"); n > 0; --n)
    model.warnings.push_back(r.getString("warning"));
  for (auto n = r.get<std::uint32_t>("shapes"); n > 0; --n) {
    MeshShape s;
    s.name = r.getString("shape name");
    for (int k = 0; k < 3; ++k) s.diffuse_color[k] = r.get<float>("diffuse colour");
    s.mesh.vertices.resize(r.getCount(3 * sizeof(double), "vertices"));
    for (auto& v : s.mesh.vertices)
      for (int k = 0; k < 3; ++k) v[k] = r.get<double>("vertices");
    s.mesh.triangles.resize(r.getCount(3 * sizeof(std::int32_t), "triangles"));
    for (auto& t : s.mesh.triangles)
      for (int& i : t) {
        i = r.get<std::int32_t>("triangles");
        if (i < 0 || static_cast<std::size_t>(i) >= s.mesh.vertices.size())
          r.fail("vertex index " + std::to_string(i) + " out of range");
      }
    s.mesh.updateNormals();
    model.shapes.push_back(std::move(s));
  }
  r.expectBytes(kReplyEnd, "end marker");
  if (!r.atEnd()) r.fail("bytes after the end marker");
  return model;
}

namespace {

/// The first face of an OBJ file that names a vertex the file does not have (Assimp's "vertex
/// index out of range" names no line): its line and what is wrong; line 0 when none.
std::pair<int, std::string> objFaceProblem(const std::string& path) {
  const auto isVertex = [](const std::string& text) {
    std::size_t i = text.find_first_not_of(" \t");
    return i != std::string::npos && text.compare(i, 2, "v ") == 0;
  };
  long long total = 0;
  std::string text;
  for (std::ifstream in(path); std::getline(in, text);) total += isVertex(text) ? 1 : 0;
  std::ifstream in(path);
  long long above = 0;  // negative indices count back from the last vertex read
  for (int line = 1; std::getline(in, text); ++line) {
    if (isVertex(text)) ++above;
    std::istringstream words(text);
    std::string kind;
    words >> kind;
    if (kind != "f" && kind != "l" && kind != "p") continue;
    for (std::string corner; words >> corner;) {
      // "7", "7/2", "7//3" or "-1".
      char* end = nullptr;
      const long long index = std::strtoll(corner.c_str(), &end, 10);
      if (end == corner.c_str()) break;  // a comment or something Assimp reports itself
      const long long absolute = index < 0 ? above + 1 + index : index;
      if (absolute < 1 || absolute > total)
        return {line, "face vertex " + std::to_string(index) + " does not exist (the file has " +
                          std::to_string(total) + " vertices)"};
    }
  }
  return {0, {}};
}

}  // namespace

LoadedModel loadMesh(const std::string& path, const MeshLoadOptions& options) {
  if (!(options.scale > 0.0) || !std::isfinite(options.scale))
    throw io::InputError({path, 0, 0, "scale"}, "scale must be a positive finite number");
  // Error-code forms: a name the file system refuses (longer than 255 bytes) is a bad input,
  // not an uncaught filesystem_error.
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec && status.type() != std::filesystem::file_type::not_found)
    throw io::InputError({path, 0, 0, {}}, "cannot use this file name: " + ec.message());
  if (std::filesystem::is_directory(status))
    throw io::InputError({path, 0, 0, {}}, "is a folder, not a mesh file");
  if (!std::filesystem::is_regular_file(status))
    throw io::InputError({path, 0, 0, {}},
                         std::filesystem::exists(status) ? "not a regular file" : "no such file");
  if (!isVrmlPath(path)) {
    try {
      return loadWithImporter(path, options);
    } catch (const io::InputError& e) {
      std::string ext = std::filesystem::path(path).extension().string();
      std::transform(ext.begin(), ext.end(), ext.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (ext != ".obj" || e.location().line > 0) throw;
      const auto [line, what] = objFaceProblem(path);
      if (line == 0) throw;
      throw io::InputError({path, line, 0, {}}, what + "; " + e.problem());
    }
  }
  LoadedModel model = loadVrml(path, options.vrml);
  if (options.scale != 1.0)
    for (auto& s : model.shapes) transformShape(s, Eigen::Affine3d(Eigen::Scaling(options.scale)));
  return model;
}

}  // namespace handsim::geometry
