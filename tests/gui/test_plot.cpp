// SPDX-License-Identifier: GPL-3.0-or-later
// The plot library without a display (QT_QPA_PLATFORM=offscreen), checked on the exported
// files: round ticks read from the SVG's tick labels, one unit per axis title, event lines at
// the times found again here from the recorder's columns, journal sizes, the seed 000 preset,
// and `handsim-cli simulate --plot` with its flags.
#include <QApplication>
#include <QDomDocument>
#include <QFile>
#include <QImage>
#include <QPainter>
#include <QProcess>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <map>

#include "handsim/formats/scenario.hpp"
#include "render.hpp"
#include "signal_plot.hpp"

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

std::vector<QDomElement> groups(const QDomDocument& doc, const QString& cls) {
  std::vector<QDomElement> out;
  const QDomNodeList all = doc.elementsByTagName(QStringLiteral("g"));
  for (int i = 0; i < all.size(); ++i) {
    const QDomElement e = all.at(i).toElement();
    if (e.attribute(QStringLiteral("class")) == cls) out.push_back(e);
  }
  return out;
}

QDomElement child(const QDomElement& g, const QString& tag) {
  return g.firstChildElement(tag);
}

const char* kBreakaway = HANDSIM_SOURCE_DIR "/assets/scenarios/barrett_breakaway_cube.json";

// Label texts of one axis must be k * step, step = {1, 2, 2.5, 5} * 10^n, evenly spaced, and
// their tick lines evenly spaced on the page.
void checkRoundAxis(const std::vector<QDomElement>& ticks, const QString& where) {
  QVERIFY2(ticks.size() >= 4 && ticks.size() <= 8, qPrintable(where));
  std::vector<double> v, pos;
  for (const QDomElement& g : ticks) {
    // The drawn text (an outline) carries its words; they match the tick's label.
    const QDomElement text = child(g, QStringLiteral("path"));
    QVERIFY2(!text.attribute(QStringLiteral("d")).isEmpty(), qPrintable(where));
    const QString label = text.attribute(QStringLiteral("aria-label"));
    QCOMPARE(label, g.attribute(QStringLiteral("data-label")));
    bool ok = false;
    v.push_back(label.toDouble(&ok));
    QVERIFY2(ok, qPrintable(where + ": " + label));
    const QDomElement line = child(g, QStringLiteral("line"));
    const bool vertical =
        line.attribute(QStringLiteral("x1")) == line.attribute(QStringLiteral("x2"));
    pos.push_back(
        line.attribute(vertical ? QStringLiteral("x1") : QStringLiteral("y1")).toDouble());
  }
  const double step = v[1] - v[0];
  QVERIFY2(step > 0, qPrintable(where));
  const double decade = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
  const double m = step / decade;
  QVERIFY2(std::fabs(m - 1) < 1e-9 || std::fabs(m - 2) < 1e-9 || std::fabs(m - 2.5) < 1e-9 ||
               std::fabs(m - 5) < 1e-9,
           qPrintable(where + QStringLiteral(": step %1").arg(step)));
  for (std::size_t i = 0; i < v.size(); ++i) {
    QVERIFY2(std::fabs(v[i] - v[0] - static_cast<double>(i) * step) < 1e-9 * std::fabs(step) * 10,
             qPrintable(where));
    QVERIFY2(std::fabs(v[i] / step - std::round(v[i] / step)) < 1e-6, qPrintable(where));
    // Evenly spaced on the page (the file holds two decimals).
    const double spacing = (pos.back() - pos.front()) / static_cast<double>(pos.size() - 1);
    QVERIFY2(std::fabs(pos[i] - pos.front() - static_cast<double>(i) * spacing) < 0.011,
             qPrintable(where));
  }
}

}  // namespace

class PlotTest : public QObject {
  Q_OBJECT
 private:
  std::unique_ptr<handsim::sim::Run> run_;
  QTemporaryDir dir_;

  QDomDocument exportSvg(const std::vector<std::string>& columns,
                         const handsim::plot::FigureOptions& options, const QString& name) {
    const auto fig =
        handsim::plot::buildFigure(run_->recorder(), columns, options,
                                   handsim::plot::eventsFromWarnings(run_->state().warnings));
    const QString path = dir_.filePath(name);
    handsim::plot::exportFigure(fig, path, {3.5, 0.0});
    QDomDocument doc;
    if (!doc.setContent(readAll(path))) qFatal("cannot parse %s", qPrintable(path));
    return doc;
  }

