// SPDX-License-Identifier: GPL-3.0-or-later
// The mesh import's fuzz entry, shared by mesh_fuzzer and tests/fuzz_regression. The first
// byte picks the file suffix (its value modulo 6: '0' .obj, '1' .stl, '2' .ply, '3' .off,
// '4' .dae, '5' .gltf), the remaining bytes are the file, written to a private temporary
// folder and read with geometry::loadMesh. Assimp runs in the child program
// handsim-mesh-import, so its crashes and endless loops reach us as io::InputError: any input
// must either load or throw io::InputError; every other exception (left to propagate), crash,
// sanitizer report or hang of this process is a finding.
#pragma once

#include <unistd.h>

#include <array>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include "handsim/formats/mesh_loader.hpp"
#include "handsim/io/input_error.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define HANDSIM_FUZZ_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HANDSIM_FUZZ_ASAN 1
#endif
#endif

namespace handsim::fuzz {

/// The folder this process writes its mesh inputs to; removed when the process exits normally.
class MeshScratchFolder {
 public:
  MeshScratchFolder()
      : path_(std::filesystem::temp_directory_path() /
              ("handsim-mesh-fuzz-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~MeshScratchFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  MeshScratchFolder(const MeshScratchFolder&) = delete;
  MeshScratchFolder& operator=(const MeshScratchFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// Returns true when the input loaded, false when it was rejected with the documented error.
inline bool runMeshInput(std::string_view input) {
  if (input.empty()) return false;
  static constexpr std::array<const char*, 6> kSuffixes = {".obj", ".stl", ".ply",
                                                           ".off", ".dae", ".gltf"};
  static const MeshScratchFolder folder;
  const auto suffix = kSuffixes[static_cast<unsigned char>(input[0]) % kSuffixes.size()];
  const std::string path = (folder.path() / (std::string("input") + suffix)).string();
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(input.data() + 1, static_cast<std::streamsize>(input.size() - 1));
    if (!out) throw std::runtime_error("mesh fuzz entry: cannot write " + path);
  }
  geometry::MeshLoadOptions options;
  options.import_time_limit_s = 2.0;
#ifdef HANDSIM_FUZZ_ASAN
  // AddressSanitizer reserves terabytes of address space in the (instrumented) importer.
  options.import_memory_limit_bytes = 0;
#else
  options.import_memory_limit_bytes = std::size_t{1} << 30;
#endif
  try {
    const auto model = geometry::loadMesh(path, options);
    (void)model.merged();
    return true;
  } catch (const io::InputError&) {
    return false;
  }
}

}  // namespace handsim::fuzz
