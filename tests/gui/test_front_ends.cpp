// SPDX-License-Identifier: GPL-3.0-or-later
// GUI front ends of issues #9 and #10 (QtTest, under Xvfb): the collision-mesh toggle counted
// in the scene graph against the model's collision triangles, drag and drop of hands, meshes,
// scenarios and bad files onto the main window, palm moves and sinusoids edited in the
// trajectory panel and replayed against their closed forms, and a free object's signals in
// the plot dock.
#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QListWidget>
#include <QMimeData>
#include <QTemporaryDir>
#include <QTextStream>
#include <QWindow>
#include <QtTest>
#include <cmath>
#include <optional>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/NodeVisitor>
#include <osg/ShapeDrawable>

#include "handsim/sim/recorder.hpp"
#include "default_window.hpp"
#include "main_window.hpp"
#include "osg_viewport.hpp"
#include "plot_dock.hpp"
#include "scene_graph.hpp"
#include "simulation_controller.hpp"
#include "trajectory_panel.hpp"
#include "joint_panel.hpp"
#include "handsim/kinematics/dh_row.hpp"

using handsim::app::MainWindow;
using handsim::app::SimulationController;

namespace {

constexpr double kPi = 3.14159265358979323846;

// Triangles the renderer would draw under a node: every GL_TRIANGLES primitive set of every
// geometry on an active path (node masks of hidden nodes stop the traversal, as culling does).
class TriangleCounter : public osg::NodeVisitor {
 public:
  TriangleCounter() : osg::NodeVisitor(TRAVERSE_ACTIVE_CHILDREN) {}
  void apply(osg::Geode& geode) override {
    for (unsigned i = 0; i < geode.getNumDrawables(); ++i)
      if (dynamic_cast<const osg::ShapeDrawable*>(geode.getDrawable(i)))
        ++stand_ins;  // a capsule for a link without geometry: it collides with nothing
      else if (const osg::Geometry* g = geode.getDrawable(i)->asGeometry())
        for (unsigned p = 0; p < g->getNumPrimitiveSets(); ++p) {
          const osg::PrimitiveSet* set = g->getPrimitiveSet(p);
          if (set->getMode() == GL_TRIANGLES) triangles += set->getNumIndices() / 3;
          if (set->getMode() != GL_TRIANGLES && set->getMode() != GL_LINES &&
              set->getMode() != GL_POINTS)
            other_primitives += 1;
        }
  }
  std::size_t triangles = 0;
  std::size_t other_primitives = 0;  ///< strips, fans, quads
  std::size_t stand_ins = 0;
};

std::size_t drawnHandTriangles(MainWindow* window) {
  TriangleCounter counter;
  const_cast<osg::Group*>(window->viewport()->scene().handNode())->accept(counter);
  return counter.triangles;
}

// Triangles of a mesh with a non-zero area (a renderer draws nothing for the others).
std::size_t areaTriangles(const handsim::geometry::TriangleMesh& m) {
  std::size_t n = 0;
  for (const auto& t : m.triangles) {
    const Eigen::Vector3d a = m.vertices[static_cast<std::size_t>(t[0])];
    const Eigen::Vector3d b = m.vertices[static_cast<std::size_t>(t[1])];
    const Eigen::Vector3d c = m.vertices[static_cast<std::size_t>(t[2])];
    if ((b - a).cross(c - a).norm() > 0.0) ++n;
  }
  return n;
}

// Drawn (visual) and collision triangles of every body of the hand, from the model itself.
std::pair<std::size_t, std::size_t> modelTriangles(const SimulationController& c) {
  const auto& g = *c.model().hand_geometry;
  std::size_t visual = 0, collision = 0;
  auto add = [&](const handsim::sim::BodyGeometry& b) {
    for (const auto& shape : b.visual.shapes) visual += areaTriangles(shape.mesh);
    collision += areaTriangles(b.collision.mesh);
  };
  add(g.palm);
  for (const auto& finger : g.links)
    for (const auto& link : finger) add(link);
  return {visual, collision};
}

QString writeBox(const QString& path, double side) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return {};
  QTextStream out(&file);
  for (int i = 0; i < 8; ++i)
    out << "v " << ((i & 1) ? side / 2 : -side / 2) << ' ' << ((i & 2) ? side / 2 : -side / 2)
        << ' ' << ((i & 4) ? side : 0.0) << '\n';
  const int faces[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                           {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
  for (const auto& f : faces) {
    out << "f " << f[0] + 1 << ' ' << f[1] + 1 << ' ' << f[2] + 1 << '\n';
    out << "f " << f[0] + 1 << ' ' << f[2] + 1 << ' ' << f[3] + 1 << '\n';
  }
  return path;
}

// A drag of `paths` entering and dropping on `target` (a widget, or a native window such as
// the viewport's); returns whether the enter was accepted.
bool dragAndDrop(QObject* target, const QStringList& paths, bool drop = true) {
  QMimeData mime;
  QList<QUrl> urls;
  for (const QString& p : paths) urls << QUrl::fromLocalFile(p);
  mime.setUrls(urls);
  const auto* widget = qobject_cast<QWidget*>(target);
  const auto* window = qobject_cast<QWindow*>(target);
  const QSize size = widget ? widget->size() : window ? window->size() : QSize();
  const QPoint at(size.width() / 2, size.height() / 2);
  QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  enter.setAccepted(false);
  QApplication::sendEvent(target, &enter);
  const bool accepted = enter.isAccepted();
  if (accepted && drop) {
    QDropEvent event(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &event);
  }
  return accepted;
}

// The recorded value of `column` in the row whose time is nearest `t`.
double recorded(const handsim::sim::Recorder& rec, const std::string& column, double t,
                double* row_time = nullptr) {
  const int c = rec.columnIndex(column);
  const int tc = rec.columnIndex("time");
  if (c < 0 || tc < 0) return std::nan("");
  std::size_t best = 0;
  for (std::size_t r = 0; r < rec.rowCount(); ++r)
    if (std::abs(rec.value(r, static_cast<std::size_t>(tc)) - t) <
        std::abs(rec.value(best, static_cast<std::size_t>(tc)) - t))
      best = r;
  if (row_time) *row_time = rec.value(best, static_cast<std::size_t>(tc));
  return rec.value(best, static_cast<std::size_t>(c));
}

// Closed form of a trapezoidal move from 0 to d (d > 0) with maximum velocity v and
// acceleration a, starting at t0, worked here: accelerate for v / a, cruise, decelerate
// (a triangle when d < v^2 / a).
double trapezoid(double d, double v, double a, double t0, double t) {
  double ta = v / a;
  if (a * ta * ta > d) ta = std::sqrt(d / a);  // triangular: never reaches v
  const double vp = a * ta;
  const double tc = (d - a * ta * ta) / vp;
  const double s = t - t0;
  if (s <= 0.0) return 0.0;
  if (s < ta) return 0.5 * a * s * s;
  if (s < ta + tc) return 0.5 * a * ta * ta + vp * (s - ta);
  if (s < 2.0 * ta + tc) {
    const double r = 2.0 * ta + tc - s;  // time left
    return d - 0.5 * a * r * r;
  }
  return d;
}

void runFor(SimulationController* c, double seconds) {
  c->play();
  for (double t = 0.0; t < seconds - 1e-9; t += 0.05) c->advance(0.05);
  c->pause();
}

}  // namespace

class FrontEndTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void init() {
    QVERIFY(handsim::app::test::openDefaultWindow(controller_, window_, false));
    dir_ = std::make_unique<QTemporaryDir>();
  }

