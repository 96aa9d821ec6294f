// SPDX-License-Identifier: GPL-3.0-or-later
// `handsim-cli mesh FILE`: loads a mesh (VRML97 or anything Assimp reads) and prints its size,
// bounding box, area and volume as JSON, in metres after all transforms and --scale.
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/geometry/mesh_loader.hpp"
#include "handsim/io/input_error.hpp"

namespace handsim::cli {
namespace {

constexpr const char* kHelp =
    "usage: handsim-cli mesh FILE [--scale S] [--segments N]\n\n"
    "Loads FILE (.wrl/.wrz/.wrl.gz with handsim's VRML97 reader, OBJ/STL/PLY/OFF/COLLADA/glTF\n"
    "and more through Assimp) and prints JSON:\n"
    "  {\"triangles\", \"vertices\", \"aabb\": {\"min\", \"max\"} [m], \"area\" [m^2],\n"
    "   \"volume\" [m^3] or null when not watertight, \"watertight\", \"warnings\"}\n\n"
    "  --scale S      multiply coordinates by S (0.001 for a millimetre file); default 1\n"
    "  --segments N   segments around Sphere/Cylinder/Cone (3..1024); default 32\n\n"
    "Exit 2 with the loader's message (file:line:column) on bad input.\n";

bool parseNumber(const std::string& text, double& out) {
  try {
    std::size_t used = 0;
    out = std::stod(text, &used);
    return used == text.size();
  } catch (const std::exception&) {
    return false;
  }
}

int runMesh(const std::vector<std::string>& args) {
  geometry::MeshLoadOptions options;
  std::string file;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << kHelp;
      return kOk;
    }
    if (a == "--scale" || a == "--segments") {
      double v = 0.0;
      if (i + 1 >= args.size() || !parseNumber(args[i + 1], v)) {
        std::cerr << "handsim-cli mesh: " << a << " needs a number\n";
        return kBadInput;
      }
      ++i;
      if (a == "--scale") {
        if (!(v > 0.0)) {
          std::cerr << "handsim-cli mesh: --scale must be positive\n";
          return kBadInput;
        }
        options.scale = v;
      } else {
        if (v < 3 || v > 1024 || v != static_cast<int>(v)) {
          std::cerr << "handsim-cli mesh: --segments must be an integer in [3, 1024]\n";
          return kBadInput;
        }
        options.vrml.segments = static_cast<int>(v);
      }
      continue;
    }
    if (!a.empty() && a[0] == '-') {
      std::cerr << "handsim-cli mesh: unknown option '" << a << "'\n" << kHelp;
      return kBadInput;
    }
    if (!file.empty()) {
      std::cerr << "handsim-cli mesh: only one FILE may be given\n";
      return kBadInput;
    }
    file = a;
  }
  if (file.empty()) {
    std::cerr << kHelp;
    return kBadInput;
  }
  geometry::LoadedModel model;
  try {
    model = geometry::loadMesh(file, options);
  } catch (const io::InputError& e) {
    std::cerr << e.what() << "\n";
    return kBadInput;
  }
  const geometry::TriangleMesh mesh = model.merged();
  const geometry::Aabb box = geometry::boundingBox(mesh);
  nlohmann::json out;
  out["triangles"] = mesh.triangles.size();
  out["vertices"] = mesh.vertices.size();
  if (box.empty()) {
    out["aabb"] = nullptr;
  } else {
    out["aabb"] = {{"min", {box.min.x(), box.min.y(), box.min.z()}},
                   {"max", {box.max.x(), box.max.y(), box.max.z()}}};
  }
  out["area"] = geometry::surfaceArea(mesh);
  const bool watertight = geometry::isWatertight(mesh);
  out["watertight"] = watertight;
  if (watertight)
    out["volume"] = geometry::signedVolume(mesh);
  else
    out["volume"] = nullptr;
  out["dropped_degenerate_faces"] = model.dropped_degenerate_faces;
  out["warnings"] = model.warnings;
  printJson(out);
  return kOk;
}

const CommandRegistration kRegistration{
    {"mesh", "load a mesh file (VRML97, OBJ, STL...) and print its size, area and volume",
     runMesh}};

}  // namespace
}  // namespace handsim::cli
