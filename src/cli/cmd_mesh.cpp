// SPDX-License-Identifier: GPL-3.0-or-later
// `handsim-cli mesh FILE`: loads a mesh (VRML97 or anything Assimp reads) and prints its size,
// bounding box, area and volume as JSON, in metres after all transforms and --scale.
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

#include "cli_util.hpp"
#include "command.hpp"
#include "handsim/formats/mesh_loader.hpp"
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

int runMesh(const std::vector<std::string>& argv) {
  if (!argv.empty() && argv.front() == "-h") {
    std::cout << kHelp;
    return kOk;
  }
  const Args args(argv, {"--scale", "--segments"}, {});
  if (args.help()) {
    std::cout << kHelp;
    return kOk;
  }
  args.requirePositional(1, "one mesh FILE");
  geometry::MeshLoadOptions options;
  if (const auto s = args.value("--scale")) {
    options.scale = parseNumber(*s, "--scale");
    if (!(options.scale > 0.0)) throw UsageError("--scale: must be positive, got '" + *s + "'");
  }
  if (const auto n = args.value("--segments")) {
    const double v = parseNumber(*n, "--segments");
    if (v < 3 || v > 1024 || v != static_cast<int>(v))
      throw UsageError("--segments: expected an integer from 3 to 1024, got '" + *n + "'");
    options.vrml.segments = static_cast<int>(v);
  }
  const std::string& file = args.positional().front();
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
