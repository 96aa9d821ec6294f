// SPDX-License-Identifier: GPL-3.0-or-later
// Issue #23's workflows as a researcher meets them (QtTest, under Xvfb): each test drives the
// widgets and menu actions as a person would (clicks, typed keys, menu entries) and checks what
// they see on screen or find in the saved file.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QStyleOptionSlider>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "default_window.hpp"
#include "joint_panel.hpp"
#include "load_progress.hpp"
#include "main_window.hpp"
#include "object_panel.hpp"
#include "osg_viewport.hpp"
#include "plot_dock.hpp"
#include "simulation_controller.hpp"
#include "trajectory_panel.hpp"

using handsim::app::MainWindow;
using handsim::app::SimulationController;

namespace {

/// The window's menu action whose text (without '&') is `text`.
QAction* menuAction(QWidget* window, const QString& text) {
  for (QAction* a : window->findChildren<QAction*>()) {
    QString t = a->text();
    t.remove('&');
    if (t == text) return a;
  }
  return nullptr;
}

/// The push button labelled `text` inside `parent`.
QPushButton* button(QWidget* parent, const QString& text) {
  for (QPushButton* b : parent->findChildren<QPushButton*>())
    if (b->text() == text) return b;
  return nullptr;
}

/// Accepts the next file dialog with `path` typed as its file name, as a person would.
void answerFileDialog(const QString& path) {
  QTimer::singleShot(0, [path] {
    for (int i = 0; i < 100; ++i) {
      if (auto* d = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
        auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
        QVERIFY(name);
        name->setText(path);
        QTest::keyClick(name, Qt::Key_Return);
        return;
      }
      QTest::qWait(20);
    }
  });
}

/// Writes `bytes` to a new file at `path`; false when it cannot.
bool writeFile(const QString& path, const QByteArray& bytes) {
  QFile file(path);
  return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

/// Clicks table cell (row, column) once, as a person selects it before typing.
void clickCell(QTableWidget* table, int row, int column) {
  const QRect rect = table->visualItemRect(table->item(row, column));
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, rect.center());
}

/// The status bar's permanent label whose text starts (or ends) with `part`.
QLabel* statusLabel(MainWindow* window, const QString& part) {
  for (QLabel* l : window->statusBar()->findChildren<QLabel*>())
    if (l->text().startsWith(part) || l->text().endsWith(part)) return l;
  return nullptr;
}

/// Runs `f` when the event loop next turns, as a posted event: before anything posted later
/// (a zero timer may come after a worker thread's result).
template <class F>
void postEvent(F f) {
  QMetaObject::invokeMethod(qApp, std::move(f), Qt::QueuedConnection);
}

/// Types `text` key by key into whatever has the keyboard focus, as a keyboard does (the first
/// key may open a cell's editor, which then takes the others).
void typeKeys(const QString& text) {
  for (const QChar c : text) QTest::keyClicks(QApplication::focusWidget(), QString(c));
}

/// Types `text` into a spin box as a person does: click, select all, type, Enter.
void typeInto(QDoubleSpinBox* box, const QString& text) {
  QTest::mouseClick(box, Qt::LeftButton);
  box->selectAll();
  QTest::keyClicks(box, text);
  QTest::keyClick(box, Qt::Key_Return);
}

}  // namespace

class WorkflowTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void init() { QVERIFY(handsim::app::test::openDefaultWindow(controller_, window_, false)); }
  void cleanup() { handsim::app::test::closeDefaultWindow(controller_, window_); }

  // Item 1: Zero sets the run's start pose, from the Joints panel's button and from the menu.
  void zeroSetsTheRunsStartPose() {
    const int m1 = controller_->hand().actuatorIndex("M1");
    handsim::app::JointPanel* joints = window_->jointPanel();
    for (const QString& how : {QStringLiteral("button"), QStringLiteral("menu")}) {
      typeInto(joints->spinBox(m1), QStringLiteral("11000"));
      QCOMPARE(controller_->liveState().actuator_position[m1], 11000.0);
      if (how == QLatin1String("button")) {
        QPushButton* zero = button(joints, QStringLiteral("Zero"));
        QVERIFY(zero);
        QTest::mouseClick(zero, Qt::LeftButton);
      } else {
        QAction* zero = menuAction(window_, QStringLiteral("Zero Pose"));
        QVERIFY(zero);
        zero->trigger();
      }
      QCOMPARE(joints->spinBox(m1)->value(), 0.0);
      // Play in the Trajectory panel (it applies the tables), run half a second.
      QToolButton* play = nullptr;
      for (QToolButton* b : window_->trajectoryPanel()->findChildren<QToolButton*>())
        if (b->toolTip().startsWith(QStringLiteral("Play"))) play = b;
      QVERIFY(play);
      QTest::mouseClick(play, Qt::LeftButton);
      QVERIFY(controller_->running());
      controller_->advance(0.25);
      controller_->advance(0.25);
      controller_->pause();
      QVERIFY2(std::abs(controller_->liveState().actuator_position[m1]) < 1.0,
               qPrintable(QString::number(controller_->liveState().actuator_position[m1])));
      QCOMPARE(joints->spinBox(m1)->value(), 0.0);
      // Reset Run goes back to zero too.
      menuAction(window_, QStringLiteral("Reset Run"))->trigger();
      QCOMPARE(controller_->liveState().actuator_position[m1], 0.0);
      QCOMPARE(controller_->liveState().time, 0.0);
    }
  }

  // Item 2: Lift Palm after a grasp continues the run (which Auto Grasp had ended) and lifts the
  // full 10 cm, with a message; after Reset Run too.
  void liftAfterAGraspLiftsTheFullTenCentimetres() {
    handsim::app::ObjectPanel* objects = window_->objectPanel();
    objects->list()->setCurrentRow(0);
    QTest::mouseClick(objects->freeBox(), Qt::LeftButton);
    QVERIFY(!controller_->objects()[0].fixed);
    menuAction(window_, QStringLiteral("Play"))->trigger();
    controller_->advance(0.2);
    menuAction(window_, QStringLiteral("Auto Grasp"))->trigger();
    QVERIFY(controller_->running());
    for (int i = 0; i < 200 && controller_->running(); ++i) controller_->advance(0.05);
    QVERIFY(!controller_->running());  // the grasp run has ended
    const double end = controller_->liveState().time;
    QVERIFY(end > 2.0);

    QAction* lift = menuAction(window_, QStringLiteral("Lift Palm 10 cm"));
    QVERIFY(lift);
    for (const bool after_reset : {false, true}) {
      if (after_reset) {
        menuAction(window_, QStringLiteral("Reset Run"))->trigger();
        QCOMPARE(controller_->liveState().time, 0.0);
      }
      const double palm_z = controller_->palmPose().translation().z();
      const double cube_z = controller_->objectPose(0).translation().z();
      const double t0 = controller_->liveState().time;
      lift->trigger();
      QVERIFY(controller_->running());
      QVERIFY2(window_->statusBar()->currentMessage().contains(
                   QStringLiteral("Lifting the palm 100 mm")),
               qPrintable(window_->statusBar()->currentMessage()));
      for (int i = 0; i < 200 && controller_->running(); ++i) controller_->advance(0.05);
      QVERIFY(!controller_->running());
      // 10 cm at 0.05 m/s and 0.25 m/s^2 take 2.2 s; the run went on past its end.
      QVERIFY(controller_->liveState().time >= t0 + 2.2);
      QVERIFY2(std::abs(controller_->palmPose().translation().z() - (palm_z + 0.1)) < 1e-9,
               qPrintable(QString::number(controller_->palmPose().translation().z() - palm_z)));
      if (!after_reset) {
        // The grasped cube went up with the hand.
        const double rise = controller_->objectPose(0).translation().z() - cube_z;
        QVERIFY2(rise > 0.09, qPrintable(QString::number(rise)));
      }
    }
  }

  // Item 3: Save Scene keeps rows added in the Trajectory panel but never applied, says
  // "Saved" and the title names the file; a row that cannot run stops the save with its name.
  void saveSceneKeepsUnappliedRowsAndSaysSaved() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    handsim::app::TrajectoryPanel* panel = window_->trajectoryPanel();
    QPushButton* add = button(panel, QStringLiteral("Add"));
    QVERIFY(add);
    QTest::mouseClick(add, Qt::LeftButton);
    QTest::mouseClick(add, Qt::LeftButton);
    QCOMPARE(panel->table()->rowCount(), 2);
    static_cast<QComboBox*>(panel->table()->cellWidget(1, 0))->setCurrentIndex(1);  // M2
    QVERIFY(controller_->trajectories().empty());                                   // not applied
    QVERIFY(!window_->windowTitle().contains(QStringLiteral("scene.json")));

    const QString path = dir.filePath(QStringLiteral("scene.json"));
    answerFileDialog(path);
    menuAction(window_, QStringLiteral("Save Scene..."))->trigger();
    QVERIFY(QFile::exists(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const nlohmann::json doc = nlohmann::json::parse(file.readAll().toStdString());
    QCOMPARE(doc.at("trajectories").size(), std::size_t{2});
    QCOMPARE(QString::fromStdString(doc["trajectories"][0]["actuator"].get<std::string>()),
             QStringLiteral("M1"));
    QCOMPARE(QString::fromStdString(doc["trajectories"][1]["actuator"].get<std::string>()),
             QStringLiteral("M2"));
    QVERIFY2(window_->statusBar()->currentMessage().startsWith(QStringLiteral("Saved ")),
             qPrintable(window_->statusBar()->currentMessage()));
    QVERIFY2(window_->windowTitle().startsWith(QStringLiteral("scene.json")),
             qPrintable(window_->windowTitle()));

    // A row that cannot run: nothing written, the error names the row.
    panel->table()->item(0, 2)->setText(QStringLiteral("-1"));
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    answerFileDialog(bad);
    menuAction(window_, QStringLiteral("Save Scene..."))->trigger();
    QVERIFY(!QFile::exists(bad));
    QVERIFY2(window_->lastError().contains(QStringLiteral("row 1")),
             qPrintable(window_->lastError()));
  }

  // Item 7: digits and letters typed into a selected table cell or a text field go there, not
  // to the one-key shortcuts (3: side view, G: Auto Grasp); with the viewport focused they
  // still work.
  void typingIsNotTakenByOneKeyShortcuts() {
    window_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window_));
    handsim::app::TrajectoryPanel* panel = window_->trajectoryPanel();
    QTest::mouseClick(button(panel, QStringLiteral("Add")), Qt::LeftButton);
    QTableWidget* table = panel->table();
    clickCell(table, 0, 1);
    QCOMPARE(QApplication::focusWidget(), static_cast<QWidget*>(table));
    typeKeys(QStringLiteral("35000"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    QTRY_COMPARE(table->item(0, 1)->text(), QStringLiteral("35000"));  // Enter commits queued
    // A letter that is a shortcut, typed into the start cell and into the plot's filter field.
    clickCell(table, 0, 4);
    typeKeys(QStringLiteral("G"));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Return);
    QTRY_COMPARE(table->item(0, 4)->text(), QStringLiteral("G"));
    QVERIFY(!controller_->running());
    auto* filter = window_->plotDock()->findChild<QLineEdit*>();
    QVERIFY(filter);
    QTest::mouseClick(filter, Qt::LeftButton);
    QTest::keyClicks(filter, QStringLiteral("G3"));
    QCOMPARE(filter->text(), QStringLiteral("G3"));
    QVERIFY(!controller_->running());
    // The viewport focused: G is Auto Grasp.
    window_->viewport()->setFocus();
    QTest::keyClick(window_->viewport(), Qt::Key_G);
    QVERIFY(controller_->running());
  }

  // Item 4: a many-joint hand (anthro20, 20 joints as the Shadow hand's 24) keeps the window
  // on a 1000 px screen: the sliders scroll, the window can be made smaller, the last slider
  // can be scrolled to.
  void manyJointHandsFitOnTheScreen() {
    QAction* anthro = menuAction(window_, QStringLiteral("anthro20"));
    QVERIFY(anthro);
    anthro->trigger();
    QTest::qWait(100);
    const int n = static_cast<int>(controller_->hand().actuators.size());
    QVERIFY2(n >= 20, qPrintable(QString::number(n)));
    const QRect screen = window_->screen()->availableGeometry();
    QVERIFY2(window_->frameGeometry().height() <= screen.height(),
             qPrintable(QStringLiteral("window %1 px on a %2 px screen")
                            .arg(window_->frameGeometry().height())
                            .arg(screen.height())));
    // It can be made smaller (the Cartesian panel, the tallest tab, sets about 720 px).
    window_->resize(1280, 800);
    QTest::qWait(50);
    QCOMPARE(window_->height(), 800);
    // The status bar is inside the window, the last slider reachable by scrolling.
    QVERIFY(window_->statusBar()->geometry().bottom() < window_->height());
    auto* scroll = window_->jointPanel()->findChild<QScrollArea*>();
    QVERIFY(scroll);
    QSlider* last = window_->jointPanel()->slider(n - 1);
    QVERIFY(scroll->widget()->isAncestorOf(last));
    scroll->ensureWidgetVisible(last);
    QTest::qWait(50);
    QVERIFY(!last->visibleRegion().isEmpty());
  }

  // Item 10: no "RTF 0.00" or "0 fps" before anything was measured; a measured value after.
  void statusShowsADashUntilMeasured() {
    QLabel* rtf = statusLabel(window_, QStringLiteral("paused"));
    QLabel* fps = statusLabel(window_, QStringLiteral(" fps"));
    QVERIFY(rtf && fps);
    menuAction(window_, QStringLiteral("Play"))->trigger();
    // The status bar's first update (every 250 ms), long before a second has been measured.
    QTRY_VERIFY_WITH_TIMEOUT(rtf->text() != QLatin1String("paused"), 900);
    QCOMPARE(rtf->text(), QStringLiteral("RTF —"));
    if (window_->viewport()->frameRate() == 0.0) QCOMPARE(fps->text(), QStringLiteral("— fps"));
    QTest::qWait(1700);
    QVERIFY2(
        QRegularExpression(QStringLiteral("^RTF \\d+\\.\\d\\d$")).match(rtf->text()).hasMatch(),
        qPrintable(rtf->text()));
    QVERIFY2(QRegularExpression(QStringLiteral("^\\d+ fps$")).match(fps->text()).hasMatch(),
             qPrintable(fps->text()));
  }

  // Item 10: Play on the default scene, where nothing would move, says what would.
  void playOnAnIdleSceneGivesAHint() {
    menuAction(window_, QStringLiteral("Play"))->trigger();
    QVERIFY(controller_->running());
    QVERIFY2(window_->statusBar()->currentMessage().contains(QStringLiteral("Nothing moves")),
             qPrintable(window_->statusBar()->currentMessage()));
    menuAction(window_, QStringLiteral("Pause"))->trigger();
    window_->statusBar()->clearMessage();
    // With something to do, no hint.
    menuAction(window_, QStringLiteral("Auto Grasp"))->trigger();
    QVERIFY(controller_->running());
    QVERIFY(!window_->statusBar()->currentMessage().contains(QStringLiteral("Nothing moves")));
  }

  // Item 10: trajectory cells in the unit the Joints panel shows (degrees for anthro20's
  // revolute actuators), typed degrees run as degrees.
  void trajectoryCellsUseTheJointPanelsUnit() {
    menuAction(window_, QStringLiteral("anthro20"))->trigger();
    handsim::app::TrajectoryPanel* panel = window_->trajectoryPanel();
    QTest::mouseClick(button(panel, QStringLiteral("Add")), Qt::LeftButton);
    QTableWidget* table = panel->table();
    // The first actuator, a slide, in mm; Add starts at its upper limit, the Joints panel's
    // maximum.
    auto* box = static_cast<QComboBox*>(table->cellWidget(0, 0));
    QVERIFY2(box->currentText().endsWith(QStringLiteral("[mm]")), qPrintable(box->currentText()));
    QVERIFY(window_->jointPanel()->spinBox(0)->suffix().contains(QStringLiteral("mm")));
    QVERIFY2(std::abs(table->item(0, 1)->text().toDouble() -
                      window_->jointPanel()->spinBox(0)->maximum()) < 0.01,
             qPrintable(table->item(0, 1)->text()));
    // A revolute actuator in degrees, as its slider.
    int revolute = -1;
    for (std::size_t a = 0; a < controller_->hand().actuators.size() && revolute < 0; ++a)
      if (controller_->hand().actuators[a].unit == "rad") revolute = static_cast<int>(a);
    QVERIFY(revolute >= 0);
    box->setCurrentIndex(revolute);
    QVERIFY2(box->currentText().endsWith(QStringLiteral("[deg]")), qPrintable(box->currentText()));
    QVERIFY(window_->jointPanel()->spinBox(revolute)->suffix().contains(QStringLiteral("deg")));
    table->item(0, 1)->setText(QStringLiteral("45"));
    table->item(0, 2)->setText(QStringLiteral("90"));
    table->item(0, 3)->setText(QStringLiteral("360"));
    QTest::mouseClick(button(panel, QStringLiteral("Apply")), Qt::LeftButton);
    QCOMPARE(controller_->trajectories().size(), std::size_t{1});
    QCOMPARE(controller_->trajectories()[0].actuator, revolute);
    constexpr double kRad = 3.14159265358979323846 / 180.0;
    QVERIFY(std::abs(controller_->trajectories()[0].to - 45.0 * kRad) < 1e-12);
    QVERIFY(std::abs(controller_->trajectories()[0].max_velocity - 90.0 * kRad) < 1e-12);
    QVERIFY(std::abs(controller_->trajectories()[0].max_acceleration - 360.0 * kRad) < 1e-12);
    // Applied rows come back in degrees.
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("45"));
  }

  // Item 10: Add gives the next actuator without a row (M1, M2, M3, M4), then the last again.
  void addPicksTheNextActuator() {
    handsim::app::TrajectoryPanel* panel = window_->trajectoryPanel();
    QPushButton* add = button(panel, QStringLiteral("Add"));
    for (int i = 0; i < 5; ++i) QTest::mouseClick(add, Qt::LeftButton);
    QStringList names;
    for (int r = 0; r < panel->table()->rowCount(); ++r)
      names << static_cast<QComboBox*>(panel->table()->cellWidget(r, 0))
                   ->currentText()
                   .section(' ', 0, 0);
    QCOMPARE(names.join(' '), QStringLiteral("M1 M2 M3 M4 M4"));
  }

  // Item 8: the plot's signal list keeps its filter over a scenario load, lists a free
  // object's signals at once, and exporting the seed 000 figure leaves the dock's selection;
  // the export dialog opens with the last choices.
  void plotListStaysInStep() {
    handsim::app::PlotDock* plot = window_->plotDock();
    auto* filter = plot->findChild<QLineEdit*>();
    auto* list = plot->findChild<QListWidget*>();
    QVERIFY(filter && list);
    const auto shown = [list] {
      QStringList names;
      for (int i = 0; i < list->count(); ++i)
        if (!list->item(i)->isHidden()) names << list->item(i)->text();
      return names;
    };
    // A free cube's signals are listed as soon as the box is ticked.
    QVERIFY(!shown().contains(QStringLiteral("cube.z")));
    window_->objectPanel()->list()->setCurrentRow(0);
    QTest::mouseClick(window_->objectPanel()->freeBox(), Qt::LeftButton);
    QVERIFY(shown().contains(QStringLiteral("cube.z")));
    QVERIFY(shown().contains(QStringLiteral("cube.kinetic_energy")));

    QTest::mouseClick(filter, Qt::LeftButton);
    QTest::keyClicks(filter, QStringLiteral("F3 torque"));
    const auto filtered = [&shown] {
      for (const QString& name : shown())
        if (!name.contains(QStringLiteral("F3")) || !name.contains(QStringLiteral("torque")))
          return false;
      return shown().contains(QStringLiteral("F3.J2.torque"));
    };
    QVERIFY(filtered());
    menuAction(window_, QStringLiteral("barrett_breakaway_cube"))->trigger();
    QCOMPARE(filter->text(), QStringLiteral("F3 torque"));
    QVERIFY(list->count() > 20);
    QVERIFY2(filtered(), qPrintable(shown().join(' ')));
    filter->clear();
    menuAction(window_, QStringLiteral("Play"))->trigger();
    for (int i = 0; i < 12; ++i) controller_->advance(0.25);
    menuAction(window_, QStringLiteral("Pause"))->trigger();
    const std::vector<std::string> selected = plot->selectedSignals();
    QVERIFY(!selected.empty());

    // Export the seed 000 figure at 150 dpi through the dialog.
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("seed000.png"));
    QTimer::singleShot(0, [png] {
      auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
      QVERIFY(dialog);
      for (QComboBox* box : dialog->findChildren<QComboBox*>())
        if (box->count() == 2) box->setCurrentIndex(1);  // the figure: seed 000
      auto* dpi = dialog->findChild<QSpinBox*>();
      dpi->setValue(150);
      answerFileDialog(png);
      QTest::mouseClick(dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Save),
                        Qt::LeftButton);
    });
    QTest::mouseClick(button(plot, QStringLiteral("Export...")), Qt::LeftButton);
    QCOMPARE(QImage(png).width(), 525);  // single column, 3.5 in at 150 dpi
    QCOMPARE(plot->selectedSignals(), selected);
    QCOMPARE(plot->figure().panels.size(), std::size_t{1});

    // The dialog again: single column, 150 dpi.
    int width_index = -1, dpi = -1;
    QTimer::singleShot(0, [&width_index, &dpi] {
      auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
      QVERIFY(dialog);
      for (QComboBox* box : dialog->findChildren<QComboBox*>())
        if (box->count() == 3) width_index = box->currentIndex();
      dpi = dialog->findChild<QSpinBox*>()->value();
      dialog->reject();
    });
    QTest::mouseClick(button(plot, QStringLiteral("Export...")), Qt::LeftButton);
    QCOMPARE(width_index, 0);
    QCOMPARE(dpi, 150);
  }

  // Item 8: importing an object keeps the run recorded so far (the plots stay); the new
  // object's columns read NaN before it came.
  void importKeepsTheRecordedRun() {
    window_->objectPanel()->list()->setCurrentRow(0);
    QTest::mouseClick(window_->objectPanel()->freeBox(), Qt::LeftButton);
    menuAction(window_, QStringLiteral("Play"))->trigger();
    for (int i = 0; i < 4; ++i) controller_->advance(0.25);
    menuAction(window_, QStringLiteral("Pause"))->trigger();
    const double t = controller_->liveState().time;
    QVERIFY(t > 0.9);
    const std::size_t rows = controller_->recorder().rowCount();
    const std::vector<double> cube_z = controller_->recorder().series("cube.z");
    QVERIFY(rows > 100);
    QVERIFY(std::all_of(cube_z.begin(), cube_z.end(), [](double z) { return std::isfinite(z); }));
    QVERIFY(window_->importObject(QStringLiteral(HANDSIM_SOURCE_DIR "/assets/objects/bottle.wrl")));
    QCOMPARE(controller_->objects().size(), std::size_t{2});
    const handsim::sim::Recorder& rec = controller_->recorder();
    QVERIFY(rec.columnIndex("contact.F1.bottle.force") >= 0);  // a column the import brought
    QCOMPARE(rec.rowCount(), rows);
    QCOMPARE(rec.series("time").front(), 0.0);
    QCOMPARE(rec.series("time").back(), t);
    QVERIFY(rec.series("cube.z") == cube_z);
    QVERIFY(std::isnan(rec.series("contact.F1.bottle.force").front()));
    // The cube falls on: new rows follow the old ones.
    menuAction(window_, QStringLiteral("Play"))->trigger();
    controller_->advance(0.1);
    QVERIFY(controller_->recorder().rowCount() > rows);
    QVERIFY(controller_->recorder().series("time")[rows] > t);
  }

  // Long work off the interface thread: a hand loads on a pool thread while the event loop
  // turns (the status bar shows it with a busy bar and Cancel); Cancel keeps the open scene.
  void loadsRunInTheBackgroundAndCancelKeepsTheScene() {
    const QString urdf = QStringLiteral(HANDSIM_SOURCE_DIR "/assets/hands/urdf/wrist_hand.urdf");
    handsim::app::LoadProgress* progress = window_->loadProgress();
    QVERIFY(progress);
    QVERIFY(!progress->isVisible());
    bool seen = false;
    postEvent([&] {
      // The event loop runs during the load: the strip is up and the old hand still there.
      seen = progress->isVisible() && progress->bar()->isVisible() &&
             progress->cancelButton()->isVisible() && controller_->hand().id == "barrett";
    });
    QVERIFY(window_->openHandFile(urdf));
    QVERIFY(seen);
    QVERIFY(!progress->isVisible());
    QVERIFY(controller_->hand().id != "barrett");
    QCOMPARE(controller_->objects().size(), std::size_t{1});  // the cube stayed

    // Cancel while it loads: nothing changes.
    const std::string hand_id = controller_->hand().id;
    postEvent([progress] {
      QVERIFY(progress->cancelButton()->isVisible());
      progress->cancelButton()->click();
    });
    QVERIFY(!window_->openHandFile(QStringLiteral("anthro20")));
    QVERIFY(progress->cancelled());
    QCOMPARE(controller_->hand().id, hand_id);
    QCOMPARE(controller_->objects().size(), std::size_t{1});
    QVERIFY2(window_->statusBar()->currentMessage().contains(QStringLiteral("cancelled")),
             qPrintable(window_->statusBar()->currentMessage()));
    // A mesh the same way; a cancelled import adds nothing.
    postEvent([progress] {
      QVERIFY(progress->cancelButton()->isVisible());
      progress->cancelButton()->click();
    });
    QVERIFY(!window_->importObject(QStringLiteral(HANDSIM_SOURCE_DIR "/assets/objects/cube.wrl")));
    QCOMPARE(controller_->objects().size(), std::size_t{1});
    QTest::qWait(200);  // the abandoned loads end on their threads; their results are dropped
    QCOMPARE(controller_->hand().id, hand_id);
  }

  // File > New, Edit > Undo / Redo over scene edits, and a new hand keeps the objects.
  void newSceneUndoRedoAndHandSwitch() {
    const Eigen::Vector3d cube_at = controller_->objectPose(0).translation();
    menuAction(window_, QStringLiteral("anthro20"))->trigger();
    QCOMPARE(QString::fromStdString(controller_->hand().id), QStringLiteral("anthro20"));
    QCOMPARE(controller_->objects().size(), std::size_t{1});
    QVERIFY(controller_->objectPose(0).translation().isApprox(cube_at));
    QAction* undo = menuAction(window_, QStringLiteral("Undo"));
    QAction* redo = menuAction(window_, QStringLiteral("Redo"));
    QVERIFY(undo && redo);
    QVERIFY(undo->isEnabled());
    QVERIFY(!redo->isEnabled());
    undo->trigger();
    QCOMPARE(QString::fromStdString(controller_->hand().id), QStringLiteral("barrett"));
    QVERIFY(redo->isEnabled());

    // Three edits: remove the cube, a start pose, a trajectory row applied.
    handsim::app::ObjectPanel* objects = window_->objectPanel();
    objects->list()->setCurrentRow(0);
    QTest::mouseClick(button(objects, QStringLiteral("Remove")), Qt::LeftButton);
    QVERIFY(controller_->objects().empty());
    QVERIFY(!redo->isEnabled());  // a new edit forgets what was undone
    const int m1 = controller_->hand().actuatorIndex("M1");
    typeInto(window_->jointPanel()->spinBox(m1), QStringLiteral("5000"));
    QCOMPARE(controller_->liveState().actuator_position[m1], 5000.0);
    handsim::app::TrajectoryPanel* panel = window_->trajectoryPanel();
    QTest::mouseClick(button(panel, QStringLiteral("Add")), Qt::LeftButton);
    QTest::mouseClick(button(panel, QStringLiteral("Apply")), Qt::LeftButton);
    QCOMPARE(controller_->trajectories().size(), std::size_t{1});

    QCOMPARE(undo->shortcut(), QKeySequence(QKeySequence::Undo));
    undo->trigger();
    QVERIFY(controller_->trajectories().empty());
    QCOMPARE(panel->table()->rowCount(), 0);
    QCOMPARE(controller_->liveState().actuator_position[m1], 5000.0);
    undo->trigger();
    QCOMPARE(controller_->liveState().actuator_position[m1], 0.0);
    QCOMPARE(window_->jointPanel()->spinBox(m1)->value(), 0.0);
    undo->trigger();
    QCOMPARE(controller_->objects().size(), std::size_t{1});
    QVERIFY(controller_->objectPose(0).translation().isApprox(cube_at));
    QCOMPARE(objects->list()->count(), 1);
    redo->trigger();
    QVERIFY(controller_->objects().empty());
    redo->trigger();
    QCOMPARE(controller_->liveState().actuator_position[m1], 5000.0);

    // File > New: the default scene again, and the title names no file.
    menuAction(window_, QStringLiteral("barrett_breakaway_cube"))->trigger();
    QVERIFY(window_->windowTitle().contains(QStringLiteral(".json")));
    QAction* fresh = menuAction(window_, QStringLiteral("New Scene"));
    QVERIFY(fresh);
    fresh->trigger();
    QCOMPARE(QString::fromStdString(controller_->hand().id), QStringLiteral("barrett"));
    QCOMPARE(controller_->objects().size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(controller_->objects()[0].name), QStringLiteral("cube"));
    QVERIFY(controller_->objectPose(0).translation().isApprox(cube_at));
    QVERIFY(controller_->trajectories().empty());
    QVERIFY(!window_->windowTitle().contains(QStringLiteral(".json")));
    undo->trigger();  // New too can be undone: the scenario's trajectories come back
    QVERIFY(!controller_->trajectories().empty());
  }

  // Objects panel: scale (the file read again), density or mass, and the mass properties,
  // checked against the closed forms of a cube of side a: V = a^3, I = m a^2 / 6.
  void objectScaleMassAndProperties() {
    window_->raisePanel(QStringLiteral("objects"));
    handsim::app::ObjectPanel* panel = window_->objectPanel();
    panel->list()->setCurrentRow(0);
    QVERIFY(panel->scaleField() && panel->densityField() && panel->massField());
    const auto side = [this] {
      const auto& mesh = controller_->objects()[0].geometry->collision.mesh;
      double lo = 1e9, hi = -1e9;
      for (const Eigen::Vector3d& v : mesh.vertices) {
        lo = std::min(lo, v.x());
        hi = std::max(hi, v.x());
      }
      return hi - lo;
    };
    const double a = side();
    QVERIFY(a > 0.04 && a < 0.06);
    const Eigen::Isometry3d pose = controller_->objectPose(0);
    typeInto(panel->scaleField(), QStringLiteral("2"));
    QCOMPARE(controller_->objects()[0].scale, 2.0);
    QVERIFY(std::abs(side() - 2.0 * a) < 1e-9);
    QVERIFY(controller_->objectPose(0).isApprox(pose));
    const double big = 2.0 * a;
    QVERIFY(std::abs(panel->massField()->value() - 1000.0 * big * big * big) < 1e-4);
    QVERIFY2(panel->massPropertiesLabel()->text().contains(
                 QStringLiteral("Volume %1 cm³").arg(big * big * big * 1e6, 0, 'g', 4)),
             qPrintable(panel->massPropertiesLabel()->text()));
    typeInto(panel->densityField(), QStringLiteral("500"));
    const handsim::sim::ObjectModel& o = controller_->objects()[0];
    QVERIFY(std::abs(o.mass.mass_kg - 500.0 * big * big * big) < 1e-9);
    QVERIFY(std::abs(panel->massField()->value() - o.mass.mass_kg) < 1e-4);
    typeInto(panel->massField(), QStringLiteral("2"));
    const handsim::sim::ObjectModel& heavy = controller_->objects()[0];
    QVERIFY(std::abs(heavy.mass.mass_kg - 2.0) < 1e-9);
    QVERIFY(std::abs(panel->densityField()->value() - 2.0 / (big * big * big)) < 0.1);
    const double inertia = 2.0 * big * big / 6.0;
    QVERIFY2(panel->massPropertiesLabel()->text().contains(QString::number(inertia, 'g', 3)),
             qPrintable(panel->massPropertiesLabel()->text()));
    // Undo brings the file's size back.
    for (int i = 0; i < 3; ++i) menuAction(window_, QStringLiteral("Undo"))->trigger();
    QVERIFY(std::abs(side() - a) < 1e-9);
  }

  // A time marker on the plot follows the scrubber, and dragging it moves the scrubber.
  void plotMarkerFollowsAndMovesTheScrubber() {
    menuAction(window_, QStringLiteral("Auto Grasp"))->trigger();
    for (int i = 0; i < 8; ++i) controller_->advance(0.25);
    menuAction(window_, QStringLiteral("Pause"))->trigger();
    handsim::app::PlotDock* plot = window_->plotDock();
    plot->refresh();
    handsim::app::FigureView* view = plot->view();
    QVERIFY(view->isVisible());
    view->repaint();
    QSlider* scrubber = window_->trajectoryPanel()->scrubber();
    QVERIFY(scrubber->maximum() > 10);
    scrubber->setValue(scrubber->maximum() / 2);
    const double t_half = controller_->state().time;
    QVERIFY(view->marker().has_value());
    QCOMPARE(*view->marker(), t_half);
    // Drag the marker to where t = 0.5 s is drawn.
    view->repaint();
    const int y = view->height() / 2;
    const QPoint from(static_cast<int>(std::lround(view->xAt(t_half))), y);
    const QPoint to(static_cast<int>(std::lround(view->xAt(0.5))), y);
    QTest::mousePress(view, Qt::LeftButton, {}, from);
    QMouseEvent move(QEvent::MouseMove, QPointF(to), view->mapToGlobal(QPointF(to)), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(view, &move);
    QTest::mouseRelease(view, Qt::LeftButton, {}, to);
    QVERIFY(controller_->scrubbing());
    const double dt_px = std::abs(view->timeAt(1.0) - view->timeAt(0.0));
    QVERIFY2(std::abs(controller_->state().time - 0.5) < dt_px + 0.011,
             qPrintable(QString::number(controller_->state().time)));
    QCOMPARE(scrubber->value(), controller_->scrubIndex());
    QVERIFY(scrubber->value() < scrubber->maximum() / 2);
    QCOMPARE(*view->marker(), controller_->state().time);
    // The zoom drag elsewhere still zooms.
    QVERIFY(plot->figure().panels.size() >= 1);
  }

  // Interactive targets: Ctrl + left drag on a finger drags its fingertip target (inverse
  // kinematics follows, the status bar gives the miss in mm); Ctrl + right drag on a free
  // object while the run plays pulls it (an applied force, as MuJoCo's simulate does).
  void viewportDragsFingertipTargetsAndPullsObjects() {
    handsim::app::OsgViewport* vp = window_->viewport();
    vp->setView(handsim::app::OsgViewport::View::Fit);
    QTRY_VERIFY(vp->frameCount() > 2);
    vp->requestFrame();
    QTest::qWait(50);
    const auto send = [vp](QEvent::Type type, QPointF at, Qt::MouseButton button,
                           Qt::MouseButtons held) {
      QMouseEvent e(type, at, vp->mapToGlobal(at), button, held, Qt::ControlModifier);
      QApplication::sendEvent(vp, &e);
    };
    // Press on a finger: points along its base-to-tip line until one picks the finger.
    const Eigen::Isometry3d palm = controller_->palmPose();
    int finger = -1;
    QPointF grabbed;
    for (int f = 0; f < static_cast<int>(controller_->hand().fingers.size()) && finger < 0; ++f) {
      const Eigen::Vector3d base = controller_->hand().fingers[f].base.translation();
      const Eigen::Vector3d tip = controller_->fingertip(f);
      for (double u = 0.95; u > 0.4 && finger < 0; u -= 0.05) {
        const QPointF at = vp->widgetPointOf(palm * (base + u * (tip - base)));
        send(QEvent::MouseButtonPress, at, Qt::LeftButton, Qt::LeftButton);
        if (vp->fingertipTarget()) {
          finger = f;
          grabbed = at;
        } else {
          send(QEvent::MouseButtonRelease, at, Qt::LeftButton, Qt::NoButton);
        }
      }
    }
    QVERIFY2(finger >= 0, "no finger under the mouse");
    const Eigen::Vector3d tip_before = controller_->fingertip(finger);
    send(QEvent::MouseMove, grabbed + QPointF(-12, 8), Qt::NoButton, Qt::LeftButton);
    QVERIFY(vp->fingertipTarget());
    QVERIFY(vp->scene().dragTargetNode());  // the target is drawn
    const QString message = window_->statusBar()->currentMessage();
    QVERIFY2(message.contains(QStringLiteral(" mm")), qPrintable(message));
    const double moved = (controller_->fingertip(finger) - tip_before).norm();
    QVERIFY2(moved > 0.002, qPrintable(QString::number(moved)));
    // The miss the message gives is the distance from the fingertip to the target.
    const Eigen::Vector3d target_palm = palm.inverse() * *vp->fingertipTarget();
    const double miss = (controller_->fingertip(finger) - target_palm).norm() * 1000.0;
    QVERIFY2(message.contains(QStringLiteral(" %1 mm").arg(miss, 0, 'f', 1)),
             qPrintable(message + QStringLiteral(" / %1").arg(miss)));
    send(QEvent::MouseButtonRelease, grabbed + QPointF(-12, 8), Qt::LeftButton, Qt::NoButton);
    QVERIFY(!vp->fingertipTarget());
    QVERIFY(!vp->scene().dragTargetNode());

    // Pull the free cube up while it plays: it rises against gravity.
    menuAction(window_, QStringLiteral("New Scene"))->trigger();
    window_->objectPanel()->list()->setCurrentRow(0);
    QTest::mouseClick(window_->objectPanel()->freeBox(), Qt::LeftButton);
    vp->requestFrame();
    QTest::qWait(50);
    menuAction(window_, QStringLiteral("Play"))->trigger();
    const Eigen::Vector3d cube = controller_->objectPose(0).translation();
    const QPointF at = vp->widgetPointOf(cube + Eigen::Vector3d(0, 0, 0.02));
    send(QEvent::MouseButtonPress, at, Qt::RightButton, Qt::RightButton);
    QCOMPARE(controller_->perturbedObject(), 0);
    send(QEvent::MouseMove, at + QPointF(0, -60), Qt::NoButton, Qt::RightButton);
    QVERIFY(controller_->perturbationTarget().z() > cube.z() + 0.03);
    for (int i = 0; i < 5; ++i) controller_->advance(0.1);
    QVERIFY(!controller_->liveState().object_applied_wrench_world.empty());
    QVERIFY2(controller_->objectPose(0).translation().z() > cube.z() + 0.01,
             qPrintable(QString::number(controller_->objectPose(0).translation().z() - cube.z())));
    send(QEvent::MouseButtonRelease, at + QPointF(0, -60), Qt::RightButton, Qt::NoButton);
    QCOMPARE(controller_->perturbedObject(), -1);
    QVERIFY(controller_->liveState().object_applied_wrench_world.empty());
  }

  // The pull damps the object's spin as MuJoCo's simulate does: with the grabbed point at the
  // centre of mass (no moment from the spring) and no gravity or contacts, the torque is
  // -2 w I omega alone, so the angular momentum about the centre of mass decays as
  // L(t) = L(0) exp(-2 w t), w = 2 pi 3 Hz (worked here; semi-implicit Euler at 1 ms loses
  // 4 % against it over 50 steps). Without the damping it would keep spinning at 10 rad/s.
  void pullDampsTheObjectsSpin() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("spin.json"));
    QVERIFY(writeFile(
        path,
        "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
        " \"duration_s\": 5, \"dt_s\": 0.001, \"gravity_mps2\": [0, 0, 0],\n"
        " \"objects\": [{\"name\": \"cube\", \"mesh\": \"objects/cube.wrl\", \"free\": true,\n"
        "   \"pose\": {\"translation_m\": [0.4, 0, 0.3], \"rpy_deg\": [20, 35, 0]},\n"
        "   \"angular_velocity_radps\": [0, 3, 10]}]}\n"));
    QVERIFY2(window_->openFile(path), qPrintable(window_->lastError()));
    QCOMPARE(controller_->objects().size(), std::size_t{1});
    QVERIFY(!controller_->objects()[0].fixed);
    menuAction(window_, QStringLiteral("Play"))->trigger();
    controller_->advance(0.02);
    const handsim::geometry::MassProperties& mp = controller_->objects()[0].mass;
    const auto momentum = [this, &mp] {
      const handsim::sim::SimState& s = controller_->liveState();
      const Eigen::Matrix3d R = s.object_pose_world[0].linear();
      return Eigen::Vector3d(R * mp.inertia_com * R.transpose() *
                             s.object_twist_world[0].tail<3>());
    };
    const Eigen::Vector3d spin(0, 3, 10);
    QVERIFY((controller_->liveState().object_twist_world[0].tail<3>() - spin).norm() < 1e-6);
    // Grab the centre of mass where it is (the spring pulls nothing) and let it play 50 ms.
    const Eigen::Vector3d com = controller_->objectPose(0) * mp.centre_of_mass;
    QVERIFY(controller_->setPerturbation(0, mp.centre_of_mass, com));
    const double t0 = controller_->liveState().time;
    const Eigen::Vector3d l0 = momentum();
    controller_->advance(0.05);
    const double t = controller_->liveState().time - t0;
    QVERIFY(std::abs(t - 0.05) < 1e-9);
    const double w = 2.0 * 3.14159265358979323846 * 3.0;
    const Eigen::Vector3d l = momentum();
    const double ratio = l.norm() / l0.norm();
    QVERIFY2(std::abs(ratio / std::exp(-2.0 * w * t) - 1.0) < 0.05,
             qPrintable(QStringLiteral("%1 vs %2").arg(ratio).arg(std::exp(-2.0 * w * t))));
    QVERIFY(l.normalized().dot(l0.normalized()) > 1.0 - 1e-9);  // only its size changes
    // Each step's torque is that law's, from the state the step started from.
    const handsim::sim::SimState before = controller_->liveState();
    const Eigen::Matrix3d R = before.object_pose_world[0].linear();
    const Eigen::Vector3d expected =
        -2.0 * w * R * mp.inertia_com * R.transpose() * before.object_twist_world[0].tail<3>();
    controller_->advance(0.001);
    const Eigen::Vector3d torque =
        controller_->liveState().object_applied_wrench_world[0].tail<3>();
    QVERIFY2((torque - expected).norm() < 1e-9 * expected.norm() + 1e-15,
             qPrintable(QStringLiteral("%1 vs %2").arg(torque.norm()).arg(expected.norm())));
    controller_->clearPerturbation();
  }

  // Start velocities are the scene plan's, one per object: removing an object takes its own
  // with it (the other keeps its), a new hand keeps them, an imported object starts at rest,
  // a reset starts each so again, and a saved scene writes them where they were read from.
  void startVelocitiesFollowTheirObjects() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("moving.json"));
    QVERIFY(writeFile(
        path,
        "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
        " \"duration_s\": 1, \"gravity_mps2\": [0, 0, 0], \"objects\": [\n"
        "  {\"name\": \"a\", \"mesh\": \"objects/cube.wrl\", \"free\": true,\n"
        "   \"pose\": {\"translation_m\": [0.5, 0, 0.3]}, \"linear_velocity_mps\": [0.1, 0, 0]},\n"
        "  {\"name\": \"b\", \"mesh\": \"objects/cube.wrl\", \"free\": true,\n"
        "   \"pose\": {\"translation_m\": [-0.5, 0, 0.3]}, \"linear_velocity_mps\": [0, 0.2, 0],\n"
        "   \"angular_velocity_radps\": [0, 0, 1]}]}\n"));
    QVERIFY2(window_->openFile(path), qPrintable(window_->lastError()));
    using handsim::sim::Twist;
    Twist b;
    b << 0.0, 0.2, 0.0, 0.0, 0.0, 1.0;
    QCOMPARE(controller_->liveState().object_twist_world.size(), std::size_t{2});
    QVERIFY(controller_->liveState().object_twist_world[1] == b);
    controller_->removeObject(0);
    controller_->resetRun();
    QCOMPARE(controller_->scenario().plan.object_twist_world.size(), std::size_t{1});
    QVERIFY(controller_->liveState().object_twist_world.at(0) == b);
    controller_->loadHand("barrett");
    controller_->resetRun();
    QVERIFY(controller_->liveState().object_twist_world.at(0) == b);
    QVERIFY(window_->importObject(QStringLiteral(HANDSIM_SOURCE_DIR "/assets/objects/cube.wrl")));
    controller_->setObjectFree(1, true);
    controller_->resetRun();
    QVERIFY(controller_->liveState().object_twist_world.at(0) == b);
    QVERIFY(controller_->liveState().object_twist_world.at(1).isZero(0.0));
    const QString saved = dir.filePath(QStringLiteral("saved.json"));
    controller_->saveScene(saved.toStdString());
    QFile file(saved);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const nlohmann::json doc = nlohmann::json::parse(file.readAll().toStdString());
    QCOMPARE(doc.at("objects").size(), std::size_t{2});
    QVERIFY(doc["objects"][0]["linear_velocity_mps"] == nlohmann::json({0.0, 0.2, 0.0}));
    QVERIFY(doc["objects"][0]["angular_velocity_radps"] == nlohmann::json({0.0, 0.0, 1.0}));
    QVERIFY(doc["objects"][1]["linear_velocity_mps"] == nlohmann::json({0.0, 0.0, 0.0}));
  }

  // Two objects from the same file get names of their own (cube, cube_2) in the scene, the
  // Objects panel, the recorder's columns, the plot list and a saved scene, which opens again
  // with the same names.
  void objectsFromOneFileGetTheirOwnNames() {
    QVERIFY(window_->importObject(QStringLiteral(HANDSIM_SOURCE_DIR "/assets/objects/cube.wrl")));
    QCOMPARE(controller_->objects().size(), std::size_t{2});
    QCOMPARE(QString::fromStdString(controller_->objects()[0].name), QStringLiteral("cube"));
    QCOMPARE(QString::fromStdString(controller_->objects()[1].name), QStringLiteral("cube_2"));
    handsim::app::ObjectPanel* objects = window_->objectPanel();
    QCOMPARE(objects->list()->count(), 2);
    QVERIFY2(objects->list()->item(1)->text().contains(QStringLiteral("cube_2")),
             qPrintable(objects->list()->item(1)->text()));
    for (int i = 0; i < 2; ++i) {
      objects->list()->setCurrentRow(i);
      QTest::mouseClick(objects->freeBox(), Qt::LeftButton);
    }
    QVERIFY(!controller_->objects()[1].fixed);
    const std::vector<std::string>& columns = controller_->recorder().columns();
    std::set<std::string> distinct(columns.begin(), columns.end());
    QCOMPARE(distinct.size(), columns.size());
    QVERIFY(distinct.count("cube.z") == 1 && distinct.count("cube_2.z") == 1);
    QVERIFY(distinct.count("contact.F1.cube_2.force") == 1);
    auto* list = window_->plotDock()->findChild<QListWidget*>();
    QVERIFY(!list->findItems(QStringLiteral("cube_2.z"), Qt::MatchExactly).isEmpty());
    QCOMPARE(list->findItems(QStringLiteral("cube.z"), Qt::MatchExactly).size(), 1);

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("two.json"));
    answerFileDialog(path);
    menuAction(window_, QStringLiteral("Save Scene..."))->trigger();
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const nlohmann::json doc = nlohmann::json::parse(file.readAll().toStdString());
    QCOMPARE(doc.at("objects").size(), std::size_t{2});
    QCOMPARE(QString::fromStdString(doc["objects"][1]["name"].get<std::string>()),
             QStringLiteral("cube_2"));
    // Removing the first keeps cube_2's name; opening the file gives both names back.
    objects->list()->setCurrentRow(0);
    QTest::mouseClick(button(objects, QStringLiteral("Remove")), Qt::LeftButton);
    QCOMPARE(QString::fromStdString(controller_->objects()[0].name), QStringLiteral("cube_2"));
    QVERIFY(window_->openFile(path));
    QCOMPARE(QString::fromStdString(controller_->objects()[0].name), QStringLiteral("cube"));
    QCOMPARE(QString::fromStdString(controller_->objects()[1].name), QStringLiteral("cube_2"));
    // A scenario naming both the same (or not at all) gets cube and cube_2 too.
    const QString same = dir.filePath(QStringLiteral("same.json"));
    QVERIFY(writeFile(same,
                      "{\"format\": \"handsim-scenario\", \"version\": 1, \"hand\": \"barrett\",\n"
                      " \"duration_s\": 1, \"objects\": [{\"mesh\": \"objects/cube.wrl\",\n"
                      "                \"pose\": {\"translation_m\": [0.3, 0, 0.1]}},\n"
                      "               {\"mesh\": \"objects/cube.wrl\",\n"
                      "                \"pose\": {\"translation_m\": [0.4, 0, 0.1]}}]}\n"));
    QVERIFY2(window_->openFile(same), qPrintable(window_->lastError()));
    QCOMPARE(QString::fromStdString(controller_->objects()[1].name), QStringLiteral("cube_2"));
    QCOMPARE(controller_->scenario().objects.at(1).name, std::string("cube_2"));
  }

  // A slider dragged while the run plays changes the servo's set point; Edit > Undo puts the
  // set point back (the run goes on), one step per drag however long it takes; Redo again.
  void sliderDragsDuringARunAreUndoable() {
    menuAction(window_, QStringLiteral("Play"))->trigger();
    QVERIFY(controller_->running());
    controller_->advance(0.05);
    const int m1 = controller_->hand().actuatorIndex("M1");
    QSlider* slider = window_->jointPanel()->slider(m1);
    const double before = controller_->liveState().actuator_command[m1];
    const int slider_before = slider->value();
    QAction* undo = menuAction(window_, QStringLiteral("Undo"));
    QAction* redo = menuAction(window_, QStringLiteral("Redo"));
    QVERIFY(!undo->isEnabled());
    // Drag the handle with the mouse, in several moves over more than a second.
    window_->raisePanel(QStringLiteral("joints"));
    QTest::qWait(50);
    QStyleOptionSlider option;
    option.initFrom(slider);
    option.orientation = slider->orientation();
    option.minimum = slider->minimum();
    option.maximum = slider->maximum();
    option.sliderPosition = slider->value();
    option.sliderValue = slider->value();
    const QRect handle = slider->style()->subControlRect(QStyle::CC_Slider, &option,
                                                         QStyle::SC_SliderHandle, slider);
    QPoint at = handle.center();
    QTest::mousePress(slider, Qt::LeftButton, {}, at);
    QVERIFY(slider->isSliderDown());
    for (int i = 0; i < 6; ++i) {
      at += QPoint(slider->width() / 12, 0);
      QMouseEvent move(QEvent::MouseMove, QPointF(at), slider->mapToGlobal(QPointF(at)),
                       Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(slider, &move);
      controller_->advance(0.05);
      QTest::qWait(250);  // 1.5 s in all: more than undo's merging of quick edits
    }
    QTest::mouseRelease(slider, Qt::LeftButton, {}, at);
    const double dragged = controller_->liveState().actuator_command[m1];
    QVERIFY2(dragged > before + 1000.0, qPrintable(QString::number(dragged)));
    QVERIFY(controller_->running());
    QVERIFY(undo->isEnabled());
    undo->trigger();
    QCOMPARE(controller_->liveState().actuator_command[m1], before);
    QVERIFY(controller_->running());               // the run goes on
    QVERIFY(!undo->isEnabled());                   // one step for the whole drag
    QVERIFY(controller_->liveState().time > 0.2);  // not started anew
    QCOMPARE(slider->value(), slider_before);
    QVERIFY(redo->isEnabled());
    redo->trigger();
    QCOMPARE(controller_->liveState().actuator_command[m1], dragged);
    // A second drag is a step of its own.
    at = QPoint(slider->width() / 4, slider->height() / 2);
    QTest::mouseClick(slider, Qt::LeftButton, {}, at);  // a click pages the handle
    QVERIFY(controller_->liveState().actuator_command[m1] != dragged);
    undo->trigger();
    QCOMPARE(controller_->liveState().actuator_command[m1], dragged);
    undo->trigger();
    QCOMPARE(controller_->liveState().actuator_command[m1], before);
  }

  // Item 9: a truncated URDF and a broken OBJ, opened through their menus' file dialogs, are
  // reported at their line; a folder named like a mesh is called a folder. The scene stays.
  void loadErrorsSayWhere() {
    QTemporaryDir dir;
    QFile good(QStringLiteral(HANDSIM_SOURCE_DIR "/assets/hands/urdf/wrist_hand.urdf"));
    QVERIFY(good.open(QIODevice::ReadOnly));
    const QByteArray urdf = good.readAll();
    const int cut = urdf.indexOf("<link name=\"palm\"");
    QVERIFY(cut > 0);
    const QString truncated = dir.filePath(QStringLiteral("truncated.urdf"));
    QVERIFY(writeFile(truncated, urdf.left(cut + 8)));  // "<link na": the file ends in a tag
    const int line = static_cast<int>(urdf.left(cut).count('\n')) + 1;
    answerFileDialog(truncated);
    menuAction(window_, QStringLiteral("Open Hand File..."))->trigger();
    QVERIFY2(window_->lastError().startsWith(truncated + QStringLiteral(":%1: ").arg(line)),
             qPrintable(window_->lastError()));
    QCOMPARE(QString::fromStdString(controller_->hand().id), QStringLiteral("barrett"));

    const QString obj = dir.filePath(QStringLiteral("broken.obj"));
    QVERIFY(writeFile(obj,
                      "# a triangle and a face past the last vertex\nv 0 0 0\nv 0.05 0 0\n"
                      "v 0 0.05 0\nf 1 2 3\nf 1 2 9\n"));
    answerFileDialog(obj);
    menuAction(window_, QStringLiteral("Import Object..."))->trigger();
    QVERIFY2(window_->lastError().startsWith(obj + QStringLiteral(":6: face vertex 9")),
             qPrintable(window_->lastError()));
    QCOMPARE(controller_->objects().size(), std::size_t{1});

    // handsim --object some_dir.wrl imports as this does.
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("folder.wrl")));
    QVERIFY(!window_->importObject(dir.filePath(QStringLiteral("folder.wrl"))));
    QVERIFY2(window_->lastError().contains(QStringLiteral("is a folder")),
             qPrintable(window_->lastError()));
  }

 private:
  SimulationController* controller_ = nullptr;
  MainWindow* window_ = nullptr;
};

QTEST_MAIN(WorkflowTest)
#include "test_workflows.moc"
