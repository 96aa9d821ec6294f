// SPDX-License-Identifier: GPL-3.0-or-later
// Viewport measurements for docs/performance.md (not a pass/fail test): frame rate with
// the BarrettHand and a 100k-triangle object while the simulation runs, and the latency from a
// joint slider move to the end of the redrawn frame. Run under Xvfb:
//   xvfb-run -a -s "-screen 0 1600x1000x24" build/tests/gui/bench_viewport
// Issue #23's cases, with contacts and several objects, as a user sees them (1280 x 800, plot
// dock shown, contact arrows on) and with one cost taken away at a time, so the difference
// says where the time goes (simulation on the GUI thread, plot redraws, contact arrows,
// drawing):
//   bench_viewport auto grasp      the BarrettHand closing on the default 5 cm cube
//   bench_viewport auto can-shoe   the same with the YCB soup can and the GraspIt shoe of the
//                                  reference corpus (the folder HANDSIM_CORPUS_DIR names)
//                                  beside it; skipped without it; last, all three objects
//                                  made free (they fall onto the ground and the hand)
// Each case is measured twice as a user sees it: back to back (a new frame asked for as soon
// as one is drawn: what the machine can do) and paced (only the frames the application itself
// asks for, its run timer and the widgets' repaints: what a user gets). The load average is
// printed before and after, as the numbers depend on what else runs on the machine.
#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QSlider>
#include <QSurfaceFormat>
#include <QTemporaryDir>
#include <QTextStream>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "joint_panel.hpp"
#include "main_window.hpp"
#include "osg_viewport.hpp"
#include "simulation_controller.hpp"

namespace {

// A UV sphere of radius 3 cm with `rings` x `segments` quads (two triangles each) as OBJ.
QString writeSphere(const QString& path, int rings, int segments) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return {};
  QTextStream out(&file);
  const double r = 0.03, pi = 3.14159265358979323846;
  for (int i = 0; i <= rings; ++i)
    for (int j = 0; j < segments; ++j) {
      const double th = pi * i / rings, ph = 2.0 * pi * j / segments;
      out << "v " << r * std::sin(th) * std::cos(ph) << ' ' << r * std::sin(th) * std::sin(ph)
          << ' ' << r * std::cos(th) << '\n';
    }
  auto id = [&](int i, int j) { return i * segments + (j % segments) + 1; };
  for (int i = 0; i < rings; ++i)
    for (int j = 0; j < segments; ++j) {
      out << "f " << id(i, j) << ' ' << id(i + 1, j) << ' ' << id(i + 1, j + 1) << '\n';
      out << "f " << id(i, j) << ' ' << id(i + 1, j + 1) << ' ' << id(i, j + 1) << '\n';
    }
  return path;
}

