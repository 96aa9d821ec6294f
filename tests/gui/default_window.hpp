// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI tests' window: the main window on the default scene, shown and exposed, as a person
// starting handsim sees it (one set-up for every widget test file).
#pragma once

#include <QtTest/QtTest>

#include "main_window.hpp"
#include "simulation_controller.hpp"

namespace handsim::app::test {

/// Creates the controller and the window (the caller owns both; closeDefaultWindow deletes
/// them), loads the default scene and waits until the window is exposed. Returns false when it
/// never is (a QVERIFY in the caller's init() then names it).
inline bool openDefaultWindow(SimulationController*& controller, MainWindow*& window,
                              bool dialogs) {
  controller = new SimulationController;
  window = new MainWindow(controller);
  window->setDialogsEnabled(dialogs);
  window->loadDefaultScene();
  window->show();
  return QTest::qWaitForWindowExposed(window);
}

inline void closeDefaultWindow(SimulationController*& controller, MainWindow*& window) {
  delete window;
  delete controller;
  window = nullptr;
  controller = nullptr;
}

}  // namespace handsim::app::test