  void cleanup() {
    handsim::app::test::closeDefaultWindow(controller_, window_);
    dir_.reset();
  }

  // --- View > Show Collision Meshes ---------------------------------------------------------
  void collisionToggleDrawsTheCollisionTriangles_data() {
    QTest::addColumn<QString>("hand");
    QTest::newRow("urdf primitives") << QStringLiteral(HANDSIM_SOURCE_DIR
                                                       "/assets/hands/urdf/primitives_hand.urdf");
    QTest::newRow("urdf wrist") << QStringLiteral(HANDSIM_SOURCE_DIR
                                                  "/assets/hands/urdf/wrist_hand.urdf");
    QTest::newRow("visual_mesh barrett") << QStringLiteral("barrett");
  }
  void collisionToggleDrawsTheCollisionTriangles() {
    QFETCH(QString, hand);
    controller_->loadHand(hand.toStdString());
    QAction* toggle = window_->findChild<QAction*>(QStringLiteral("ShowCollisionMeshes"));
    QVERIFY(toggle);
    QVERIFY(toggle->isCheckable());
    QVERIFY(!toggle->shortcut().isEmpty());
    QVERIFY(!toggle->isChecked());
    const auto [visual, collision] = modelTriangles(*controller_);
    // The hands were chosen because what they draw differs from what collides.
    QVERIFY2(visual != collision, qPrintable(QStringLiteral("%1 %2").arg(visual).arg(collision)));
    QCOMPARE(drawnHandTriangles(window_), visual);
    toggle->trigger();
    QVERIFY(window_->viewport()->scene().options().collision);
    QCOMPARE(drawnHandTriangles(window_), collision);
    // A moved hand keeps its collision meshes on its links (transforms only change).
    controller_->setActuatorCommand(0, controller_->hand().actuators[0].upper);
    QCOMPARE(drawnHandTriangles(window_), collision);
    toggle->trigger();
    QCOMPARE(drawnHandTriangles(window_), visual);
    // The option survives a change of hand (the new hand is drawn as the menu says).
    toggle->trigger();
    controller_->loadHand("barrett");
    QCOMPARE(drawnHandTriangles(window_), modelTriangles(*controller_).second);
  }

