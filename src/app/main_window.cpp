// SPDX-License-Identifier: GPL-3.0-or-later
#include "main_window.hpp"

#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLayout>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSaveFile>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTextEdit>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "cartesian_panel.hpp"
#include "dropped_files.hpp"
#include "grasp_panel.hpp"
#include "handsim/formats/hand_loader.hpp"
#include "handsim/formats/model_loader.hpp"
#include "handsim/formats/urdf_reader.hpp"
#include "handsim/tools/placement.hpp"
#include "joint_panel.hpp"
#include "load_progress.hpp"
#include "object_panel.hpp"
#include "osg_viewport.hpp"
#include "planner_panel.hpp"
#include "plot_dock.hpp"
#include "pose_recording.hpp"
#include "simulation_controller.hpp"
#include "trajectory_panel.hpp"

namespace handsim::app {
namespace {
constexpr int kMaxRecentFiles = 8;

/// Whether a key without Ctrl, Alt or Meta, pressed while `focus` has the keyboard, is typing
/// into it: a text field or spin box, or an editable table cell that a key starts editing
/// (Space there still plays).
bool typesInto(const QObject* focus, const QKeyEvent& key) {
  if (key.modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)) return false;
  if (key.text().isEmpty() || !key.text().at(0).isPrint()) return false;
  if (const auto* line = qobject_cast<const QLineEdit*>(focus)) return !line->isReadOnly();
  if (const auto* spin = qobject_cast<const QAbstractSpinBox*>(focus)) return !spin->isReadOnly();
  if (qobject_cast<const QTextEdit*>(focus) || qobject_cast<const QPlainTextEdit*>(focus))
    return true;
  // A table's cells get key events through its viewport's parent, the view itself.
  const auto* view = qobject_cast<const QAbstractItemView*>(focus);
  if (!view || key.key() == Qt::Key_Space) return false;
  const QModelIndex index = view->currentIndex();
  return index.isValid() && (index.flags() & Qt::ItemIsEditable) &&
         (view->editTriggers() & QAbstractItemView::AnyKeyPressed);
}

QString objectFileFilter() {
  return QObject::tr(
      "Meshes (*.wrl *.wrz *.vrml *.gz *.obj *.stl *.ply *.off *.dae *.gltf *.glb *.3ds *.fbx);;"
      "All files (*)");
}
}  // namespace

MainWindow::MainWindow(SimulationController* controller, QWidget* parent)
    : QMainWindow(parent), controller_(controller) {
  setWindowTitle(tr("handsim"));
  setObjectName(QStringLiteral("MainWindow"));
  viewport_ = new OsgViewport(controller_, this);
  setCentralWidget(viewport_);
  // Files dropped anywhere on the window (the viewport or a dock) open by their kind.
  setAcceptDrops(true);
  connect(viewport_, &OsgViewport::filesDropped, this, &MainWindow::openDroppedFiles);
  buildDocks();
  buildActions();
  qApp->installEventFilter(this);  // typing into fields and cells wins over one-key shortcuts

  status_time_ = new QLabel;
  status_rtf_ = new QLabel;
  status_fps_ = new QLabel;
  status_contacts_ = new QLabel;
  status_warnings_ = new QLabel;
  status_rtf_->setObjectName(QStringLiteral("RealTimeFactor"));
  status_fps_->setObjectName(QStringLiteral("FrameRate"));
  load_progress_ = new LoadProgress;
  load_progress_->setObjectName(QStringLiteral("LoadProgress"));
  statusBar()->addPermanentWidget(load_progress_);
  for (QLabel* l : {status_time_, status_rtf_, status_fps_, status_contacts_, status_warnings_})
    statusBar()->addPermanentWidget(l);
  connect(controller_, &SimulationController::warning, this, [this](const QString& w) {
    ++warning_count_;
    status_warnings_->setToolTip(w);
    statusBar()->showMessage(w, 5000);
  });
  connect(controller_, &SimulationController::statusMessage, this,
          [this](const QString& m) { statusBar()->showMessage(m, 5000); });
  auto* status_timer = new QTimer(this);
  connect(status_timer, &QTimer::timeout, this, &MainWindow::updateStatus);
  status_timer->start(250);
  connect(controller_, &SimulationController::handChanged, this, [this] {
    warning_count_ = 0;
    scene_file_.clear();  // a scenario being opened sets it again once loaded
    updateTitle();
    // Once the panels have their new rows: a window taller than the screen comes back onto it.
    QTimer::singleShot(0, this, &MainWindow::keepOnScreen);
  });
  updateTitle();
  updateStatus();

  resize(1280, 800);
  QSettings settings;
  restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
  keepOnScreen();
}

