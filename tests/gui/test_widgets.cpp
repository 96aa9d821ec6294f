// SPDX-License-Identifier: GPL-3.0-or-later
// Widget tests of the application (QtTest), run under Xvfb because the window holds an
// OpenGL viewport.
#include <QDoubleSpinBox>
#include <QFile>
#include <QSlider>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "handsim/hand/hand_loader.hpp"
#include "joint_panel.hpp"
#include "main_window.hpp"
#include "osg_viewport.hpp"
#include "simulation_controller.hpp"

using handsim::app::MainWindow;
using handsim::app::SimulationController;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;
}

class WidgetTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void init() {
    controller_ = new SimulationController;
    window_ = new MainWindow(controller_);
    window_->setDialogsEnabled(false);
    window_->loadDefaultScene();
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_));
  }

  void cleanup() {
    delete window_;
    delete controller_;
  }

  void defaultSceneIsBarrettAndCube() {
    QCOMPARE(QString::fromStdString(controller_->hand().id), QStringLiteral("barrett"));
    QCOMPARE(controller_->objects().size(), std::size_t{1});
    QVERIFY(controller_->objects()[0].model.triangleCount() == 12);
  }

  void sliderDrivesCoupledJoints() {
    // M3 drives F3.J2 = counts/125 deg and F3.J3 = counts/375 deg (seed 000 eq. 3-4).
    const int m3 = controller_->hand().actuatorIndex("M3");
    QVERIFY(m3 >= 0);
    const int f3 = controller_->hand().fingerIndex("F3");
    window_->jointPanel()->slider(m3)->setValue(7500);
    const auto& chain = controller_->hand().fingers[static_cast<std::size_t>(f3)];
    const auto& q = controller_->state().q[static_cast<std::size_t>(f3)];
    QVERIFY(std::abs(q(chain.jointIndex("J2")) - 60.0 * kDeg) < 1e-9);
    QVERIFY(std::abs(q(chain.jointIndex("J3")) - 20.0 * kDeg) < 1e-9);
    // The spin box follows the slider, and the read-out shows both coupled joints.
    QCOMPARE(window_->jointPanel()->spinBox(m3)->value(), 7500.0);
    QVERIFY(window_->jointPanel()->jointReadout().contains(QStringLiteral("F3: 60.0° 20.0°")));
  }

  void spinBoxAndControllerDriveTheSlider() {
    const int m1 = controller_->hand().actuatorIndex("M1");
    window_->jointPanel()->spinBox(m1)->setValue(12500.0);
    QCOMPARE(window_->jointPanel()->slider(m1)->value(), 12500);
    const auto& chain = controller_->hand().fingers[0];
    QVERIFY(std::abs(controller_->state().q[0](chain.jointIndex("J2")) - 100.0 * kDeg) < 1e-9);
    // Back: a command from elsewhere (reset) moves the widgets.
    controller_->resetToZero();
    QCOMPARE(window_->jointPanel()->slider(m1)->value(), 0);
    QCOMPARE(window_->jointPanel()->spinBox(m1)->value(), 0.0);
  }

  void limitsAreRespected() {
    const int m1 = controller_->hand().actuatorIndex("M1");
    controller_->setActuatorCommand(m1, 1e9);
    QCOMPARE(controller_->state().actuator_position[static_cast<std::size_t>(m1)], 17500.0);
    QCOMPARE(window_->jointPanel()->slider(m1)->value(), 17500);
    QCOMPARE(window_->jointPanel()->spinBox(m1)->maximum(), 17500.0);
  }

  void importErrorKeepsTheScene() {
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("broken.wrl"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        "#VRML V2.0 utf8\nShape { geometry IndexedFaceSet { coord Coordinate { point [ 0 0 0, 1 0 "
        "] } } }\n");
    f.close();
    QVERIFY(!window_->importObject(bad));
    QVERIFY2(window_->lastError().contains(QStringLiteral("broken.wrl:")),
             qPrintable(window_->lastError()));
    QCOMPARE(controller_->objects().size(), std::size_t{1});
  }

  void runningFollowsTheFixedStep() {
    controller_->loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_close_free.json");
    controller_->play();
    for (int i = 0; i < 10; ++i) controller_->advance(0.05);
    // 0.5 s of wall clock at real time = 500 steps of 1 ms.
    QCOMPARE(controller_->liveState().step, std::int64_t{500});
    QCOMPARE(controller_->recorder().rowCount(), std::size_t{501});
    controller_->pause();
    QVERIFY(window_->viewport()->frameCount() >= 0);
  }

 private:
  SimulationController* controller_ = nullptr;
  MainWindow* window_ = nullptr;
};

int main(int argc, char** argv) {
  QSurfaceFormat format;
  format.setProfile(QSurfaceFormat::CompatibilityProfile);
  format.setVersion(2, 1);
  format.setDepthBufferSize(24);
  QSurfaceFormat::setDefaultFormat(format);
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("handsim-tests"));
  WidgetTest test;
  return QTest::qExec(&test, argc, argv);
}
#include "test_widgets.moc"