  // --- drag and drop ------------------------------------------------------------------------
  void dropUrdfLoadsTheHand() {
    const QString urdf = QStringLiteral(HANDSIM_SOURCE_DIR "/assets/hands/urdf/wrist_hand.urdf");
    QVERIFY(dragAndDrop(window_, {urdf}));
    QCOMPARE(QString::fromStdString(controller_->handSource()), urdf);
    QCOMPARE(QString::fromStdString(controller_->hand().name), QStringLiteral("wrist_hand"));
    QVERIFY(window_->lastError().isEmpty());
  }

  // The GUI's fingertip is the one every API means (hand::FingerPoint::Tip): on wrist_hand's
  // index finger the tip link's origin as the link tree places it, beyond the last joint frame.
  void fingertipIsTheTipLink() {
    controller_->loadHand(HANDSIM_SOURCE_DIR "/assets/hands/urdf/wrist_hand.urdf");
    const handsim::hand::HandModel& h = controller_->hand();
    int f = -1;
    for (std::size_t k = 0; k < h.fingers.size(); ++k)
      if (h.fingers[k].name == "index_distal") f = static_cast<int>(k);
    QVERIFY(f >= 0);
    std::optional<Eigen::Vector3d> tip;
    for (const auto& [name, pose] : h.linkPoses(controller_->state().q))
      if (name == "index_tip") tip = pose.translation();
    QVERIFY(tip);
    QVERIFY2((controller_->fingertip(f) - *tip).norm() < 1e-12,
             qPrintable(QString::number((controller_->fingertip(f) - *tip).norm())));
    controller_->loadHand("barrett");
  }

  void dropHandJsonLoadsTheHand() {
    const QString json = QStringLiteral(HANDSIM_SOURCE_DIR "/assets/hands/gripper2p.json");
    QVERIFY(dragAndDrop(window_->viewport(), {json}));
    QCOMPARE(QString::fromStdString(controller_->hand().id), QStringLiteral("gripper2p"));
  }

