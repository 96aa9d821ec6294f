// SPDX-License-Identifier: GPL-3.0-or-later
#include "dropped_files.hpp"

#include <QFile>
#include <QUrl>
#include <nlohmann/json.hpp>

namespace handsim::app {

DropKind dropKindOfName(const QString& path) {
  const QString name = path.toLower();
  if (name.endsWith(QLatin1String(".urdf"))) return DropKind::Hand;
  if (name.endsWith(QLatin1String(".json"))) return DropKind::Json;
  // What geometry::loadMesh reads: our VRML reader, and Assimp for the common mesh formats.
  static const char* const kMeshSuffixes[] = {".wrl", ".wrz", ".vrml", ".wrl.gz", ".vrml.gz",
                                              ".obj", ".stl", ".ply", ".off", ".dae",
                                              ".gltf", ".glb", ".3ds", ".fbx"};
  for (const char* suffix : kMeshSuffixes)
    if (name.endsWith(QLatin1String(suffix))) return DropKind::Object;
  return DropKind::Unsupported;
}

DropKind dropKindOfFile(const QString& path) {
  const DropKind by_name = dropKindOfName(path);
  if (by_name != DropKind::Json) return by_name;
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return DropKind::Scene;
  const QByteArray bytes = file.readAll();
  const nlohmann::json doc =
      nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr,
                            /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (!doc.is_object() || !doc.contains("format") || !doc["format"].is_string())
    return DropKind::Scene;
  const std::string format = doc["format"].get<std::string>();
  if (format == "handsim-hand") return DropKind::Hand;
  if (format == "handsim-trajectories") return DropKind::Trajectories;
  return DropKind::Scene;
}

QStringList droppableFiles(const QMimeData* mime) {
  QStringList paths;
  if (!mime || !mime->hasUrls()) return paths;
  for (const QUrl& url : mime->urls()) {
    if (!url.isLocalFile() || dropKindOfName(url.toLocalFile()) == DropKind::Unsupported)
      return {};
    paths << url.toLocalFile();
  }
  return paths;
}

}  // namespace handsim::app