void MainWindow::keepOnScreen() {
  if (isFullScreen() || isMaximized()) return;
  const QScreen* screen = this->screen();
  if (!screen) return;
  if (layout()) layout()->activate();
  const QRect available = screen->availableGeometry();
  // The frame (title bar, borders) around the window, when a window manager draws one.
  const QSize frame = frameGeometry().size() - size();
  const QSize fits = size().boundedTo(available.size() - frame).expandedTo(minimumSizeHint());
  if (fits != size()) resize(fits);
  QRect placed = frameGeometry();
  if (placed.bottom() > available.bottom()) placed.moveBottom(available.bottom());
  if (placed.right() > available.right()) placed.moveRight(available.right());
  if (placed.top() < available.top()) placed.moveTop(available.top());
  if (placed.left() < available.left()) placed.moveLeft(available.left());
  if (placed.topLeft() != frameGeometry().topLeft()) move(placed.topLeft());
}

void MainWindow::buildDocks() {
  auto dock = [this](QWidget* widget, const QString& title, const QString& name,
                     Qt::DockWidgetArea area) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(widget);
    addDockWidget(area, d);
    return d;
  };
  joint_panel_ = new JointPanel(controller_);
  cartesian_panel_ = new CartesianPanel(controller_);
  trajectory_panel_ = new TrajectoryPanel(controller_);
  object_panel_ = new ObjectPanel(controller_);
  plot_dock_ = new PlotDock(controller_);
  grasp_panel_ = new GraspPanel(controller_);
  planner_panel_ = new PlannerPanel(controller_);
  QDockWidget* joints =
      dock(joint_panel_, tr("Joints"), QStringLiteral("JointDock"), Qt::RightDockWidgetArea);
  QDockWidget* cartesian = dock(cartesian_panel_, tr("Cartesian"), QStringLiteral("CartesianDock"),
                                Qt::RightDockWidgetArea);
  // The Objects and Planner panels scroll rather than set the window's least height (the
  // Planner's list would make a many-joint hand's window taller than the screen).
  const auto scrolled = [](QWidget* panel) {
    auto* scroll = new QScrollArea;
    scroll->setWidget(panel);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    return scroll;
  };
  QDockWidget* objects = dock(scrolled(object_panel_), tr("Objects"), QStringLiteral("ObjectDock"),
                              Qt::RightDockWidgetArea);
  tabifyDockWidget(joints, cartesian);
  QDockWidget* grasp =
      dock(grasp_panel_, tr("Grasp"), QStringLiteral("GraspDock"), Qt::RightDockWidgetArea);
  tabifyDockWidget(cartesian, objects);
  tabifyDockWidget(objects, grasp);
  QDockWidget* planner = dock(scrolled(planner_panel_), tr("Planner"),
                              QStringLiteral("PlannerDock"), Qt::RightDockWidgetArea);
  tabifyDockWidget(grasp, planner);
  joints->raise();
  dock(trajectory_panel_, tr("Trajectory"), QStringLiteral("TrajectoryDock"),
       Qt::LeftDockWidgetArea);
  dock(plot_dock_, tr("Plot"), QStringLiteral("PlotDock"), Qt::BottomDockWidgetArea);
  connect(cartesian_panel_, &CartesianPanel::workspaceChanged, viewport_,
          &OsgViewport::setWorkspace);
  connect(joint_panel_, &JointPanel::recordPoseRequested, this, &MainWindow::askRecordPose);
  connect(viewport_, &OsgViewport::objectDragged, object_panel_, &ObjectPanel::refreshPose);
  connect(object_panel_, &ObjectPanel::scaleRequested, this, &MainWindow::rescaleObject);
  connect(viewport_, &OsgViewport::fingertipTargetMoved, this,
          [this](const QString& m) { statusBar()->showMessage(m, 8000); });
  connect(object_panel_, &ObjectPanel::importRequested, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Import object"), QString(), objectFileFilter());
    if (!path.isEmpty()) importObject(path);
  });
}

void MainWindow::addPlot() {
  auto* plot = new PlotDock(controller_);
  auto* d = new QDockWidget(tr("Plot %1").arg(++extra_plots_ + 1), this);
  d->setObjectName(QStringLiteral("PlotDock%1").arg(extra_plots_));
  d->setAttribute(Qt::WA_DeleteOnClose);
  d->setWidget(plot);
  addDockWidget(Qt::BottomDockWidgetArea, d);
}

void MainWindow::buildActions() {
  buildFileMenu();
  buildEditMenu();
  buildViewMenu();
  buildSimulationMenu();
  buildHelpMenu();
}

