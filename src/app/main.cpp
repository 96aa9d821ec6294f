// SPDX-License-Identifier: GPL-3.0-or-later
// handsim: the desktop application (docs/gui.md).
#include <QApplication>
#include <QSurfaceFormat>
#include <QTimer>
#include <algorithm>
#include <cstdio>

#include "app_options.hpp"
#include "main_window.hpp"
#include "osg_viewport.hpp"
#include "simulation_controller.hpp"

namespace {

const char* kUsage =
    "usage: handsim [--scene FILE] [--hand ID|FILE [--palm LINK]] [--object FILE]... [--play]\n"
    "               [--screenshot OUT.png] [--window-screenshot OUT.png] [--quit-after SECONDS]\n"
    "               [--samples N]   (default: 4 on a GPU, 0 on a software rasteriser)\n"
    "               [--panel NAME] [--panel-screenshot OUT.png] [--show-collision]\n"
    "NAME: joints, cartesian, objects, grasp, planner, trajectory, plot.\n"
    "--palm LINK: the link of a URDF --hand that is the palm; the joints from the URDF's root\n"
    "to it are the arm (docs/arm.md).\n"
    "Without arguments handsim opens the BarrettHand and a cube (docs/gui.md).\n";

}  // namespace

int main(int argc, char** argv) {
  // The surface format must be set before the application object exists, so the arguments
  // are read from argv first (Qt's own, such as -platform, are not handsim's: pass them
  // through QT_QPA_PLATFORM instead).
  QStringList raw;
  for (int i = 1; i < argc; ++i) raw << QString::fromLocal8Bit(argv[i]);
  if (raw.contains(QStringLiteral("--help")) || raw.contains(QStringLiteral("-h"))) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  // Argument errors are reported before a display is needed.
  const handsim::app::AppOptions options = handsim::app::parseAppOptions(raw);
  if (!options.error.isEmpty()) {
    std::fprintf(stderr, "handsim: %s\n%s", qPrintable(options.error), kUsage);
    return 2;
  }
  // OSG 3.6 draws with the fixed-function pipeline: ask for a compatibility context.
  QSurfaceFormat format;
  format.setRenderableType(QSurfaceFormat::OpenGL);
  format.setProfile(QSurfaceFormat::CompatibilityProfile);
  format.setVersion(2, 1);
  format.setDepthBufferSize(24);
  format.setSamples(std::max(options.samples, 0));
  QSurfaceFormat::setDefaultFormat(format);
  QApplication::setAttribute(Qt::AA_ShareOpenGLContexts);

  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("handsim"));
  QApplication::setOrganizationName(QStringLiteral("handsim"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
  // The viewport's format is set when it is built: choose its multisampling now that a context
  // can tell a GPU from a software rasteriser.
  if (options.samples < 0)
    handsim::app::OsgViewport::setSamples(handsim::app::OsgViewport::automaticSamples());

  handsim::app::SimulationController controller;
  handsim::app::MainWindow window(&controller);
  const bool automated = options.quit_after >= 0.0 || !options.screenshot.isEmpty() ||
                         !options.window_screenshot.isEmpty() ||
                         !options.panel_screenshot.isEmpty();
  window.setDialogsEnabled(!automated);
  int status = 0;
  if (!options.scene.isEmpty()) {
    if (!window.openFile(options.scene)) status = 1;
  } else if (!options.hand.isEmpty()) {
    try {
      controller.loadHand(options.hand.toStdString(), options.palm.toStdString());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "handsim: %s\n", e.what());
      status = 1;
    }
  } else {
    window.loadDefaultScene();
  }
  for (const QString& o : options.objects)
    if (!window.importObject(o)) status = 1;
  if (automated && status != 0) return status;
  if (options.show_collision)
    if (QAction* a = window.findChild<QAction*>(QStringLiteral("ShowCollisionMeshes")))
      a->setChecked(true);
  window.show();
  window.viewport()->setView(handsim::app::OsgViewport::View::Fit);
  if (!options.panel.isEmpty() && !window.raisePanel(options.panel)) {
    std::fprintf(stderr, "handsim: --panel: no panel named '%s'\n", qPrintable(options.panel));
    return 2;
  }
  if (options.play) controller.play();

  if (automated) {
    const double seconds = options.quit_after >= 0.0 ? options.quit_after : 1.0;
    QTimer::singleShot(static_cast<int>(seconds * 1000.0), &window, [&] {
      if (!options.screenshot.isEmpty() && !window.saveScreenshot(options.screenshot)) status = 1;
      if (!options.window_screenshot.isEmpty() &&
          !window.saveWindowImage(options.window_screenshot))
        status = 1;
      if (!options.panel_screenshot.isEmpty() &&
          !window.savePanelImage(options.panel, options.panel_screenshot))
        status = 1;
      QApplication::exit(status);
    });
  }
  const int rc = QApplication::exec();
  return status != 0 ? status : rc;
}