  // The viewport draws in a native window of its own: a drop there (where the window system
  // may deliver it) opens the file as on the widget; other files are refused at the enter.
  void dropOnTheViewportsNativeWindow() {
    QWindow* native = window_->viewport()->nativeWindow();
    QVERIFY(native);
    const QString text = dir_->filePath(QStringLiteral("notes.txt"));
    QFile(text).open(QIODevice::WriteOnly);
    QVERIFY(!dragAndDrop(native, {text}));
    const QString json = QStringLiteral(HANDSIM_SOURCE_DIR "/assets/hands/gripper2p.json");
    QVERIFY(dragAndDrop(native, {json}));
    QCOMPARE(QString::fromStdString(controller_->hand().id), QStringLiteral("gripper2p"));
  }

  void dropMeshImportsAnObjectInReach() {
    const QString box = writeBox(dir_->filePath(QStringLiteral("dropped.obj")), 0.04);
    const std::size_t before = controller_->objects().size();
    QVERIFY(dragAndDrop(window_, {box}));
    QCOMPARE(controller_->objects().size(), before + 1);
    QCOMPARE(controller_->objects().back().name, std::string("dropped"));
    // Placed as the import action places it: clear of the cube already there, so the two
    // objects' origins are at least a box side apart.
    const Eigen::Vector3d a = controller_->objectPose(0).translation();
    const Eigen::Vector3d b = controller_->objectPose(static_cast<int>(before)).translation();
    QVERIFY((a - b).norm() > 0.04);
  }

  void dropHandAndMeshTogetherKeepsTheMesh() {
    // The hand goes first (it keeps the scene's cube), the mesh is added to the new scene.
    const QString box = writeBox(dir_->filePath(QStringLiteral("with_hand.obj")), 0.03);
    QVERIFY(dragAndDrop(window_, {box, QStringLiteral(HANDSIM_SOURCE_DIR
                                                      "/assets/hands/gripper2r.json")}));
    QCOMPARE(QString::fromStdString(controller_->hand().id), QStringLiteral("gripper2r"));
    QCOMPARE(controller_->objects().size(), std::size_t{2});
    QCOMPARE(controller_->objects()[0].name, std::string("cube"));
    QCOMPARE(controller_->objects()[1].name, std::string("with_hand"));
  }