 private Q_SLOTS:
  void initTestCase() { run_ = handsim::sim::runScenario(handsim::sim::loadScenario(kBreakaway)); }

  void exportsHaveJournalSizesAndNeedNoFont() {
    const std::vector<std::string> cols{"F3.J2.torque", "F3.J3.torque", "F3.J2.contact_force"};
    const auto fig = handsim::plot::buildFigure(run_->recorder(), cols, {});
    QCOMPARE(fig.panels.size(), std::size_t{2});
    const QString png = dir_.filePath(QStringLiteral("p.png"));
    const QString svg = dir_.filePath(QStringLiteral("p.svg"));
    const QString pdf = dir_.filePath(QStringLiteral("p.pdf"));
    const double h = handsim::plot::figureHeight(fig, {3.5, 0.0});
    // Chosen height: each panel's plot area 0.8 in, plus legends, event labels and time axis.
    QVERIFY(h > 2 * 0.8 + 0.5 && h < 2 * 0.8 + 1.5);
    handsim::plot::exportFigure(fig, png, {3.5, 0.0}, 300);
    handsim::plot::exportFigure(fig, svg, {3.5, 0.0});
    handsim::plot::exportFigure(fig, pdf, {7.0, 4.0});
    const QImage image(png);
    QCOMPARE(image.width(), 1050);
    QCOMPARE(image.height(), static_cast<int>(std::lround(h * 300)));
    QCOMPARE(std::lround(image.dotsPerMeterX() * 0.0254), 300L);
    // SVG: inches on the page, text as outlines, so no font needs to be installed to view it.
    const QByteArray svg_text = readAll(svg);
    QDomDocument doc;
    QVERIFY(doc.setContent(svg_text));
    QCOMPARE(doc.documentElement().attribute(QStringLiteral("width")), QStringLiteral("3.5in"));
    QVERIFY(!svg_text.contains("<text"));
    QVERIFY(!svg_text.contains("font-family"));
    QSvgRenderer renderer(svg_text);
    QVERIFY(renderer.isValid());
    QImage drawn(350, static_cast<int>(h * 100), QImage::Format_ARGB32);
    drawn.fill(Qt::white);
    {
      QPainter p(&drawn);
      renderer.render(&p);
    }
    int dark = 0;
    for (int y = 0; y < drawn.height(); ++y)
      for (int x = 0; x < drawn.width(); ++x) dark += qGray(drawn.pixel(x, y)) < 128;
    QVERIFY(dark > 500);
    const QByteArray pdf_bytes = readAll(pdf);
    QVERIFY(pdf_bytes.startsWith("%PDF-"));
    QVERIFY(pdf_bytes.trimmed().endsWith("%%EOF"));
    // 7 x 4 in in points, and no fonts: the text is outlines.
    const QRegularExpressionMatch box =
        QRegularExpression(QStringLiteral("/MediaBox \\[0 0 ([0-9.]+) ([0-9.]+)\\]"))
            .match(QString::fromLatin1(pdf_bytes));
    QVERIFY(box.hasMatch());
    QCOMPARE(box.captured(1).toDouble(), 504.0);
    QCOMPARE(box.captured(2).toDouble(), 288.0);
    QVERIFY(!pdf_bytes.contains("/FontFile"));
  }

  void svgTicksAreRoundWithOneUnitPerAxisTitle() {
    for (bool overlay : {false, true}) {
      handsim::plot::FigureOptions opt;
      opt.overlay = overlay;
      const QDomDocument doc = exportSvg(
          {"F3.J2.torque", "F3.J3.torque", "F3.J2.contact_force", "F3.J2.angle", "M3.position"},
          opt, QStringLiteral("ticks.svg"));
      std::map<QString, std::vector<QDomElement>> axes;
      for (const QDomElement& g : groups(doc, QStringLiteral("ytick")))
        axes[g.attribute(QStringLiteral("data-panel")) + "/" +
             g.attribute(QStringLiteral("data-axis"))]
            .push_back(g);
      QCOMPARE(axes.size(), std::size_t{4});  // N m, N, rad, counts
      for (const auto& [where, ticks] : axes) checkRoundAxis(ticks, where);
      checkRoundAxis(groups(doc, QStringLiteral("xtick")), QStringLiteral("time"));
      // Only the bottom panel labels time; the others have the tick marks.
      const auto marks = groups(doc, QStringLiteral("xtick-mark"));
      QCOMPARE(marks.size(),
               overlay ? std::size_t{0} : 3 * groups(doc, QStringLiteral("xtick")).size());
      const auto titles = groups(doc, QStringLiteral("axis-title"));
      QCOMPARE(titles.size(), std::size_t{5});  // four y axes and time
      QStringList units;
      for (const QDomElement& t : titles) {
        const QString text = t.attribute(QStringLiteral("data-text"));
        QCOMPARE(text.count('['), 1);
        QCOMPARE(text.count(']'), 1);
        const QString unit =
            text.mid(text.indexOf('[') + 1, text.indexOf(']') - text.indexOf('[') - 1);
        QCOMPARE(unit, t.attribute(QStringLiteral("data-unit")));
        QVERIFY2(!units.contains(unit), qPrintable(unit));
        units << unit;
      }
      units.sort();
      QCOMPARE(units, QStringList({"N", "N m", "counts", "rad", "s"}));
    }
  }