void MainWindow::buildFileMenu() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* new_scene = file->addAction(tr("&New Scene"), this, [this] {
    if (load_progress_->busy()) return;
    newScene();
    statusBar()->showMessage(tr("New scene: the BarrettHand and a cube (Edit > Undo brings the "
                                "previous scene back)"),
                             8000);
  });
  new_scene->setShortcut(QKeySequence::New);
  new_scene->setToolTip(
      tr("Back to the scene handsim starts with: the BarrettHand and a 5 cm "
         "cube between its fingers"));
  QAction* import = file->addAction(tr("&Import Object..."), this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Import object"), QString(), objectFileFilter());
    if (!path.isEmpty()) importObject(path);
  });
  import->setShortcut(QKeySequence(tr("Ctrl+I")));
  import->setToolTip(tr("Load a VRML or any Assimp mesh file as an object"));
  QAction* open = file->addAction(tr("&Open Scene or Scenario..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open"), QString(),
                                                      tr("Scenes and scenarios (*.json)"));
    if (!path.isEmpty()) openFile(path);
  });
  open->setShortcut(QKeySequence::Open);
  QAction* save = file->addAction(tr("&Save Scene..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save scene"), QStringLiteral("scene.json"), tr("Scenes (*.json)"));
    if (!path.isEmpty()) saveScene(path);
  });
  save->setShortcut(QKeySequence::Save);
  save->setToolTip(tr("Save the scene as a scenario file (hand, palm and object poses, options, "
                      "trajectories, controller) that handsim-cli simulate runs as it ran here"));
  QMenu* scenarios = file->addMenu(tr("Shipped &Scenarios"));
  const QDir scenario_dir(QString::fromStdString(hand::assetDirectory()) +
                          QStringLiteral("/scenarios"));
  for (const QFileInfo& info :
       scenario_dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
    const QString path = info.absoluteFilePath();
    scenarios->addAction(info.completeBaseName(), this, [this, path] { openFile(path); });
  }
  QMenu* hands = file->addMenu(tr("&Hand"));
  for (const std::string& id : hand::builtinHandIds()) {
    const QString qid = QString::fromStdString(id);
    hands->addAction(qid, this, [this, qid] { openHandFile(qid); });
  }
  hands->addSeparator();
  hands->addAction(tr("Open Hand &File..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open hand"), QString(), tr("Hands (*.json *.urdf);;URDF (*.urdf);;All files (*)"));
    if (!path.isEmpty()) openHandFile(path);
  })->setToolTip(tr("Load a hand file (.json) or a URDF robot description (.urdf)"));
  hands->addAction(tr("Open Hand on an &Arm..."), this, &MainWindow::askOpenHandOnArm)
      ->setToolTip(tr("Load a URDF of an arm and hand and choose the link that is the palm: the "
                      "joints from the root to it drive the palm as an arm (docs/arm.md)"));
  file->addSeparator();
  QAction* record = file->addAction(tr("&Record Pose..."), this, &MainWindow::askRecordPose);
  record->setToolTip(tr("Append the current joint angles as a named pose to a pose file"));
  file->addAction(tr("Export Poses as &CSV..."), this, &MainWindow::askExportPosesCsv)
      ->setToolTip(tr("Write the poses of a pose file as CSV (SI units)"));
  recent_menu_ = file->addMenu(tr("Recent &Files"));
  rebuildRecentMenu();
  file->addSeparator();
  QAction* image = file->addAction(tr("Save &Image..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save image"), QStringLiteral("handsim.png"), tr("PNG images (*.png)"));
    if (!path.isEmpty()) saveScreenshot(path);
  });
  image->setShortcut(QKeySequence(tr("Ctrl+Shift+S")));
  image->setToolTip(tr("Save the viewport as a PNG image"));
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
}

void MainWindow::buildEditMenu() {
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = edit->addAction(tr("&Undo"), controller_, &SimulationController::undo);
  undo->setShortcut(QKeySequence::Undo);
  undo->setToolTip(
      tr("Undo the last scene edit (objects, start pose, trajectories, palm, hand; the run "
         "starts anew) or set point change during a run (the run goes on)"));
  QAction* redo = edit->addAction(tr("&Redo"), controller_, &SimulationController::redo);
  redo->setShortcut(QKeySequence::Redo);
  const auto enable = [this, undo, redo] {
    undo->setEnabled(controller_->canUndo());
    redo->setEnabled(controller_->canRedo());
  };
  connect(controller_, &SimulationController::undoChanged, this, enable);
  enable();
}

