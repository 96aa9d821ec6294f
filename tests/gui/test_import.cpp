// SPDX-License-Identifier: GPL-3.0-or-later
// Importing objects in the application (QtTest, under Xvfb): the millimetre dialog, placement in
// front of the palm clear of the hand, drag and drop, and a camera that frames hand and object.
#include <QDropEvent>
#include <QFile>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>
#include <QUrl>
#include <QtTest>
#include <cmath>
#include <filesystem>

#include "../support/corpus.hpp"
#include "default_window.hpp"
#include "handsim/collision/tree_collision.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/sim/step.hpp"
#include "main_window.hpp"
#include "osg_viewport.hpp"
#include "simulation_controller.hpp"

using handsim::app::MainWindow;
using handsim::app::SimulationController;

namespace {

// A closed box `w` x `d` x `h` in the file's own numbers, base at z = 0 (a bottle-sized block
// written in millimetres when w, d, h are 60, 60, 190).
QString writeBox(const QString& path, double w, double d, double h) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return {};
  QTextStream out(&file);
  for (int i = 0; i < 8; ++i)
    out << "v " << ((i & 1) ? w / 2 : -w / 2) << ' ' << ((i & 2) ? d / 2 : -d / 2) << ' '
        << ((i & 4) ? h : 0.0) << '\n';
  // Outward-wound quads of the cube with corners numbered by bits (x, y, z), as triangles.
  const int faces[6][4] = {{1, 3, 7, 5}, {0, 4, 6, 2}, {2, 6, 7, 3},
                           {0, 1, 5, 4}, {4, 5, 7, 6}, {0, 2, 3, 1}};
  for (const auto& f : faces) {
    out << "f " << f[0] + 1 << ' ' << f[1] + 1 << ' ' << f[2] + 1 << '\n';
    out << "f " << f[0] + 1 << ' ' << f[2] + 1 << ' ' << f[3] + 1 << '\n';
  }
  return path;
}

double largestExtent(const handsim::geometry::TriangleMesh& mesh) {
  handsim::geometry::Aabb box;
  for (const auto& v : mesh.vertices) box.extend(v);
  return (box.max - box.min).maxCoeff();
}

// Clicks the button named `button` of the first modal message box that appears, recording the
// box's object name and text.
void answerDialog(const QString& button, QString* name, QString* text) {
  QTimer* poll = new QTimer;
  poll->setInterval(20);
  QObject::connect(poll, &QTimer::timeout, poll, [poll, button, name, text] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return;
    *name = box->objectName();
    *text = box->text() + QLatin1Char(' ') + box->informativeText();
    for (QAbstractButton* b : box->buttons()) {
      *text += QLatin1Char(' ') + b->text();
      if (b->objectName() == button) b->click();
    }
    poll->stop();
    poll->deleteLater();
  });
  poll->start();
}

// Every corner of the world box of `mesh` at `pose` projects inside the viewport.
bool framed(handsim::app::OsgViewport* vp, const handsim::geometry::TriangleMesh& mesh,
            const Eigen::Isometry3d& pose) {
  handsim::geometry::Aabb box;
  for (const auto& v : mesh.vertices) box.extend(pose * v);
  return vp->projectsInside(box.min, box.max);
}

}  // namespace

class ImportTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void init() {
    dir_ = new QTemporaryDir;
    QVERIFY(handsim::app::test::openDefaultWindow(controller_, window_, true));
  }

  void cleanup() {
    handsim::app::test::closeDefaultWindow(controller_, window_);
    delete dir_;
  }

  void millimetreFileIsOfferedAThousandth() {
    const QString path = writeBox(dir_->filePath(QStringLiteral("bottle_mm.obj")), 60, 60, 190);
    QString name, text;
    answerDialog(QStringLiteral("ScaleMillimetres"), &name, &text);
    const std::size_t before = controller_->objects().size();
    QVERIFY(window_->importObject(path));
    QCOMPARE(name, QStringLiteral("MillimetreDialog"));
    QVERIFY2(text.contains(QStringLiteral("0.001")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("bottle_mm.obj")), qPrintable(text));
    QCOMPARE(controller_->objects().size(), before + 1);
    const auto& o = controller_->objects().back();
    QCOMPARE(o.scale, 0.001);
    QVERIFY(std::abs(largestExtent(o.geometry->collision.mesh) - 0.19) < 1e-9);
  }

  void keepingTheScaleKeepsTheNumbers() {
    const QString path = writeBox(dir_->filePath(QStringLiteral("big.obj")), 60, 60, 190);
    QString name, text;
    answerDialog(QStringLiteral("KeepScale"), &name, &text);
    QVERIFY(window_->importObject(path));
    QCOMPARE(name, QStringLiteral("MillimetreDialog"));
    QVERIFY(std::abs(largestExtent(controller_->objects().back().geometry->collision.mesh) -
                     190.0) < 1e-9);
  }

  void metreFilesAreNotAsked() {
    const QString path = writeBox(dir_->filePath(QStringLiteral("bottle_m.obj")), 0.06, 0.06, 0.19);
    QVERIFY(window_->importObject(path));  // a dialog would block here
    QCOMPARE(controller_->objects().back().scale, 1.0);
  }

  void importedObjectIsClearOfTheHandAndFramed() {
    const std::string mustard = handsim::test::corpusPath("meshes/ycb_mustard_bottle.obj");
    for (const char* hand : {"barrett", "anthro20", "kthand", "dexterous3"}) {
      controller_->loadHand(hand);
      controller_->clearObjects();  // a new hand keeps the objects; this one is placed alone
      const QString path = !mustard.empty() && std::filesystem::exists(mustard)
                               ? QString::fromStdString(mustard)
                               : writeBox(dir_->filePath(QStringLiteral("b.obj")), 0.06, 0.06, 0.19);
      QVERIFY(window_->importObject(path));
      QVERIFY2(!handsim::sim::handTouchesObjects(controller_->model(), controller_->state()), hand);
      const auto& o = controller_->objects().back();
      QVERIFY2(framed(window_->viewport(), o.geometry->collision.mesh, controller_->objectPose(0)),
               hand);
      QVERIFY2(framed(window_->viewport(), controller_->model().hand_geometry->palm.collision.mesh,
                      controller_->palmPose()),
               hand);
    }
  }

  void droppedFileIsPlacedClearOfTheCube() {
    const QString path = writeBox(dir_->filePath(QStringLiteral("drop.obj")), 0.05, 0.05, 0.05);
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(path)});
    handsim::app::OsgViewport* vp = window_->viewport();
    QDragEnterEvent enter(QPoint(vp->width() / 2, vp->height() / 2), Qt::CopyAction, mime,
                          Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(vp, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(vp->width() / 2.0, vp->height() / 2.0), Qt::CopyAction, mime,
                    Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(vp, &drop);
    QCOMPARE(controller_->objects().size(), std::size_t{2});
    // The default cube sits where the old fixed spot put every import; the new box is clear of
    // it and of the hand.
    QVERIFY(!handsim::sim::handTouchesObjects(controller_->model(), controller_->state()));
    const auto& objects = controller_->objects();
    QVERIFY(!handsim::collision::anyContact(
        objects[0].geometry->collision.tree, objects[1].geometry->collision.tree,
        controller_->objectPose(0).inverse() * controller_->objectPose(1)));
    delete mime;
  }

 private:
  QTemporaryDir* dir_ = nullptr;
  SimulationController* controller_ = nullptr;
  MainWindow* window_ = nullptr;
};

QTEST_MAIN(ImportTest)
#include "test_import.moc"
