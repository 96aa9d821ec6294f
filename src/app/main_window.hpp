// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QPixmap>
#include <QString>
#include <optional>

#include "handsim/sim/model.hpp"

namespace handsim::app {

class SimulationController;
class OsgViewport;
class JointPanel;
class CartesianPanel;
class TrajectoryPanel;
class PlotDock;
class ObjectPanel;
class GraspPanel;
class PlannerPanel;
class LoadProgress;

/// The handsim main window: the OSG viewport in the centre, panels in dock widgets, menus
/// whose actions carry shortcuts and tooltips, and a status bar with simulation time,
/// real-time factor, frame rate, contact count and warnings. Window layout and recent files
/// live in QSettings.
class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(SimulationController* controller, QWidget* parent = nullptr);

  OsgViewport* viewport() const { return viewport_; }
  JointPanel* jointPanel() const { return joint_panel_; }
  CartesianPanel* cartesianPanel() const { return cartesian_panel_; }
  TrajectoryPanel* trajectoryPanel() const { return trajectory_panel_; }
  PlotDock* plotDock() const { return plot_dock_; }
  ObjectPanel* objectPanel() const { return object_panel_; }
  GraspPanel* graspPanel() const { return grasp_panel_; }
  PlannerPanel* plannerPanel() const { return planner_panel_; }
  /// The status bar's progress of a load in the background, with its Cancel button.
  LoadProgress* loadProgress() const { return load_progress_; }

  /// The default scene: BarrettHand and a 5 cm cube above the palm, within the fingers' reach.
  void loadDefaultScene();
  /// Imports an object file and places it in front of the palm where the fingers reach it,
  /// clear of the hand (sim::placeObjectInReach), then frames hand and object. A mesh larger
  /// than 5 m is offered a scale of 0.001 (millimetres) first. A bad file shows the loader's
  /// message (file:line:column) in a dialog and leaves the scene as it was. Returns true on
  /// success.
  bool importObject(const QString& path);
  /// Reads object `index` again from its file at `scale` (in the background) and puts it in
  /// place of the old one (SimulationController::replaceObjectGeometry). True on success.
  bool rescaleObject(int index, double scale);
  /// Opens a scene (.json, format handsim-scene) or a scenario (handsim-scenario); errors go
  /// to a dialog and leave the current scene. Returns true on success.
  bool openFile(const QString& path);
  /// Loads a hand file (.json) or a URDF (.urdf) as File > Hand > Open Hand File... does; a
  /// bad file shows the loader's message and leaves the scene as it was. True on success.
  /// Loads a hand (built-in id, hand file or URDF); `palm_link` names the URDF link that is
  /// the palm (the joints from the root to it are the arm, docs/arm.md).
  bool openHandFile(const QString& path, const QString& palm_link = {});
  /// File > Hand > Open Hand on an Arm: a URDF, then its palm link from a list.
  void askOpenHandOnArm();
  /// Opens files dropped onto the window (dropped_files.hpp): hands and scenes first (a new
  /// hand keeps the scene's objects), then trajectory files, then meshes as imported objects
  /// (placed in reach). Each bad file shows its error as the menus do and is skipped; the
  /// scene open before it stays. True when every file opened.
  bool openDroppedFiles(const QStringList& paths);
  /// Saves the whole scene (hand, objects, poses, trajectories) atomically. Rows of the
  /// Trajectory panel that were not applied yet are applied first (the run starts anew), so the
  /// file holds what the panel shows; a row that cannot run is named in the error and nothing
  /// is written. Says "Saved" in the status bar and shows the file's name in the title.
  bool saveScene(const QString& path);
  /// Records the shown joint angles as pose `name` in pose file `path` (appended, or replacing
  /// the pose of that name; atomic). Errors go to a dialog. Returns true on success.
  bool recordPose(const QString& name, const QString& path);
  /// Writes the poses of pose file `pose_path` as CSV to `csv_path` (atomic). Errors go to a
  /// dialog. Returns true on success.
  bool exportPosesCsv(const QString& pose_path, const QString& csv_path);
  /// Renders the viewport and writes it as PNG atomically. Returns true on success.
  bool saveScreenshot(const QString& path);
  /// Renders the whole window (panels included) and writes it as PNG atomically.
  bool saveWindowImage(const QString& path);
  /// The whole window as drawn: the widgets, and the viewport's frame painted where the
  /// viewport is (its native OpenGL window is not part of a widget grab).
  QPixmap windowImage();
  /// Brings the dock of panel `name` (joints, cartesian, objects, grasp, trajectory, plot) to the
  /// front; false for an unknown name.
  bool raisePanel(const QString& name);
  /// Renders the dock of panel `name` alone and writes it as PNG atomically.
  bool savePanelImage(const QString& name, const QString& path);
  /// Dialogs are replaced by stderr messages (automation and tests).
  void setDialogsEnabled(bool enabled) { dialogs_ = enabled; }
  /// The last error shown (or that would have been shown), for tests.
  const QString& lastError() const { return last_error_; }

 protected:
  /// Keys typed into a text field or an editable table cell go there, not to the one-key
  /// shortcuts (`1` for the front view, `G` for Auto Grasp...): watches every ShortcutOverride.
  bool eventFilter(QObject* watched, QEvent* event) override;
  void closeEvent(QCloseEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  /// The menus, one function each.
  void buildActions();
  void buildFileMenu();
  void buildEditMenu();
  void buildViewMenu();
  void buildSimulationMenu();
  void buildHelpMenu();
  /// File > New: the default scene (undoable).
  void newScene();
  void buildDocks();
  void updateStatus();
  /// Shrinks and moves the window onto its screen's available area (as far as the panels'
  /// minimum sizes allow; the sliders scroll, so they allow it).
  void keepOnScreen();
  /// "file — handsim — hand": the scene file opened or saved last, if any.
  void updateTitle();
  void showError(const QString& title, const QString& message);
  void addRecentFile(const QString& path);
  void rebuildRecentMenu();
  void showShortcuts();
  void addPlot();
  void askRecordPose();
  void askExportPosesCsv();
  QDockWidget* panelDock(const QString& name) const;
  /// Asks whether a mesh `extent_m` across is in millimetres: 0.001, 1 (keep) or a typed
  /// scale. Without dialogs: 1, with the warning on stderr.
  double askMillimetreScale(const QString& path, double extent_m);
  /// Reads a mesh file as an object on a pool thread (LoadProgress); errors go to a dialog, a
  /// cancel to the status bar; nothing on either.
  std::optional<sim::ObjectModel> readObjectInBackground(const QString& path, double scale);

  SimulationController* controller_;
  OsgViewport* viewport_ = nullptr;
  JointPanel* joint_panel_ = nullptr;
  CartesianPanel* cartesian_panel_ = nullptr;
  TrajectoryPanel* trajectory_panel_ = nullptr;
  PlotDock* plot_dock_ = nullptr;
  ObjectPanel* object_panel_ = nullptr;
  GraspPanel* grasp_panel_ = nullptr;
  PlannerPanel* planner_panel_ = nullptr;
  LoadProgress* load_progress_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  QMenu* view_menu_ = nullptr;
  QLabel* status_time_ = nullptr;
  QLabel* status_rtf_ = nullptr;
  QLabel* status_fps_ = nullptr;
  QLabel* status_contacts_ = nullptr;
  QLabel* status_warnings_ = nullptr;
  QAction* play_action_ = nullptr;
  int warning_count_ = 0;
  int extra_plots_ = 0;
  bool dialogs_ = true;
  QString last_error_;
  QString scene_file_;  ///< the scene file opened or saved last; empty after a new hand
};

}  // namespace handsim::app