void MainWindow::buildViewMenu() {
  view_menu_ = menuBar()->addMenu(tr("&View"));
  const struct {
    const char* name;
    const char* key;
    OsgViewport::View view;
  } presets[] = {{"&Front", "1", OsgViewport::View::Front},
                 {"&Top", "2", OsgViewport::View::Top},
                 {"&Side", "3", OsgViewport::View::Side},
                 {"F&it", "F", OsgViewport::View::Fit}};
  for (const auto& p : presets) {
    const OsgViewport::View v = p.view;
    QAction* a = view_menu_->addAction(tr(p.name), this, [this, v] { viewport_->setView(v); });
    a->setShortcut(QKeySequence(QString::fromLatin1(p.key)));
    a->setToolTip(tr("Camera preset"));
  }
  view_menu_->addSeparator();
  const struct {
    const char* name;
    const char* key;
    bool DisplayOptions::*flag;
  } toggles[] = {{"&Contacts", "C", &DisplayOptions::contacts},
                 {"Link &Frames", "K", &DisplayOptions::frames},
                 {"&Bounding Volumes (debug)", "B", &DisplayOptions::bounds},
                 {"&Wireframe", "W", &DisplayOptions::wireframe},
                 {"T&ransparent Hand", "T", &DisplayOptions::transparent},
                 {"&Grid", "Shift+G", &DisplayOptions::grid},
                 {"Full Mesh &Detail", "Shift+D", &DisplayOptions::full_detail},
                 {"Show Co&llision Meshes", "Shift+C", &DisplayOptions::collision}};
  for (const auto& t : toggles) {
    bool DisplayOptions::*flag = t.flag;
    QAction* a = view_menu_->addAction(tr(t.name));
    a->setCheckable(true);
    a->setChecked(viewport_->scene().options().*flag);
    a->setShortcut(QKeySequence(QString::fromLatin1(t.key)));
    if (flag == &DisplayOptions::collision) {
      a->setObjectName(QStringLiteral("ShowCollisionMeshes"));
      a->setToolTip(tr("Draw the hand's collision meshes (what contacts use) instead of its "
                       "drawn meshes: they differ for URDF hands and visual_mesh links"));
    }
    connect(a, &QAction::toggled, this, [this, flag](bool on) {
      DisplayOptions o = viewport_->scene().options();
      o.*flag = on;
      viewport_->setDisplayOptions(o);
    });
  }
  QAction* fullscreen = view_menu_->addAction(
      tr("F&ull Screen"), this, [this] { setWindowState(windowState() ^ Qt::WindowFullScreen); });
  fullscreen->setShortcut(QKeySequence(Qt::Key_F11));
  view_menu_->addSeparator();
  for (QDockWidget* dock : findChildren<QDockWidget*>())
    view_menu_->addAction(dock->toggleViewAction());
}

void MainWindow::buildSimulationMenu() {
  QMenu* simulation = menuBar()->addMenu(tr("&Simulation"));
  play_action_ = simulation->addAction(tr("&Play"), this, [this] {
    if (controller_->running())
      controller_->pause();
    else
      controller_->play();
  });
  play_action_->setShortcut(QKeySequence(Qt::Key_Space));
  play_action_->setToolTip(tr("Play or pause the fixed-step simulation"));
  connect(controller_, &SimulationController::runningChanged, this,
          [this](bool on) { play_action_->setText(on ? tr("&Pause") : tr("&Play")); });
  QAction* step =
      simulation->addAction(tr("Single &Step"), controller_, &SimulationController::singleStep);
  step->setShortcut(QKeySequence(Qt::Key_Period));
  QAction* reset =
      simulation->addAction(tr("&Reset Run"), controller_, &SimulationController::resetRun);
  reset->setShortcut(QKeySequence(tr("Ctrl+R")));
  QAction* zero =
      simulation->addAction(tr("&Zero Pose"), controller_, &SimulationController::resetToZero);
  zero->setShortcut(QKeySequence(tr("Ctrl+0")));
  QAction* auto_grasp =
      simulation->addAction(tr("&Auto Grasp"), controller_, &SimulationController::autoGrasp);
  auto_grasp->setShortcut(QKeySequence(Qt::Key_G));
  auto_grasp->setToolTip(
      tr("Close every finger to its limit along a trapezoidal trajectory and play"));
  simulation->addSeparator();
  QAction* ground = simulation->addAction(tr("G&round Plane"));
  ground->setCheckable(true);
  ground->setChecked(controller_->groundEnabled());
  ground->setToolTip(tr("A ground plane at z = 0 (the grid) that free objects rest on"));
  connect(ground, &QAction::toggled, controller_, &SimulationController::setGroundEnabled);
  connect(controller_, &SimulationController::objectsChanged, ground, [this, ground] {
    const QSignalBlocker block(ground);
    ground->setChecked(controller_->groundEnabled());
  });
  QAction* lift = simulation->addAction(tr("&Lift Palm 10 cm"), controller_,
                                        [this] { controller_->liftPalm(0.1); });
  lift->setShortcut(QKeySequence(tr("Ctrl+L")));
  lift->setToolTip(tr("After a grasp: lift the palm 10 cm against gravity and see whether the "
                      "object stays in the hand"));
}

void MainWindow::buildHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* keys = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
  keys->setShortcut(QKeySequence::HelpContents);
  help->addAction(tr("&About handsim"), this, [this] {
    QMessageBox::about(this, tr("About handsim"),
                       tr("handsim %1 — simulator for multi-fingered, under-actuated robotic "
                          "hands. GPL-3.0-or-later.")
                           .arg(QApplication::applicationVersion()));
  });
}

