// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QElapsedTimer>
#include <QImage>
#include <QWidget>
#include <optional>
#include <osg/ref_ptr>
#include <osgGA/TrackballManipulator>
#include <osgViewer/GraphicsWindow>
#include <osgViewer/Viewer>

#include "scene_graph.hpp"

namespace handsim::app {

class SimulationController;
class ViewportWindow;

/// The 3-D view: an OpenSceneGraph viewer (GraphicsWindowEmbedded, single-threaded;
/// docs/design.md section 1) drawing into a native OpenGL window of its own, hosted in this
/// widget through QWidget::createWindowContainer. A QOpenGLWidget would draw into a
/// framebuffer object that Qt then composites into the window with the other widgets: on a
/// software rasteriser (Mesa llvmpipe) that copy of the whole viewport, and the recomposition
/// whenever any panel repaints, cost about as much as drawing the scene (docs/performance.md).
/// The native window forwards its mouse, wheel, key and drop events to this widget, which
/// takes the keyboard focus on a click (shortcuts and the one-key views keep working).
/// It only syncs the scene graph from the controller's snapshot; mouse: left orbit, middle (or
/// shift-left) pan, right/wheel zoom; Ctrl + left drag on an object moves it in the screen
/// plane, on a finger drags its fingertip target (inverse kinematics follows; the miss is
/// shown in mm); Ctrl + right drag on a free object while the run plays pulls it with a spring
/// (a perturbation force, as MuJoCo's simulate does).
class OsgViewport : public QWidget {
  Q_OBJECT
 public:
  enum class View { Front, Top, Side, Fit };

  explicit OsgViewport(SimulationController* controller, QWidget* parent = nullptr);
  ~OsgViewport() override;

  /// The OpenGL renderer's name (GL_RENDERER) from a throw-away context; needs a QGuiApplication.
  static QString rendererName();
  /// Multisampling for the viewport when the user chose none: 4 on a GPU, 0 on a software
  /// rasteriser (Mesa llvmpipe/softpipe/swrast), where 4 samples cost about 3x the frame time.
  static int automaticSamples();
  /// Multisampling of viewports built from now on (-1: the default surface format's).
  static void setSamples(int samples);

  SceneGraph& scene() { return scene_; }
  void setDisplayOptions(const DisplayOptions& options);
  /// Shows `points` (palm frame [m]) as the workspace cloud; empty hides it.
  void setWorkspace(const std::vector<Eigen::Vector3d>& points);
  /// Moves the camera to a preset around the scene's bounding sphere.
  void setView(View view);
  /// True when every corner of the world box [lo, hi] projects inside the view of the camera's
  /// current (or just set home) position.
  bool projectsInside(const Eigen::Vector3d& lo, const Eigen::Vector3d& hi) const;
  /// Frames drawn per second, averaged over the last second; 0 until a second of frames has
  /// been drawn (after the start, or after more than a second without a frame).
  double frameRate() const { return frame_rate_; }
  /// Number of frames drawn so far.
  long long frameCount() const { return frames_; }
  /// Asks for a frame: drawn as soon as the event loop is back, once however often it is asked
  /// before (posted directly, not left to the platform's refresh-rate throttle).
  void requestFrame();
  /// Draws the current scene into an offscreen framebuffer of the viewport's size (device
  /// pixels) and returns it; null before the native window has an OpenGL context.
  QImage grabFramebuffer();
  /// The native window the scene is drawn in (tests send it events as the window system does).
  QWindow* nativeWindow() const;
  /// The camera's position in the world [m] and the unit direction it looks along.
  Eigen::Vector3d cameraEye() const;
  Eigen::Vector3d cameraLook() const;
  /// Where world point `p` [m] is drawn, in widget coordinates (logical pixels), and its
  /// window depth in [0, 1].
  QPointF widgetPointOf(const Eigen::Vector3d& p, double* depth = nullptr) const;
  /// The fingertip target being dragged (world [m]), if any.
  const std::optional<Eigen::Vector3d>& fingertipTarget() const { return tip_target_; }

 Q_SIGNALS:
  /// Files dropped onto the viewport (hands, scenes, meshes: MainWindow::openDroppedFiles).
  void filesDropped(const QStringList& paths);
  /// An object drag (Ctrl + left button) ended.
  void objectDragged();
  /// A fingertip target moved: what inverse kinematics made of it (reached, or the miss in mm).
  void fingertipTargetMoved(const QString& message);
  /// A frame was drawn.
  void frameDrawn();

 protected:
  void mousePressEvent(QMouseEvent* e) override;
  void mouseReleaseEvent(QMouseEvent* e) override;
  void mouseMoveEvent(QMouseEvent* e) override;
  void wheelEvent(QWheelEvent* e) override;
  void dragEnterEvent(QDragEnterEvent* e) override;
  void dropEvent(QDropEvent* e) override;

 private:
  friend class ViewportWindow;
  /// Called by the native window with its context current: the first frame, each frame (into
  /// the window, or into the bound framebuffer object for grabFramebuffer).
  void initializeGL();
  void paintGL();
  /// Draws the scene into whatever framebuffer is bound (no frame counting).
  void drawScene();
  /// Device pixels of the native window.
  QSize deviceSize() const;
  void onHandChanged();
  void onObjectsChanged();
  void syncFromSnapshot();
  void resizeViewer();
  static int osgButton(Qt::MouseButton b, Qt::KeyboardModifiers m);
  /// Window matrix (world -> device pixels, y up, depth in [0, 1]).
  osg::Matrixd worldToWindow() const;
  bool startObjectDrag(const QPointF& logical, bool perturb);
  void dragObject(const QPointF& logical);
  /// The world point under the mouse at the grabbed point's window depth.
  osg::Vec3d dragPointAt(const QPointF& logical) const;
  void dragFingertip(const QPointF& logical);
  void updateDragMarker();

  SimulationController* controller_;
  SceneGraph scene_;
  osg::ref_ptr<osgViewer::Viewer> viewer_;
  osg::ref_ptr<osgViewer::GraphicsWindowEmbedded> window_;
  ViewportWindow* native_ = nullptr;  ///< owned by container_
  QWidget* container_ = nullptr;      ///< createWindowContainer's widget, filling this one
  bool gl_initialized_ = false;       ///< initializeGL() ran: there is a context to release into
  osg::ref_ptr<osgGA::TrackballManipulator> manipulator_;
  bool dirty_ = true;
  View last_view_ = View::Fit;
  /// The camera is still at the last preset (no mouse move since): a resize re-frames it.
  bool at_preset_ = false;
  int dragged_ = -1;         ///< object moved by Ctrl + left drag, or -1
  osg::Vec3d drag_point_;    ///< grabbed point in the world
  double drag_depth_ = 0.0;  ///< its window depth
  int drag_finger_ = -1;     ///< finger whose fingertip target is dragged, or -1
  Eigen::Vector3d tip_start_world_ = Eigen::Vector3d::Zero();
  osg::Vec3d grab_start_;                      ///< grabbed point at the press (fingertip drags)
  std::optional<Eigen::Vector3d> tip_target_;  ///< world [m]
  bool tip_reached_ = false;
  int perturbed_ = -1;  ///< object pulled by Ctrl + right drag, or -1
  long long frames_ = 0;
  double frame_rate_ = 0.0;
  long long frames_at_window_ = 0;
  QElapsedTimer fps_clock_;
  QElapsedTimer since_frame_;  ///< since the last frame drawn
};

}  // namespace handsim::app