double cpuSeconds(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

/// The 1-minute load average, or -1.
double loadAverage() {
  double load[1] = {-1.0};
  return getloadavg(load, 1) == 1 ? load[0] : -1.0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

/// Frames per second while the run plays for `seconds`, and the CPU time per frame of the main
/// thread and of all threads [ms].
struct Rate {
  double fps = 0.0;
  double main_ms = 0.0;
  double process_ms = 0.0;
};

/// Back to back (`paced` false): a new frame is asked for as soon as one is drawn. Paced: only
/// the frames the application asks for itself.
Rate measureFrames(handsim::app::OsgViewport* vp, double seconds, bool paced = false) {
  if (!paced)
    QObject::connect(vp, &handsim::app::OsgViewport::frameDrawn, vp,
                     [vp] { QTimer::singleShot(0, vp, [vp] { vp->requestFrame(); }); });
  vp->requestFrame();
  QEventLoop loop;
  QTimer::singleShot(500, &loop, &QEventLoop::quit);  // warm-up
  loop.exec();
  const long long f0 = vp->frameCount();
  const double process0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  const double main0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  QElapsedTimer clock;
  clock.start();
  QTimer::singleShot(static_cast<int>(seconds * 1000.0), &loop, &QEventLoop::quit);
  loop.exec();
  Rate r;
  const double frames = static_cast<double>(vp->frameCount() - f0);
  r.fps = frames / (static_cast<double>(clock.nsecsElapsed()) * 1e-9);
  r.process_ms = (cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - process0) * 1e3 / frames;
  r.main_ms = (cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - main0) * 1e3 / frames;
  if (!paced) QObject::disconnect(vp, &handsim::app::OsgViewport::frameDrawn, vp, nullptr);
  return r;
}

/// Issue #23's cases: `scene` "grasp" or "can-shoe". Returns the exit status.
int contactCases(const std::string& scene, int samples) {
  handsim::app::SimulationController controller;
  handsim::app::MainWindow window(&controller);
  window.setDialogsEnabled(false);
  window.loadDefaultScene();
  if (scene == "can-shoe") {
    const char* env = std::getenv("HANDSIM_CORPUS_DIR");  // the reference data's folder
    const QString corpus = env ? QString::fromLocal8Bit(env) : QString();
    const QString can = corpus + QStringLiteral("/meshes/ycb_tomato_soup_can.obj");
    const QString shoe = corpus + QStringLiteral("/vrml/graspit_shoe_1741.wrl");
    if (!QFileInfo::exists(can) || !QFileInfo::exists(shoe)) {
      std::printf("can-shoe: skipped, %s or %s not found (set HANDSIM_CORPUS_DIR)\n", qPrintable(can),
                  qPrintable(shoe));
      return 0;
    }
    if (!window.importObject(can)) return 1;
    // The shoe's file is in millimetres (285 mm long): read at 0.001, as the import dialog's
    // "Scale by 0.001" does, and placed in reach at that size (rescaling after the import
    // would keep the pose found for a 285 m shoe, far out of view).
    handsim::sim::ObjectModel object = controller.loadObjectFile(shoe.toStdString(), 0.001);
    const handsim::sim::Placement place = controller.placeInReach(object, false);
    controller.addObject(std::move(object), place.pose_world);
    window.viewport()->setView(handsim::app::OsgViewport::View::Fit);
  } else if (scene != "grasp") {
    std::fprintf(stderr, "bench_viewport: unknown case %s\n", scene.c_str());
    return 2;
  }
  window.resize(1280, 800);
  window.show();
  handsim::app::OsgViewport* vp = window.viewport();
  std::size_t triangles = 0;
  for (const auto& o : controller.objects()) {
    triangles += o.geometry->visual.triangleCount();
    const Eigen::Vector3d at =
        controller.objectPose(static_cast<int>(&o - &controller.objects()[0])).translation();
    std::printf("  %s at (%.0f, %.0f, %.0f) mm\n", o.name.c_str(), at.x() * 1e3, at.y() * 1e3,
                at.z() * 1e3);
  }
  std::printf(
      "case %s: samples %d, viewport %dx%d (device pixels), %zu objects, %zu object "
      "triangles\n",
      scene.c_str(), samples, static_cast<int>(vp->width() * vp->devicePixelRatioF()),
      static_cast<int>(vp->height() * vp->devicePixelRatioF()), controller.objects().size(),
      triangles);
  // The fingers close on the cube and stay closed (contacts all along).
  const auto close = [&controller] {
    controller.setTrajectories({{0, 17000.0, 3000.0, 20000.0, 0.0},
                                {1, 17000.0, 3000.0, 20000.0, 0.0},
                                {2, 17000.0, 3000.0, 20000.0, 0.0}});
    controller.setDuration(30.0);
    controller.play();
  };
  QDockWidget* plot = window.findChild<QDockWidget*>(QStringLiteral("PlotDock"));
  const auto contacts = [&window](bool on) {
    handsim::app::DisplayOptions o = window.viewport()->scene().options();
    o.contacts = on;
    window.viewport()->setDisplayOptions(o);
  };
  struct Variant {
    const char* name;
    bool simulate, plot, arrows, paced;
  } variants[] = {
      {"as a user sees it (simulating, plot dock, contact arrows)", true, true, true, false},
      {"the same, paced by the application", true, true, true, true},
      {"without the plot dock", true, false, true, false},
      {"without contact arrows", true, true, false, false},
      {"paused (drawing and plot only)", false, true, true, false},
      {"drawing only (paused, no plot dock, no arrows)", false, false, false, false}};
  std::printf("  load average %.2f\n", loadAverage());
  for (const Variant& v : variants) {
    close();
    // Until the fingers touch the cube (about 3.4 s simulated, whatever the machine's load);
    // they go on closing on it (to 5.8 s) and then hold it, in contact all along.
    while (controller.liveState().contacts.size() < 2 && controller.liveState().time < 10.0)
      controller.advance(0.05);
    if (!v.simulate) controller.pause();
    if (plot) plot->setVisible(v.plot);
    contacts(v.arrows);
    const Rate r = measureFrames(vp, 3.0, v.paced);
    std::printf(
        "  %-58s %6.1f fps, main thread %5.2f ms/frame, all threads %5.2f ms/frame, "
        "%d contact arrows\n",
        v.name, r.fps, r.main_ms, r.process_ms, vp->scene().drawnContactCount());
    controller.pause();
    controller.resetRun();
    if (plot) plot->setVisible(true);
    contacts(true);
  }
  if (scene == "can-shoe") {
    // The issue's own look at it: every object free (Objects > Free), falling onto the ground
    // and the hand while the fingers close; the simulation's share shows in the main thread's
    // time and the real-time factor.
    for (int i = 0; i < static_cast<int>(controller.objects().size()); ++i)
      controller.setObjectFree(i, true);
    for (const bool paced : {false, true}) {
      close();
      const Rate r = measureFrames(vp, 3.0, paced);
      const std::optional<double> rtf = controller.measuredRealTimeFactor();
      std::printf(
          "  %-58s %6.1f fps, main thread %5.2f ms/frame, all threads %5.2f ms/frame, "
          "%d contact arrows, RTF %.2f, t = %.2f s\n",
          paced ? "objects free, paced by the application" : "objects free (back to back)", r.fps,
          r.main_ms, r.process_ms, vp->scene().drawnContactCount(), rtf ? *rtf : -1.0,
          controller.liveState().time);
      controller.pause();
      controller.resetRun();
    }
  }
  std::printf("  load average %.2f\n", loadAverage());
  return 0;
}

int main(int argc, char** argv) {
  QSurfaceFormat format;
  format.setProfile(QSurfaceFormat::CompatibilityProfile);
  format.setVersion(2, 1);
  format.setDepthBufferSize(24);
  // Same format as the application unless told otherwise:
  //   bench_viewport [SAMPLES|auto] [no-object|object|trivial] [full-detail]
  // "trivial" draws nothing but the clear colour: the ceiling that Qt's composition of the
  // window and the rasteriser leave on this machine.
  const bool automatic = argc <= 1 || std::string(argv[1]) == "auto";
  int samples = automatic ? 0 : std::atoi(argv[1]);
  const bool trivial = argc > 2 && std::string(argv[2]) == "trivial";
  const bool with_object = !trivial && !(argc > 2 && std::string(argv[2]) == "no-object");
  const bool full_detail = argc > 3 && std::string(argv[3]) == "full-detail";
  format.setSamples(samples);
  QSurfaceFormat::setDefaultFormat(format);
  QApplication app(argc, argv);
  if (automatic) {
    samples = handsim::app::OsgViewport::automaticSamples();
    handsim::app::OsgViewport::setSamples(samples);
  }
  QApplication::setOrganizationName(QStringLiteral("handsim-bench"));
  if (argc > 2 && (std::string(argv[2]) == "grasp" || std::string(argv[2]) == "can-shoe"))
    return contactCases(argv[2], samples);
  handsim::app::SimulationController controller;
  handsim::app::MainWindow window(&controller);
  window.setDialogsEnabled(false);
  window.loadDefaultScene();
  QTemporaryDir dir;
  const QString sphere = writeSphere(dir.filePath(QStringLiteral("sphere100k.obj")), 224, 224);
  if (with_object && !window.importObject(sphere)) return 1;
  if (trivial) window.viewport()->scene().root()->setNodeMask(0u);
  if (full_detail) {
    handsim::app::DisplayOptions o = window.viewport()->scene().options();
    o.full_detail = true;
    window.viewport()->setDisplayOptions(o);
  }
  window.resize(1280, 800);
  window.show();
  handsim::app::OsgViewport* vp = window.viewport();
  std::size_t triangles = 0;
  for (const auto& o : controller.objects()) triangles += o.geometry->visual.triangleCount();

  // Frame rate: redraw as fast as possible for 5 s while a scenario-like close runs.
  controller.setTrajectories({{0, 14000.0, 3000.0, 20000.0, 0.0},
                              {1, 14000.0, 3000.0, 20000.0, 0.0},
                              {2, 14000.0, 3000.0, 20000.0, 0.0}});
  controller.play();
  const double load_before = loadAverage();
  QObject::connect(vp, &handsim::app::OsgViewport::frameDrawn, vp,
                   [vp] { QTimer::singleShot(0, vp, [vp] { vp->requestFrame(); }); });
  vp->requestFrame();
  QElapsedTimer clock;
  QEventLoop loop;
  QTimer::singleShot(1000, &loop, &QEventLoop::quit);  // warm-up
  loop.exec();
  const long long f0 = vp->frameCount();
  const double process0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  const double main0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  clock.start();
  QTimer::singleShot(5000, &loop, &QEventLoop::quit);
  loop.exec();
  const double frames = static_cast<double>(vp->frameCount() - f0);
  const double fps = frames / (static_cast<double>(clock.nsecsElapsed()) * 1e-9);
  // CPU time per frame does not depend on what else runs on the machine: all threads (the
  // rasteriser's included) and the main thread (Qt, OSG, the simulation, llvmpipe's vertex
  // stage and triangle set-up).
  const double process_ms = (cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - process0) * 1e3 / frames;
  const double main_ms = (cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - main0) * 1e3 / frames;
  controller.pause();
  QObject::disconnect(vp, &handsim::app::OsgViewport::frameDrawn, vp, nullptr);

  // Latency: slider value set -> controller -> snapshot -> frame drawn.
  controller.setTrajectories({});
  controller.resetToZero();
  const int m3 = controller.hand().actuatorIndex("M3");
  QSlider* slider = window.jointPanel()->slider(m3);
  std::vector<double> latencies;
  for (int i = 0; i < 60; ++i) {
    QEventLoop wait;
    QTimer::singleShot(30, &wait, &QEventLoop::quit);
    wait.exec();  // idle between moves, as a hand on a mouse would be
    QEventLoop frame;
    const auto c =
        QObject::connect(vp, &handsim::app::OsgViewport::frameDrawn, &frame, &QEventLoop::quit);
    QElapsedTimer t;
    t.start();
    slider->setValue((i % 2) ? 12000 : 2000);
    frame.exec();
    latencies.push_back(static_cast<double>(t.nsecsElapsed()) * 1e-6);
    QObject::disconnect(c);
  }
  std::printf("samples %d%s%s%s, viewport %dx%d (device pixels), object triangles %zu\n", samples,
              automatic ? " (automatic)" : "", full_detail ? ", full detail" : "",
              trivial ? ", nothing drawn" : "",
              static_cast<int>(vp->width() * vp->devicePixelRatioF()),
              static_cast<int>(vp->height() * vp->devicePixelRatioF()), triangles);
  std::printf("frame rate while simulating: %.1f fps\n", fps);
  std::printf("CPU per frame: %.2f ms all threads, %.2f ms main thread; on two idle cores at most "
              "%.0f fps\n",
              process_ms, main_ms, 1e3 / std::max(main_ms, process_ms / 2.0));
  std::printf("slider -> redrawn frame: median %.1f ms, max %.1f ms (%zu moves)\n",
              median(latencies), *std::max_element(latencies.begin(), latencies.end()),
              latencies.size());
  std::printf("load average %.2f before, %.2f after\n", load_before, loadAverage());
  return 0;
}