void MainWindow::showShortcuts() {
  QString text = QStringLiteral("<table>");
  for (QAction* a : findChildren<QAction*>()) {
    if (a->shortcut().isEmpty()) continue;
    QString name = a->text();
    name.remove('&');
    text += QStringLiteral("<tr><td><b>%1</b></td><td>&nbsp;&nbsp;%2</td></tr>")
                .arg(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(),
                     name.toHtmlEscaped());
  }
  text += QStringLiteral(
      "</table><p>Mouse: left drag orbits, middle or Shift+left drag pans, "
      "right drag or wheel zooms; Ctrl+left drag moves an object or a fingertip target; "
      "Ctrl+right drag pulls a free object while the run plays.</p>");
  QMessageBox box(this);
  box.setWindowTitle(tr("Keyboard shortcuts"));
  box.setTextFormat(Qt::RichText);
  box.setText(text);
  box.exec();
}

void MainWindow::loadDefaultScene() {
  newScene();
  controller_->clearUndo();  // the scene handsim starts with has nothing before it
}

void MainWindow::newScene() {
  try {
    controller_->newScene();
  } catch (const std::exception& e) {
    showError(tr("Cannot load the default scene"), QString::fromUtf8(e.what()));
  }
  scene_file_.clear();
  updateTitle();
  viewport_->setView(OsgViewport::View::Fit);
}

double MainWindow::askMillimetreScale(const QString& path, double extent_m) {
  const QString file = QFileInfo(path).fileName();
  if (!dialogs_) {
    // Automation: keep the file's numbers and say so, like the command line does.
    std::fprintf(stderr, "handsim: %s\n",
                 sim::millimetreWarning(path.toStdString(), extent_m).c_str());
    return 1.0;
  }
  QMessageBox box(this);
  box.setObjectName(QStringLiteral("MillimetreDialog"));
  box.setIcon(QMessageBox::Question);
  box.setWindowTitle(tr("Millimetres?"));
  box.setText(tr("%1 is %2 m across, far larger than a hand (about 0.2 m). Its coordinates "
                 "are probably millimetres.")
                  .arg(file)
                  .arg(extent_m, 0, 'g', 4));
  box.setInformativeText(tr("Scale it by 0.001 to read millimetres as metres?"));
  QPushButton* mm = box.addButton(tr("Scale by 0.001"), QMessageBox::AcceptRole);
  mm->setObjectName(QStringLiteral("ScaleMillimetres"));
  QPushButton* keep = box.addButton(tr("Keep as Metres"), QMessageBox::RejectRole);
  keep->setObjectName(QStringLiteral("KeepScale"));
  QPushButton* custom = box.addButton(tr("Other Scale..."), QMessageBox::ActionRole);
  custom->setObjectName(QStringLiteral("CustomScale"));
  box.setDefaultButton(mm);
  box.exec();
  if (box.clickedButton() == mm) return 0.001;
  if (box.clickedButton() == custom) {
    bool ok = false;
    const double scale = QInputDialog::getDouble(this, tr("Scale"), tr("Multiply coordinates by:"),
                                                 0.001, 1e-9, 1e9, 9, &ok);
    return ok ? scale : 1.0;
  }
  return 1.0;
}

std::optional<sim::ObjectModel> MainWindow::readObjectInBackground(const QString& path,
                                                                   double scale) {
  const std::string file = path.toStdString();
  const int kdop_k = controller_->contactKdop();
  QString error;
  std::optional<sim::ObjectModel> object = load_progress_->run<sim::ObjectModel>(
      tr("Loading %1").arg(QFileInfo(path).fileName()),
      [file, scale, kdop_k] { return SimulationController::readObjectFile(file, scale, kdop_k); },
      &error);
  if (!object) {
    if (load_progress_->cancelled())
      statusBar()->showMessage(
          tr("Loading %1 cancelled; the scene is as it was").arg(QFileInfo(path).fileName()), 8000);
    else
      showError(tr("Cannot import object"), error);
    return {};
  }
  controller_->reportWarnings(*object);
  return object;
}

bool MainWindow::importObject(const QString& path) {
  std::optional<sim::ObjectModel> read = readObjectInBackground(path, 1.0);
  if (!read) return false;
  try {
    sim::ObjectModel object = std::move(*read);
    double extent = 0.0;
    if (sim::looksLikeMillimetres(object.geometry->collision.mesh, &extent)) {
      const double scale = askMillimetreScale(path, extent);
      if (scale != 1.0) {
        read = readObjectInBackground(path, scale);
        if (!read) return false;
        object = std::move(*read);
      }
    }
    // In front of the palm along the hand's approach, clear of the hand and the other objects,
    // on the ground grid when it is shown and the approach is near horizontal.
    const sim::Placement place = controller_->placeInReach(object, viewport_->scene().options().grid);
    if (!place.clear)
      statusBar()->showMessage(
          tr("%1: no place clear of the hand was found in front of the palm").arg(path), 8000);
    controller_->addObject(std::move(object), place.pose_world);
  } catch (const std::exception& e) {
    showError(tr("Cannot import object"), QString::fromUtf8(e.what()));
    return false;
  }
  // The camera frames the hand and the new object.
  viewport_->setView(OsgViewport::View::Fit);
  addRecentFile(path);
  return true;
}

