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
#include <QPushButton>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>

#include "default_window.hpp"
#include "joint_panel.hpp"
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
