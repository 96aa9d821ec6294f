// SPDX-License-Identifier: GPL-3.0-or-later
// Runs the real `handsim` executable under Xvfb (Mesa llvmpipe) with the automation flags and
// checks what its screenshot shows.
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QtTest>

namespace {

struct Census {
  int total = 0;
  int background = 0;
  int cube = 0;    ///< the cube's red-orange (diffuse 0.8 0.3 0.2), lit or shaded
  int metal = 0;   ///< the hand's grey links and palm, brighter than the background
  int broken = 0;  ///< the orange of an inner link whose clutch broke away
};

Census census(const QImage& image) {
  Census c;
  const QRgb bg = image.pixel(2, 2);
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QRgb p = image.pixel(x, y);
      ++c.total;
      const int r = qRed(p), g = qGreen(p), b = qBlue(p);
      if (std::abs(r - qRed(bg)) + std::abs(g - qGreen(bg)) + std::abs(b - qBlue(bg)) < 12) {
        ++c.background;
        continue;
      }
      if (r > 90 && r > 2 * g && r > 2 * b) ++c.cube;
      if (r > 150 && g > 70 && g < r - 40 && b < g - 40) ++c.broken;
      if (std::abs(r - g) < 18 && std::abs(g - b) < 24 && r > 70) ++c.metal;
    }
  return c;
}

QImage runApp(const QStringList& args, const QString& png, double scale = 1.0) {
  QFile::remove(png);
  QProcess app;
  if (scale != 1.0) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_SCALE_FACTOR"), QString::number(scale));
    app.setProcessEnvironment(env);
  }
  app.setProcessChannelMode(QProcess::ForwardedChannels);
  app.start(QStringLiteral(HANDSIM_APP_PATH),
            args + QStringList{QStringLiteral("--screenshot"), png});
  if (!app.waitForFinished(120000)) {
    app.kill();
    return {};
  }
  if (app.exitStatus() != QProcess::NormalExit || app.exitCode() != 0) return {};
  return QImage(png);
}

}  // namespace

class RenderTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void defaultSceneShowsHandAndCube() {
    const QString png = QStringLiteral(HANDSIM_TEST_OUTPUT_DIR "/default_scene.png");
    const QImage image = runApp({QStringLiteral("--quit-after"), QStringLiteral("2")}, png);
    QVERIFY2(!image.isNull(), "handsim did not write a screenshot");
    QVERIFY(image.width() > 200 && image.height() > 200);
    const Census c = census(image);
    qInfo("pixels %d, background %d, cube %d, hand %d", c.total, c.background, c.cube, c.metal);
    QVERIFY2(c.background < c.total * 95 / 100, "the image is (nearly) blank");
    QVERIFY2(c.cube > c.total / 500, "the cube is not visible");
    QVERIFY2(c.metal > c.total / 200, "the hand is not visible");
  }

  void hiDpiFillsTheWholeFramebuffer() {
    // At device pixel ratio 2 the scene must fill the framebuffer, not its lower-left quarter.
    const QImage image = runApp({QStringLiteral("--quit-after"), QStringLiteral("2"),
                                 QStringLiteral("--samples"), QStringLiteral("0")},
                                QStringLiteral(HANDSIM_TEST_OUTPUT_DIR "/hidpi.png"), 2.0);
    QVERIFY(!image.isNull());
    const Census c = census(image);
    QVERIFY2(c.cube > c.total / 500 && c.metal > c.total / 200, "hand or cube missing");
    int cube_top = image.height(), cube_right = 0;
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x) {
        const QRgb p = image.pixel(x, y);
        if (qRed(p) > 90 && qRed(p) > 2 * qGreen(p) && qRed(p) > 2 * qBlue(p)) {
          cube_top = std::min(cube_top, y);
          cube_right = std::max(cube_right, x);
        }
      }
    qInfo("image %dx%d, cube reaches x = %d, top y = %d", image.width(), image.height(), cube_right,
          cube_top);
    QVERIFY2(cube_right > image.width() / 2 && cube_top < image.height() / 2,
             "the scene is drawn in a corner of the framebuffer");
  }

  void breakawayScenarioShowsTheClosedFinger() {
    // Seed 000's experiment: the cube stops finger 3's inner link, the clutch breaks away at
    // about 1.8 s and the outer link closes on; the broken-away inner link turns orange.
    const QString scenario =
        QStringLiteral(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_breakaway_cube.json");
    const QImage start = runApp({QStringLiteral("--scene"), scenario,
                                 QStringLiteral("--quit-after"), QStringLiteral("0.5")},
                                QStringLiteral(HANDSIM_TEST_OUTPUT_DIR "/breakaway_start.png"));
    const QImage end = runApp({QStringLiteral("--scene"), scenario, QStringLiteral("--play"),
                               QStringLiteral("--quit-after"), QStringLiteral("6")},
                              QStringLiteral(HANDSIM_TEST_OUTPUT_DIR "/breakaway_end.png"));
    QVERIFY(!start.isNull() && !end.isNull());
    const Census a = census(start);
    const Census b = census(end);
    qInfo("clutch-orange pixels: start %d, end %d; cube %d -> %d", a.broken, b.broken, a.cube,
          b.cube);
    QVERIFY2(a.broken < 10, "the clutch shows broken before the run");
    QVERIFY2(b.broken > 25, "the broken-away inner link is not shown");
    int differing = 0;
    for (int y = 0; y < start.height() && y < end.height(); ++y)
      for (int x = 0; x < start.width() && x < end.width(); ++x)
        if (start.pixel(x, y) != end.pixel(x, y)) ++differing;
    QVERIFY2(differing > start.width() * start.height() / 200, "the finger did not close");
  }
};

QTEST_GUILESS_MAIN(RenderTest)
#include "test_render.moc"