bool MainWindow::rescaleObject(int index, double scale) {
  if (index < 0 || index >= static_cast<int>(controller_->objects().size())) return false;
  const sim::ObjectModel& o = controller_->objects()[static_cast<std::size_t>(index)];
  if (o.source.empty() || !(scale > 0.0)) return false;
  if (o.scale == scale) return true;
  std::optional<sim::ObjectModel> read =
      readObjectInBackground(QString::fromStdString(o.source), scale);
  if (!read) {
    object_panel_->refreshPose();  // the field shows the scale the object has
    return false;
  }
  controller_->replaceObjectGeometry(index, std::move(*read));
  return true;
}

bool MainWindow::openFile(const QString& path) {
  const std::string file = path.toStdString();
  QString error;
  std::optional<SimulationController::PreparedScenario> prepared =
      load_progress_->run<SimulationController::PreparedScenario>(
          tr("Opening %1").arg(QFileInfo(path).fileName()),
          [file] { return SimulationController::prepareScenario(file); }, &error);
  if (!prepared) {
    if (load_progress_->cancelled())
      statusBar()->showMessage(
          tr("Opening %1 cancelled; the scene is as it was").arg(QFileInfo(path).fileName()), 8000);
    else
      showError(tr("Cannot open %1").arg(QFileInfo(path).fileName()), error);
    return false;
  }
  controller_->installScenario(std::move(*prepared));
  viewport_->setView(OsgViewport::View::Fit);
  addRecentFile(path);
  scene_file_ = path;
  updateTitle();
  return true;
}

void MainWindow::updateTitle() {
  const QString hand = QString::fromStdString(controller_->hand().name);
  setWindowTitle(scene_file_.isEmpty()
                     ? tr("handsim — %1").arg(hand)
                     : tr("%1 — handsim — %2").arg(QFileInfo(scene_file_).fileName(), hand));
}

void MainWindow::askOpenHandOnArm() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open hand on an arm"), QString(),
                                                    tr("URDF (*.urdf);;All files (*)"));
  if (path.isEmpty()) return;
  QStringList links;
  try {
    // The link tree only (no meshes): quick even for large assemblies.
    hand::UrdfOptions options;
    options.load_geometry = false;
    for (const auto& link : hand::loadUrdfHand(path.toStdString(), options).tree.links)
      links << QString::fromStdString(link.name);
  } catch (const std::exception& e) {
    showError(tr("Cannot load hand"), QString::fromUtf8(e.what()));
    return;
  }
  if (links.size() < 2) {
    showError(tr("Cannot load hand"),
              tr("%1 has a single link: there is no arm to choose").arg(path));
    return;
  }
  bool ok = false;
  const QString palm = QInputDialog::getItem(
      this, tr("Palm link"),
      tr("The link that is the palm (the joints from %1 to it are the arm):").arg(links.front()),
      links.mid(1), 0, false, &ok);
  if (ok && !palm.isEmpty()) openHandFile(path, palm);
}

bool MainWindow::openHandFile(const QString& path, const QString& palm_link) {
  // A bad file, or Cancel, leaves the open scene as it was (the hand is read and built on a
  // pool thread; only a complete one is installed).
  const std::string file = path.toStdString();
  const std::string palm = palm_link.toStdString();
  QString error;
  std::optional<SimulationController::PreparedHand> prepared =
      load_progress_->run<SimulationController::PreparedHand>(
          tr("Loading %1").arg(QFileInfo(path).fileName()),
          [file, palm] { return SimulationController::prepareHand(file, palm); }, &error);
  if (!prepared) {
    if (load_progress_->cancelled())
      statusBar()->showMessage(
          tr("Loading %1 cancelled; the scene is as it was").arg(QFileInfo(path).fileName()), 8000);
    else
      showError(tr("Cannot load hand"), error);
    return false;
  }
  controller_->installHand(*prepared);
  viewport_->setView(OsgViewport::View::Fit);
  return true;
}

