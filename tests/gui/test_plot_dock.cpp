// SPDX-License-Identifier: GPL-3.0-or-later
// The application's plot dock on Qt's offscreen platform (no OpenGL: no main window): panels
// per unit and overlay, events of the run, zoom by drag and by range, the cursor read-out,
// export at a journal size and the seed 000 preset.
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "plot_dock.hpp"
#include "simulation_controller.hpp"

using handsim::app::FigureView;
using handsim::app::PlotDock;
using handsim::app::SimulationController;

class PlotDockTest : public QObject {
  Q_OBJECT
 private:
  SimulationController* controller_ = nullptr;
  PlotDock* dock_ = nullptr;

 private Q_SLOTS:
  void initTestCase() {
    controller_ = new SimulationController(this);
    controller_->loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_breakaway_cube.json");
    controller_->play();
    for (int i = 0; i < 40 && controller_->liveState().time < 2.5; ++i) controller_->advance(0.25);
    controller_->pause();
    QVERIFY(controller_->liveState().time >= 2.5);
    dock_ = new PlotDock(controller_);
    dock_->resize(900, 500);
    dock_->show();
    QVERIFY(QTest::qWaitForWindowExposed(dock_));
  }
  void cleanupTestCase() { delete dock_; }

  void panelsPerUnitOverlayAndEvents() {
    dock_->setSignals({"F3.J2.torque", "F3.J3.torque", "F3.J2.contact_force"});
    QCOMPARE(dock_->figure().panels.size(), std::size_t{2});
    dock_->setOverlay(true);
    QCOMPARE(dock_->figure().panels.size(), std::size_t{1});
    QCOMPARE(dock_->figure().panels.front().axes.size(), std::size_t{2});
    dock_->setOverlay(false);
    // The clutch breaks away where the recorded flag changes.
    const auto flag = controller_->recorder().series("F3.clutch");
    const auto time = controller_->recorder().series("time");
    double broke = -1;
    for (std::size_t r = 1; r < flag.size(); ++r)
      if (flag[r - 1] < 0.5 && flag[r] > 0.5) broke = time[r];
    QVERIFY(broke > 0);
    bool found = false;
    for (const auto& e : dock_->figure().events)
      found = found || (e.label == "F3 break-away" && e.time == broke);
    QVERIFY(found);
    dock_->setEventsShown(false);
    QVERIFY(dock_->figure().events.empty());
    dock_->setEventsShown(true);
    dock_->setSignals({});
    QVERIFY(dock_->figure().panels.empty());  // drawn as "no data"
  }

  void zoomByRangeAndByDrag() {
    dock_->setSignals({"F3.J2.angle"});
    dock_->zoomTo(1.5, 2.0);
    QCOMPARE(dock_->figure().time.ticks.lo, 1.5);
    QCOMPARE(dock_->figure().time.ticks.hi, 2.0);
    dock_->resetZoom();
    QVERIFY(dock_->figure().time.ticks.lo <= 0.0);
    auto* view = dock_->findChild<FigureView*>();
    QVERIFY(view);
    // Drag over the middle half of the widget: the time range shrinks to what was under it.
    const int y = view->height() / 2;
    const double t0 = view->timeAt(view->width() / 4), t1 = view->timeAt(view->width() * 3 / 4);
    QTest::mousePress(view, Qt::LeftButton, {}, QPoint(view->width() / 4, y));
    QTest::mouseMove(view, QPoint(view->width() / 2, y));
    QTest::mouseRelease(view, Qt::LeftButton, {}, QPoint(view->width() * 3 / 4, y));
    QVERIFY(std::fabs(dock_->figure().time.ticks.lo - t0) < 1e-9);
    QVERIFY(std::fabs(dock_->figure().time.ticks.hi - t1) < 1e-9);
    // The read-out names the signal and its unit.
    QTest::mouseMove(view, QPoint(view->width() / 2, y));
    QVERIFY2(dock_->cursorText().contains(QStringLiteral("F3.J2.angle = ")) &&
                 dock_->cursorText().contains(QStringLiteral(" rad")),
             qPrintable(dock_->cursorText()));
    dock_->resetZoom();
  }

  void exportAtAJournalSizeAndThePreset() {
    const handsim::plot::FigureSize size = dock_->applyPreset("seed000");
    QCOMPARE(dock_->selectedSignals().size(), std::size_t{9});
    QCOMPARE(dock_->figure().panels.size(), std::size_t{5});
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("seed000.png"));
    dock_->exportTo(png, size, 100);
    QCOMPARE(QImage(png).width(), 350);  // 3.5 in at 100 dpi
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, dock_->applyPreset("seed123"));
  }
};

QTEST_MAIN(PlotDockTest)
#include "test_plot_dock.moc"
