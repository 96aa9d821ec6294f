// SPDX-License-Identifier: GPL-3.0-or-later
// The planner panel on Qt's offscreen platform (no OpenGL: no main window): a run on the
// worker thread while the event loop keeps ticking, the live best list equal to the core
// planner's result, a clicked grasp shown in the scene, a validation with the closing played,
// stop, and export read back.
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

#include "handsim/planner/grasp_records.hpp"
#include "planner_panel.hpp"
#include "simulation_controller.hpp"

using handsim::app::PlannerPanel;
using handsim::app::SimulationController;
namespace planner = handsim::planner;

class PlannerPanelTest : public QObject {
  Q_OBJECT
 private:
  SimulationController* controller_ = nullptr;
  PlannerPanel* panel_ = nullptr;

 private Q_SLOTS:
  void initTestCase() {
    controller_ = new SimulationController(this);
    controller_->newScene();  // the BarrettHand and a 5 cm cube
    QVERIFY(!controller_->objects().empty());
    panel_ = new PlannerPanel(controller_);
    panel_->resize(420, 700);
    panel_->show();
    QVERIFY(QTest::qWaitForWindowExposed(panel_));
  }
  void cleanupTestCase() { delete panel_; }

  // The panel says what the planner closes: the BarrettHand file's M1-M3, and for a URDF
  // without a sidecar the actuators inferred from its kinematics (the same list as
  // planner::graspSummary, which hands --describe and Python show); back to the BarrettHand.
  void namesWhatThePlannerCloses() {
    QVERIFY2(panel_->closingText().startsWith(QStringLiteral("Closes M1, M2, M3 (the hand file")),
             qPrintable(panel_->closingText()));
    const std::string urdf =
        std::string(HANDSIM_SOURCE_DIR) + "/assets/hands/urdf/mimic_gripper.urdf";
    controller_->loadHand(urdf);
    QVERIFY2(panel_->closingText().contains(QStringLiteral("hook_proximal")) &&
                 panel_->closingText().contains(QStringLiteral("inferred")),
             qPrintable(panel_->closingText()));
    QVERIFY(!panel_->closingText().contains(QStringLiteral("jaw_left")));
    // Auto Grasp closes the same actuator on this hand (it names none), not the jaw.
    controller_->autoGrasp();
    controller_->pause();
    const auto& h = controller_->hand();
    const auto& traj = controller_->simulatorTrajectories();
    QCOMPARE(traj.size(), h.actuators.size());
    QVERIFY(!traj[static_cast<std::size_t>(h.actuatorIndex("hook_proximal"))].empty());
    QVERIFY(traj[static_cast<std::size_t>(h.actuatorIndex("jaw_left"))].empty());
    controller_->newScene();
    QVERIFY(panel_->closingText().startsWith(QStringLiteral("Closes M1, M2, M3")));
  }

  void plansOnAWorkerThreadIntoTheBestList() {
    panel_->graspsBox()->setValue(3);
    panel_->candidatesBox()->setValue(12);
    panel_->threadsBox()->setValue(1);
    panel_->seedBox()->setValue(4);
    QSignalSpy finished(panel_, &PlannerPanel::finished);
    // The window stays live: a 10 ms timer keeps firing while the run goes on.
    QTimer tick;
    QElapsedTimer clock;
    qint64 last = 0, longest = 0;
    int ticks = 0;
    connect(&tick, &QTimer::timeout, this, [&] {
      const qint64 now = clock.elapsed();
      longest = std::max(longest, now - last);
      last = now;
      ++ticks;
    });
    clock.start();
    tick.start(10);
    QTest::mouseClick(panel_->startButton(), Qt::LeftButton);
    QVERIFY(panel_->busy());
    QVERIFY(!panel_->startButton()->isEnabled());
    QVERIFY(finished.wait(120000));
    tick.stop();
    QVERIFY(!panel_->busy());
    QVERIFY(ticks > 0);
    QVERIFY2(longest < 2000, qPrintable(QString::number(longest)));
    // The same grasps as the core planner with the same options.
    planner::PlannerOptions o;
    o.grasps = 3;
    o.candidates = 12;
    o.seed = 4;
    sim_object_check(o);
    const auto& records = panel_->records();
    QCOMPARE(panel_->table()->rowCount(), static_cast<int>(records.size()));
    // Best first: epsilon falls down the list.
    for (int row = 1; row < panel_->table()->rowCount(); ++row)
      QVERIFY(
          records[static_cast<std::size_t>(panel_->recordOfRow(row - 1))]
              .grasp.closed.quality.epsilon >=
          records[static_cast<std::size_t>(panel_->recordOfRow(row))].grasp.closed.quality.epsilon);
    QVERIFY(panel_->statusText().contains(QStringLiteral("grasps in")));
  }