  void eventLinesAtTheRecordedTimes() {
    const handsim::sim::Recorder& rec = run_->recorder();
    const QDomDocument doc =
        exportSvg({"F3.J2.torque", "F3.J2.contact_force"}, {}, QStringLiteral("events.svg"));
    // Found again here from the columns: forces rising from zero, the clutch flag's changes.
    const std::vector<double> t = rec.series("time");
    std::vector<std::pair<double, QString>> expected;
    for (const std::string& c : rec.columns()) {
      const bool force = c.size() > 14 && c.substr(c.size() - 14) == ".contact_force";
      const bool clutch = c.size() > 7 && c.substr(c.size() - 7) == ".clutch";
      if (!force && !clutch) continue;
      const std::vector<double> v = rec.series(c);
      const QString owner = QString::fromStdString(c.substr(0, c.size() - (force ? 14 : 7)));
      for (std::size_t r = 1; r < v.size(); ++r) {
        if (force && v[r - 1] == 0.0 && v[r] > 0.0) expected.push_back({t[r], owner + " contact"});
        if (clutch && v[r - 1] != v[r])
          expected.push_back({t[r], owner + (v[r] > 0.5 ? " break-away" : " re-engaged")});
      }
    }
    QCOMPARE(expected.size(), std::size_t{3});  // F3.J2 contact, F3 break-away, F3.J3 contact
    const auto events = groups(doc, QStringLiteral("event"));
    QCOMPARE(events.size(), expected.size());
    // Page x of a time, from the printed time ticks.
    const auto xt = groups(doc, QStringLiteral("xtick"));
    const double v0 = xt.front().attribute(QStringLiteral("data-label")).toDouble();
    const double v1 = xt.back().attribute(QStringLiteral("data-label")).toDouble();
    const double x0 =
        child(xt.front(), QStringLiteral("line")).attribute(QStringLiteral("x1")).toDouble();
    const double x1 =
        child(xt.back(), QStringLiteral("line")).attribute(QStringLiteral("x1")).toDouble();
    const auto panels = groups(doc, QStringLiteral("panel"));
    for (const auto& [time, label] : expected) {
      bool found = false;
      for (const QDomElement& e : events) {
        if (e.attribute(QStringLiteral("data-label")) != label ||
            std::fabs(e.attribute(QStringLiteral("data-time")).toDouble() - time) > 1e-12)
          continue;
        found = true;
        const double x = x0 + (time - v0) / (v1 - v0) * (x1 - x0);
        // A leader from the label and one line per panel, all at the event's x.
        const QDomNodeList lines = e.elementsByTagName(QStringLiteral("line"));
        QCOMPARE(lines.size(), static_cast<int>(panels.size()) + 1);
        for (int i = 0; i < lines.size(); ++i) {
          QVERIFY(std::fabs(lines.at(i).toElement().attribute(QStringLiteral("x1")).toDouble() -
                            x) < 0.02);
          QVERIFY(std::fabs(lines.at(i).toElement().attribute(QStringLiteral("x2")).toDouble() -
                            x) < 0.02);
        }
        QCOMPARE(child(e, QStringLiteral("path")).attribute(QStringLiteral("aria-label")), label);
      }
      QVERIFY2(found, qPrintable(label));
    }
    // Without events: none drawn.
    handsim::plot::FigureOptions off;
    off.events = false;
    QVERIFY(
        groups(exportSvg({"F3.J2.torque"}, off, QStringLiteral("off.svg")), QStringLiteral("event"))
            .empty());
  }

