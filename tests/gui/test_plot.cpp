// SPDX-License-Identifier: GPL-3.0-or-later
// The plot library without a display (QT_QPA_PLATFORM=offscreen): exports exist and parse,
// and `handsim-cli simulate --plot` renders the same figure.
#include <QApplication>
#include <QDomDocument>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "handsim/hand/hand_loader.hpp"
#include "handsim/sim/scenario.hpp"
#include "signal_plot.hpp"

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}  // namespace

class PlotTest : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void exportsExistAndParse() {
    const handsim::sim::Scenario sc =
        handsim::sim::loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_close_free.json");
    const auto run = handsim::sim::runScenario(sc);
    const handsim::sim::Recorder& rec = run->recorder();
    const auto signals =
        handsim::plot::signalsFromRecorder(rec, {"F3.J2.angle", "F3.J3.torque", "M3.position"});
    QCOMPARE(signals.size(), std::size_t{3});
    QChart chart;
    handsim::plot::fillChart(chart, signals, QStringLiteral("test"));
    QCOMPARE(chart.series().size(), 3);
    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("p.png"));
    const QString svg = dir.filePath(QStringLiteral("p.svg"));
    const QString pdf = dir.filePath(QStringLiteral("p.pdf"));
    const QString csv = dir.filePath(QStringLiteral("p.csv"));
    handsim::plot::exportChart(chart, png);
    handsim::plot::exportChart(chart, svg);
    handsim::plot::exportChart(chart, pdf);
    handsim::plot::exportSignalsCsv(signals, csv);
    const QImage image(png);
    QVERIFY(!image.isNull());
    QCOMPARE(image.width(), 2000);
    QDomDocument doc;
    QVERIFY(doc.setContent(readAll(svg)));
    QCOMPARE(doc.documentElement().tagName(), QStringLiteral("svg"));
    const QByteArray pdf_bytes = readAll(pdf);
    QVERIFY(pdf_bytes.startsWith("%PDF-"));
    QVERIFY(pdf_bytes.trimmed().endsWith("%%EOF"));
    const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
    QCOMPARE(lines.front(), QByteArray("time,F3.J2.angle,F3.J3.torque,M3.position"));
    QCOMPARE(static_cast<std::size_t>(lines.size()), rec.rowCount() + 1);
    QCOMPARE(lines.back().split(',').size(), 4);
  }

  void axisTitlesUseTheRecorderUnits() {
    // anthro20's thumb slides on a prismatic joint: metres and newtons, not the radians a
    // column-name suffix would suggest.
    const handsim::hand::HandModel hand = handsim::hand::loadHand("anthro20");
    handsim::sim::Recorder rec(hand);
    rec.addChannel("custom", "kg", [](const handsim::sim::SimState&) { return 0.0; });
    QChart chart;
    const auto title = [&chart] { return chart.axes(Qt::Vertical).front()->titleText(); };
    handsim::plot::fillChart(chart, handsim::plot::signalsFromRecorder(rec, {"thumb.slot.angle"}),
                             QStringLiteral("t"));
    QCOMPARE(title(), QStringLiteral("m"));
    QCOMPARE(chart.series().front()->name(), QStringLiteral("thumb.slot.angle [m]"));
    handsim::plot::fillChart(chart,
                             handsim::plot::signalsFromRecorder(
                                 rec, {"thumb.slot.torque", "thumb.arc.torque", "custom"}),
                             QStringLiteral("t"));
    QCOMPARE(title(), QStringLiteral("N, N m, kg"));
  }

  void unknownSignalIsNamed() {
    const handsim::sim::Scenario sc =
        handsim::sim::loadScenario(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_close_free.json");
    handsim::sim::Recorder rec(*sc.hand);
    try {
      handsim::plot::signalsFromRecorder(rec, {"F9.J2.torque"});
      QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
      QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("F9.J2.torque")));
    }
  }

  void cliRendersThePlot() {
    QTemporaryDir dir;
    for (const char* ext : {"png", "svg", "pdf"}) {
      const QString out = dir.filePath(QStringLiteral("cli.") + QLatin1String(ext));
      QProcess cli;
      cli.start(QStringLiteral(HANDSIM_CLI_PATH),
                {QStringLiteral("simulate"),
                 QStringLiteral(HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_close_free.json"),
                 QStringLiteral("--quiet"), QStringLiteral("--plot"), out,
                 QStringLiteral("--signals"), QStringLiteral("F3.J2.torque,F3.J3.torque")});
      QVERIFY(cli.waitForFinished(120000));
      QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
      QVERIFY(QFile::exists(out));
      QVERIFY(QFile(out).size() > 1000);
    }
    QVERIFY(!QImage(dir.filePath(QStringLiteral("cli.png"))).isNull());
  }
};

QTEST_MAIN(PlotTest)
#include "test_plot.moc"
