// SPDX-License-Identifier: GPL-3.0-or-later
// Viewport measurements for docs/performance.md (not a pass/fail test): frame rate with
// the BarrettHand and a 100k-triangle object while the simulation runs, and the latency from a
// joint slider move to the end of the redrawn frame. Run under Xvfb:
//   xvfb-run -a -s "-screen 0 1600x1000x24" build/tests/gui/bench_viewport
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
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

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

}  // namespace

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
  QObject::connect(vp, &handsim::app::OsgViewport::frameDrawn, vp,
                   [vp] { QTimer::singleShot(0, vp, [vp] { vp->update(); }); });
  vp->update();
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
  return 0;
}
