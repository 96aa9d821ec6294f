// SPDX-License-Identifier: GPL-3.0-or-later
#include "osg_viewport.hpp"

#include "dropped_files.hpp"

#include <QCoreApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QExposeEvent>
#include <QKeyEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QOpenGLFunctions>
#include <QSurfaceFormat>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QWindow>
#include <cmath>
#include <cstdio>
#include <osg/Light>
#include <osg/LightSource>
#include <osgUtil/IntersectionVisitor>
#include <osgUtil/LineSegmentIntersector>

#include "simulation_controller.hpp"

namespace handsim::app {
namespace {
int g_samples = -1;  // OsgViewport::setSamples
}  // namespace

/// The native OpenGL window the viewport draws into: its own context, a frame drawn straight
/// into its back buffer and swapped (no framebuffer object, no composition with the widgets).
/// Input goes to the OsgViewport that hosts it; it never takes the keyboard focus itself, so
/// key events keep going through the widgets (shortcuts, typing into fields).
class ViewportWindow : public QWindow {
 public:
  explicit ViewportWindow(OsgViewport* owner) : owner_(owner) {
    setSurfaceType(QWindow::OpenGLSurface);
    QSurfaceFormat f = QSurfaceFormat::defaultFormat();
    if (g_samples >= 0) f.setSamples(g_samples);
    setFormat(f);
    setFlag(Qt::WindowDoesNotAcceptFocus);
  }
  ~ViewportWindow() override = default;

  /// The owner is going away: no more calls into it.
  void detach() { owner_ = nullptr; }
  QOpenGLContext* context() const { return context_.get(); }

  /// Makes the context current on this window, creating it on first use. False when there is
  /// no platform window yet or OpenGL fails.
  bool makeCurrent() {
    if (!handle()) return false;
    if (!context_) {
      auto context = std::make_unique<QOpenGLContext>();
      context->setFormat(requestedFormat());
      if (!context->create()) {
        std::fprintf(stderr, "handsim: cannot create an OpenGL context for the viewport\n");
        return false;
      }
      context_ = std::move(context);
    }
    return context_->makeCurrent(this);
  }

  void requestFrame() {
    if (pending_) return;
    pending_ = true;
    QCoreApplication::postEvent(this, new QEvent(QEvent::UpdateRequest));
  }

  void renderNow() {
    pending_ = false;
    if (!owner_ || !isExposed() || !makeCurrent()) return;
    if (!initialized_) {
      initialized_ = true;
      owner_->initializeGL();
    }
    owner_->paintGL();
    context_->swapBuffers(this);
  }

 protected:
  bool event(QEvent* e) override {
    switch (e->type()) {
      case QEvent::UpdateRequest:
        renderNow();
        return true;
      case QEvent::DragEnter:
      case QEvent::DragMove: {
        // Only files the window can open, as the viewport widget's own dragEnterEvent.
        auto* drag = static_cast<QDragMoveEvent*>(e);
        if (owner_ && !droppableFiles(drag->mimeData()).isEmpty())
          drag->acceptProposedAction();
        else
          drag->ignore();
        return true;
      }
      case QEvent::Drop:
        if (owner_) owner_->dropEvent(static_cast<QDropEvent*>(e));
        return true;
      default:
        return QWindow::event(e);
    }
  }
  void exposeEvent(QExposeEvent*) override {
    if (isExposed()) renderNow();
  }
  void resizeEvent(QResizeEvent*) override { requestFrame(); }
  void mousePressEvent(QMouseEvent* e) override {
    if (!owner_) return;
    owner_->setFocus(Qt::MouseFocusReason);  // the keyboard follows the click, as in a widget
    owner_->mousePressEvent(e);
  }
  void mouseDoubleClickEvent(QMouseEvent* e) override { mousePressEvent(e); }
  void mouseReleaseEvent(QMouseEvent* e) override {
    if (owner_) owner_->mouseReleaseEvent(e);
  }
  void mouseMoveEvent(QMouseEvent* e) override {
    if (owner_) owner_->mouseMoveEvent(e);
  }
  void wheelEvent(QWheelEvent* e) override {
    if (owner_) owner_->wheelEvent(e);
  }
  // Only if a window system gives this window the keyboard after all: on to the widgets.
  void keyPressEvent(QKeyEvent* e) override {
    if (owner_) QCoreApplication::sendEvent(owner_, e);
  }
  void keyReleaseEvent(QKeyEvent* e) override {
    if (owner_) QCoreApplication::sendEvent(owner_, e);
  }