  void aClickedGraspIsShownInTheScene() {
    QVERIFY(panel_->table()->rowCount() > 0);
    const QRect cell = panel_->table()->visualItemRect(panel_->table()->item(0, 0));
    QTest::mouseClick(panel_->table()->viewport(), Qt::LeftButton, {}, cell.center());
    const int index = panel_->recordOfRow(0);
    const auto& g = panel_->records()[static_cast<std::size_t>(index)].grasp;
    QVERIFY(controller_->palmPose().isApprox(controller_->objectPose(0) * g.palm_object, 1e-12));
    const auto& a = controller_->state().actuator_position;
    for (std::size_t i = 0; i < a.size(); ++i)
      QVERIFY(std::abs(a[i] - g.closed.posture[static_cast<Eigen::Index>(i)]) < 1e-9);
  }

  void validatesTheSelectedGraspAndPlaysTheClosing() {
    panel_->table()->selectRow(0);
    panel_->presetBox()->setCurrentText(QStringLiteral("lift"));
    QSignalSpy validated(panel_, &PlannerPanel::validated);
    QTest::mouseClick(panel_->validateButton(), Qt::LeftButton);
    QVERIFY(controller_->running());  // the closing plays in the viewport
    QVERIFY(validated.wait(120000));
    controller_->pause();
    const int index = panel_->recordOfRow(0);
    QCOMPARE(validated.takeFirst().at(0).toInt(), index);
    const auto& v = panel_->records()[static_cast<std::size_t>(index)].validation;
    QCOMPARE(v.size(), std::size_t{1});
    QCOMPARE(QString::fromStdString(v[0].preset), QStringLiteral("lift"));
    QCOMPARE(v[0].directions.size(), std::size_t{1});
    QVERIFY(panel_->validationText().startsWith(QStringLiteral("lift (drives): ")));
    QVERIFY(panel_->table()->item(0, 3)->text().startsWith(QStringLiteral("lift ")));
    // The picture of docs/gui.md: HANDSIM_PLANNER_PANEL_PNG=docs/images/handsim-panel-planner.png
    const QByteArray picture = qgetenv("HANDSIM_PLANNER_PANEL_PNG");
    if (!picture.isEmpty()) QVERIFY(panel_->grab().save(QString::fromLocal8Bit(picture)));
  }

  void exportsWhatItLists() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("grasps.jsonl"));
    QVERIFY(panel_->exportTo(path));
    const auto back = planner::loadGraspRecords(path.toStdString());
    QCOMPARE(back.size(), panel_->records().size());
    QCOMPARE(planner::graspRecordsText(back), planner::graspRecordsText(panel_->records()));
    QString error;
    QVERIFY(!panel_->exportTo(dir.filePath(QStringLiteral("no/such/dir/x.jsonl")), &error));
    QVERIFY(error.contains(QStringLiteral("Cannot export")));
  }

  void stopEndsARunEarly() {
    panel_->graspsBox()->setValue(500);
    panel_->candidatesBox()->setValue(0);  // 50,000 candidates
    QSignalSpy finished(panel_, &PlannerPanel::finished);
    panel_->start();
    QTest::qWait(300);
    QTest::mouseClick(panel_->stopButton(), Qt::LeftButton);
    QVERIFY(finished.wait(60000));
    QVERIFY(panel_->records().size() < 500);
    QVERIFY(panel_->statusText().contains(QStringLiteral("stopped")));
    QVERIFY(panel_->startButton()->isEnabled());
  }

 private:
  // The panel's list against planGrasps on the same hand, object and options.
  void sim_object_check(const planner::PlannerOptions& o) {
    const handsim::sim::ObjectModel object = controller_->objects().front();
    const auto pm = planner::compilePlannerModel(controller_->model().hand_ptr, object);
    const auto expected = planner::planGrasps(pm, o);
    QCOMPARE(panel_->records().size(), expected.size());
    QVERIFY(!expected.empty());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      QCOMPARE(panel_->records()[i].grasp.candidate, expected[i].candidate);
      QVERIFY(panel_->records()[i].grasp.palm_object.matrix() == expected[i].palm_object.matrix());
    }
  }
};

QTEST_MAIN(PlannerPanelTest)
#include "test_planner_panel.moc"
