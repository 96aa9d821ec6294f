// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace handsim::app {

/// Command-line flags of the application (automation for docs and tests).
struct AppOptions {
  QString scene;              ///< --scene FILE: scene or scenario JSON instead of the default scene
  QString hand;               ///< --hand ID|FILE: start with this hand (no objects)
  QString palm;               ///< --palm LINK: the URDF link that is the palm (docs/arm.md)
  QStringList objects;        ///< --object FILE (repeatable): import these objects
  bool play = false;          ///< --play: start the simulation
  QString screenshot;         ///< --screenshot OUT.png: save the viewport just before quitting
  QString window_screenshot;  ///< --window-screenshot OUT.png: the whole window, with panels
  QString panel;              ///< --panel NAME: bring this dock to the front (joints, ...)
  QString panel_screenshot;   ///< --panel-screenshot OUT.png: that dock alone (needs --panel)
  bool show_collision = false;  ///< --show-collision: View > Show Collision Meshes on
  int samples = -1;           ///< --samples N: multisampling of the viewport (0 = off); -1, the
                              ///< default: 4 on a GPU, 0 on a software rasteriser such as
                              ///< llvmpipe (about 3x faster without it, docs/performance.md)
  double quit_after = -1.0;   ///< --quit-after SECONDS of wall-clock time (0, 86400]; < 0: stay
                              ///< open
  QString error;              ///< non-empty when the arguments are invalid
};

/// Largest --quit-after: one day [s].
inline constexpr double kMaxQuitAfterSeconds = 86400.0;

/// Parses the arguments after the program name. Numbers are plain decimals (no hexadecimal,
/// "inf" or "nan"); --samples is a whole number 0..16, --quit-after in (0, 86400] seconds.
AppOptions parseAppOptions(const QStringList& arguments);

}  // namespace handsim::app