  void dropScenarioOpensIt() {
    const QString scenario =
        QStringLiteral(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_breakaway_cube.json");
    QVERIFY(dragAndDrop(window_, {scenario}));
    QVERIFY(window_->lastError().isEmpty());
    // The scenario's own trajectories are in the run's plan, as File > Open gives them.
    QVERIFY(!controller_->trajectories().empty());
  }

  void dropBrokenUrdfKeepsTheScene() {
    QFile file(dir_->filePath(QStringLiteral("broken.urdf")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(
        "<?xml version=\"1.0\"?>\n<robot name=\"broken\">\n  <link name=\"base\"/>\n"
        "  <link name=\"l1\"/>\n  <joint name=\"j1\" type=\"revolute\">\n"
        "    <parent link=\"base\"/><child link=\"l1\"/><axis xyz=\"0 0 1\"/>\n"
        "    <limit lower=\"1\" upper=\"-1\" effort=\"1\" velocity=\"1\"/>\n  </joint>\n"
        "</robot>\n");
    file.close();
    const std::string hand_before = controller_->hand().id;
    const std::size_t objects_before = controller_->objects().size();
    const Eigen::Isometry3d pose_before = controller_->objectPose(0);
    QVERIFY(dragAndDrop(window_, {file.fileName()}));  // a .urdf is accepted as it enters
    // ... and refused when read, with the loader's message naming the file.
    QVERIFY2(window_->lastError().contains(QStringLiteral("broken.urdf")),
             qPrintable(window_->lastError()));
    QCOMPARE(controller_->hand().id, hand_before);
    QCOMPARE(controller_->objects().size(), objects_before);
    QVERIFY(controller_->objectPose(0).isApprox(pose_before));
    QCOMPARE(window_->viewport()->scene().handNode()->getNumChildren() > 0, true);
  }

  void dropBrokenMeshKeepsTheScene() {
    QFile file(dir_->filePath(QStringLiteral("broken.obj")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("v 0 0 0\nv 1 0 0\nf 1 2 7\n");
    file.close();
    const std::size_t before = controller_->objects().size();
    QVERIFY(dragAndDrop(window_, {file.fileName()}));
    QVERIFY2(window_->lastError().contains(QStringLiteral("broken.obj")),
             qPrintable(window_->lastError()));
    QCOMPARE(controller_->objects().size(), before);
  }

  void unsupportedFileIsRefusedAtDragEnter() {
    const QString text = dir_->filePath(QStringLiteral("notes.txt"));
    QFile file(text);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("hello\n");
    file.close();
    QVERIFY(!dragAndDrop(window_, {text}));
    QVERIFY(!dragAndDrop(window_->viewport(), {text}));
    // One unsupported file refuses the whole drag.
    const QString box = writeBox(dir_->filePath(QStringLiteral("ok.obj")), 0.03);
    QVERIFY(!dragAndDrop(window_, {box, text}));
    QCOMPARE(controller_->objects().size(), std::size_t{1});
    QVERIFY(window_->lastError().isEmpty());
  }

  // --- palm trajectories in the trajectory panel ---------------------------------------------
  void palmMoveEditedInThePanelReplaysItsClosedForm() {
    controller_->clearObjects();
    auto* panel = window_->trajectoryPanel();
    QTableWidget* table = panel->palmTable();
    QVERIFY(table);
    panel->addPalmRow(handsim::app::PalmRow{});
    QCOMPARE(table->rowCount(), 1);
    // Edit it as a user would: z, a move of 4 cm at 0.05 m/s and 0.5 m/s^2 from t = 0.2 s.
    static_cast<QComboBox*>(table->cellWidget(0, 0))->setCurrentIndex(2);
    table->item(0, 2)->setText(QStringLiteral("0.04"));
    table->item(0, 3)->setText(QStringLiteral("0.05"));
    table->item(0, 4)->setText(QStringLiteral("0.5"));
    table->item(0, 5)->setText(QStringLiteral("0.2"));
    // And a turn about the world z axis: 0.5 rad at 1 rad/s and 4 rad/s^2 from t = 0.
    handsim::app::PalmRow turn{handsim::sim::PalmMotion::RZ, false, 0.5, 1.0, 4.0, 0.0};
    panel->addPalmRow(turn);
    QVERIFY(panel->apply());
    QVERIFY(controller_->palmPose().linear().isIdentity(1e-12));  // the start: no turn
    const double z0 = controller_->palmPose().translation().z();
    // The run lasts until the move ends (0.2 + 0.9 s) plus half a second.
    QVERIFY(std::abs(controller_->duration() - 1.6) < 1e-9);
    runFor(controller_, 1.6);
    const auto& rec = controller_->recorder();
    QVERIFY(rec.columnIndex("palm.z") >= 0);
    for (double t : {0.1, 0.25, 0.3, 0.6, 1.0, 1.05, 1.5}) {
      double at = 0.0;
      const double z = recorded(rec, "palm.z", t, &at);
      QVERIFY2(std::abs(at - t) < 1e-6, qPrintable(QString::number(at)));
      const double expected = z0 + trapezoid(0.04, 0.05, 0.5, 0.2, t);
      QVERIFY2(std::abs(z - expected) < 1e-9,
               qPrintable(QStringLiteral("t %1: %2 vs %3").arg(t).arg(z).arg(expected)));
      QVERIFY(std::abs(recorded(rec, "palm.x", t)) < 1e-12);
      // A turn by theta about z is the quaternion (cos theta/2, 0, 0, sin theta/2).
      const double theta = trapezoid(0.5, 1.0, 4.0, 0.0, t);
      QVERIFY(std::abs(recorded(rec, "palm.qw", t) - std::cos(theta / 2.0)) < 1e-9);
      QVERIFY(std::abs(recorded(rec, "palm.qz", t) - std::sin(theta / 2.0)) < 1e-9);
    }
    // The shown palm has arrived too.
    QVERIFY(std::abs(controller_->palmPose().translation().z() - (z0 + 0.04)) < 1e-9);
  }

  void palmSinusoidEditedInThePanelReplaysItsClosedForm() {
    controller_->clearObjects();
    auto* panel = window_->trajectoryPanel();
    QTableWidget* table = panel->palmTable();
    panel->addPalmRow(handsim::app::PalmRow{});
    // Switching the kind to "sine" gives the row a sinusoid's defaults, then edited: x,
    // 1 cm at 2 Hz for 2 cycles from 0.1 s.
    static_cast<QComboBox*>(table->cellWidget(0, 1))->setCurrentIndex(1);
    static_cast<QComboBox*>(table->cellWidget(0, 0))->setCurrentIndex(0);
    QCOMPARE(table->item(0, 3)->text(), QStringLiteral("2"));  // frequency default
    table->item(0, 2)->setText(QStringLiteral("0.01"));
    table->item(0, 3)->setText(QStringLiteral("2"));
    table->item(0, 4)->setText(QStringLiteral("2"));
    table->item(0, 5)->setText(QStringLiteral("0.1"));
    QVERIFY(panel->apply());
    const double x0 = controller_->palmPose().translation().x();
    runFor(controller_, 1.5);
    const auto& rec = controller_->recorder();
    for (double t : {0.05, 0.2, 0.35, 0.5, 0.725, 1.0, 1.3}) {
      const double s = t - 0.1;
      const double expected =
          x0 + (s >= 0.0 && s <= 1.0 ? 0.01 * std::sin(2.0 * kPi * 2.0 * s) : 0.0);
      const double x = recorded(rec, "palm.x", t);
      QVERIFY2(std::abs(x - expected) < 1e-9,
               qPrintable(QStringLiteral("t %1: %2 vs %3").arg(t).arg(x).arg(expected)));
    }
  }

  void palmRowsAreSavedWithTheSceneAndTrajectoryFiles() {
    auto* panel = window_->trajectoryPanel();
    handsim::app::PalmRow lift;  // z move
    lift.to_or_amplitude = 0.03;
    handsim::app::PalmRow shake{handsim::sim::PalmMotion::RZ, true, 0.2, 3.0, 5.0, 1.0};
    panel->addPalmRow(lift);
    panel->addPalmRow(shake);
    QVERIFY(panel->apply());
    QCOMPARE(panel->palmTable()->rowCount(), 2);
    const QString scene = dir_->filePath(QStringLiteral("scene.json"));
    QVERIFY(window_->saveScene(scene));
    controller_->loadHand("barrett");  // forget it
    QCOMPARE(panel->palmTable()->rowCount(), 0);
    QVERIFY(window_->openFile(scene));
    QCOMPARE(panel->palmTable()->rowCount(), 2);
    const auto& m = controller_->palmMotion();
    QCOMPARE(m.axis(handsim::sim::PalmMotion::Z).segments.segments().size(), std::size_t{1});
    QCOMPARE(m.axis(handsim::sim::PalmMotion::Z).segments.segments()[0].to(), 0.03);
    QCOMPARE(m.axis(handsim::sim::PalmMotion::RZ).sinusoids.size(), std::size_t{1});
    QCOMPARE(m.axis(handsim::sim::PalmMotion::RZ).sinusoids[0].frequency_hz, 3.0);
    QCOMPARE(m.axis(handsim::sim::PalmMotion::RZ).sinusoids[0].cycles, 5.0);
    // Trajectory files carry the palm rows too.
    const QString traj = dir_->filePath(QStringLiteral("traj.json"));
    panel->saveFile(traj);
    controller_->setPalmMotion({});
    QCOMPARE(panel->palmTable()->rowCount(), 0);
    panel->loadFile(traj);
    QCOMPARE(panel->palmTable()->rowCount(), 2);
    QCOMPARE(controller_->palmMotion().axis(handsim::sim::PalmMotion::RZ).sinusoids[0].amplitude,
             0.2);
  }

  void badPalmRowIsRefusedAndChangesNothing() {
    auto* panel = window_->trajectoryPanel();
    handsim::app::PalmRow bad{handsim::sim::PalmMotion::RX, true, 4.0, 1.0, 1.0, 0.0};
    panel->addPalmRow(bad);  // 4 rad: more than pi
    QVERIFY(!panel->apply());
    QVERIFY(controller_->palmMotion().empty());
    panel->palmTable()->item(0, 2)->setText(QStringLiteral("0.5"));
    panel->palmTable()->item(0, 3)->setText(QStringLiteral("-1"));
    QVERIFY(!panel->apply());
    QVERIFY(controller_->palmMotion().empty());
  }

  // --- a free object's signals in the plot dock -------------------------------------------
  void freeObjectSignalsAreOfferedAndPlotted() {
    // The default cube, lifted well clear of the hand and made free: it falls freely.
    Eigen::Isometry3d high = Eigen::Isometry3d::Identity();
    high.translation() = Eigen::Vector3d(0.0, 0.0, 0.6);
    controller_->setObjectPose(0, high);
    controller_->setObjectFree(0, true);
    controller_->setGroundEnabled(true);
    const std::string name = controller_->objects()[0].name;
    auto* dock = window_->plotDock();
    dock->refresh();
    auto* list = dock->findChild<QListWidget*>();
    QVERIFY(list);
    QStringList offered;
    for (int i = 0; i < list->count(); ++i) offered << list->item(i)->text();
    for (const char* suffix : {".x", ".y", ".z", ".qw", ".qx", ".qy", ".qz", ".vx", ".vy", ".vz",
                               ".wx", ".wy", ".wz", ".kinetic_energy"})
      QVERIFY2(offered.contains(QString::fromStdString(name) + QLatin1String(suffix)),
               qPrintable(QString::fromStdString(name) + QLatin1String(suffix)));
    // Contact forces per body pair: every finger, the palm and the ground on the object.
    QVERIFY(offered.contains(QStringLiteral("contact.palm.%1.force").arg(QString::fromStdString(name))));
    QVERIFY(offered.contains(QStringLiteral("contact.ground.%1.force").arg(QString::fromStdString(name))));
    for (const auto& f : controller_->hand().fingers)
      QVERIFY(offered.contains(QStringLiteral("contact.%1.%2.force")
                                   .arg(QString::fromStdString(f.name), QString::fromStdString(name))));
    // Plotted: the kinetic energy after 0.2 s of free fall is m (g t)^2 / 2.
    dock->setSignals({name + ".kinetic_energy", name + ".z"});
    QCOMPARE(dock->selectedSignals().size(), std::size_t{2});
    runFor(controller_, 0.2);
    dock->refresh();
    const double m = controller_->objects()[0].mass.mass_kg;
    const double g = 9.81;
    double at = 0.0;
    const double ke = recorded(controller_->recorder(), name + ".kinetic_energy", 0.2, &at);
    const double expected = 0.5 * m * (g * at) * (g * at);
    QVERIFY2(std::abs(ke - expected) < 0.01 * expected,
             qPrintable(QStringLiteral("%1 vs %2").arg(ke).arg(expected)));
    QVERIFY(!dock->figure().panels.empty());
  }

  // --- A hand on an arm (issue 24, docs/arm.md) ---------------------------------------------
  void anArmIsDrawnAndItsSlidersMoveThePalmAboutTheJointAxis() {
    controller_->loadHand(HANDSIM_SOURCE_DIR "/assets/hands/urdf/wrist_hand.urdf", "palm");
    const handsim::hand::ArmModel& arm = controller_->hand().arm;
    QCOMPARE(arm.dof(), 2);  // wrist_yaw, wrist_pitch
    handsim::app::JointPanel* panel = window_->jointPanel();
    QCOMPARE(panel->armRowCount(), 2);
    // The scene the viewport draws, from the controller's model and state.
    const auto drawn = [this] {
      auto scene = std::make_unique<handsim::app::SceneGraph>();
      scene->setHand(controller_->model());
      scene->update(controller_->model(), controller_->state(), controller_->armBaseWorld());
      return scene;
    };
    const int last = static_cast<int>(arm.chain.rows.size());
    std::unique_ptr<handsim::app::SceneGraph> scene = drawn();
    QCOMPARE(scene->armNode()->getNumChildren(), static_cast<unsigned>(last + 1));
    // The arm ends where the palm is: the drawn arm closes on the run's palm pose.
    const Eigen::Isometry3d palm0 = controller_->state().palm_pose_world;
    QVERIFY(scene->armFramePose(last).isApprox(palm0, 1e-12));
    const Eigen::Isometry3d base0 = scene->armFramePose(0);
    // The yaw joint's axis in the world, before the move.
    const int row = arm.chain.rowOfJoint(0);
    const handsim::kinematics::JointAxis axis = handsim::kinematics::jointAxisInBase(
        arm.chain.rows[static_cast<std::size_t>(row)], scene->armFramePose(row));

    const double delta = 20.0 * kPi / 180.0;
    panel->armSpinBox(0)->setValue(20.0);  // degrees, from 0
    QVERIFY(std::abs(controller_->state().arm_position[0] - delta) < 1e-12);
    // A rotation by delta about that axis carries the old palm pose to the new one.
    Eigen::Isometry3d turn = Eigen::Isometry3d::Identity();
    turn.linear() = Eigen::AngleAxisd(delta, axis.direction).toRotationMatrix();
    turn.translation() = axis.point - turn.linear() * axis.point;
    const Eigen::Isometry3d expected = turn * palm0;
    const Eigen::Isometry3d palm1 = controller_->state().palm_pose_world;
    QVERIFY2(palm1.isApprox(expected, 1e-9),
             qPrintable(QStringLiteral("moved %1 mm from the expected pose")
                            .arg(1e3 * (palm1.translation() - expected.translation()).norm())));
    // It did turn, by delta (the wrist's axes pass through the palm's origin: it turns in place).
    QVERIFY(std::abs(Eigen::AngleAxisd(palm1.linear() * palm0.linear().transpose()).angle() -
                     delta) < 1e-9);
    scene = drawn();
    QVERIFY(scene->armFramePose(0).isApprox(base0, 1e-12));  // the base stays
    QVERIFY(scene->armFramePose(last).isApprox(palm1, 1e-12));
    // What is saved starts where the screen shows; undo puts the arm back.
    QVERIFY(std::abs(controller_->scenario().plan.arm.initial[0] - delta) < 1e-12);
    QVERIFY(controller_->scenario().plan.palm_pose_world.isApprox(palm1, 1e-12));
    controller_->undo();
    QVERIFY(std::abs(controller_->state().arm_position[0]) < 1e-12);
    QVERIFY(controller_->state().palm_pose_world.isApprox(palm0, 1e-12));
    // Limits hold: 90 degrees is beyond wrist_yaw's 0.8 rad.
    controller_->setArmJoint(0, 1.5);
    QVERIFY(std::abs(controller_->state().arm_position[0] - 0.8) < 1e-12);
    // A hand without an arm has no arm rows and draws no arm.
    controller_->loadHand("barrett");
    QCOMPARE(panel->armRowCount(), 0);
    QCOMPARE(drawn()->armNode()->getNumChildren(), 0u);
  }

 private:
  SimulationController* controller_ = nullptr;
  MainWindow* window_ = nullptr;
  std::unique_ptr<QTemporaryDir> dir_;
};

QTEST_MAIN(FrontEndTest)
#include "test_front_ends.moc"