bool MainWindow::openDroppedFiles(const QStringList& paths) {
  // A hand or a scene replaces the scene, so it goes first and the meshes dropped with it
  // land in the new one.
  std::vector<std::pair<QString, DropKind>> files;
  for (const QString& p : paths) files.emplace_back(p, dropKindOfFile(p));
  const auto order = [](DropKind k) {
    return k == DropKind::Hand || k == DropKind::Scene ? 0 : k == DropKind::Trajectories ? 1 : 2;
  };
  std::stable_sort(files.begin(), files.end(),
                   [&](const auto& a, const auto& b) { return order(a.second) < order(b.second); });
  bool all = true;
  for (const auto& [path, kind] : files) {
    bool ok = false;
    switch (kind) {
      case DropKind::Hand:
        ok = openHandFile(path);
        break;
      case DropKind::Scene:
      case DropKind::Json:
        ok = openFile(path);
        break;
      case DropKind::Trajectories:
        try {
          trajectory_panel_->loadFile(path);
          ok = true;
        } catch (const std::exception& e) {
          showError(tr("Cannot load trajectories"), QString::fromUtf8(e.what()));
        }
        break;
      case DropKind::Object:
        ok = importObject(path);
        break;
      case DropKind::Unsupported:
        showError(tr("Cannot open %1").arg(QFileInfo(path).fileName()),
                  tr("%1: not a hand (.urdf, .json), scene or scenario (.json) or mesh file "
                     "(.wrl, .obj, .stl, .ply, .off, .dae, .gltf, .glb...)")
                      .arg(path));
        break;
    }
    all = all && ok;
  }
  return all;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* e) {
  if (!droppableFiles(e->mimeData()).isEmpty())
    e->acceptProposedAction();
  else
    e->ignore();
}

void MainWindow::dropEvent(QDropEvent* e) {
  const QStringList paths = droppableFiles(e->mimeData());
  if (paths.isEmpty()) {
    e->ignore();
    return;
  }
  e->acceptProposedAction();
  openDroppedFiles(paths);
}

bool MainWindow::saveScene(const QString& path) {
  // The file holds what the Trajectory panel shows, applied or not.
  const bool applied = trajectory_panel_->hasUnappliedRows();
  QString error;
  if (applied && !trajectory_panel_->apply(&error)) {
    showError(tr("Cannot save scene"),
              tr("%1 not saved: the Trajectory panel's %2").arg(QFileInfo(path).fileName(), error));
    return false;
  }
  try {
    controller_->saveScene(path.toStdString());
  } catch (const std::exception& e) {
    showError(tr("Cannot save scene"), QString::fromUtf8(e.what()));
    return false;
  }
  addRecentFile(path);
  scene_file_ = path;
  updateTitle();
  statusBar()->showMessage(applied ? tr("Saved %1 (the Trajectory panel's rows applied; the run "
                                        "starts anew with them)")
                                         .arg(QDir::toNativeSeparators(path))
                                   : tr("Saved %1").arg(QDir::toNativeSeparators(path)),
                           8000);
  return true;
}

void MainWindow::askRecordPose() {
  bool ok = false;
  const QString name = QInputDialog::getText(this, tr("Record pose"), tr("Pose name:"),
                                             QLineEdit::Normal, tr("pose"), &ok);
  if (!ok || name.trimmed().isEmpty()) return;
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Record pose to"), QStringLiteral("poses.json"), tr("Pose files (*.json)"), nullptr,
      QFileDialog::DontConfirmOverwrite);
  if (!path.isEmpty()) recordPose(name.trimmed(), path);
}

void MainWindow::askExportPosesCsv() {
  const QString poses =
      QFileDialog::getOpenFileName(this, tr("Pose file"), QString(), tr("Pose files (*.json)"));
  if (poses.isEmpty()) return;
  const QString csv = QFileDialog::getSaveFileName(this, tr("Export poses as CSV"),
                                                   QStringLiteral("poses.csv"), tr("CSV (*.csv)"));
  if (!csv.isEmpty()) exportPosesCsv(poses, csv);
}

bool MainWindow::recordPose(const QString& name, const QString& path) {
  try {
    handsim::app::recordPose(*controller_, name.toStdString(), path.toStdString());
  } catch (const std::exception& e) {
    showError(tr("Cannot record pose"), QString::fromUtf8(e.what()));
    return false;
  }
  statusBar()->showMessage(tr("Pose \"%1\" recorded in %2").arg(name, path), 5000);
  return true;
}

bool MainWindow::exportPosesCsv(const QString& pose_path, const QString& csv_path) {
  try {
    handsim::app::exportPosesCsv(controller_->hand(), pose_path.toStdString(),
                                 csv_path.toStdString());
  } catch (const std::exception& e) {
    showError(tr("Cannot export poses"), QString::fromUtf8(e.what()));
    return false;
  }
  return true;
}

bool MainWindow::saveScreenshot(const QString& path) {
  const QImage image = viewport_->grabFramebuffer();
  QSaveFile file(path);
  if (image.isNull() || !file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") ||
      !file.commit()) {
    showError(tr("Cannot save image"), tr("Cannot write %1: %2").arg(path, file.errorString()));
    return false;
  }
  return true;
}