 private:
  OsgViewport* owner_;
  std::unique_ptr<QOpenGLContext> context_;
  bool initialized_ = false;
  bool pending_ = false;
};

OsgViewport::OsgViewport(SimulationController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
  setFocusPolicy(Qt::StrongFocus);
  setAcceptDrops(true);
  setMinimumSize(320, 240);
  native_ = new ViewportWindow(this);
  container_ = QWidget::createWindowContainer(native_, this);
  container_->setFocusPolicy(Qt::NoFocus);  // the focus stays on this widget
  container_->setAcceptDrops(false);        // drops land on this widget
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(container_);

  viewer_ = new osgViewer::Viewer;
  window_ = new osgViewer::GraphicsWindowEmbedded(0, 0, width(), height());
  viewer_->setThreadingModel(osgViewer::Viewer::SingleThreaded);
  window_->getEventQueue()->getCurrentEventState()->setMouseYOrientation(
      osgGA::GUIEventAdapter::Y_INCREASING_DOWNWARDS);
  // Qt decides when to paint; OSG must not drive its own frame loop or grab the keyboard.
  viewer_->setKeyEventSetsDone(0);
  viewer_->setQuitEventSetsDone(false);
  osg::Camera* camera = viewer_->getCamera();
  camera->setGraphicsContext(window_);
  camera->setViewport(0, 0, width(), height());
  camera->setClearColor(osg::Vec4(0.16f, 0.17f, 0.2f, 1.0f));
  camera->setProjectionMatrixAsPerspective(35.0, 4.0 / 3.0, 0.005, 50.0);
  camera->setNearFarRatio(0.0005);
  // Key light from the viewer plus a fixed fill light from above so shapes read well.
  viewer_->setLightingMode(osg::View::HEADLIGHT);
  osg::ref_ptr<osg::Light> fill = new osg::Light(1);
  fill->setPosition(osg::Vec4(0.3f, -0.4f, 1.0f, 0.0f));
  fill->setDiffuse(osg::Vec4(0.45f, 0.45f, 0.45f, 1.0f));
  fill->setAmbient(osg::Vec4(0.12f, 0.12f, 0.12f, 1.0f));
  fill->setSpecular(osg::Vec4(0.1f, 0.1f, 0.1f, 1.0f));
  osg::ref_ptr<osg::LightSource> fill_source = new osg::LightSource;
  fill_source->setLight(fill);
  // RELATIVE_RF under the untransformed root: the direction is in world coordinates, so this
  // light stays above the scene while the headlight follows the camera.
  fill_source->setReferenceFrame(osg::LightSource::RELATIVE_RF);
  scene_.root()->addChild(fill_source);
  scene_.root()->getOrCreateStateSet()->setMode(GL_LIGHT1, osg::StateAttribute::ON);

  viewer_->setSceneData(scene_.root());
  manipulator_ = new osgGA::TrackballManipulator;
  manipulator_->setAllowThrow(false);
  manipulator_->setVerticalAxisFixed(true);
  viewer_->setCameraManipulator(manipulator_, false);

  connect(controller_, &SimulationController::handChanged, this, &OsgViewport::onHandChanged);
  connect(controller_, &SimulationController::objectsChanged, this, &OsgViewport::onObjectsChanged);
  connect(controller_, &SimulationController::snapshotChanged, this, [this] {
    dirty_ = true;
    requestFrame();
  });
  onHandChanged();
  onObjectsChanged();
  setView(View::Fit);
  fps_clock_.start();
}

OsgViewport::~OsgViewport() {
  native_->detach();
  if (!gl_initialized_ || !native_->makeCurrent()) {
    // Never shown (an automated run that stopped on a load error): there is no GL context and
    // nothing to release, so OSG must not look for one ("OpenGL version test failed").
    viewer_->getCamera()->setGraphicsContext(nullptr);
    return;
  }
  // OSG releases its GL objects with the viewer: with the window's context current.
  viewer_ = nullptr;
  window_ = nullptr;
  native_->context()->doneCurrent();
}

void OsgViewport::requestFrame() {
  native_->requestFrame();
}

QWindow* OsgViewport::nativeWindow() const {
  return native_;
}

QSize OsgViewport::deviceSize() const {
  // OSG works in device pixels; Qt reports logical ones. The native window fills this widget
  // (it follows the widget's size through the container, also before it is first shown).
  const qreal dpr = native_->devicePixelRatio();
  return {std::max(1, static_cast<int>(std::lround(width() * dpr))),
          std::max(1, static_cast<int>(std::lround(height() * dpr)))};
}

Eigen::Vector3d OsgViewport::cameraEye() const {
  osg::Vec3d eye, centre, up;
  manipulator_->getInverseMatrix().getLookAt(eye, centre, up);
  return {eye.x(), eye.y(), eye.z()};
}

Eigen::Vector3d OsgViewport::cameraLook() const {
  osg::Vec3d eye, centre, up;
  manipulator_->getInverseMatrix().getLookAt(eye, centre, up);
  const osg::Vec3d d = centre - eye;
  return Eigen::Vector3d(d.x(), d.y(), d.z()).normalized();
}

QImage OsgViewport::grabFramebuffer() {
  if (!native_->makeCurrent()) return {};
  if (!gl_initialized_) initializeGL();
  const QSize size = deviceSize();
  QOpenGLFramebufferObjectFormat format;
  format.setAttachment(QOpenGLFramebufferObject::CombinedDepthStencil);
  format.setSamples(std::max(0, native_->format().samples()));
  QOpenGLFramebufferObject fbo(size, format);
  if (!fbo.isValid() || !fbo.bind()) return {};
  drawScene();
  QImage image = fbo.toImage();
  fbo.release();
  image.setDevicePixelRatio(native_->devicePixelRatio());
  return image;
}

QString OsgViewport::rendererName() {
  QOffscreenSurface surface;
  surface.create();
  QOpenGLContext context;
  if (!context.create() || !context.makeCurrent(&surface)) return {};
  const auto* name = context.functions()->glGetString(GL_RENDERER);
  const QString result = name ? QString::fromLatin1(reinterpret_cast<const char*>(name)) : QString();
  context.doneCurrent();
  return result;
}

void OsgViewport::setSamples(int samples) {
  g_samples = samples;
}

int OsgViewport::automaticSamples() {
  const QString name = rendererName().toLower();
  for (const char* software : {"llvmpipe", "softpipe", "swrast", "software"})
    if (name.contains(QLatin1String(software))) return 0;
  return 4;
}

void OsgViewport::onHandChanged() {
  scene_.setHand(controller_->model());
  dirty_ = true;
  requestFrame();
}

void OsgViewport::onObjectsChanged() {
  scene_.setObjects(controller_->objects());
  dirty_ = true;
  requestFrame();
}

void OsgViewport::setDisplayOptions(const DisplayOptions& options) {
  scene_.setOptions(options);
  dirty_ = true;
  requestFrame();
}

void OsgViewport::setWorkspace(const std::vector<Eigen::Vector3d>& points) {
  scene_.setWorkspace(points);
  requestFrame();
}

void OsgViewport::setView(View view) {
  syncFromSnapshot();
  // The grid is large; frame the hand and objects by their own bounds instead.
  osg::BoundingSphere content = scene_.contentBound();
  if (!content.valid()) content = scene_.root()->getBound();
  const osg::Vec3d c = content.center();
  const double r = std::max(static_cast<double>(content.radius()), 0.05);
  // The whole bounding sphere in view: at distance r / sin(half angle) of the narrower of the
  // vertical field of view (35 degrees) and the horizontal one of the widget's shape.
  const double half_v = osg::DegreesToRadians(35.0 / 2.0);
  const QSize size = deviceSize();
  const double aspect = static_cast<double>(size.width()) / size.height();
  const double half = std::min(half_v, std::atan(std::tan(half_v) * aspect));
  const double dist = r / std::sin(half);
  osg::Vec3d dir;
  osg::Vec3d up(0, 0, 1);
  switch (view) {
    case View::Front:
      dir = osg::Vec3d(0, -1, 0);
      break;
    case View::Side:
      dir = osg::Vec3d(1, 0, 0);
      break;
    case View::Top:
      dir = osg::Vec3d(0, 0, 1);
      up = osg::Vec3d(0, 1, 0);
      break;
    case View::Fit:
      dir = osg::Vec3d(0.9, -1.3, 0.75);
      break;
  }
  dir.normalize();
  manipulator_->setVerticalAxisFixed(view != View::Top);
  manipulator_->setHomePosition(c + dir * dist, c, up);
  manipulator_->home(0.0);
  last_view_ = view;
  at_preset_ = true;
  requestFrame();
}

bool OsgViewport::projectsInside(const Eigen::Vector3d& lo, const Eigen::Vector3d& hi) const {
  const osg::Matrixd clip =
      manipulator_->getInverseMatrix() * viewer_->getCamera()->getProjectionMatrix();
  for (int i = 0; i < 8; ++i) {
    const osg::Vec4d c = osg::Vec4d((i & 1) ? hi.x() : lo.x(), (i & 2) ? hi.y() : lo.y(),
                                    (i & 4) ? hi.z() : lo.z(), 1.0) *
                         clip;
    if (!(c.w() > 0.0) || std::abs(c.x()) > c.w() || std::abs(c.y()) > c.w()) return false;
  }
  return true;
}

void OsgViewport::syncFromSnapshot() {
  if (!dirty_) return;
  scene_.update(controller_->model(), controller_->state(), controller_->armBaseWorld());
  if (perturbed_ >= 0) updateDragMarker();  // the pulled point moves with its object
  dirty_ = false;
}

void OsgViewport::initializeGL() {
  gl_initialized_ = true;
  resizeViewer();
}

void OsgViewport::resizeViewer() {
  const QSize size = deviceSize();
  const int w = size.width(), h = size.height();
  window_->resized(0, 0, w, h);
  window_->getEventQueue()->windowResize(0, 0, w, h);
  viewer_->getCamera()->setViewport(0, 0, w, h);
  viewer_->getCamera()->setProjectionMatrixAsPerspective(35.0, static_cast<double>(w) / h, 0.005,
                                                         50.0);
}

void OsgViewport::drawScene() {
  syncFromSnapshot();
  // After a resize, docking, undocking or a screen change (the ratio may differ too).
  const QSize size = deviceSize();
  const osg::Viewport* vp = viewer_->getCamera()->getViewport();
  if (!vp || static_cast<int>(vp->width()) != size.width() ||
      static_cast<int>(vp->height()) != size.height()) {
    resizeViewer();
    // A preset frames the scene for the window's shape: keep it framed while the layout
    // settles.
    if (at_preset_) setView(last_view_);
  }
  viewer_->frame();
}

void OsgViewport::paintGL() {
  // A frame after a pause of over a second (loading, nothing to redraw) starts a new
  // measurement: until a second of frames has passed the rate is unknown (0, shown as a dash).
  if (!since_frame_.isValid() || since_frame_.elapsed() > 1000) {
    frame_rate_ = 0.0;
    frames_at_window_ = frames_;
    fps_clock_.restart();
  }
  since_frame_.restart();
  drawScene();
  ++frames_;
  const double elapsed = static_cast<double>(fps_clock_.elapsed()) * 1e-3;
  if (elapsed >= 1.0) {
    frame_rate_ = static_cast<double>(frames_ - frames_at_window_) / elapsed;
    frames_at_window_ = frames_;
    fps_clock_.restart();
  }
  Q_EMIT frameDrawn();
}

int OsgViewport::osgButton(Qt::MouseButton b, Qt::KeyboardModifiers m) {
  // osgGA numbering: 1 left, 2 middle, 3 right.
  if (b == Qt::LeftButton) return (m & Qt::ShiftModifier) ? 2 : 1;
  if (b == Qt::MiddleButton) return 2;
  if (b == Qt::RightButton) return 3;
  return 0;
}

osg::Matrixd OsgViewport::worldToWindow() const {
  const osg::Camera* camera = viewer_->getCamera();
  return camera->getViewMatrix() * camera->getProjectionMatrix() *
         camera->getViewport()->computeWindowMatrix();
}

QPointF OsgViewport::widgetPointOf(const Eigen::Vector3d& p, double* depth) const {
  const osg::Vec3d w = osg::Vec3d(p.x(), p.y(), p.z()) * worldToWindow();
  const qreal dpr = native_->devicePixelRatio();
  if (depth) *depth = w.z();
  return {w.x() / dpr, height() - w.y() / dpr};
}

osg::Vec3d OsgViewport::dragPointAt(const QPointF& logical) const {
  const qreal dpr = native_->devicePixelRatio();
  const osg::Vec3d window(logical.x() * dpr, height() * dpr - logical.y() * dpr, drag_depth_);
  return window * osg::Matrixd::inverse(worldToWindow());
}

void OsgViewport::updateDragMarker() {
  if (tip_target_ && drag_finger_ >= 0) {
    const Eigen::Vector3d tip = controller_->palmPose() * controller_->fingertip(drag_finger_);
    scene_.setDragTarget(tip_target_, tip, tip_reached_);
  } else if (perturbed_ >= 0 && controller_->perturbedObject() == perturbed_) {
    scene_.setDragTarget(controller_->perturbationTarget(), controller_->perturbationPoint(), true);
  } else {
    scene_.setDragTarget(std::nullopt, Eigen::Vector3d::Zero(), false);
  }
}

void OsgViewport::dragFingertip(const QPointF& logical) {
  const osg::Vec3d now = dragPointAt(logical);
  const osg::Vec3d moved = now - grab_start_;
  tip_target_ = tip_start_world_ + Eigen::Vector3d(moved.x(), moved.y(), moved.z());
  const Eigen::Vector3d target_palm = controller_->palmPose().inverse() * *tip_target_;
  QString error;
  const double miss_mm = controller_->followFingertip(drag_finger_, target_palm, &error) * 1000.0;
  const QString finger = QString::fromStdString(
      controller_->hand().fingers.at(static_cast<std::size_t>(drag_finger_)).name);
  // Within a millimetre counts as reached (the solver's own acceptance is finer).
  tip_reached_ = error.isEmpty() && miss_mm < 1.0;
  const QString message =
      !error.isEmpty() ? tr("%1: %2").arg(finger, error)
      : tip_reached_ ? tr("%1: fingertip %2 mm from its target").arg(finger).arg(miss_mm, 0, 'f', 1)
                     : tr("%1: out of reach; the fingertip misses its target by %2 mm")
                           .arg(finger)
                           .arg(miss_mm, 0, 'f', 1);
  updateDragMarker();
  requestFrame();
  Q_EMIT fingertipTargetMoved(message);
}

bool OsgViewport::startObjectDrag(const QPointF& logical, bool perturb) {
  syncFromSnapshot();
  const qreal dpr = native_->devicePixelRatio();
  const double x = logical.x() * dpr;
  const double y = height() * dpr - logical.y() * dpr;
  osg::ref_ptr<osgUtil::LineSegmentIntersector> picker =
      new osgUtil::LineSegmentIntersector(osgUtil::Intersector::WINDOW, x, y);
  osgUtil::IntersectionVisitor visitor(picker.get());
  viewer_->getCamera()->accept(visitor);
  for (const auto& hit : picker->getIntersections()) {
    const osg::Vec3d point = hit.getWorldIntersectPoint();
    const int index = scene_.objectIndexOf(hit.nodePath);
    if (perturb) {
      // Only a free object while the run plays: a pull on its grabbed point.
      if (index < 0 || !controller_->running() ||
          controller_->objects()[static_cast<std::size_t>(index)].fixed)
        return false;
      const Eigen::Vector3d world(point.x(), point.y(), point.z());
      const Eigen::Vector3d grab =
          controller_->liveState().object_pose_world.at(static_cast<std::size_t>(index)).inverse() *
          world;
      if (!controller_->setPerturbation(index, grab, world)) return false;
      perturbed_ = index;
      drag_depth_ = (point * worldToWindow()).z();
      updateDragMarker();
      return true;
    }
    if (index >= 0) {
      dragged_ = index;
      drag_point_ = point;
      drag_depth_ = (drag_point_ * worldToWindow()).z();
      return true;
    }
    const int finger = scene_.fingerIndexOf(hit.nodePath);
    if (finger >= 0) {
      drag_finger_ = finger;
      grab_start_ = point;
      drag_depth_ = (point * worldToWindow()).z();
      tip_start_world_ = controller_->palmPose() * controller_->fingertip(finger);
      tip_target_ = tip_start_world_;
      tip_reached_ = true;
      updateDragMarker();
      return true;
    }
  }
  return false;
}

void OsgViewport::dragObject(const QPointF& logical) {
  if (dragged_ < 0 || dragged_ >= static_cast<int>(controller_->objects().size())) return;
  const qreal dpr = native_->devicePixelRatio();
  const osg::Vec3d window(logical.x() * dpr, height() * dpr - logical.y() * dpr, drag_depth_);
  const osg::Vec3d now = window * osg::Matrixd::inverse(worldToWindow());
  const osg::Vec3d moved = now - drag_point_;
  drag_point_ = now;
  // The grabbed point follows the mouse in the plane parallel to the screen through it.
  const Eigen::Vector3d delta_world(moved.x(), moved.y(), moved.z());
  Eigen::Isometry3d pose = controller_->objectPose(dragged_);
  pose.translation() += delta_world;
  controller_->setObjectPose(dragged_, pose);
}

void OsgViewport::mousePressEvent(QMouseEvent* e) {
  at_preset_ = false;
  if ((e->button() == Qt::LeftButton || e->button() == Qt::RightButton) &&
      (e->modifiers() & Qt::ControlModifier) &&
      startObjectDrag(e->position(), e->button() == Qt::RightButton))
    return;
  const qreal dpr = native_->devicePixelRatio();
  window_->getEventQueue()->mouseButtonPress(
      static_cast<float>(e->position().x() * dpr), static_cast<float>(e->position().y() * dpr),
      static_cast<unsigned>(osgButton(e->button(), e->modifiers())));
  requestFrame();
}

void OsgViewport::mouseReleaseEvent(QMouseEvent* e) {
  if (dragged_ >= 0) {
    dragged_ = -1;
    Q_EMIT objectDragged();
    return;
  }
  if (drag_finger_ >= 0) {
    drag_finger_ = -1;
    tip_target_.reset();
    updateDragMarker();
    requestFrame();
    return;
  }
  if (perturbed_ >= 0) {
    perturbed_ = -1;
    controller_->clearPerturbation();
    updateDragMarker();
    requestFrame();
    return;
  }
  const qreal dpr = native_->devicePixelRatio();
  window_->getEventQueue()->mouseButtonRelease(
      static_cast<float>(e->position().x() * dpr), static_cast<float>(e->position().y() * dpr),
      static_cast<unsigned>(osgButton(e->button(), e->modifiers())));
  requestFrame();
}

void OsgViewport::mouseMoveEvent(QMouseEvent* e) {
  if (dragged_ >= 0) {
    dragObject(e->position());
    return;
  }
  if (drag_finger_ >= 0) {
    dragFingertip(e->position());
    return;
  }
  if (perturbed_ >= 0) {
    const osg::Vec3d target = dragPointAt(e->position());
    controller_->setPerturbation(perturbed_,
                                 controller_->liveState()
                                         .object_pose_world.at(static_cast<std::size_t>(perturbed_))
                                         .inverse() *
                                     controller_->perturbationPoint(),
                                 Eigen::Vector3d(target.x(), target.y(), target.z()));
    updateDragMarker();
    requestFrame();
    return;
  }
  const qreal dpr = native_->devicePixelRatio();
  window_->getEventQueue()->mouseMotion(static_cast<float>(e->position().x() * dpr),
                                        static_cast<float>(e->position().y() * dpr));
  requestFrame();
}

void OsgViewport::wheelEvent(QWheelEvent* e) {
  at_preset_ = false;
  window_->getEventQueue()->mouseScroll(e->angleDelta().y() > 0
                                            ? osgGA::GUIEventAdapter::SCROLL_UP
                                            : osgGA::GUIEventAdapter::SCROLL_DOWN);
  requestFrame();
}

void OsgViewport::dragEnterEvent(QDragEnterEvent* e) {
  // Only files the window can open (hands, scenes, meshes): anything else is refused here.
  if (!droppableFiles(e->mimeData()).isEmpty())
    e->acceptProposedAction();
  else
    e->ignore();
}

void OsgViewport::dropEvent(QDropEvent* e) {
  const QStringList paths = droppableFiles(e->mimeData());
  if (paths.isEmpty()) {
    e->ignore();
    return;
  }
  e->acceptProposedAction();
  Q_EMIT filesDropped(paths);
}

}  // namespace handsim::app
