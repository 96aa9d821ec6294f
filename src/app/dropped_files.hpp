// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMimeData>
#include <QString>
#include <QStringList>

namespace handsim::app {

/// What a file dropped onto the window is, by its name (and for JSON by its "format" field).
enum class DropKind {
  Hand,          ///< a URDF (.urdf) or a hand file (JSON "format": "handsim-hand")
  Scene,         ///< a scenario or scene (JSON "format": "handsim-scenario" / "handsim-scene")
  Trajectories,  ///< a trajectory file (JSON "format": "handsim-trajectories")
  Object,        ///< a mesh: VRML (.wrl, .wrz, .vrml, .wrl.gz) or a format Assimp reads
  Json,          ///< JSON whose format is not known yet (dropKindOfFile reads it)
  Unsupported,   ///< anything else: refused when the drag enters
};

/// The kind of `path` from its name alone: .urdf Hand, mesh extensions Object, .json Json,
/// everything else Unsupported. Case-insensitive.
DropKind dropKindOfName(const QString& path);
/// The kind of `path`, reading a JSON file's "format" field (a JSON file that cannot be read
/// or has another format is Scene: the scenario loader then says what is wrong with it).
DropKind dropKindOfFile(const QString& path);
/// The local files of a drag, when every one of them has a supported name; empty otherwise
/// (the drag is refused as it enters).
QStringList droppableFiles(const QMimeData* mime);

}  // namespace handsim::app