  void emptyPlotSaysNoData() {
    const QDomDocument doc = exportSvg({}, {}, QStringLiteral("empty.svg"));
    QVERIFY(groups(doc, QStringLiteral("panel")).empty());
    const auto nodata = groups(doc, QStringLiteral("no-data"));
    QCOMPARE(nodata.size(), std::size_t{1});
    QCOMPARE(child(nodata.front(), QStringLiteral("path")).attribute(QStringLiteral("aria-label")),
             QStringLiteral("no data"));
    QVERIFY(!doc.toByteArray().contains("..."));
  }

  void unknownSignalIsNamed() {
    try {
      handsim::plot::signalsFromRecorder(run_->recorder(), {"F9.J2.torque"});
      QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
      QVERIFY(QString::fromUtf8(e.what()).contains(QStringLiteral("F9.J2.torque")));
    }
  }

  void cliRendersTheSeed000Figure() {
    for (const char* ext : {"png", "svg", "pdf"}) {
      const QString out = dir_.filePath(QStringLiteral("seed000.") + QLatin1String(ext));
      QProcess cli;
      cli.start(
          QStringLiteral(HANDSIM_CLI_PATH),
          {QStringLiteral("simulate"), QString::fromUtf8(kBreakaway), QStringLiteral("--quiet"),
           QStringLiteral("--plot"), out, QStringLiteral("--preset"), QStringLiteral("seed000")});
      QVERIFY(cli.waitForFinished(120000));
      QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
      QVERIFY(QFile(out).size() > 1000);
    }
    const QImage png(dir_.filePath(QStringLiteral("seed000.png")));
    QCOMPARE(png.width(), 1050);  // single column at 300 dpi
    QDomDocument doc;
    QVERIFY(doc.setContent(readAll(dir_.filePath(QStringLiteral("seed000.svg")))));
    QStringList quantities;
    for (const QDomElement& t : groups(doc, QStringLiteral("axis-title")))
      quantities << t.attribute(QStringLiteral("data-text")).section(QStringLiteral(" ["), 0, 0);
    QCOMPARE(quantities,
             QStringList({"angle", "velocity", "acceleration", "torque", "contact force", "time"}));
    QStringList labels;
    for (const QDomElement& e : groups(doc, QStringLiteral("event")))
      labels << e.attribute(QStringLiteral("data-label"));
    QVERIFY(labels.contains(QStringLiteral("F3 break-away")));
    QVERIFY(labels.contains(QStringLiteral("F3.J2 contact")));
  }

  void cliSizesAndBadValues() {
    const QString out = dir_.filePath(QStringLiteral("cli.png"));
    const auto runCli = [&](const QStringList& extra, QString* err) {
      QProcess cli;
      cli.start(QStringLiteral(HANDSIM_CLI_PATH),
                QStringList{QStringLiteral("simulate"), QString::fromUtf8(kBreakaway),
                            QStringLiteral("--quiet")} +
                    extra);
      cli.waitForFinished(120000);
      *err = QString::fromUtf8(cli.readAllStandardError());
      return cli.exitCode();
    };
    QString err;
    QCOMPARE(runCli({"--plot", out, "--signals", "F3.J2.torque,F3.J2.contact_force", "--plot-size",
                     "5x2", "--dpi", "100", "--overlay", "--events", "off"},
                    &err),
             0);
    const QImage image(out);
    QCOMPARE(image.size(), QSize(500, 200));
    const std::vector<std::pair<QStringList, QString>> bad{
        {{"--plot", out, "--signals", "F3.J2.angle", "--plot-size", "wide"}, "--plot-size"},
        {{"--plot", out, "--signals", "F3.J2.angle", "--dpi", "12"}, "--dpi 12"},
        {{"--plot", dir_.filePath("x.svg"), "--signals", "F3.J2.angle", "--dpi", "300"},
         "--dpi applies to PNG"},
        {{"--plot", out, "--signals", "F3.J2.angle", "--events", "yes"}, "--events yes"},
        {{"--plot", out, "--preset", "seed001"}, "unknown preset"},
        {{"--plot", out, "--preset", "seed000", "--signals", "F3.J2.angle"}, "not both"},
        {{"--overlay"}, "--overlay needs --plot"},
        {{"--plot", out, "--signals", "F9.J2.angle"}, "F9.J2.angle"}};
    for (const auto& [args, message] : bad) {
      QCOMPARE(runCli(args, &err), 2);
      QVERIFY2(err.contains(message), qPrintable(err));
    }
  }
};

QTEST_MAIN(PlotTest)
#include "test_plot.moc"
