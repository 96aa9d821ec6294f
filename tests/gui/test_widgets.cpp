// SPDX-License-Identifier: GPL-3.0-or-later
// Widget tests of the application (QtTest), run under Xvfb because the window holds an
// OpenGL viewport.
#include <QDockWidget>
#include <QDomDocument>
#include <QDoubleSpinBox>
#include <QFile>
#include <QImage>
#include <QMimeData>
#include <QProcess>
#include <QSettings>
#include <QSlider>
#include <QStatusBar>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <osg/Geometry>
#include <osg/NodeVisitor>

#include "cartesian_panel.hpp"
#include "default_window.hpp"
#include "grasp_panel.hpp"
#include "handsim/collision/kdop_tree.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/pose_io.hpp"
#include "handsim/formats/scenario.hpp"
#include "handsim/grasp/grasp_quality.hpp"
#include "handsim/kinematics/workspace.hpp"
#include "handsim/planner/grasp_defaults.hpp"
#include "joint_panel.hpp"
#include "main_window.hpp"
#include "object_panel.hpp"
#include "osg_viewport.hpp"
#include "plot_dock.hpp"
#include "scene_graph.hpp"
#include "simulation_controller.hpp"
#include "trajectory_panel.hpp"

using handsim::app::MainWindow;
using handsim::app::SimulationController;

namespace {
constexpr double kDeg = 3.14159265358979323846 / 180.0;

/// The drawables under a node (each one a draw call), their vertices and their bounds.
struct DrawableCount : osg::NodeVisitor {
  DrawableCount() : osg::NodeVisitor(TRAVERSE_ALL_CHILDREN) {}
  void apply(osg::Drawable& d) override {
    ++drawables;
    if (const osg::Geometry* g = d.asGeometry())
      for (unsigned i = 0; i < g->getNumPrimitiveSets(); ++i)
        vertices += static_cast<int>(g->getPrimitiveSet(i)->getNumIndices());
    bounds.expandBy(d.getBoundingBox());
  }
  int drawables = 0;
  int vertices = 0;
  osg::BoundingBox bounds;
};

DrawableCount countDrawables(osg::Node* node) {
  DrawableCount count;
  node->accept(count);
  return count;
}
}  // namespace

class WidgetTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void init() {
    QVERIFY(handsim::app::test::openDefaultWindow(controller_, window_, false));
  }

  void cleanup() {
    handsim::app::test::closeDefaultWindow(controller_, window_);
  }

  void defaultSceneIsBarrettAndCube() {
    QCOMPARE(QString::fromStdString(controller_->hand().id), QStringLiteral("barrett"));
    QCOMPARE(controller_->objects().size(), std::size_t{1});
    QVERIFY(controller_->objects()[0].geometry->visual.triangleCount() == 12);
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
    // The viewport draws the new state.
    const int frames = window_->viewport()->frameCount();
    window_->viewport()->requestFrame();
    QTRY_VERIFY(window_->viewport()->frameCount() > frames);
  }

  void theObjectPanelSetsFrictionAndTorsionAndTheSceneKeepsThem() {
    handsim::app::ObjectPanel* panel = window_->objectPanel();
    panel->list()->setCurrentRow(0);
    QCOMPARE(panel->torsionField()->text(), QStringLiteral("scene's"));  // none of its own
    panel->frictionField()->setValue(0.8);
    panel->torsionField()->setValue(3.0);
    QCOMPARE(controller_->objects()[0].friction, 0.8);
    QCOMPARE(controller_->objects()[0].torsional, 0.003);
    // Saved and read back by the core's scenario reader.
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("scene.json")).toStdString();
    controller_->saveScene(path);
    const handsim::sim::Scenario sc = handsim::sim::loadScenario(path);
    QCOMPARE(sc.objects.at(0).friction, 0.8);
    QCOMPARE(sc.objects.at(0).torsional, 0.003);
    // Back to the scene's length.
    panel->torsionField()->setValue(panel->torsionField()->minimum());
    QCOMPARE(controller_->objects()[0].torsional, -1.0);
    QCOMPARE(panel->torsionField()->text(), QStringLiteral("scene's"));
  }

  void aFreeObjectFallsOntoTheGroundAndTheLiftCarriesThePalm() {
    // The default cube, made free in the object panel, with the ground plane switched on.
    handsim::app::ObjectPanel* panel = window_->objectPanel();
    panel->list()->setCurrentRow(0);
    QVERIFY(controller_->objects()[0].fixed);
    panel->freeBox()->setChecked(true);
    QVERIFY(!controller_->objects()[0].fixed);
    controller_->setGroundEnabled(true);
    QVERIFY(controller_->groundEnabled());
    QVERIFY(!controller_->objects()[0].fixed);  // the ground keeps the objects as they are
    const auto lowest = [this] {
      double z = 1e9;
      const handsim::sim::SimState& s = controller_->liveState();
      for (const Eigen::Vector3d& v : controller_->objects()[0].geometry->collision.mesh.vertices)
        z = std::min(z, (s.object_pose_world[0] * v).z());
      return z;
    };
    const double start = lowest();
    QVERIFY(start > 0.01);
    controller_->play();
    for (int i = 0; i < 40; ++i) controller_->advance(0.05);
    controller_->pause();
    // It fell (unless the hand caught it) and rests on the plane, not through it.
    QVERIFY(lowest() < start - 1e-3);
    QVERIFY(lowest() > -0.002);
    QVERIFY(std::abs(controller_->liveState().object_twist_world[0].head<3>().norm()) < 0.05);

    // Lift: 10 cm against gravity at 0.05 m/s, 0.25 m/s^2 (2.2 s), the run's plan unchanged.
    const double palm_z = controller_->palmPose().translation().z();
    controller_->liftPalm(0.1);
    QVERIFY(controller_->running());
    for (int i = 0; i < 60; ++i) controller_->advance(0.05);
    controller_->pause();
    QVERIFY(std::abs(controller_->palmPose().translation().z() - (palm_z + 0.1)) < 1e-9);
    controller_->resetRun();
    QVERIFY(std::abs(controller_->palmPose().translation().z() - palm_z) < 1e-12);
  }

  void cartesianTargetIsReachedThroughTheCoupling() {
    // A tip position the coupled finger can reach: where M3 = 9000 counts puts it.
    const int f3 = controller_->hand().fingerIndex("F3");
    controller_->setActuatorCommand(controller_->hand().actuatorIndex("M3"), 9000.0);
    const Eigen::Vector3d target = controller_->fingertip(f3);
    controller_->resetToZero();
    auto* panel = window_->cartesianPanel();
    panel->fingerBox()->setCurrentIndex(f3);
    panel->setTarget(target.x(), target.y(), target.z());
    QCOMPARE(panel->message(), QStringLiteral("Reached."));
    QVERIFY((controller_->fingertip(f3) - target).norm() < 5e-4);
  }

  void unreachableTargetExplainsAndKeepsTheHand() {
    const int f1 = controller_->hand().fingerIndex("F1");
    controller_->setActuatorCommand(controller_->hand().actuatorIndex("M1"), 5000.0);
    const auto before = controller_->state().q;
    auto* panel = window_->cartesianPanel();
    panel->fingerBox()->setCurrentIndex(f1);
    panel->setTarget(0.5, 0.5, 0.5);
    QVERIFY2(panel->message().contains(QStringLiteral("Unreachable")),
             qPrintable(panel->message()));
    QVERIFY2(panel->message().contains(QStringLiteral("mm")), qPrintable(panel->message()));
    for (std::size_t f = 0; f < before.size(); ++f) QVERIFY(controller_->state().q[f] == before[f]);
    // A point the joints reach but the 3:1 coupling does not (inner link folded, outer straight).
    panel->setTarget(0.0, -0.03, 0.2);
    QVERIFY2(panel->message().contains(QStringLiteral("Unreachable")),
             qPrintable(panel->message()));
    for (std::size_t f = 0; f < before.size(); ++f) QVERIFY(controller_->state().q[f] == before[f]);
  }

  void plotExportFilesExistAndParse() {
    controller_->loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_close_free.json");
    controller_->play();
    for (int i = 0; i < 20; ++i) controller_->advance(0.05);
    controller_->pause();
    auto* plot = window_->plotDock();
    plot->setSignals({"F3.J2.angle", "F3.J2.torque", "M3.position", "F3.clutch"});
    std::size_t traces = 0;
    for (const handsim::plot::Panel& panel : plot->figure().panels) traces += panel.traces.size();
    QCOMPARE(traces, std::size_t{4});
    QTemporaryDir dir;
    for (const char* ext : {"png", "svg", "pdf", "csv"})
      plot->exportTo(dir.filePath(QStringLiteral("plot.") + QLatin1String(ext)));
    QVERIFY(!QImage(dir.filePath(QStringLiteral("plot.png"))).isNull());
    QFile svg(dir.filePath(QStringLiteral("plot.svg")));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QDomDocument doc;
    QVERIFY(doc.setContent(svg.readAll()));
    QFile pdf(dir.filePath(QStringLiteral("plot.pdf")));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.readAll().startsWith("%PDF-"));
    QFile csv(dir.filePath(QStringLiteral("plot.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
    QCOMPARE(lines.front(), QByteArray("time,F3.J2.angle,F3.J2.torque,M3.position,F3.clutch"));
    QCOMPARE(static_cast<std::size_t>(lines.size()), controller_->recorder().rowCount() + 1);
  }

  void sceneRoundTripsAndBadSceneKeepsTheCurrentOne() {
    QTemporaryDir dir;
    Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
    pose.translation() = Eigen::Vector3d(0.01, 0.02, 0.15);
    pose.linear() = Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    controller_->setObjectPose(0, pose);
    Eigen::Isometry3d palm = Eigen::Isometry3d::Identity();
    palm.translation() = Eigen::Vector3d(0.1, -0.05, 0.3);
    palm.linear() =
        Eigen::AngleAxisd(0.8, Eigen::Vector3d(1, 0, 1).normalized()).toRotationMatrix();
    controller_->setPalmPose(palm);
    controller_->setActuatorCommand(controller_->hand().actuatorIndex("M2"), 4000.0);
    controller_->setTrajectories({{2, 9000.0, 5000.0, 20000.0, 0.1}});
    const QString path = dir.filePath(QStringLiteral("scene.json"));
    QVERIFY2(window_->saveScene(path), qPrintable(window_->lastError()));
    window_->loadDefaultScene();
    QVERIFY(controller_->trajectories().empty());
    QVERIFY(controller_->palmPose().isApprox(Eigen::Isometry3d::Identity(), 0.0));
    QVERIFY(window_->openFile(path));
    QCOMPARE(controller_->objects().size(), std::size_t{1});
    QVERIFY(controller_->objectPose(0).isApprox(pose, 1e-12));
    QVERIFY(controller_->palmPose().isApprox(palm, 1e-12));
    QCOMPARE(controller_->trajectories().size(), std::size_t{1});
    QCOMPARE(controller_->trajectories()[0].to, 9000.0);
    QCOMPARE(controller_->state().actuator_command[1], 4000.0);

    // A scene naming a missing object: the dialog's message names it; nothing changes.
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QByteArray text = f.readAll();
    f.close();
    text.replace("cube.wrl", "no_such_object.wrl");
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile g(bad);
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write(text);
    g.close();
    controller_->loadHand("anthro20");
    QVERIFY(!window_->openFile(bad));
    QVERIFY2(window_->lastError().contains(QStringLiteral("no_such_object.wrl")),
             qPrintable(window_->lastError()));
    QCOMPARE(QString::fromStdString(controller_->hand().id), QStringLiteral("anthro20"));
  }

  void trajectoryFileRoundTrip() {
    QTemporaryDir dir;
    controller_->setTrajectories(
        {{0, 12000.0, 8000.0, 16000.0, 0.0}, {3, 500.0, 1000.0, 4000.0, 0.2}});
    const QString path = dir.filePath(QStringLiteral("t.json"));
    window_->trajectoryPanel()->saveFile(path);
    controller_->setTrajectories({});
    window_->trajectoryPanel()->loadFile(path);
    QCOMPARE(controller_->trajectories().size(), std::size_t{2});
    QCOMPARE(controller_->trajectories()[1].actuator, 3);
    QCOMPARE(window_->trajectoryPanel()->table()->rowCount(), 2);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"handsim-trajectories\", \"segments\": [{\"actuator\": \"M9\"}]}");
    f.close();
    try {
      window_->trajectoryPanel()->loadFile(path);
      QFAIL("no exception");
    } catch (const std::runtime_error& e) {
      QVERIFY2(QString::fromUtf8(e.what()).contains(
                   QStringLiteral("/segments/0: unknown actuator 'M9'")),
               e.what());
    }
    QCOMPARE(controller_->trajectories().size(), std::size_t{2});
  }

  void scrubberReplaysHistory() {
    controller_->loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_close_free.json");
    controller_->play();
    for (int i = 0; i < 40; ++i) controller_->advance(0.05);
    controller_->pause();
    const double end = controller_->state().time;
    window_->trajectoryPanel()->scrubber()->setValue(50);
    QVERIFY(controller_->scrubbing());
    QVERIFY(std::abs(controller_->state().time - 0.5) < 1e-9);
    QVERIFY(std::abs(controller_->liveState().time - end) < 1e-9);
  }

  void palmJogKeepsObjectsInTheWorld() {
    const Eigen::Isometry3d world_before = controller_->objectPose(0);
    const Eigen::Isometry3d in_palm_before = controller_->palmPose().inverse() * world_before;
    Eigen::Isometry3d delta = Eigen::Isometry3d::Identity();
    delta.translation() = Eigen::Vector3d(0.005, 0.0, 0.0);
    delta.linear() = Eigen::AngleAxisd(0.2, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    controller_->jogPalm(delta);
    controller_->jogPalm(delta);
    QVERIFY(controller_->objectPose(0).isApprox(world_before, 0.0));
    // Seen from the palm the cube moved.
    QVERIFY(!(controller_->palmPose().inverse() * controller_->objectPose(0))
                 .isApprox(in_palm_before, 1e-6));
    QVERIFY(controller_->palmPose().isApprox(delta * delta, 1e-12));
  }

  // The one file format: a scene saved from the GUI and run by handsim-cli simulate gives the
  // CSV the GUI recorded, byte for byte (palm turned in the world, so gravity turns; a cube the
  // closing finger meets; the clutch breaks).
  void savedSceneRunsInTheCliAsInTheGui() {
    QTemporaryDir dir;
    Eigen::Isometry3d palm = Eigen::Isometry3d::Identity();
    palm.translation() = Eigen::Vector3d(0.0, 0.0, 0.2);
    palm.linear() = Eigen::AngleAxisd(0.6, Eigen::Vector3d::UnitX()).toRotationMatrix();
    controller_->setPalmPose(palm);
    Eigen::Isometry3d cube = Eigen::Isometry3d::Identity();
    cube.translation() = Eigen::Vector3d(0.0, 0.018, 0.124);
    controller_->setObjectPose(0, palm * cube);
    controller_->setTrajectories({{2, 17500.0, 5000.0, 20000.0, 0.1}});
    controller_->play();
    for (int i = 0; i < 200 && controller_->running(); ++i) controller_->advance(0.05);
    QVERIFY(!controller_->running());
    const std::string gui_csv = controller_->recorder().toCsv();
    QVERIFY(controller_->liveState().clutches[2].broken);
    const QString scene = dir.filePath(QStringLiteral("scene.json"));
    QVERIFY2(window_->saveScene(scene), qPrintable(window_->lastError()));
    const QString csv = dir.filePath(QStringLiteral("cli.csv"));
    QProcess cli;
    cli.start(QStringLiteral(HANDSIM_CLI_PATH),
              {QStringLiteral("simulate"), scene, QStringLiteral("--csv"), csv,
               QStringLiteral("--quiet")});
    QVERIFY(cli.waitForFinished(60000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray cli_csv = f.readAll();
    QCOMPARE(static_cast<std::size_t>(cli_csv.size()), gui_csv.size());
    QVERIFY(cli_csv == QByteArray::fromStdString(gui_csv));
  }

  void namedPoseSetsEveryJoint() {
    controller_->loadHand("anthro20");
    const handsim::hand::NamedPose* pose = controller_->hand().pose("cup grasp");
    QVERIFY(pose != nullptr);
    auto* box = window_->jointPanel()->poseBox();
    box->setCurrentIndex(box->findText(QStringLiteral("cup grasp")));
    QVERIFY(controller_->applyPose(box->currentText().toStdString()));
    for (std::size_t f = 0; f < pose->q.size(); ++f)
      for (std::size_t j = 0; j < pose->q[f].size(); ++j)
        QVERIFY(std::abs(controller_->state().q[f](static_cast<Eigen::Index>(j)) - pose->q[f][j]) <
                1e-9);
  }

  void dropImportsAndRemembersRecentFiles() {
    const QString cube = QStringLiteral(HANDSIM_SOURCE_DIR "/assets/objects/sphere.wrl");
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(cube)});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_->viewport(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(window_->viewport(), &drop);
    delete mime;
    QCOMPARE(controller_->objects().size(), std::size_t{2});
    QCOMPARE(controller_->objects()[1].name, std::string("sphere"));
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    QVERIFY(!recent.isEmpty());
    QCOMPARE(recent.front(), cube);
  }

  void sceneShowsContactsAndBrokenClutches() {
    // A state made by hand: one contact, one broken clutch.
    handsim::app::SceneGraph scene;
    const auto& hand = controller_->hand();
    scene.setHand(controller_->model());
    handsim::sim::SimState state = controller_->state();
    handsim::sim::Contact c;
    c.finger = 2;
    c.row = 1;
    c.object = 0;
    c.point_world = Eigen::Vector3d(0.0, 0.02, 0.13);
    c.normal_world = -Eigen::Vector3d::UnitY();
    c.force = 12.0;
    state.contacts = {c};
    // Every kind of contact is drawn: an object on the ground, two fingers touching.
    handsim::sim::Contact ground;
    ground.object = 0;
    ground.other = handsim::sim::kGround;
    ground.normal_world = Eigen::Vector3d::UnitZ();
    ground.force = 1.0;
    handsim::sim::Contact fingers;
    fingers.finger = 0;
    fingers.row = 2;
    fingers.other_finger = 1;
    fingers.other_row = 2;
    fingers.normal_world = Eigen::Vector3d::UnitX();
    state.object_contacts = {ground};
    state.link_contacts = {fingers};
    const int clutch = hand.clutchOfActuator(hand.actuatorIndex("M3"));
    QVERIFY(clutch >= 0);
    state.clutches[static_cast<std::size_t>(clutch)].broken = true;
    scene.update(controller_->model(), state);
    QCOMPARE(scene.drawnContactCount(), 3);
    const auto inner = hand.clutches[static_cast<std::size_t>(clutch)].inner;
    const int row = hand.fingers[static_cast<std::size_t>(inner.finger)].rowOfJoint(inner.joint);
    QVERIFY(scene.showsBrokenClutch(inner.finger, row));
    QVERIFY(!scene.showsBrokenClutch(0, row));
    state.clutches[static_cast<std::size_t>(clutch)].broken = false;
    handsim::app::DisplayOptions options;
    options.contacts = false;
    scene.setOptions(options);
    scene.update(controller_->model(), state);
    QCOMPARE(scene.drawnContactCount(), 0);
    QVERIFY(!scene.showsBrokenClutch(inner.finger, row));
  }

  // Every contact arrow is in one geometry (one draw call), whatever the number of contacts:
  // a transform and three shapes per arrow cost a software rasteriser milliseconds a frame.
  void contactArrowsAreOneGeometry() {
    handsim::app::SceneGraph scene;
    scene.setHand(controller_->model());
    handsim::sim::SimState state = controller_->state();
    handsim::sim::Contact c;
    c.finger = 0;
    c.row = 2;
    c.object = 0;
    c.normal_world = -Eigen::Vector3d::UnitY();
    c.force = 5.0;
    c.point_world = Eigen::Vector3d(0.01, 0.02, 0.13);
    state.contacts = {c};
    scene.update(controller_->model(), state);
    const DrawableCount one = countDrawables(scene.contactNode());
    QCOMPARE(one.drawables, 1);
    QVERIFY(one.vertices > 0);
    // Three contacts: still one drawable, three times the vertices.
    handsim::sim::Contact d = c;
    d.point_world = Eigen::Vector3d(-0.02, 0.0, 0.1);
    d.normal_world = Eigen::Vector3d::UnitZ();  // an arrow pointing straight down
    handsim::sim::Contact e = c;
    e.point_world = Eigen::Vector3d(0.03, -0.01, 0.15);
    e.normal_world = Eigen::Vector3d(1.0, 1.0, 0.0).normalized();
    state.contacts = {c, d, e};
    scene.update(controller_->model(), state);
    const DrawableCount three = countDrawables(scene.contactNode());
    QCOMPARE(scene.drawnContactCount(), 3);
    QCOMPARE(three.drawables, 1);
    QCOMPARE(three.vertices, 3 * one.vertices);
    for (const auto& contact : state.contacts) {
      const osg::Vec3 p(static_cast<float>(contact.point_world.x()),
                        static_cast<float>(contact.point_world.y()),
                        static_cast<float>(contact.point_world.z()));
      QVERIFY2(three.bounds.contains(p), "an arrow is not at its contact point");
    }
    // The arrow of contact c (normal -y, from the link into the object) starts at its point
    // and shows the push on the link, along +y: a shaft 1 cm + 2 mm per newton long (2 cm at
    // 5 N) and a cone beyond it, millimetres thick.
    state.contacts = {c};
    scene.update(controller_->model(), state);
    const osg::BoundingBox b = countDrawables(scene.contactNode()).bounds;
    qInfo("arrow bounds y %.4f .. %.4f, x %.4f .. %.4f", b.yMin(), b.yMax(), b.xMin(), b.xMax());
    QVERIFY2(b.yMax() >= 0.02f + 0.02f && b.yMax() < 0.02f + 0.02f + 0.015f,
             qPrintable(QString::number(b.yMax())));
    QVERIFY(b.yMin() > 0.02f - 0.005f);
    QVERIFY(b.xMin() > 0.01f - 0.005f && b.xMax() < 0.01f + 0.005f);

    // In the application, with the BarrettHand closing on the cube: contacts, one drawable.
    controller_->setTrajectories({{0, 17000.0, 3000.0, 20000.0, 0.0},
                                  {1, 17000.0, 3000.0, 20000.0, 0.0},
                                  {2, 17000.0, 3000.0, 20000.0, 0.0}});
    controller_->play();
    while (controller_->liveState().contacts.size() < 2 && controller_->liveState().time < 10.0)
      controller_->advance(0.05);
    qInfo("%zu contacts at t = %.2f s", controller_->liveState().contacts.size(),
          controller_->liveState().time);
    controller_->pause();
    handsim::app::OsgViewport* vp = window_->viewport();
    const long long frames = vp->frameCount();
    vp->requestFrame();
    QTRY_VERIFY(vp->frameCount() > frames);
    QVERIFY2(vp->scene().drawnContactCount() >= 2,
             qPrintable(QString::number(vp->scene().drawnContactCount())));
    QCOMPARE(countDrawables(vp->scene().contactNode()).drawables, 1);
    QCOMPARE(countDrawables(vp->scene().contactNode()).vertices,
             vp->scene().drawnContactCount() * one.vertices);
  }

  void autoGraspClosesOnACylinderAndShowsItsQuality() {
    // A cylinder across the palm between finger 3 and fingers 1 and 2 (axis along x).
    controller_->clearObjects();
    Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
    pose.linear() = Eigen::AngleAxisd(90.0 * kDeg, Eigen::Vector3d::UnitZ()).toRotationMatrix();
    pose.translation() = Eigen::Vector3d(0.0, 0.025, 0.13);
    controller_->importObject(std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/cylinder.wrl",
                              pose);
    const auto& hand = controller_->hand();
    const int m4 = hand.actuatorIndex("M4");
    QCOMPARE(controller_->closingActuators(),
             (std::vector<int>{hand.actuatorIndex("M1"), hand.actuatorIndex("M2"),
                               hand.actuatorIndex("M3")}));

    // The G shortcut belongs to exactly one action: auto grasp.
    QAction* auto_grasp = nullptr;
    for (QAction* a : window_->findChildren<QAction*>()) {
      if (a->shortcut() != QKeySequence(Qt::Key_G)) continue;
      QVERIFY(!auto_grasp);
      auto_grasp = a;
    }
    QVERIFY(auto_grasp);
    auto_grasp->trigger();
    QVERIFY(controller_->running());
    QCOMPARE(controller_->trajectories().size(), std::size_t{3});
    for (const auto& s : controller_->trajectories()) QCOMPARE(s.to, 17500.0);
    for (int i = 0; i < 16 && controller_->running(); ++i) controller_->advance(0.25);
    controller_->pause();
    const auto& state = controller_->state();
    QVERIFY(state.time > 1.5);
    QCOMPARE(state.actuator_position[static_cast<std::size_t>(m4)], 0.0);

    handsim::app::GraspPanel* panel = window_->graspPanel();
    QCOMPARE(panel->frictionBox()->value(), 0.5);
    panel->frictionBox()->setValue(0.6);
    panel->evaluate();
    const auto contacts = handsim::grasp::graspContactsOn(state.contacts, 0, 0.6);
    // All three fingers close on it: enough contacts for force closure.
    QVERIFY2(contacts.size() >= 3, "the closing fingers touch the cylinder");
    const auto options = panel->options();
    QVERIFY(std::abs(options.torque_radius - std::hypot(0.025, 0.05)) < 1e-3);
    QVERIFY((options.torque_reference - pose.translation()).norm() < 1e-3);
    const handsim::grasp::GraspQuality expected = handsim::grasp::evaluateGrasp(contacts, options);
    QCOMPARE(panel->contactCount(), static_cast<int>(contacts.size()));
    QCOMPARE(panel->contactsText(), QString::number(contacts.size()));
    QVERIFY(expected.force_closure);
    QCOMPARE(panel->quality().force_closure, expected.force_closure);
    QCOMPARE(panel->closureText(),
             expected.force_closure ? QStringLiteral("yes") : QStringLiteral("no"));
    QCOMPARE(panel->epsilonText(), QString::number(expected.epsilon, 'g', 4));
    QCOMPARE(panel->volumeText(), QString::number(expected.volume, 'g', 4));
    qInfo("auto grasp: %d contacts, closure %d, epsilon %g, volume %g",
          static_cast<int>(contacts.size()), expected.force_closure, expected.epsilon,
          expected.volume);
  }

  void scenarioGraspControllerRunsAndIsPlottable() {
    controller_->loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/kthand_cylinder_grasp.json");
    const auto& rec = controller_->recorder();
    QVERIFY(rec.columnIndex("controller.force") >= 0);
    QVERIFY(rec.columnIndex("controller.x3") >= 0);
    controller_->play();
    for (int i = 0; i < 14; ++i) controller_->advance(0.25);  // 3.5 s: well into the hold
    controller_->pause();
    const auto force = rec.series("controller.force");
    const auto phase = rec.series("controller.phase");
    QCOMPARE(phase.back(), 1.0);  // hybrid force/position control
    QVERIFY(std::abs(force.back() - 10.0) < 0.05);
    // A second run restarts the controller from closing.
    controller_->resetRun();
    controller_->singleStep();
    QCOMPARE(controller_->recorder().series("controller.phase").back(), 0.0);
    // Plotted controller signals vanish with the controller (the user's own Auto Grasp has
    // none): the plot drops them and keeps the rest, rather than failing.
    auto* plot = window_->plotDock();
    plot->setSignals({"controller.force", "index.J2.angle"});
    QCOMPARE(plot->selectedSignals().size(), std::size_t{2});
    controller_->autoGrasp();
    QCOMPARE(controller_->recorder().columnIndex("controller.force"), -1);
    plot->refresh();
    QCOMPARE(plot->selectedSignals(), std::vector<std::string>{"index.J2.angle"});
    QCOMPARE(plot->figure().panels.size(), std::size_t{1});
    QCOMPARE(plot->figure().panels.front().traces.size(), std::size_t{1});
  }

  void autoGraspWithoutClosingActuatorsClosesWhatThePlannerInfers() {
    // A hand file without the "grasp" key: Auto Grasp closes what the planner infers from the
    // kinematics (planner::graspSummary, docs/planner.md), not guessed from names, and says so.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("plain.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "handsim-hand", "version": 1, "id": "plain",
      "fingers": [{"name": "F1", "joints": [
        {"name": "J1", "a_m": 0.05, "limits_deg": [0, 90]},
        {"name": "J2", "a_m": 0.03, "limits_deg": [0, 90]}]}]})");
    file.close();
    controller_->loadHand(path.toStdString());
    QVERIFY(controller_->closingActuators().empty());
    const handsim::planner::GraspSummary g = handsim::planner::graspSummary(controller_->hand());
    QVERIFY(!g.closing_actuators.empty());
    QSignalSpy said(controller_, &SimulationController::statusMessage);
    controller_->autoGrasp();
    controller_->pause();
    QCOMPARE(said.count(), 1);
    const QString message = said.front().front().toString();
    QVERIFY2(message.contains(QStringLiteral("inferred")), qPrintable(message));
    const auto& traj = controller_->simulatorTrajectories();
    for (std::size_t i = 0; i < g.closing_actuators.size(); ++i) {
      const auto a = static_cast<std::size_t>(g.closing_actuators[i]);
      QVERIFY(!traj[a].empty());
      const auto& act = controller_->hand().actuators[a];
      QCOMPARE(traj[a].position(100.0, 0.0), g.closing_directions[i] > 0 ? act.upper : act.lower);
    }

    // A hand where nothing closes the fingers (two pins side by side, a URDF without a
    // sidecar): Auto Grasp says so and keeps the hand.
    controller_->loadHand(std::string(HANDSIM_SOURCE_DIR) + "/assets/hands/urdf/primitives_hand.urdf");
    QVERIFY(handsim::planner::graspSummary(controller_->hand()).closing_actuators.empty());
    const auto before = controller_->state().q;
    QSignalSpy said2(controller_, &SimulationController::statusMessage);
    controller_->autoGrasp();
    QCOMPARE(said2.count(), 1);
    const QString nothing = said2.front().front().toString();
    QVERIFY2(nothing.contains(QStringLiteral("nothing moves")), qPrintable(nothing));
    QCOMPARE(window_->statusBar()->currentMessage(), nothing);
    QVERIFY(!controller_->running());
    QVERIFY(controller_->trajectories().empty());
    QVERIFY(controller_->state().q == before);
  }

  void shippedHandsCloseWhatTheirFilesName() {
    // What the hand files name (anthro20: its flexions J1, J3, J4; J2 is the MCP abduction).
    const std::vector<std::pair<std::string, std::vector<std::string>>> expected = {
        {"barrett", {"M1", "M2", "M3"}},
        {"dexterous3", {"F1.J2", "F1.J3", "F2.J2", "F2.J3", "F3.J2", "F3.J3"}},
        {"anthro20",
         {"thumb.J1", "thumb.J3", "thumb.J4", "index.J1", "index.J3", "index.J4", "middle.J1",
          "middle.J3", "middle.J4", "ring.J1", "ring.J3", "ring.J4", "little.J1", "little.J3",
          "little.J4"}},
        {"kthand", {}}};
    for (const auto& [id, names] : expected) {
      controller_->loadHand(id);
      std::vector<int> indices;
      for (const std::string& n : names) indices.push_back(controller_->hand().actuatorIndex(n));
      QCOMPARE(controller_->closingActuators(), indices);
    }
  }

  void urdfHandLoadsAndABadOneKeepsTheScene() {
    // What File > Hand > Open Hand File... calls with the chosen path.
    controller_->loadHand(HANDSIM_SOURCE_DIR "/assets/hands/urdf/wrist_hand.urdf");
    QCOMPARE(controller_->hand().id, std::string("wrist_hand"));
    QCOMPARE(controller_->hand().fingers.size(), std::size_t{3});
    QCOMPARE(controller_->closingActuators().size(), std::size_t{5});  // from the sidecar
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.urdf"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("<robot name=\"bad\">\n<link name=\"a\"/>\n<link name=\"b\"/>\n"
               "<joint name=\"j\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/>\n"
               "<limit lower=\"1\" upper=\"0\" effort=\"1\" velocity=\"1\"/></joint>\n</robot>\n");
    file.close();
    QString message;
    try {
      controller_->loadHand(path.toStdString());
    } catch (const std::exception& e) {
      message = QString::fromUtf8(e.what());
    }
    QVERIFY2(message.contains(QStringLiteral("bad.urdf:4: joint 'j': limit lower > upper")),
             qPrintable(message));
    QCOMPARE(controller_->hand().id, std::string("wrist_hand"));
  }

  void autoGraspPullsTheTendonsOfATendonHand() {
    controller_->loadHand("kthand");
    controller_->clearObjects();
    const auto& hand = controller_->hand();
    QVERIFY(!hand.tendons.empty());
    // Its only servo actuator turns the thumb base; the tendon joints' own are passive.
    QVERIFY(controller_->closingActuators().empty());
    controller_->autoGrasp();
    QVERIFY(controller_->running());
    for (int i = 0; i < 10; ++i) controller_->advance(0.25);
    controller_->pause();
    const auto& state = controller_->state();
    QVERIFY(state.time > 2.0);
    for (std::size_t t = 0; t < hand.tendons.size(); ++t)
      QVERIFY(std::abs(state.tendon_position[t] - hand.tendons[t].upper) < 1e-9);
  }

  void recordedPosesReadBack() {
    QVERIFY(window_->jointPanel()->recordButton());
    const int m2 = controller_->hand().actuatorIndex("M2");
    controller_->setActuatorCommand(m2, 6000.0);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("poses.json"));
    QVERIFY(window_->recordPose(QStringLiteral("half"), path));
    controller_->setActuatorCommand(m2, 0.0);
    QVERIFY(window_->recordPose(QStringLiteral("open"), path));
    const auto& hand = controller_->hand();
    const auto poses = handsim::hand::readPoseFile(path.toStdString(), hand);
    QCOMPARE(poses.size(), std::size_t{2});
    QCOMPARE(QString::fromStdString(poses[0].name), QStringLiteral("half"));
    const int f2 = hand.fingerIndex("F2");
    QVERIFY(f2 >= 0);
    const auto& f2_pose = poses[0].q[static_cast<std::size_t>(f2)];
    // M2 drives F2.J2 = counts / 125 deg and F2.J3 = counts / 375 deg.
    QVERIFY(std::abs(f2_pose[1] - 6000.0 / 125.0 * kDeg) < 1e-9);
    QVERIFY(std::abs(f2_pose[2] - 6000.0 / 375.0 * kDeg) < 1e-9);
    for (double v : poses[1].q[static_cast<std::size_t>(f2)]) QVERIFY(std::abs(v) < 1e-9);
    // Recording a name again replaces that pose.
    controller_->setActuatorCommand(m2, 3000.0);
    QVERIFY(window_->recordPose(QStringLiteral("half"), path));
    const auto again = handsim::hand::readPoseFile(path.toStdString(), hand);
    QCOMPARE(again.size(), std::size_t{2});
    QVERIFY(std::abs(again[0].q[static_cast<std::size_t>(f2)][1] - 3000.0 / 125.0 * kDeg) < 1e-9);

    const QString csv = dir.filePath(QStringLiteral("poses.csv"));
    QVERIFY(window_->exportPosesCsv(path, csv));
    QFile file(csv);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(file.readAll()).trimmed().split('\n');
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[0].startsWith(QStringLiteral("pose,F1.J1,")));
    QVERIFY(lines[1].startsWith(QStringLiteral("half,")));
    // A bad pose file is reported and nothing is written.
    QVERIFY(!window_->exportPosesCsv(dir.filePath(QStringLiteral("missing.json")),
                                     dir.filePath(QStringLiteral("other.csv"))));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("other.csv"))));
  }

  void conditionNumberWarnsAndWorkspaceIsDrawn() {
    controller_->loadHand("dexterous3");
    const auto& hand = controller_->hand();
    handsim::app::CartesianPanel* panel = window_->cartesianPanel();
    const int f1 = hand.fingerIndex("F1");
    panel->fingerBox()->setCurrentIndex(f1);
    // Stretched: J1 = J2 = J3 = 0 puts the three planar links on one line, so the tip cannot
    // move along it.
    controller_->resetToZero();
    QVERIFY2(panel->conditionText().contains(QStringLiteral("inf")),
             qPrintable(panel->conditionText()));
    QVERIFY(panel->singularityWarning());
    QVERIFY(panel->conditionText().contains(QStringLiteral("singular")));
    std::vector<handsim::kinematics::JointVector> q;
    for (const auto& chain : hand.fingers) {
      handsim::kinematics::JointVector v = handsim::kinematics::JointVector::Zero(chain.dof());
      for (int j = 0; j < chain.dof(); ++j) {
        const std::string& name = chain.joint_names[static_cast<std::size_t>(chain.rowOfJoint(j))];
        if (name == "J1" || name == "J2" || name == "J3") v(j) = 30.0 * kDeg;
      }
      q.push_back(v);
    }
    controller_->setActuatorCommands(controller_->actuatorsForJoints(q));
    QVERIFY2(!panel->singularityWarning(), qPrintable(panel->conditionText()));
    QVERIFY2(!panel->conditionText().contains(QStringLiteral("inf")),
             qPrintable(panel->conditionText()));
    QVERIFY(panel->conditionText().startsWith(QStringLiteral("cond(J) = ")));

    const handsim::app::SceneGraph& scene = window_->viewport()->scene();
    QVERIFY(!scene.workspaceCloud());
    panel->workspaceBox()->setChecked(true);
    const auto& chain = hand.fingers[static_cast<std::size_t>(f1)];
    const auto options = handsim::app::CartesianPanel::workspaceOptions(chain);
    const std::size_t expected = handsim::kinematics::workspaceSampleCount(chain, options);
    QVERIFY(expected > 1000 && expected <= 20000);
    const osg::Geometry* cloud = scene.workspaceCloud();
    QVERIFY(cloud);
    QCOMPARE(static_cast<std::size_t>(cloud->getVertexArray()->getNumElements()), expected);
    QCOMPARE(cloud->getPrimitiveSet(0)->getMode(), static_cast<GLenum>(GL_POINTS));
    // In the palm frame: the first sample is the base transform of the tip at the lower limits.
    const auto tips = handsim::kinematics::sampleWorkspace(chain, options);
    const Eigen::Vector3d first = chain.base * tips.front();
    const auto* v = static_cast<const osg::Vec3Array*>(cloud->getVertexArray());
    QVERIFY((Eigen::Vector3d((*v)[0].x(), (*v)[0].y(), (*v)[0].z()) - first).norm() < 1e-6);
    panel->workspaceBox()->setChecked(false);
    QVERIFY(!scene.workspaceCloud());
  }

  void boundingVolumesAreTheRootKdops() {
    // The default cube's 18-DOP is the cube itself: 12 edges.
    const handsim::app::SceneGraph& scene = window_->viewport()->scene();
    const auto lineVertices = [&scene](int object) {
      const osg::Geode* geode = scene.objectBoundsNode(object)->asGeode();
      return static_cast<const osg::Vec3Array*>(
          geode->getDrawable(0)->asGeometry()->getVertexArray());
    };
    QCOMPARE(static_cast<int>(lineVertices(0)->size()), 24);
    // A cylinder's is cut by the diagonal slabs: more edges, all within the slabs and
    // touching each of them.
    Eigen::Isometry3d pose = Eigen::Isometry3d::Identity();
    pose.linear() =
        Eigen::AngleAxisd(0.3, Eigen::Vector3d(1, 1, 0).normalized()).toRotationMatrix();
    // The new object's index comes back (the default cube is object 0).
    QCOMPARE(controller_->importObject(
                 std::string(HANDSIM_SOURCE_DIR) + "/assets/objects/cylinder.wrl", pose),
             1);
    const osg::Vec3Array* lines = lineVertices(1);
    QVERIFY(lines->size() > 24);
    const handsim::collision::KdopTree tree(controller_->objects()[1].geometry->visual.merged(),
                                            {18, 8});
    const Eigen::Vector3d* d = handsim::collision::kdopDirections(18);
    for (int i = 0; i < tree.axisCount(); ++i) {
      const double lo = tree.slabCentre(0)[i] - tree.slabHalfWidth(0)[i];
      const double hi = tree.slabCentre(0)[i] + tree.slabHalfWidth(0)[i];
      double seen_lo = 1e9, seen_hi = -1e9;
      for (const osg::Vec3& v : *lines) {
        const double p = d[i].dot(Eigen::Vector3d(v.x(), v.y(), v.z()));
        QVERIFY(p > lo - 1e-6 && p < hi + 1e-6);
        seen_lo = std::min(seen_lo, p);
        seen_hi = std::max(seen_hi, p);
      }
      QVERIFY(std::abs(seen_lo - lo) < 1e-6 && std::abs(seen_hi - hi) < 1e-6);
    }
  }

  void planarFingerTakesTipOrientation() {
    controller_->loadHand("dexterous3");
    auto* panel = window_->cartesianPanel();
    panel->fingerBox()->setCurrentIndex(0);
    QVERIFY(panel->phiBox()->isEnabled());
    // A reachable pose: where some joint values put the tip, then back to zero and solve.
    const auto& chain = controller_->hand().fingers[0];
    // The joints before the planar ones place the plane and keep their values while solving.
    auto pose = [&](double planar_fraction) {
      std::vector<double> a = controller_->liveState().actuator_command;
      for (int j = 0; j < chain.dof(); ++j) {
        const auto& row = chain.rows[static_cast<std::size_t>(chain.rowOfJoint(j))];
        const int act = controller_->hand().driverOf({0, j}).first;
        const double fraction = j >= chain.dof() - 3 ? planar_fraction : 0.4;
        a[static_cast<std::size_t>(act)] = row.lower + fraction * (row.upper - row.lower);
      }
      controller_->setActuatorCommands(a);
    };
    pose(0.4);
    const Eigen::Vector3d target = controller_->fingertip(0);
    const double phi = *controller_->fingertipPhi(0);
    pose(0.1);
    panel->phiBox()->setValue(phi * 180.0 / 3.14159265358979323846);
    panel->setTarget(target.x(), target.y(), target.z());
    QCOMPARE(panel->message(), QStringLiteral("Reached."));
    QVERIFY((controller_->fingertip(0) - target).norm() < 5e-4);
    QVERIFY(std::abs(*controller_->fingertipPhi(0) - phi) < 2e-3);
  }

  // The viewport draws into a native OpenGL window of its own (no framebuffer object
  // composited with the widgets), and the window's screenshot still shows the scene there.
  void viewportDrawsInItsOwnWindowAndWindowShotsShowIt() {
    handsim::app::OsgViewport* vp = window_->viewport();
    QWindow* native = vp->nativeWindow();
    QVERIFY(native);
    QCOMPARE(native->surfaceType(), QSurface::OpenGLSurface);
    QVERIFY(native->parent() != nullptr);  // a child of the main window's native window
    QVERIFY(native->winId() != window_->winId());
    QVERIFY(QTest::qWaitForWindowExposed(native));
    QTRY_VERIFY(vp->frameCount() > 0);
    const QImage shot = window_->windowImage().toImage();
    QVERIFY(!shot.isNull());
    const qreal dpr = shot.devicePixelRatio();
    const QRect area(vp->mapTo(window_, QPoint(0, 0)) * dpr, vp->size() * dpr);
    int pixels = 0, dark = 0, cube = 0, metal = 0;
    for (int y = area.top(); y <= area.bottom(); y += 2)
      for (int x = area.left(); x <= area.right(); x += 2) {
        const QRgb p = shot.pixel(x, y);
        const int r = qRed(p), g = qGreen(p), b = qBlue(p);
        ++pixels;
        if (r + g + b < 24) ++dark;
        if (r > 90 && r > 2 * g && r > 2 * b) ++cube;
        if (std::abs(r - g) < 18 && std::abs(g - b) < 24 && r > 70) ++metal;
      }
    qInfo("viewport area %dx%d: %d samples, %d black, %d cube, %d hand", area.width(),
          area.height(), pixels, dark, cube, metal);
    QVERIFY2(dark < pixels / 10, "the viewport is black in the window's screenshot");
    QVERIFY2(cube > pixels / 500, "the cube is not in the window's screenshot");
    QVERIFY2(metal > pixels / 200, "the hand is not in the window's screenshot");
  }

  // Mouse and keys as the window system delivers them: a drag on the native window orbits the
  // camera and gives the viewport the keyboard focus, after which the one-key views work.
  void mouseAndKeysReachTheViewportThroughItsWindow() {
    handsim::app::OsgViewport* vp = window_->viewport();
    QWindow* native = vp->nativeWindow();
    window_->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(window_));
    QVERIFY(QTest::qWaitForWindowExposed(native));
    vp->setView(handsim::app::OsgViewport::View::Fit);
    window_->jointPanel()->slider(0)->setFocus();
    QVERIFY(window_->focusWidget() != vp);
    const auto frame = [vp] {
      const long long frames = vp->frameCount();
      vp->requestFrame();
      return QTest::qWaitFor([&] { return vp->frameCount() > frames; });
    };
    QVERIFY(frame());
    const Eigen::Vector3d eye = vp->cameraEye();
    const QPoint c(native->width() / 2, native->height() / 2);
    QTest::mousePress(native, Qt::LeftButton, {}, c);
    QTest::mouseMove(native, c + QPoint(40, 0));
    QTest::mouseMove(native, c + QPoint(90, 10));
    QTest::mouseRelease(native, Qt::LeftButton, {}, c + QPoint(90, 10));
    QCOMPARE(window_->focusWidget(), static_cast<QWidget*>(vp));
    QVERIFY(frame());
    qInfo("camera moved %.3f m", (vp->cameraEye() - eye).norm());
    QVERIFY2((vp->cameraEye() - eye).norm() > 0.01, "the drag did not orbit the camera");
    // The wheel zooms: the eye comes closer to what it looks at, along the same line.
    const Eigen::Vector3d before = vp->cameraEye();
    const Eigen::Vector3d look = vp->cameraLook();
    QWheelEvent wheel(QPointF(c), native->mapToGlobal(QPointF(c)), QPoint(), QPoint(0, 120),
                      Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(native, &wheel);
    QVERIFY(frame());
    const Eigen::Vector3d moved = vp->cameraEye() - before;
    qInfo("wheel moved the eye %.4f m", moved.norm());
    QVERIFY2(moved.norm() > 1e-3 && std::abs(moved.normalized().dot(look)) > 0.99,
             "the wheel did not zoom");
    // Keys typed with the viewport focused go through the window's shortcuts.
    QTest::keyClick(window_->windowHandle(), Qt::Key_1);  // View > Front: looking along +y
    QTRY_VERIFY(vp->cameraLook().dot(Eigen::Vector3d::UnitY()) > 0.99);
    QTest::keyClick(window_->windowHandle(), Qt::Key_3);  // View > Side: looking along -x
    QTRY_VERIFY(vp->cameraLook().dot(-Eigen::Vector3d::UnitX()) > 0.99);
  }

  void viewportSurvivesDockingAndFullScreen() {
    auto cubePixels = [this] {
      const QImage image = window_->viewport()->grabFramebuffer();
      int n = 0;
      for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2) {
          const QRgb p = image.pixel(x, y);
          if (qRed(p) > 90 && qRed(p) > 2 * qGreen(p) && qRed(p) > 2 * qBlue(p)) ++n;
        }
      return n;
    };
    QVERIFY(cubePixels() > 20);
    for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) dock->setFloating(true);
    QTest::qWait(100);
    QVERIFY(cubePixels() > 20);
    for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) dock->setFloating(false);
    window_->showFullScreen();
    QTest::qWait(200);
    QVERIFY(cubePixels() > 20);
    window_->showNormal();
    QTest::qWait(100);
    QVERIFY(cubePixels() > 20);
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