QPixmap MainWindow::windowImage() {
  QPixmap image = grab();
  const QImage frame = viewport_->grabFramebuffer();
  if (!image.isNull() && !frame.isNull() && viewport_->isVisible()) {
    QPainter painter(&image);
    // Logical coordinates on both: the frame carries its device pixel ratio.
    painter.drawImage(QRectF(QPointF(viewport_->mapTo(this, QPoint(0, 0))), viewport_->size()),
                      frame);
  }
  return image;
}

bool MainWindow::saveWindowImage(const QString& path) {
  const QPixmap image = windowImage();
  QSaveFile file(path);
  if (image.isNull() || !file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") ||
      !file.commit()) {
    showError(tr("Cannot save image"), tr("Cannot write %1: %2").arg(path, file.errorString()));
    return false;
  }
  return true;
}

QDockWidget* MainWindow::panelDock(const QString& name) const {
  const QString key = name.toLower();
  const struct {
    const char* name;
    const char* dock;
  } docks[] = {{"joints", "JointDock"},    {"cartesian", "CartesianDock"},
               {"objects", "ObjectDock"},  {"grasp", "GraspDock"},
               {"planner", "PlannerDock"}, {"trajectory", "TrajectoryDock"},
               {"plot", "PlotDock"}};
  for (const auto& d : docks)
    if (key == QLatin1String(d.name))
      return findChild<QDockWidget*>(QString::fromLatin1(d.dock), Qt::FindDirectChildrenOnly);
  return nullptr;
}

bool MainWindow::raisePanel(const QString& name) {
  QDockWidget* dock = panelDock(name);
  if (!dock) return false;
  dock->show();
  dock->raise();
  return true;
}

bool MainWindow::savePanelImage(const QString& name, const QString& path) {
  QDockWidget* dock = panelDock(name);
  const QPixmap image = dock ? dock->grab() : QPixmap();
  QSaveFile file(path);
  if (image.isNull() || !file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") ||
      !file.commit()) {
    showError(tr("Cannot save image"), tr("Cannot write %1: %2").arg(path, file.errorString()));
    return false;
  }
  return true;
}

void MainWindow::updateStatus() {
  const sim::SimState& s = controller_->state();
  status_time_->setText(tr("t = %1 s").arg(s.time, 0, 'f', 3));
  // Before the first measurement (a second into a run, a second of drawing): a dash, not 0.
  const std::optional<double> rtf = controller_->measuredRealTimeFactor();
  status_rtf_->setText(!controller_->running() ? tr("paused")
                       : rtf                   ? tr("RTF %1").arg(*rtf, 0, 'f', 2)
                                               : tr("RTF —"));
  status_fps_->setText(viewport_->frameRate() > 0.0
                           ? tr("%1 fps").arg(viewport_->frameRate(), 0, 'f', 0)
                           : tr("— fps"));
  // Every kind of contact, as the viewport draws them.
  const std::size_t contacts =
      s.contacts.size() + s.object_contacts.size() + s.link_contacts.size();
  status_contacts_->setText(tr("%n contact(s)", nullptr, static_cast<int>(contacts)));
  status_warnings_->setText(tr("%n warning(s)", nullptr, static_cast<int>(s.warning_count)));
}

void MainWindow::showError(const QString& title, const QString& message) {
  last_error_ = message;
  if (dialogs_) {
    QMessageBox::warning(this, title, message);
  } else {
    std::fprintf(stderr, "handsim: %s: %s\n", qPrintable(title), qPrintable(message));
  }
}

void MainWindow::addRecentFile(const QString& path) {
  QSettings settings;
  QStringList files = settings.value(QStringLiteral("recentFiles")).toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  files.removeAll(absolute);
  files.prepend(absolute);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  settings.setValue(QStringLiteral("recentFiles"), files);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recent_menu_->clear();
  const QStringList files = QSettings().value(QStringLiteral("recentFiles")).toStringList();
  for (const QString& f : files) {
    recent_menu_
        ->addAction(QFileInfo(f).fileName(), this,
                    [this, f] {
                      if (f.endsWith(QLatin1String(".json"), Qt::CaseInsensitive))
                        openFile(f);
                      else
                        importObject(f);
                    })
        ->setToolTip(f);
  }
  recent_menu_->setEnabled(!files.isEmpty());
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::ShortcutOverride &&
      typesInto(watched, *static_cast<QKeyEvent*>(event))) {
    // Accepted: Qt delivers the key to the focus widget instead of triggering the shortcut.
    event->accept();
    return true;
  }
  return QMainWindow::eventFilter(watched, event);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  load_progress_->cancel();  // a load being waited for ends; its result is thrown away
  QSettings settings;
  settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
  settings.setValue(QStringLiteral("window/state"), saveState());
  QMainWindow::closeEvent(e);
}

}  // namespace handsim::app
